package render

import (
	"fmt"
	"math"
	"slices"

	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// Tank labels: each tank's name (and with OverlayLabels its update age and error)
// just above its turret. A label is drawn only when a ray from the eye reaches the
// turret roof without meeting the ground, never over another label or a HUD panel
// (the nearer tank wins; a farther one is moved up a step or two, or dropped), always
// wholly inside the picture, and fainter with distance.
const (
	// labelLift is the gap between the turret roof and the label, pixels at scale 1.
	labelLift = 4
	// labelMargin keeps labels this far from the picture's edges, pixels at scale 1.
	labelMargin = 4
	// labelStackSteps is how many times a label blocked by a nearer one may move up
	// by its own height before it is dropped.
	labelStackSteps = 2
	// labelFadeStart and labelFadeEnd are the distances, m, over which labels fade
	// from full to labelMinAlpha; beyond labelMaxDistance they are not drawn.
	labelFadeStart, labelFadeEnd, labelMaxDistance = 60.0, 300.0, 420.0
	labelMinAlpha                                  = 0.5
	// labelAlphaLevels is how many opacity steps labels take, so a label's text is
	// redrawn only when its tank crosses a step.
	labelAlphaLevels = 4
	// occlusionSlack is how far short of the turret roof, m, the ground may be hit
	// and the roof still count as seen (the ray grazes the tank's own ground).
	occlusionSlack = 0.5
)

// rect is a screen rectangle in pixels: x, y of its top-left corner, w, h its size.
type rect struct{ x, y, w, h float32 }

// overlaps reports whether r and o share any area.
func (r rect) overlaps(o rect) bool {
	return r.x < o.x+o.w && o.x < r.x+r.w && r.y < o.y+o.h && o.y < r.y+r.h
}

// labelCandidate is one tank's label block waiting for a place this frame.
type labelCandidate struct {
	e        *tankEntry
	x, y     float32 // anchor: turret roof on screen, pixels
	w, h     float32 // block size: name, and info under it when shown
	nameH    float32
	dist     float64
	showInfo bool
}

// roofPoint is where a tank's label is anchored: just above the middle of its turret
// roof.
func roofPoint(tv *game.TankView) mgl64.Vec3 { return turretTop(tv, roofPointLift) }

// roofPointLift is how far above the turret roof a label is anchored, m.
const roofPointLift = 0.05

// TurretRoof returns the middle of tv's turret roof, meters, world frame: where the
// tank is found on the picture (View.Project), by tests and in bug reports.
func TurretRoof(tv *game.TankView) mgl64.Vec3 { return turretTop(tv, 0) }

// turretTop returns the point lift meters above the middle of tv's turret roof, in
// the tank's frame.
func turretTop(tv *game.TankView, lift float64) mgl64.Vec3 {
	return tv.Position.Add(tv.Orientation.Rotate(defaultShape().roof().Add(mgl64.Vec3{0, lift, 0})))
}

// occluded reports whether the ground hides p from the eye: a ray from the eye
// toward p meets the terrain before reaching it.
func (s *Scene) occluded(p mgl64.Vec3) bool {
	eye := s.view.Eye
	d := p.Sub(eye)
	dist := d.Len()
	if dist < 1e-6 {
		return false
	}
	reach := dist - occlusionSlack
	if reach <= 0 {
		return false
	}
	if s.cfg.Raycast != nil {
		hit, ok := s.cfg.Raycast(eye, d, reach)
		return ok && hit.Sub(eye).Len() < reach
	}
	// Without an exact ray, march the ray over the ground heights.
	step := 1.0
	for t := step; t < reach; t += step {
		q := eye.Add(d.Mul(t / dist))
		if h, ok := s.cfg.Ground(q[0], q[2]); ok && q[1] < h {
			return true
		}
	}
	return false
}

// prepareLabel decides whether tv gets a label this frame and queues it for
// placement; labels not queued are hidden.
func (s *Scene) prepareLabel(e *tankEntry, tv *game.TankView, self bool) {
	e.hideLabels()
	if self || !geom.FiniteVec(tv.Position) || s.combat.fb.killCamHides(tv.ID) {
		return
	}
	showName := tv.Name != ""
	showInfo := s.overlays&OverlayLabels != 0 && !tv.Local
	if !showName && !showInfo {
		return
	}
	roof := tv.Position.Add(tv.Orientation.Rotate(s.roofLift)) // roofPoint(tv), the shape worked out once
	dist := roof.Sub(s.view.Eye).Len()
	if dist > labelMaxDistance {
		return
	}
	x, y, ok := s.labelAnchor(roof)
	if !ok || s.occluded(roof) {
		return
	}
	if tv.Stale != e.stale || e.alpha == 0 {
		e.stale = tv.Stale
		e.alpha = -1 // recolour below
	}
	a := labelAlpha(dist)
	s.labelsOf(e, showInfo, a)
	s.setLabelAlpha(e, a)
	if showInfo && (s.hud.textDue || e.info.Text() == "") {
		setText(e.info, labelInfo(tv, s.heartbeat))
	}
	s.labelQueue = append(s.labelQueue, newLabelCandidate(e, x, y, dist, showName, showInfo))
}

// labelAnchor is where on the picture a label over a tank whose roof's middle is at
// roof is anchored: the top of the turret's outline as the camera sees it, up from
// the roof by the turret's radius along the picture's up. ok is false when the anchor
// is off the picture: labels are clamped to the edges, but a tank off to the side or
// behind gets none.
func (s *Scene) labelAnchor(roof mgl64.Vec3) (x, y float64, ok bool) {
	top := roof.Add(s.labelUp)
	x, y, ok = s.view.Project(top)
	if !ok || x < 0 || y < 0 || x > float64(s.view.Width) || y > float64(s.view.Height) {
		return 0, 0, false
	}
	return x, y, true
}

// labelInfo returns tank tv's info label: the age of its last update, how many of
// its heartbeats (heartbeat seconds apart, each up to its stagger late) that age has
// missed, if any, and its error; STALE in place of the error once the match marks it
// so (Snapshot.StaleAfter). A parked tank that lost a heartbeat or two reads as that,
// not as stale.
func labelInfo(tv *game.TankView, heartbeat float64) string {
	text := fmt.Sprintf("age %.2f s", tv.UpdateAge)
	if heartbeat > 0 {
		if missed := math.Floor((tv.UpdateAge - deadreckon.DefaultHeartbeatJitter*heartbeat) / heartbeat); missed >= 1 && missed < 1e6 {
			text += fmt.Sprintf(", %.0f missed", missed)
		}
	}
	if tv.Stale {
		return text + "  STALE  " + tv.Mode.String()
	}
	return text + fmt.Sprintf("  err %.2f m  %s", tv.Error, tv.Mode)
}

// newLabelCandidate is e's labels anchored at (x, y) for a tank dist meters away,
// sized for the lines shown.
func newLabelCandidate(e *tankEntry, x, y, dist float64, showName, showInfo bool) labelCandidate {
	c := labelCandidate{e: e, x: float32(x), y: float32(y), dist: dist, showInfo: showInfo}
	if showName {
		c.w, c.nameH = e.name.Size()
	}
	c.h = c.nameH
	if showInfo {
		iw, ih := e.info.Size()
		c.w = max(c.w, iw)
		c.h += ih
	}
	return c
}

// labelAlpha is a label's opacity at distance d, in labelAlphaLevels steps.
func labelAlpha(d float64) float32 {
	f := clamp01((d - labelFadeStart) / (labelFadeEnd - labelFadeStart))
	a := 1 - f*(1-labelMinAlpha)
	step := (1 - labelMinAlpha) / (labelAlphaLevels - 1)
	return float32(1 - math.Round((1-a)/step)*step)
}

// tankLabelColors4 are the colours of a tank's name and info labels.
type tankLabelColors4 struct {
	nameFg, nameBg, infoFg, infoBg math32.Color4
}

// tankLabelColors returns the colours of a tank's labels at opacity a: grey text for
// a stale tank.
func tankLabelColors(stale bool, a float32) tankLabelColors4 {
	c := tankLabelColors4{
		nameFg: math32.Color4{R: 1, G: 1, B: 1, A: a},
		nameBg: math32.Color4{R: 0, G: 0, B: 0, A: 0.4 * a},
		infoFg: math32.Color4{R: 1, G: 0.95, B: 0.6, A: a},
		infoBg: math32.Color4{R: 0, G: 0, B: 0, A: 0.5 * a},
	}
	if stale {
		c.nameFg = math32.Color4{R: 0.6, G: 0.6, B: 0.6, A: a}
	}
	return c
}

// setLabelAlpha recolours e's labels when their opacity step changes.
func (s *Scene) setLabelAlpha(e *tankEntry, a float32) {
	if a == e.alpha {
		return
	}
	e.alpha = a
	c := tankLabelColors(e.stale, a)
	setLook(e.name, e.name.Text(), c.nameFg, c.nameBg)
	if e.info != nil {
		setLook(e.info, e.info.Text(), c.infoFg, c.infoBg)
	}
}

// placeLabels places this frame's queued labels, nearest tank first, and clears the
// queue.
func (s *Scene) placeLabels() {
	slices.SortFunc(s.labelQueue, func(a, b labelCandidate) int {
		switch {
		case a.dist < b.dist:
			return -1
		case a.dist > b.dist:
			return 1
		}
		return 0
	})
	s.labelTaken = s.hud.appendPanelRects(s.labelTaken[:0])
	sc := s.hud.scale
	for i := range s.labelQueue {
		c := &s.labelQueue[i]
		r, ok := placeLabel(c.x, c.y-labelLift*sc, c.w, c.h, float32(s.view.Width), float32(s.view.Height), labelMargin*sc, s.labelTaken)
		if !ok {
			continue
		}
		s.labelTaken = append(s.labelTaken, r)
		y := r.y
		if c.nameH > 0 {
			nw, _ := c.e.name.Size()
			c.e.name.SetPosition(float32(math.Round(float64(r.x+(r.w-nw)/2))), float32(math.Round(float64(y))))
			c.e.name.SetVisible(true)
			y += c.nameH
		}
		if c.showInfo {
			iw, _ := c.e.info.Size()
			c.e.info.SetPosition(float32(math.Round(float64(r.x+(r.w-iw)/2))), float32(math.Round(float64(y))))
			c.e.info.SetVisible(true)
		}
	}
	clear(s.labelQueue) // drop the entries' pointers
	s.labelQueue = s.labelQueue[:0]
}

// placeLabel finds a place for a w×h label whose bottom middle wants to be at (x,
// bottom) in a picture of width×height pixels: kept margin inside the edges, and
// clear of every rectangle in taken, moving up by its own height at most
// labelStackSteps times. ok is false when no such place exists.
func placeLabel(x, bottom, w, h, width, height, margin float32, taken []rect) (r rect, ok bool) {
	for step := 0; step <= labelStackSteps; step++ {
		r = rect{x: x - w/2, y: bottom - h - float32(step)*h, w: w, h: h}
		r.x = max(margin, min(r.x, width-margin-w))
		r.y = max(margin, min(r.y, height-margin-h))
		free := true
		for _, o := range taken {
			if r.overlaps(o) {
				free = false
				break
			}
		}
		if free {
			return r, true
		}
	}
	return rect{}, false
}
