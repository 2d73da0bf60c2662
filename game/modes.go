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
	// returns to high mode when no view is known or it is near the picture (see
	// ViewMargin), m.
	HighModeDistance = 200.0
	// LowModeDistance is the distance beyond which a high-mode tank out of view
	// goes to low mode (near the picture, or with no view known), m.
	LowModeDistance = 240.0
	// ViewHighDistance and ViewLowDistance are the same pair for a tank in view.
	ViewHighDistance, ViewLowDistance = 400.0, 480.0
	// UnseenHighDistance and UnseenLowDistance are the pair for a tank well out of
	// the view the client has given (SetCameraView), m: one not on the picture is
	// not seen, so only one this near the camera (the player's neighbours, which
	// its tank may touch) is reckoned in full. "Well out" is beyond ViewMargin of
	// the picture's cone; a tank within it keeps the out-of-view pair above, so
	// one coming onto the picture as the camera turns is in high mode before it
	// shows.
	UnseenHighDistance, UnseenLowDistance = 40.0, 50.0
	// ViewMargin is how much wider than the picture's cone, in half-angle, rad, a
	// tank counts as near the picture for the out-of-view pair (about 14°: the
	// camera turned by the mouse for a frame at a few frames a second).
	ViewMargin = 0.25
	// SweepDistance and NoSweepDistance are the distances from the camera, m,
	// within which a remote tank in high mode is swept against the rocks again and
	// beyond which it no longer is, once the client has given its view
	// (SetCameraView): the full models reach 150 m (render.DetailDistance), beyond
	// 200 m a tank is three boxes about 20 pixels long, whose graze of a rock until
	// its next update shows a few pixels off, and the sweep is most of a high-mode
	// tank's reckoning. Its articulations still blend.
	SweepDistance, NoSweepDistance = 180.0, 200.0
)

// viewCone is the camera's view for the choice of modes: where it looks from, its
// unit axis and the cosine of the half-angle of the cone that holds the picture.
type viewCone struct {
	eye, axis mgl64.Vec3
	cos       float64
	wcos      float64 // the cosine of the half-angle widened by ViewMargin
	ok        bool    // SetCameraView was called
}

// contains reports whether p lies in the cone, widened by slack meters.
func (v *viewCone) contains(p mgl64.Vec3, slack float64) bool {
	return v.within(p, slack, v.cos)
}

// near reports whether p lies in the cone widened by ViewMargin, and by slack
// meters.
func (v *viewCone) near(p mgl64.Vec3, slack float64) bool {
	return v.within(p, slack, v.wcos)
}

// within reports whether p lies in the cone of half-angle cosine cos about the
// axis, widened by slack meters.
func (v *viewCone) within(p mgl64.Vec3, slack, cos float64) bool {
	d := p.Sub(v.eye)
	dist := d.Len()
	if dist <= slack {
		return true
	}
	ahead := d.Dot(v.axis)
	sin := math.Sqrt(math.Max(0, 1-cos*cos))
	perp := math.Sqrt(math.Max(0, dist*dist-ahead*ahead))
	return perp*cos-ahead*sin <= slack
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
	m.view = viewCone{eye: eye, axis: forward.Mul(1 / l), cos: math.Cos(halfAngle),
		wcos: math.Cos(math.Min(halfAngle+ViewMargin, math.Pi)), ok: true}
}

// ChooseSweep turns remote actor a's sweep against the rocks (deadreckon.Actor.SetSweep)
// off when it is shown farther than NoSweepDistance from the camera, dist m, and
// on again within SweepDistance, as a client that has given its view does.
func ChooseSweep(a *deadreckon.Actor, dist float64) {
	switch {
	case dist > NoSweepDistance:
		a.SetSweep(false)
	case dist <= SweepDistance:
		a.SetSweep(true)
	}
}

// chooseMode sets remote tank t's priority mode from its reckoned position p as seen
// from observer, with hysteresis, and, once the client has given its view, whether
// it is swept against the rocks (ChooseSweep).
func (m *Match) chooseMode(t *tank, p, observer mgl64.Vec3) {
	d2 := p.Sub(observer).LenSqr()
	a := t.actor
	v := &m.view
	if v.ok {
		ChooseSweep(a, math.Sqrt(d2))
	}
	if a.Mode() == deadreckon.ModeHigh {
		if d2 <= UnseenLowDistance*UnseenLowDistance {
			return
		}
		if d2 <= LowModeDistance*LowModeDistance && (!v.ok || v.near(p, 10)) {
			return
		}
		if d2 <= ViewLowDistance*ViewLowDistance && v.ok && v.contains(p, 10) {
			return
		}
		a.SetMode(deadreckon.ModeLow)
		return
	}
	if d2 <= UnseenHighDistance*UnseenHighDistance ||
		(d2 <= HighModeDistance*HighModeDistance && (!v.ok || v.near(p, 0))) ||
		(d2 <= ViewHighDistance*ViewHighDistance && v.ok && v.contains(p, 0)) {
		a.SetMode(deadreckon.ModeHigh)
	}
}

// ViewDetail picks which of a TankView's costlier fields Step and Snapshot fill, so a
// client that draws no overlay needing them does not pay for them at every frame
// (at 512 tanks the projections cost about 0.2 ms a frame and the trails' copies
// about 1.2 MB). The zero value fills them all.
type ViewDetail struct {
	// NoProjection leaves Snapshot.Known empty and each remote tank's Error zero:
	// the ghost overlay and the error labels read them.
	NoProjection bool
	// NoTrails leaves every tank's Trail empty in Snapshot: the trail overlay reads
	// it. The trails are still sampled, so turning them back on shows their last
	// seconds at once.
	NoTrails bool
}

// SetViewDetail sets which of the views' costlier fields the next Steps and
// Snapshots fill.
func (m *Match) SetViewDetail(d ViewDetail) { m.detail = d }
