package render

import (
	"math"

	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// The ghost overlay draws a remote tank's last-known state and its projection to now
// as footprints on the ground, not as tanks: from the chase camera, behind and above
// the tank, a footprint shows beside and behind the hull instead of piling onto it.
const (
	// ghostMin is how far, m, a ghost must be from the shown tank to be drawn: a
	// footprint on top of its tank's own says nothing and hides the ground.
	ghostMin = 0.05
	// ghostMinTurn is how far a ghost's heading must be from the shown tank's to be
	// drawn, rad (1°).
	ghostMinTurn = math.Pi / 180
	// footMargin is how far a footprint reaches beyond the tank's tracks on every
	// side, m, so that it shows around the hull of a tank standing on it.
	footMargin = 0.25
	// footLift is how far above the ground footprints and the link between them are
	// drawn, m: clear of the ground's own triangles.
	footLift = 0.15
	// noseLength is how far ahead of the footprint its heading chevron points, m.
	noseLength = 1.5
	// errorClearance is how far above the tank's top the error line runs, m: clear
	// of the hull seen from behind or the side.
	errorClearance = 1.2
)

// errorLift returns the height above the ground at which the error line runs, m:
// errorClearance over the top of the tank of shape sh.
func (sh tankShape) errorLift() float64 { return sh.height + errorClearance }

// footSize returns a footprint's length and width, m: the tracks' outline of the
// tank of shape sh plus the margin on every side.
func (sh tankShape) footSize() (length, width float64) {
	return sh.length + 2*footMargin, sh.width + 2*footMargin
}

// drawGhosts adds remote tank tv's ghost overlay to the frame's line batch from its
// last-known state k (nil when the snapshot holds none): the footprints of that state
// (yellow) and of it projected to now (cyan) where they differ from the shown tank, a
// line between them on the ground, and the error line from the projection to the
// shown tank above both.
func (s *Scene) drawGhosts(tv *game.TankView, k *game.Known) {
	if k == nil {
		return
	}
	lk, lp := &k.LastKnown, &k.LastKnownProjected
	if tv.Local || !geom.FiniteVec(lk.Position) || !geom.FiniteVec(lp.Position) {
		return
	}
	showLast := ghostDiffers(lk.Position, lk.Orientation, tv)
	showProj := ghostDiffers(lp.Position, lp.Orientation, tv)
	if showLast {
		s.footprint(lk.Position, lk.Orientation, lastKnownColor)
	}
	if showProj {
		s.footprint(lp.Position, lp.Orientation, projectionColor)
	}
	if showLast || showProj {
		s.lines.segment(s.onGround(lk.Position, footLift), s.onGround(lp.Position, footLift), ghostLinkColor)
	}
	if horizontalDistance(lp.Position, tv.Position) > ghostMin {
		lift := defaultShape().errorLift()
		top := s.onGround(lp.Position, lift)
		s.lines.segment(s.onGround(lp.Position, footLift), top, projectionColor)
		s.lines.segment(top, s.onGround(tv.Position, lift), errorColor)
	}
}

// ghostDiffers reports whether a ghost at pos facing q is far enough from the shown
// tank tv, in place or heading, to be drawn.
func ghostDiffers(pos mgl64.Vec3, q mgl64.Quat, tv *game.TankView) bool {
	turn := math.Abs(math.Remainder(geom.Yaw(q)-geom.Yaw(tv.Orientation), 2*math.Pi))
	return horizontalDistance(pos, tv.Position) > ghostMin || turn > ghostMinTurn
}

// horizontalDistance returns the distance between a and b on the ground plane, m.
func horizontalDistance(a, b mgl64.Vec3) float64 {
	return math.Hypot(a[0]-b[0], a[2]-b[2])
}

// footprint draws the outline of a tank's tracks at pos, in the plane of its hull
// (orientation q) on the ground under its middle, in colour c, with a chevron ahead
// of its front edge for the heading. In the hull's plane the outline lies under the
// tracks of a tank standing there, so the tank hides what it covers.
func (s *Scene) footprint(pos mgl64.Vec3, q mgl64.Quat, c math32.Color) {
	base := s.onGround(pos, 0)
	up := q.Rotate(mgl64.Vec3{0, footLift, 0})
	at := func(x, z float64) mgl64.Vec3 { return base.Add(q.Rotate(mgl64.Vec3{x, 0, z})).Add(up) }
	l, w := defaultShape().footSize()
	l, w = l/2, w/2
	corners := [4]mgl64.Vec3{at(l, -w), at(l, w), at(-l, w), at(-l, -w)}
	for k := range corners {
		s.lines.segment(corners[k], corners[(k+1)%4], c)
	}
	nose := at(l+noseLength, 0)
	s.lines.segment(at(l, -w*0.6), nose, c)
	s.lines.segment(at(l, w*0.6), nose, c)
}

// onGround returns p moved to lift meters above the ground under it, or lift above p
// itself where the scene knows no ground.
func (s *Scene) onGround(p mgl64.Vec3, lift float64) mgl64.Vec3 {
	if s.cfg.Ground != nil {
		if h, ok := s.cfg.Ground(p[0], p[2]); ok {
			p[1] = h
		}
	}
	p[1] += lift
	return p
}
