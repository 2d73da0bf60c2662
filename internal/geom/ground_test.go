package geom

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestGroundOrientation checks that the up axis is the ground normal and the heading
// is fwd's, and that a near-vertical normal is raised to MinNormalY.
func TestGroundOrientation(t *testing.T) {
	for _, c := range []struct {
		fwd, n mgl64.Vec3
	}{
		{mgl64.Vec3{1, 0, 1}, mgl64.Vec3{0.3, 1, -0.2}.Normalize()},
		{mgl64.Vec3{-1, 0.5, 0}, mgl64.Vec3{0, 1, 0}},
		{mgl64.Vec3{0, -3, -2}, mgl64.Vec3{-0.5, 0.5, 0.5}.Normalize()},
	} {
		q := GroundOrientation(c.fwd, c.n)
		if up := q.Rotate(mgl64.Vec3{0, 1, 0}); up.Sub(c.n).Len() > 1e-12 {
			t.Errorf("GroundOrientation(%v, %v): up axis %v, want the normal", c.fwd, c.n, up)
		}
		if h, want := Yaw(q), Heading(c.fwd); math.Abs(h-want) > 1e-12 {
			t.Errorf("GroundOrientation(%v, %v): heading %v, want fwd's %v", c.fwd, c.n, h, want)
		}
	}
	q := GroundOrientation(mgl64.Vec3{1, 0, 0}, mgl64.Vec3{1, 0, 0}) // a cliff face
	if up := q.Rotate(mgl64.Vec3{0, 1, 0}); math.Abs(up[1]-MinNormalY/math.Hypot(1, MinNormalY)) > 1e-12 {
		t.Errorf("up axis on a vertical face %v, want its Y raised to MinNormalY before normalizing", up)
	}
	if q := GroundOrientation(mgl64.Vec3{0, 1, 0}, mgl64.Vec3{0, 1, 0}); Yaw(q) != 0 {
		t.Errorf("forward straight up: heading %v, want 0", Yaw(q))
	}
}

// TestUprightQuat checks the branch-free conversion of an upright frame against the
// general one, for headings all around and up axes from vertical to horizontal.
func TestUprightQuat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	worst := 0.0
	for i := 0; i < 20000; i++ {
		n := mgl64.Vec3{rng.NormFloat64(), math.Abs(rng.NormFloat64()), rng.NormFloat64()}
		switch i % 4 {
		case 1:
			n[1] = 0 // horizontal up axis, the limit
		case 2:
			n[0], n[2] = 1e-9*n[0], 1e-9*n[2] // nearly vertical
		}
		n = n.Normalize()
		h := mgl64.Vec3{rng.NormFloat64(), 0, rng.NormFloat64()}
		if i%5 == 0 {
			h = mgl64.Vec3{-1, 0, 1e-12 * rng.NormFloat64()} // facing −X: w ≈ 0
		}
		f := h.Sub(n.Mul(h.Dot(n)))
		if f.Len() < 0.1*h.Len() {
			continue // heading along the up axis: no well-defined frame
		}
		f = f.Normalize()
		s := f.Cross(n)
		got := UprightQuat(f[0], f[1], f[2], n[0], n[1], n[2], s[0], s[1], s[2])
		want := basisQuat(f, n, s)
		worst = math.Max(worst, RotationVector(want, got).Len())
		if l := QuatDot(got, got); math.Abs(l-1) > 1e-14 {
			t.Fatalf("frame (%v, %v, %v): length² %v", f, n, s, l)
		}
		if up := Rotate(got, mgl64.Vec3{0, 1, 0}); up.Sub(n).Len() > 1e-13 {
			t.Fatalf("up axis %v, want %v", up, n)
		}
	}
	if worst > 1e-13 {
		t.Errorf("worst angle to the general conversion %.3g rad, want ≤ 1e-13", worst)
	}
	t.Logf("worst angle to the general conversion %.2g rad", worst)
}

// basisQuat returns the unit quaternion whose rotation maps local +X, +Y, +Z onto the
// orthonormal right-handed columns x, y, z. Orthonormal input gives a unit quaternion
// to rounding, so no normalization follows.
func basisQuat(x, y, z mgl64.Vec3) mgl64.Quat {
	return matrixQuat(x[0], y[0], z[0], x[1], y[1], z[1], x[2], y[2], z[2])
}

// matrixQuat returns the unit quaternion of the rotation matrix with rows
// (m00 m01 m02), (m10 m11 m12), (m20 m21 m22), which must be orthonormal with
// determinant 1. It is basisQuat on scalars.
func matrixQuat(m00, m01, m02, m10, m11, m12, m20, m21, m22 float64) mgl64.Quat {
	switch tr := m00 + m11 + m22; {
	case tr > 0:
		r := math.Sqrt(tr + 1)
		s := 0.5 / r
		return mgl64.Quat{W: 0.5 * r, V: mgl64.Vec3{(m21 - m12) * s, (m02 - m20) * s, (m10 - m01) * s}}
	case m00 > m11 && m00 > m22:
		r := math.Sqrt(1 + m00 - m11 - m22)
		s := 0.5 / r
		return mgl64.Quat{W: (m21 - m12) * s, V: mgl64.Vec3{0.5 * r, (m01 + m10) * s, (m02 + m20) * s}}
	case m11 > m22:
		r := math.Sqrt(1 + m11 - m00 - m22)
		s := 0.5 / r
		return mgl64.Quat{W: (m02 - m20) * s, V: mgl64.Vec3{(m01 + m10) * s, 0.5 * r, (m12 + m21) * s}}
	default:
		r := math.Sqrt(1 + m22 - m00 - m11)
		s := 0.5 / r
		return mgl64.Quat{W: (m10 - m01) * s, V: mgl64.Vec3{(m02 + m20) * s, (m12 + m21) * s, 0.5 * r}}
	}
}
