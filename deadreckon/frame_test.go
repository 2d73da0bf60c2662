package deadreckon

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func TestYawAndHeading(t *testing.T) {
	if h := Yaw(mgl64.Quat{}); h != 0 {
		t.Errorf("Yaw of the zero quaternion = %v, want 0 (identity)", h)
	}
	for _, c := range []struct{ yaw, want float64 }{
		{0, 0}, {math.Pi / 2, math.Pi / 2}, {-math.Pi / 2, -math.Pi / 2}, {math.Pi, math.Pi}, {-math.Pi, math.Pi}, {3, 3},
		{2*math.Pi + 1, 1},
	} {
		if h := Yaw(YawQuat(c.yaw)); math.Abs(h-c.want) > 1e-12 || math.Signbit(h) && c.want == 0 {
			t.Errorf("Yaw(YawQuat(%v)) = %v, want %v in (−π, π]", c.yaw, h, c.want)
		}
		if q := mgl64.QuatRotate(c.yaw, mgl64.Vec3{0, 1, 0}); !q.ApproxEqualThreshold(YawQuat(c.yaw), 1e-12) {
			t.Errorf("YawQuat(%v) = %v, mgl64.QuatRotate about +Y %v", c.yaw, YawQuat(c.yaw), q)
		}
	}
	for _, c := range []struct {
		d    mgl64.Vec3
		want float64
	}{
		{mgl64.Vec3{1, 0, 0}, 0}, {mgl64.Vec3{0, 0, -2}, math.Pi / 2}, {mgl64.Vec3{-1, 5, 0}, math.Pi},
		{mgl64.Vec3{-1, 0, 1e-300}, math.Pi}, {mgl64.Vec3{0, 1, 0}, 0}, {mgl64.Vec3{}, 0}, {mgl64.Vec3{math.NaN(), 0, 1}, 0},
	} {
		if h := Heading(c.d); math.Abs(h-c.want) > 1e-12 || math.Signbit(h) {
			t.Errorf("Heading(%v) = %v, want %v", c.d, h, c.want)
		}
	}
}

func TestFinite(t *testing.T) {
	for _, c := range []struct {
		vs   []float64
		want bool
	}{
		{nil, true}, {[]float64{0, -1e308, 5}, true}, {[]float64{1, math.NaN()}, false},
		{[]float64{math.Inf(-1)}, false}, {[]float64{math.MaxFloat64, math.SmallestNonzeroFloat64}, true},
	} {
		if got := Finite(c.vs...); got != c.want {
			t.Errorf("Finite(%v) = %v, want %v", c.vs, got, c.want)
		}
	}
	if FiniteVec(mgl64.Vec3{0, math.Inf(1), 0}) || !FiniteVec(mgl64.Vec3{1, 2, 3}) {
		t.Error("FiniteVec wrong")
	}
}

func TestGroundOrientation(t *testing.T) {
	n := mgl64.Vec3{0.3, 1, -0.2}.Normalize()
	fwd := mgl64.Vec3{1, 0, 1}
	q := GroundOrientation(fwd, n)
	if up := q.Rotate(mgl64.Vec3{0, 1, 0}); up.Sub(n).Len() > 1e-12 {
		t.Errorf("up axis %v, want the normal %v", up, n)
	}
	if h, want := Yaw(q), Heading(fwd); math.Abs(h-want) > 1e-12 {
		t.Errorf("heading %v, want fwd's %v", h, want)
	}
	a, b := YawQuat(0.1), YawQuat(-3)
	if m := SlerpShort(a, b, 0.5); math.Abs(QuatAngle(a, m)-QuatAngle(m, b)) > 1e-9 || QuatAngle(a, m) > math.Pi/2 {
		t.Errorf("SlerpShort midpoint %v is not halfway along the short arc", m)
	}
}
