package groundtest_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/groundtest"
)

// The analytic grounds are deadreckon grounds.
var (
	_ deadreckon.Ground = groundtest.Plane{}
	_ deadreckon.Ground = groundtest.Ledge{}
)

// TestGrounds checks heights, normals and downward rays of both grounds, from above,
// from below and on either side of the ledge's step.
func TestGrounds(t *testing.T) {
	slope := groundtest.Plane{Height: 1, SlopeX: 0.5, SlopeZ: -0.25}
	step := groundtest.Ledge{X: 10, High: 5, Low: 2}
	for _, c := range []struct {
		name    string
		g       deadreckon.Ground
		x, y, z float64
		h       float64
		hit     bool
		n       mgl64.Vec3
	}{
		{"flat from above", groundtest.Plane{}, 3, 1, 4, 0, true, mgl64.Vec3{0, 1, 0}},
		{"flat from below", groundtest.Plane{}, 3, -1, 4, 0, false, mgl64.Vec3{0, 1, 0}},
		{"slope", slope, 2, 10, 4, 1, true, mgl64.Vec3{-0.5, 1, 0.25}.Normalize()},
		{"slope from below", slope, 2, 0.5, 4, 1, false, mgl64.Vec3{-0.5, 1, 0.25}.Normalize()},
		{"ledge top", step, 9.9, 6, 0, 5, true, mgl64.Vec3{0, 1, 0}},
		{"ledge foot", step, 10, 6, 0, 2, true, mgl64.Vec3{0, 1, 0}},
		{"inside the step", step, 9, 3, 0, 5, false, mgl64.Vec3{0, 1, 0}},
		{"ledge, NaN height", step, 11, math.NaN(), 0, 2, false, mgl64.Vec3{0, 1, 0}},
	} {
		if h, ok := c.g.HeightAt(c.x, c.z); !ok || math.Abs(h-c.h) > 1e-12 {
			t.Errorf("%s: HeightAt(%v, %v) = %v, %v, want %v, true", c.name, c.x, c.z, h, ok, c.h)
		}
		if h, ok := c.g.RayDown(c.x, c.y, c.z); ok != c.hit || ok && math.Abs(h-c.h) > 1e-12 {
			t.Errorf("%s: RayDown(%v, %v, %v) = %v, %v, want %v, %v", c.name, c.x, c.y, c.z, h, ok, c.h, c.hit)
		}
		if n, ok := c.g.NormalAt(c.x, c.z); !ok || n.Sub(c.n).Len() > 1e-12 {
			t.Errorf("%s: NormalAt(%v, %v) = %v, %v, want %v, true", c.name, c.x, c.z, n, ok, c.n)
		}
	}
}
