package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// MinNormalY is the smallest vertical component GroundOrientation gives an up axis:
// a near-vertical ground normal (a cliff face) would tip a vehicle over.
const MinNormalY = 0.05

// GroundOrientation returns the orientation of a vehicle standing on ground whose
// upward unit normal is n and heading the way fwd points: its up axis is n (raised to
// a vertical component of at least MinNormalY), its forward axis fwd's heading raised
// or lowered into the ground plane. A fwd pointing straight up or down faces +X.
func GroundOrientation(fwd, n mgl64.Vec3) mgl64.Quat {
	return GroundOrientationScaled(fwd, n, n)
}

// GroundOrientationScaled is GroundOrientation with big, any positive multiple of the
// unit normal n: the forward axis is computed from big, so its normalization does not
// wait for n's.
func GroundOrientationScaled(fwd, big, n mgl64.Vec3) mgl64.Quat {
	if n[1] < MinNormalY {
		n[1] = MinNormalY
		n = n.Normalize()
		big = n
	}
	fx, fz := fwd[0], fwd[2]
	if fx*fx+fz*fz < 1e-18 {
		fx, fz = 1, 0 // forward straight up or down: no heading to keep
	}
	// The forward axis is the heading direction lifted into the ground plane,
	// (fx, −(fx·nx + fz·nz)/ny, fz), scaled by ny to save a division.
	tx, ty, tz := fx*big[1], -(fx*big[0] + fz*big[2]), fz*big[1]
	k := 1 / math.Sqrt(tx*tx+ty*ty+tz*tz)
	t := mgl64.Vec3{tx * k, ty * k, tz * k}
	// t ⊥ n and both are unit, so right = t × n is unit and up = right × t is n.
	r := t.Cross(n)
	return UprightQuat(t[0], t[1], t[2], n[0], n[1], n[2], r[0], r[1], r[2])
}

// UprightQuat returns the unit quaternion whose rotation maps local +X, +Y, +Z onto
// the orthonormal right-handed axes t, n, s, for an up axis n with ny ≥ 0.
//
// The general conversion from a rotation matrix picks its formula by the largest
// component, a branch that follows the heading and so is mispredicted for a crowd
// facing every way. Here no branch is needed: with q = (w, x, y, z), w ≥ 0, the
// vectors (1 + tr, m21 − m12, m02 − m20, m10 − m01) = 4w·q and
// (m02 − m20, m01 + m10, 1 + m11 − m00 − m22, m12 + m21) = 4y·q are both multiples
// of q, and adding the second with the sign of m02 − m20 = 4wy gives 4(w + |y|)·q.
// Because m11 = ny = 1 − 2(x² + z²), w² + y² = (1 + ny)/2 ≥ ½, so w + |y| ≥ 0.7:
// the sum is never small, even when rounding gets the sign of a tiny wy wrong, and
// one normalization gives q to rounding (TestUprightQuat).
func UprightQuat(tx, ty, tz, nx, ny, nz, sx, sy, sz float64) mgl64.Quat {
	wy := sx - tz
	sg := math.Copysign(1, wy)
	qw := 1 + tx + ny + sz + math.Abs(wy)
	qx := nz - sy + sg*(nx+ty)
	qy := wy + sg*(1+ny-tx-sz)
	qz := ty - nx + sg*(sy+nz)
	k := 1 / math.Sqrt(qw*qw+qx*qx+qy*qy+qz*qz)
	return mgl64.Quat{W: qw * k, V: mgl64.Vec3{qx * k, qy * k, qz * k}}
}
