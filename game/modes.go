package game

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// Priority modes of remote tanks on the receiving side (Murphy's section 1.8,
// deadreckon.Mode): a tank near the camera, or in view and not far, is reckoned in
// full (high mode); any other is reckoned cheaply (low mode: a one-ray clamp every
// few frames, no articulation blending). A tank switches to low mode only beyond the
// outer distances and back to high inside the inner ones, so one driving along a
// boundary does not flip every frame.
const (
	// HighModeDistance is the distance from the camera within which a low-mode tank
	// returns to high mode, m.
	HighModeDistance = 200.0
	// LowModeDistance is the distance beyond which a high-mode tank out of view
	// goes to low mode, m.
	LowModeDistance = 240.0
	// ViewHighDistance and ViewLowDistance are the same pair for a tank in view.
	ViewHighDistance, ViewLowDistance = 400.0, 480.0
)

// viewCone is the camera's view for the choice of modes: where it looks from, its
// unit axis and the cosine of the half-angle of the cone that holds the picture.
type viewCone struct {
	eye, axis mgl64.Vec3
	cos       float64
	ok        bool // SetCameraView was called
}

// contains reports whether p lies in the cone, widened by slack meters.
func (v *viewCone) contains(p mgl64.Vec3, slack float64) bool {
	d := p.Sub(v.eye)
	dist := d.Len()
	if dist <= slack {
		return true
	}
	ahead := d.Dot(v.axis)
	sin := math.Sqrt(math.Max(0, 1-v.cos*v.cos))
	perp := math.Sqrt(math.Max(0, dist*dist-ahead*ahead))
	return perp*v.cos-ahead*sin <= slack
}

// SetCameraView tells the match where the viewer stands and looks, in world meters:
// eye as SetCamera, forward the view's axis (any length) and halfAngle the
// half-angle in radians of a cone that holds the picture. Remote tanks in view keep
// high mode farther than those out of it. Until it is called, every tank is taken
// as out of view.
func (m *Match) SetCameraView(eye, forward mgl64.Vec3, halfAngle float64) {
	m.SetCamera(eye)
	l := forward.Len()
	if !geom.FiniteVec(eye) || !geom.FiniteVec(forward) || !(l > 0) || !(halfAngle > 0 && halfAngle < math.Pi) {
		return
	}
	m.view = viewCone{eye: eye, axis: forward.Mul(1 / l), cos: math.Cos(halfAngle), ok: true}
}

// chooseMode sets remote tank t's priority mode from its reckoned position p as seen
// from observer, with hysteresis.
func (m *Match) chooseMode(t *tank, p, observer mgl64.Vec3) {
	d2 := p.Sub(observer).LenSqr()
	a := t.actor
	if a.Mode() == deadreckon.ModeHigh {
		if d2 <= LowModeDistance*LowModeDistance {
			return
		}
		if d2 <= ViewLowDistance*ViewLowDistance && m.view.ok && m.view.contains(p, 10) {
			return
		}
		a.SetMode(deadreckon.ModeLow)
		return
	}
	if d2 <= HighModeDistance*HighModeDistance ||
		(d2 <= ViewHighDistance*ViewHighDistance && m.view.ok && m.view.contains(p, 0)) {
		a.SetMode(deadreckon.ModeHigh)
	}
}
