package deadreckon

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestPlaceHeight checks where each clamp mode puts a pose above, on and below the
// ground, and what it reports.
func TestPlaceHeight(t *testing.T) {
	const ground = 2.0
	for _, tc := range []struct {
		mode       ClampMode
		y          float64
		wantPlaced bool
		wantY      float64
		wantLifted bool
	}{
		{ClampAlways, 3, true, ground, false},
		{ClampAlways, ground, true, ground, false},
		{ClampAlways, 1, true, ground, true},
		{ClampUp, 3, false, 3, false},
		{ClampUp, ground, true, ground, false},
		{ClampUp, 1, true, ground, true},
		{ClampNone, 1, false, 1, false},
	} {
		r := ClampResult{Position: mgl64.Vec3{5, tc.y, -7}, Ground: ground}
		placed := placeHeight(tc.mode, &r)
		if placed != tc.wantPlaced || r.Position != (mgl64.Vec3{5, tc.wantY, -7}) || r.Lifted != tc.wantLifted {
			t.Errorf("mode %v at y %v: placed %v at %v, lifted %v; want %v at y %v, lifted %v",
				tc.mode, tc.y, placed, r.Position, r.Lifted, tc.wantPlaced, tc.wantY, tc.wantLifted)
		}
	}
}

// TestBezierAt checks the cubic Bézier point at its ends, at its middle
// ((P0 + 3P1 + 3P2 + P3)/8) and on a straight, evenly spaced polygon (the identity).
func TestBezierAt(t *testing.T) {
	curve := [4]mgl64.Vec3{{0, 0, 0}, {1, 2, 0}, {3, 2, -1}, {4, 0, 8}}
	line := [4]mgl64.Vec3{{0, 0, 0}, {1, 1, 1}, {2, 2, 2}, {3, 3, 3}}
	for _, tc := range []struct {
		b    [4]mgl64.Vec3
		u    float64
		want mgl64.Vec3
	}{
		{curve, 0, curve[0]},
		{curve, 1, curve[3]},
		{curve, 0.5, curve[0].Add(curve[1].Mul(3)).Add(curve[2].Mul(3)).Add(curve[3]).Mul(1.0 / 8)},
		{line, 0.25, mgl64.Vec3{0.75, 0.75, 0.75}},
		{line, 0.8, mgl64.Vec3{2.4, 2.4, 2.4}},
	} {
		if got := bezierAt(&tc.b, tc.u); !got.ApproxEqualThreshold(tc.want, 1e-12) {
			t.Errorf("bezierAt(%v, %v) = %v, want %v", tc.b, tc.u, got, tc.want)
		}
	}
}
