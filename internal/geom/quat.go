package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// The quaternion helpers below are written out in scalars rather than with mgl64's
// methods: they fix the order of every floating-point operation (the lab's results
// are reproducible to the bit) and they never allocate.

// AxisRotation returns the rotation by angle radians about the unit axis.
func AxisRotation(axis mgl64.Vec3, angle float64) mgl64.Quat {
	if angle == 0 {
		return mgl64.Quat{W: 1}
	}
	s, c := Sincos(0.5 * angle)
	return mgl64.Quat{W: c, V: mgl64.Vec3{axis[0] * s, axis[1] * s, axis[2] * s}}
}

// RotationQuat returns the rotation by the rotation vector w·t: about w's direction by
// |w|·t radians (w an angular velocity in rad/s, t a time in seconds). A zero w or t
// gives the identity.
func RotationQuat(w mgl64.Vec3, t float64) mgl64.Quat {
	l2 := w[0]*w[0] + w[1]*w[1] + w[2]*w[2]
	if l2 == 0 || t == 0 {
		return mgl64.Quat{W: 1}
	}
	l := math.Sqrt(l2)
	s, c := Sincos(0.5 * l * t)
	k := s / l
	return mgl64.Quat{W: c, V: mgl64.Vec3{w[0] * k, w[1] * k, w[2] * k}}
}

// QuatMul returns the product a·b (apply b, then a).
func QuatMul(a, b mgl64.Quat) mgl64.Quat {
	return mgl64.Quat{
		W: a.W*b.W - a.V[0]*b.V[0] - a.V[1]*b.V[1] - a.V[2]*b.V[2],
		V: mgl64.Vec3{
			a.W*b.V[0] + a.V[0]*b.W + a.V[1]*b.V[2] - a.V[2]*b.V[1],
			a.W*b.V[1] - a.V[0]*b.V[2] + a.V[1]*b.W + a.V[2]*b.V[0],
			a.W*b.V[2] + a.V[0]*b.V[1] - a.V[1]*b.V[0] + a.V[2]*b.W,
		},
	}
}

// QuatDot returns the 4D dot product of a and b.
func QuatDot(a, b mgl64.Quat) float64 {
	return a.W*b.W + a.V[0]*b.V[0] + a.V[1]*b.V[1] + a.V[2]*b.V[2]
}

// QuatUnit returns q scaled to unit length; q must be nonzero and finite (a product
// of unit quaternions, drifted by rounding). QuatNormalize takes any q.
func QuatUnit(q mgl64.Quat) mgl64.Quat {
	k := 1 / math.Sqrt(q.W*q.W+q.V[0]*q.V[0]+q.V[1]*q.V[1]+q.V[2]*q.V[2])
	return mgl64.Quat{W: q.W * k, V: mgl64.Vec3{q.V[0] * k, q.V[1] * k, q.V[2] * k}}
}

// QuatNormalize returns q scaled to unit length, or the identity for a zero or
// non-finite q. A q of unit length comes back unchanged.
func QuatNormalize(q mgl64.Quat) mgl64.Quat {
	l2 := QuatDot(q, q)
	if l2 == 0 || math.IsNaN(l2) || math.IsInf(l2, 0) {
		return mgl64.Quat{W: 1}
	}
	if l2 == 1 {
		return q
	}
	k := 1 / math.Sqrt(l2)
	return mgl64.Quat{W: q.W * k, V: mgl64.Vec3{q.V[0] * k, q.V[1] * k, q.V[2] * k}}
}

// UnitQuatAngle returns the rotation angle in radians, in [0, π], that takes unit
// quaternion a to b, ignoring the sign ambiguity of quaternions. Below about 6e-8 rad
// it reads 0: 2·acos of the dot product cannot resolve smaller angles.
func UnitQuatAngle(a, b mgl64.Quat) float64 {
	d := math.Abs(QuatDot(a, b))
	if d >= 1 {
		return 0
	}
	return 2 * math.Acos(d)
}

// QuatAngle returns the angle in radians, in [0, π], of the rotation between
// quaternions a and b, each normalized first (QuatNormalize). Because it reads the
// quaternions and never Euler angles, turning from 179° to −179° is a 2° rotation,
// not 358°.
func QuatAngle(a, b mgl64.Quat) float64 { return UnitQuatAngle(QuatNormalize(a), QuatNormalize(b)) }

// Rotate returns v rotated by unit quaternion q.
func Rotate(q mgl64.Quat, v mgl64.Vec3) mgl64.Vec3 {
	// v' = v + 2w(u×v) + 2u×(u×v), u the vector part.
	u := q.V
	tx := 2 * (u[1]*v[2] - u[2]*v[1])
	ty := 2 * (u[2]*v[0] - u[0]*v[2])
	tz := 2 * (u[0]*v[1] - u[1]*v[0])
	return mgl64.Vec3{
		v[0] + q.W*tx + (u[1]*tz - u[2]*ty),
		v[1] + q.W*ty + (u[2]*tx - u[0]*tz),
		v[2] + q.W*tz + (u[0]*ty - u[1]*tx),
	}
}

// RotationVector returns the rotation vector (axis times angle, radians) of the
// rotation from unit quaternion a to unit quaternion b in the world frame, that is the
// r with b = RotationQuat(r, 1)·a, taking the shorter way.
func RotationVector(a, b mgl64.Quat) mgl64.Vec3 {
	d := QuatMul(b, a.Conjugate())
	if d.W < 0 {
		d = mgl64.Quat{W: -d.W, V: mgl64.Vec3{-d.V[0], -d.V[1], -d.V[2]}}
	}
	s := d.V.Len()
	if s < 1e-12 {
		// Small angle: angle·axis ≈ 2·v.
		return d.V.Mul(2)
	}
	angle := 2 * math.Atan2(s, d.W)
	return d.V.Mul(angle / s)
}
