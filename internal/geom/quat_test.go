package geom

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestSlerpShortAccuracy bounds the trigonometry-free slerp against the exact one.
func TestSlerpShortAccuracy(t *testing.T) {
	worst := 0.0
	axis := mgl64.Vec3{0.3, 0.9, -0.2}.Normalize()
	for _, angle := range []float64{1e-4, 0.01, 0.1, 0.2, 0.29, 0.31, 1, 2, 3, 3.1} {
		a := YawQuat(0.2)
		b := QuatMul(RotationQuat(axis, angle), a)
		for u := 0.0; u <= 1; u += 0.05 {
			got := SlerpShort(a, b, u)
			want := QuatMul(RotationQuat(axis, angle*u), a)
			worst = math.Max(worst, UnitQuatAngle(got, want))
			if l := math.Sqrt(QuatDot(got, got)); math.Abs(l-1) > 1e-12 {
				t.Fatalf("slerp length %v", l)
			}
		}
	}
	if worst > 5e-7 {
		t.Errorf("worst slerp error %v rad, want ≤ 5e-7", worst)
	}
	t.Logf("worst slerp angle error %.2g rad", worst)
}

// TestSlerpShortTakesShortArc checks that the slerp between two headings turns the
// short way, across ±π when that is shorter: from the first heading, through the
// one halfway, to the second.
func TestSlerpShortTakesShortArc(t *testing.T) {
	for _, c := range []struct{ from, to, mid float64 }{
		{0.1, -3, -1.45},
		{3, -3, math.Pi},
		{-2.5, 2, WrapAngle(-2.5 - (2*math.Pi-4.5)/2)},
	} {
		a, b := YawQuat(c.from), YawQuat(c.to)
		m := SlerpShort(a, b, 0.5)
		if y := Yaw(m); math.Abs(WrapAngle(y-c.mid)) > 1e-9 {
			t.Errorf("SlerpShort from %v to %v rad, ½: heading %v, want %v", c.from, c.to, y, c.mid)
		}
		if d := QuatAngle(a, m) - QuatAngle(m, b); math.Abs(d) > 1e-9 {
			t.Errorf("SlerpShort from %v to %v rad, ½: %v rad nearer one end", c.from, c.to, d)
		}
		if q := SlerpShort(a, b, 0); UnitQuatAngle(q, a) > 1e-12 {
			t.Errorf("SlerpShort(a, b, 0) = %v, want a = %v", q, a)
		}
		if q := SlerpShort(a, b, 1); UnitQuatAngle(q, b) > 1e-12 {
			t.Errorf("SlerpShort(a, b, 1) = %v, want b = %v", q, b)
		}
	}
}

// TestQuatAngle checks that the angle between orientations reads the quaternions,
// not Euler angles (179° to −179° is 2°), ignores their sign and length, and reads
// a zero quaternion as the identity.
func TestQuatAngle(t *testing.T) {
	const deg = math.Pi / 180
	neg := func(q mgl64.Quat) mgl64.Quat { return q.Scale(-1) }
	for _, c := range []struct {
		name string
		a, b mgl64.Quat
		want float64
	}{
		{"same", YawQuat(1), YawQuat(1), 0},
		{"across ±180°", YawQuat(179 * deg), YawQuat(-179 * deg), 2 * deg},
		{"opposite sign", YawQuat(0.3), neg(YawQuat(0.5)), 0.2},
		{"scaled", YawQuat(0.3).Scale(5), YawQuat(0.5).Scale(0.1), 0.2},
		{"zero is identity", mgl64.Quat{}, YawQuat(0.4), 0.4},
		{"half turn", mgl64.QuatIdent(), mgl64.QuatRotate(math.Pi, mgl64.Vec3{1, 0, 0}), math.Pi},
	} {
		if got := QuatAngle(c.a, c.b); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: QuatAngle(%v, %v) = %v, want %v", c.name, c.a, c.b, got, c.want)
		}
	}
}

// TestRotationVector checks that RotationQuat(RotationVector(a, b), 1)·a is b, for
// tiny, ordinary and near half-turn rotations, and that the vector takes the short way.
func TestRotationVector(t *testing.T) {
	a := QuatMul(YawQuat(0.7), AxisRotation(mgl64.Vec3{1, 0, 0}, 0.2))
	axis := mgl64.Vec3{-0.2, 0.5, 0.8}.Normalize()
	for _, angle := range []float64{0, 1e-9, 1e-4, 0.5, 2, math.Pi - 1e-6, -3} {
		b := QuatMul(AxisRotation(axis, angle), a)
		r := RotationVector(a, b)
		if got := QuatMul(RotationQuat(r, 1), a); UnitQuatAngle(got, b) > 1e-7 || RotationVector(got, b).Len() > 1e-12 {
			t.Errorf("angle %v: rotation vector %v takes a to %v, want %v", angle, r, got, b)
		}
		if want := math.Abs(angle); math.Abs(r.Len()-want) > 1e-12 {
			t.Errorf("angle %v: |rotation vector| = %v, want %v (the short way)", angle, r.Len(), want)
		}
	}
}

// TestQuatNormalize checks the unit-length rescaling and its identity fallback.
func TestQuatNormalize(t *testing.T) {
	for _, c := range []struct {
		q, want mgl64.Quat
	}{
		{mgl64.Quat{}, mgl64.QuatIdent()},
		{mgl64.Quat{W: math.NaN()}, mgl64.QuatIdent()},
		{mgl64.Quat{W: math.Inf(1), V: mgl64.Vec3{1, 0, 0}}, mgl64.QuatIdent()},
		{mgl64.Quat{W: 2}, mgl64.QuatIdent()},
		{mgl64.Quat{W: 3, V: mgl64.Vec3{0, 4, 0}}, mgl64.Quat{W: 0.6, V: mgl64.Vec3{0, 0.8, 0}}},
	} {
		if got := QuatNormalize(c.q); !got.ApproxEqualThreshold(c.want, 1e-15) {
			t.Errorf("QuatNormalize(%v) = %v, want %v", c.q, got, c.want)
		}
	}
	if q := YawQuat(1); QuatNormalize(q) != q && QuatDot(q, q) == 1 {
		t.Errorf("QuatNormalize changed the unit quaternion %v", q)
	}
	if q := QuatUnit(mgl64.Quat{W: 1e-3, V: mgl64.Vec3{0, 0, 1e-3}}); math.Abs(QuatDot(q, q)-1) > 1e-15 {
		t.Errorf("QuatUnit length² %v, want 1", QuatDot(q, q))
	}
}
