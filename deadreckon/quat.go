package deadreckon

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// axisRotation returns the rotation by angle radians about the unit axis.
func axisRotation(axis mgl64.Vec3, angle float64) mgl64.Quat {
	if angle == 0 {
		return mgl64.Quat{W: 1}
	}
	s, c := sincos(0.5 * angle)
	return mgl64.Quat{W: c, V: mgl64.Vec3{axis[0] * s, axis[1] * s, axis[2] * s}}
}

// rotationQuat returns the rotation by the rotation vector w·t: about w's direction by
// |w|·t radians. A zero w gives the identity.
func rotationQuat(w mgl64.Vec3, t float64) mgl64.Quat {
	l2 := w[0]*w[0] + w[1]*w[1] + w[2]*w[2]
	if l2 == 0 || t == 0 {
		return mgl64.Quat{W: 1}
	}
	l := math.Sqrt(l2)
	s, c := sincos(0.5 * l * t)
	k := s / l
	return mgl64.Quat{W: c, V: mgl64.Vec3{w[0] * k, w[1] * k, w[2] * k}}
}

// sincos returns math.Sincos(x). For 0 < |x| < π/4 (half the angle of any rotation
// under 90°, what a frame's reckoning nearly always asks for) it evaluates the same
// polynomials with the same coefficients and operations as math.Sincos does for that
// octant, where it needs no argument reduction, so the result is bitwise the same
// (TestSincosMatchesMath) at a fraction of the cost; other arguments go to math.Sincos.
func sincos(x float64) (sin, cos float64) {
	ax := math.Abs(x)
	if !(ax*(4/math.Pi) < 1) || ax == 0 {
		return math.Sincos(x)
	}
	zz := ax * ax
	cos = 1.0 - 0.5*zz + zz*zz*((((((sinCosC0*zz)+sinCosC1)*zz+sinCosC2)*zz+sinCosC3)*zz+sinCosC4)*zz+sinCosC5)
	sin = ax + ax*zz*((((((sinCosS0*zz)+sinCosS1)*zz+sinCosS2)*zz+sinCosS3)*zz+sinCosS4)*zz+sinCosS5)
	if x < 0 {
		sin = -sin
	}
	return sin, cos
}

// The minimax coefficients of sine and cosine on [0, π/4] (Cephes sin.c), the ones
// math.Sincos uses.
const (
	sinCosS0 = 1.58962301576546568060e-10
	sinCosS1 = -2.50507477628578072866e-8
	sinCosS2 = 2.75573136213857245213e-6
	sinCosS3 = -1.98412698295895385996e-4
	sinCosS4 = 8.33333333332211858878e-3
	sinCosS5 = -1.66666666666666307295e-1
	sinCosC0 = -1.13585365213876817300e-11
	sinCosC1 = 2.08757008419747316778e-9
	sinCosC2 = -2.75573141792967388112e-7
	sinCosC3 = 2.48015872888517045348e-5
	sinCosC4 = -1.38888888888730564116e-3
	sinCosC5 = 4.16666666666665929218e-2
)

// qmul returns the product a·b (apply b, then a).
func qmul(a, b mgl64.Quat) mgl64.Quat {
	return mgl64.Quat{
		W: a.W*b.W - a.V[0]*b.V[0] - a.V[1]*b.V[1] - a.V[2]*b.V[2],
		V: mgl64.Vec3{
			a.W*b.V[0] + a.V[0]*b.W + a.V[1]*b.V[2] - a.V[2]*b.V[1],
			a.W*b.V[1] - a.V[0]*b.V[2] + a.V[1]*b.W + a.V[2]*b.V[0],
			a.W*b.V[2] + a.V[0]*b.V[1] - a.V[1]*b.V[0] + a.V[2]*b.W,
		},
	}
}

// qdot returns the 4D dot product of a and b.
func qdot(a, b mgl64.Quat) float64 {
	return a.W*b.W + a.V[0]*b.V[0] + a.V[1]*b.V[1] + a.V[2]*b.V[2]
}

// unit returns q scaled to unit length; q must be nonzero and finite (a product of
// unit quaternions, drifted by rounding).
func unit(q mgl64.Quat) mgl64.Quat {
	k := 1 / math.Sqrt(q.W*q.W+q.V[0]*q.V[0]+q.V[1]*q.V[1]+q.V[2]*q.V[2])
	return mgl64.Quat{W: q.W * k, V: mgl64.Vec3{q.V[0] * k, q.V[1] * k, q.V[2] * k}}
}

// qnormalize returns q scaled to unit length, or the identity for a zero q.
func qnormalize(q mgl64.Quat) mgl64.Quat {
	l2 := qdot(q, q)
	if l2 == 0 || math.IsNaN(l2) || math.IsInf(l2, 0) {
		return mgl64.Quat{W: 1}
	}
	if l2 == 1 {
		return q
	}
	k := 1 / math.Sqrt(l2)
	return mgl64.Quat{W: q.W * k, V: mgl64.Vec3{q.V[0] * k, q.V[1] * k, q.V[2] * k}}
}

// slerpShort interpolates from unit quaternions a to b by u in [0, 1] along the
// shorter arc and returns a unit quaternion.
//
// Between close orientations (up to a 0.3 rad rotation, the common case in
// reckoning) it
// avoids trigonometry: it normalizes a linear interpolation whose parameter is
// corrected to second order in the arc, t = u + (Ω²/6)·u(1−u)(1−2u) with
// Ω² ≈ 2(1 − a·b), which keeps the angle error below 0.5 µrad (see
// TestSlerpShortAccuracy). Farther apart it uses the exact slerp. u = 0, ½ and 1 are
// exact on both paths.
func slerpShort(a, b mgl64.Quat, u float64) mgl64.Quat {
	d := qdot(a, b)
	if d < 0 {
		d = -d
		b = mgl64.Quat{W: -b.W, V: mgl64.Vec3{-b.V[0], -b.V[1], -b.V[2]}}
	}
	k, om, inv := slerpFactors(d)
	return slerpPrepared(a, b, u, k, om, inv)
}

// slerpFactors returns what slerpPrepared needs for unit quaternions whose dot
// product is d ≥ 0: for close ones (d > nlerpMinDot) the lerp correction k = (1−d)/3
// and om = 0; otherwise the arc om = acos d in radians and inv = 1/sin om.
func slerpFactors(d float64) (k, om, inv float64) {
	if d > nlerpMinDot {
		return (1 - d) / 3, 0, 0
	}
	om = math.Acos(min(d, 1))
	return 0, om, 1 / math.Sin(om)
}

// slerpPrepared is slerpShort from a to b (with a·b ≥ 0) given slerpFactors of a·b,
// so that a blend that keeps its ends computes them once (Actor.reckonBlend has it
// written out).
func slerpPrepared(a, b mgl64.Quat, u, k, om, inv float64) mgl64.Quat {
	var s, t float64
	if om == 0 {
		t = u + k*u*(1-u)*(1-2*u)
		s = 1 - t
		m := nlerpScale(s*t, k)
		s, t = s*m, t*m
	} else {
		s = math.Sin((1-u)*om) * inv
		t = math.Sin(u*om) * inv
	}
	q := mgl64.Quat{
		W: s*a.W + t*b.W,
		V: mgl64.Vec3{s*a.V[0] + t*b.V[0], s*a.V[1] + t*b.V[1], s*a.V[2] + t*b.V[2]},
	}
	if om != 0 {
		q = unit(q)
	}
	return q
}

// nlerpScale returns 1/|s·a + t·b| for unit quaternions a and b with a·b = 1 − 3k,
// s + t = 1, s, t ≥ 0 and a·b > nlerpMinDot, the lerp of slerpPrepared: the squared
// length is 1 − x with x = 2st(1 − a·b) = 6·st·k ≤ ½(1 − nlerpMinDot) < 0.0057, so
// the binomial series of (1 − x)^(−½) to x⁵ is within 1e-14 of it, without the
// square root and division of a normalization.
func nlerpScale(st, k float64) float64 {
	x := 6 * st * k
	x2 := x * x
	return 1 + 0.5*x + x2*((0.375+0.3125*x)+x2*(0.2734375+0.24609375*x))
}

// nlerpMinDot is the quaternion dot product above which slerpShort uses the corrected
// normalized lerp: cos 0.15, a 0.3 rad (17°) rotation.
const nlerpMinDot = 0.9887710779360422

// quatAngle returns the rotation angle in radians, in [0, π], that takes unit
// quaternion a to b, ignoring the sign ambiguity of quaternions.
func quatAngle(a, b mgl64.Quat) float64 {
	d := math.Abs(qdot(a, b))
	if d >= 1 {
		return 0
	}
	return 2 * math.Acos(d)
}

// QuatAngle returns the angle in radians, in [0, π], of the rotation between unit
// quaternions a and b. It is the orientation error the Publisher compares with its
// threshold: because it reads the quaternions and never Euler angles, turning from
// 179° to −179° is a 2° error, not 358°.
func QuatAngle(a, b mgl64.Quat) float64 { return quatAngle(qnormalize(a), qnormalize(b)) }

// rotate returns v rotated by unit quaternion q.
func rotate(q mgl64.Quat, v mgl64.Vec3) mgl64.Vec3 {
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

// rotationVector returns the rotation vector (axis times angle, radians) of the
// rotation from unit quaternion a to unit quaternion b in the world frame, that is the
// r with b = rotationQuat(r, 1)·a, taking the shorter way.
func rotationVector(a, b mgl64.Quat) mgl64.Vec3 {
	d := qmul(b, a.Conjugate())
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
