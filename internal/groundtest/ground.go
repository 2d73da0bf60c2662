// Package groundtest provides analytic grounds for tests, benchmarks and labs: an
// inclined plane and a ledge, exact and cheap, each safe for concurrent use. They
// have the methods of deadreckon.Ground (HeightAt, NormalAt, RayDown) without
// importing it, so that deadreckon's own tests may use them.
package groundtest

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Plane is an analytic ground: the infinite inclined plane y = Height + SlopeX·x +
// SlopeZ·z (meters; the slopes are rises per meter). The zero value is flat ground at
// y = 0. It is cheap and exact, for tests, benchmarks and labs; safe for concurrent use.
type Plane struct {
	Height, SlopeX, SlopeZ float64
}

// HeightAt returns the plane's height at (x, z); ok is always true.
func (p Plane) HeightAt(x, z float64) (float64, bool) {
	return p.Height + p.SlopeX*x + p.SlopeZ*z, true
}

// NormalAt returns the plane's unit upward normal; ok is always true.
func (p Plane) NormalAt(x, z float64) (mgl64.Vec3, bool) {
	n := mgl64.Vec3{-p.SlopeX, 1, -p.SlopeZ}
	return n.Mul(1 / n.Len()), true
}

// RayDown returns the plane's height under (x, z) when y is at or above it; a ray
// starting below the plane hits nothing.
func (p Plane) RayDown(x, y, z float64) (float64, bool) {
	h := p.Height + p.SlopeX*x + p.SlopeZ*z
	return h, y >= h
}

// Ledge is an analytic ground with a vertical step: height High where x < X and Low
// where x ≥ X (meters). A tank driving along +X drives off the ledge at x = X. Safe for
// concurrent use.
type Ledge struct {
	X, High, Low float64
}

// HeightAt returns the ledge's height at (x, z); ok is always true.
func (l Ledge) HeightAt(x, z float64) (float64, bool) {
	if x < l.X {
		return l.High, true
	}
	return l.Low, true
}

// NormalAt returns +Y: both levels are flat (the step itself has no area).
func (l Ledge) NormalAt(x, z float64) (mgl64.Vec3, bool) {
	return mgl64.Vec3{0, 1, 0}, true
}

// RayDown returns the height under (x, z) when y is at or above it.
func (l Ledge) RayDown(x, y, z float64) (float64, bool) {
	h, _ := l.HeightAt(x, z)
	return h, y >= h && !math.IsNaN(y)
}
