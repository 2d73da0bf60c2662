package geom

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestYawAndHeading checks Yaw and YawQuat against each other and mgl64, and Heading's
// edge cases: vertical, zero and non-finite directions, and −π read as π.
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

// TestWrapAngle checks the wrap into (−π, π] on both sides of the range, far outside
// it, and for non-finite input.
func TestWrapAngle(t *testing.T) {
	for _, c := range []struct{ x, want float64 }{
		{0, 0}, {1, 1}, {math.Pi, math.Pi}, {-math.Pi, math.Pi}, {math.Nextafter(-math.Pi, 0), math.Nextafter(-math.Pi, 0)},
		{3 * math.Pi / 2, -math.Pi / 2}, {-3 * math.Pi / 2, math.Pi / 2}, {3 * math.Pi, math.Pi},
		{100, 100 - 32*math.Pi}, {-100, -100 + 32*math.Pi}, {1e6, math.Remainder(1e6, 2*math.Pi)},
		{math.NaN(), 0}, {math.Inf(1), 0}, {math.Inf(-1), 0},
	} {
		got := WrapAngle(c.x)
		if math.Abs(got-c.want) > 1e-9 || !(got > -math.Pi && got <= math.Pi) {
			t.Errorf("WrapAngle(%v) = %v, want %v in (−π, π]", c.x, got, c.want)
		}
	}
}
