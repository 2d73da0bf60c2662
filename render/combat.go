package render

import (
	"fmt"
	"math"
	"strings"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/tank"
)

// puffs is the size of the pool of effect spheres (flashes, dust, fireballs, smoke,
// shell heads).
const puffs = 64

// puff is one sphere of the effect pool, with its own material so its opacity can fade.
type puff struct {
	mesh *graphic.Mesh
	mat  *material.Standard
}

// combatLayer draws combat: shell tracers, muzzle flashes, impact dust, hits,
// explosions, dark smoking wrecks, the crosshair with the ballistic impact point, the
// reload and health bars, hit markers, the match clock and, with
// OverlayHits, the hits overlay.
type combatLayer struct {
	root    *core.Node
	pool    []puff
	used    int
	wrecks  map[uint32]*tankModel
	wreckOn map[uint32]uint64
	wreckM  *material.Standard

	hud                    *core.Node
	cross, marker, clock   *textLabel
	teams                  *textLabel // tanks alive per team, under the clock
	lastTeams              teamCount
	sight                  [4]*gui.Panel // the aim marker's ticks around the middle
	banner                 *textLabel
	healthBg, healthBar    *gui.Panel
	reloadBg, reloadBar    *gui.Panel
	healthText, reloadText *textLabel
	lastClock              clockLine
	clockSet               bool // the clock's label shows lastClock
	lastMsg                string
	lastHealth, lastLoaded float64
	fb                     *feedback
	res                    *results
	// barsRect is where the bars and their texts are this frame (zero: not shown).
	barsRect rect
	// rects holds textRects' answer, reused from frame to frame (the damage notices
	// are stacked on after it).
	rects []rect
	// scale is the HUD scale the labels' fonts were set for (hud.scale): the bars,
	// the clock and every text of this layer follow it, as one layout.
	scale float32
	fonts *fontBook // the HUD's
}

// Font sizes of the combat layer's labels at HUD scale 1, points.
const (
	crossFontSize  = 26
	markerFontSize = 20
	clockFontSize  = 15
	bannerFontSize = 26
	barFontSize    = 13
	teamsFontSize  = 13
)

func newCombatLayer(hudRoot *core.Node, fonts *fontBook) *combatLayer {
	c := &combatLayer{fonts: fonts, root: core.NewNode(), hud: core.NewNode(), wrecks: make(map[uint32]*tankModel),
		wreckOn: make(map[uint32]uint64), lastHealth: -1, lastLoaded: -1}
	sphere := geometry.NewSphere(1, 10, 8)
	for range puffs {
		m := material.NewStandard(&math32.Color{R: 1, G: 1, B: 1})
		m.SetTransparent(true)
		m.SetDepthMask(false)
		mesh := graphic.NewMesh(sphere.Incref(), m)
		mesh.SetVisible(false)
		c.root.Add(mesh)
		c.pool = append(c.pool, puff{mesh: mesh, mat: m})
	}
	c.wreckM = material.NewStandard(&wreckTint)
	label := func(size float64, col math32.Color, bg float32) *textLabel {
		l := c.fonts.label("")
		c.fonts.setFontSize(l, size)
		setColor(l, col)
		setBgColor4(l, backdrop(bg))
		l.SetPaddings(2, 6, 2, 6)
		l.SetVisible(false)
		c.hud.Add(l)
		return l
	}
	bar := func(col math32.Color4) *gui.Panel {
		p := gui.NewPanel(10, 10)
		p.SetColor4(&col)
		p.SetVisible(false)
		c.hud.Add(p)
		return p
	}
	c.healthBg = bar(backdrop(0.7))
	c.healthBar = bar(math32.Color4{R: 0.2, G: 0.85, B: 0.3, A: 0.95})
	c.reloadBg = bar(backdrop(0.7))
	c.reloadBar = bar(math32.Color4{R: 1, G: 0.85, B: 0.35, A: 0.95})
	c.cross = label(crossFontSize, aimColor, 0)
	setText(c.cross, "⊕")
	for i := range c.sight {
		p := gui.NewPanel(10, 10)
		p.SetBorders(1, 1, 1, 1)
		p.SetBordersColor4(&math32.Color4{A: 0.9})
		p.SetColor4(&sightColor)
		p.SetVisible(false)
		c.hud.Add(p)
		c.sight[i] = p
	}
	c.marker = label(markerFontSize, math32.Color{R: 1, G: 1, B: 1}, 0.45)
	c.clock = label(clockFontSize, math32.Color{R: 1, G: 1, B: 1}, 0.5)
	c.teams = label(teamsFontSize, math32.Color{R: 0.92, G: 0.92, B: 0.92}, 0.45)
	c.banner = label(bannerFontSize, math32.Color{R: 1, G: 0.95, B: 0.6}, 0.7)
	// The bars' texts on a light backdrop: over bright ground they are small at a
	// small window's scale.
	c.healthText = label(barFontSize, math32.Color{R: 1, G: 1, B: 1}, 0.4)
	c.reloadText = label(barFontSize, math32.Color{R: 1, G: 1, B: 1}, 0.4)
	c.healthText.SetPaddings(0, 6, 0, 6)
	c.reloadText.SetPaddings(0, 6, 0, 6)
	c.fb = newFeedback(c.hud, fonts)
	// The kill camera's victim is marked whether or not the replay heard of combat.
	c.hud.Remove(c.fb.victim)
	hudRoot.Add(c.fb.victim)
	c.res = newResults(c.hud, fonts)
	c.scale = 1
	hudRoot.Add(c.hud)
	return c
}

// setScale sets every font, padding and prebuilt size of the layer for HUD scale sc.
func (c *combatLayer) setScale(sc float32) {
	c.scale = sc
	f := float64(sc)
	for _, l := range []*textLabel{c.cross, c.marker, c.clock, c.teams, c.banner} {
		l.SetPaddings(2*sc, 6*sc, 2*sc, 6*sc)
	}
	for _, l := range []*textLabel{c.healthText, c.reloadText} { // stacked: no room above and below
		l.SetPaddings(0, 6*sc, 0, 6*sc)
	}
	c.fonts.setFontSize(c.cross, crossFontSize*f)
	c.fonts.setFontSize(c.marker, markerFontSize*f)
	c.fonts.setFontSize(c.clock, clockFontSize*f)
	c.fonts.setFontSize(c.teams, teamsFontSize*f)
	c.fonts.setFontSize(c.banner, bannerFontSize*f)
	c.fonts.setFontSize(c.healthText, barFontSize*f)
	c.fonts.setFontSize(c.reloadText, barFontSize*f)
	c.fb.setScale(sc)
	c.res.setScale(sc)
	c.lastHealth, c.lastLoaded, c.clockSet, c.lastMsg = -1, -1, false, "" // redo the texts
}

// update draws snap's combat into the scene s for this frame.
func (c *combatLayer) update(s *Scene, snap *game.Snapshot) {
	cv := &snap.Combat
	c.used = 0
	if sc := s.hud.scale; sc != c.scale {
		c.setScale(sc)
	}
	c.fb.markVictim(s, snap, float32(s.view.Width), float32(s.view.Height))
	c.hud.SetVisible(cv.Enabled)
	if !cv.Enabled {
		s.hud.bars = rect{}
		c.hidePool()
		return
	}
	c.drawShells(s, cv.Shells)
	drawProtected(s.lines, snap.Tanks)
	for _, e := range cv.Effects {
		c.drawEffect(e)
	}
	c.updateWrecks(s, snap)
	c.hidePool()
	if s.overlays&OverlayHits != 0 {
		drawHitsOverlay(s.lines, cv.Hits)
	}
	c.updateHUD(s, snap)
}

// drawShells draws each shell in flight as a tracer line and a glowing head.
func (c *combatLayer) drawShells(s *Scene, shells []game.ShellView) {
	for _, sh := range shells {
		if geom.FiniteVec(sh.Position) && geom.FiniteVec(sh.Tail) {
			s.lines.segment(sh.Tail, sh.Position, tracerColor)
			c.puff(sh.Position, 0.6, shellHeadColor, 1, true)
		}
	}
}

// drawEffect draws a flash, dust, spark or fireball, each growing and fading over
// its life.
func (c *combatLayer) drawEffect(e game.Effect) {
	if !geom.FiniteVec(e.Point) {
		return
	}
	switch e.Kind {
	case game.EffectMuzzle:
		c.muzzleFlash(e)
	case game.EffectDust:
		c.impactDust(e)
	case game.EffectHit:
		c.hitSpark(e)
	case game.EffectExplosion:
		c.explosion(e)
	}
}

// muzzleFlash is a short bright flash at the muzzle.
func (c *combatLayer) muzzleFlash(e game.Effect) {
	if k := e.Age / 0.15; k < 1 {
		c.puff(e.Point, 0.9+0.6*k, flashColor, 1-k, true)
	}
}

// impactDust is a cloud of dust rising where a shell struck the ground.
func (c *combatLayer) impactDust(e game.Effect) {
	if k := e.Age / 1.6; k < 1 {
		c.puff(e.Point.Add(mgl64.Vec3{0, 1.5 * k, 0}), 0.8+2.6*k, dustColor, 0.8*(1-k), false)
	}
}

// hitSpark is a spray of sparks where a shell struck a tank.
func (c *combatLayer) hitSpark(e game.Effect) {
	if k := e.Age / 0.35; k < 1 {
		c.puff(e.Point, 0.6+1.2*k, hitSparkColor, 1-k, true)
	}
}

// explosion is a fireball followed by a column of smoke.
func (c *combatLayer) explosion(e game.Effect) {
	if k := e.Age / 1.2; k < 1 {
		c.puff(e.Point.Add(mgl64.Vec3{0, 1.5 + 2*k, 0}), 1.5+3.5*k, fireballColor, 0.95*(1-k), true)
	}
	if k := (e.Age - 0.6) / 3; k > 0 && k < 1 {
		c.puff(e.Point.Add(mgl64.Vec3{0, 4 + 8*k, 0}), 2+3*k, smokeColor, 0.6*(1-k), false)
	}
}

// updateWrecks shows every wrecked tank as a dark hull in place of the team colours,
// with smoke rising from it, and drops the wrecks no longer in snap.
func (c *combatLayer) updateWrecks(s *Scene, snap *game.Snapshot) {
	// The frame's ranks hold every tank drawn this frame with its entry: a tank
	// left out of them (no finite position) has none by now.
	for r := range s.ranks {
		c.updateWreck(s, s.ranks[r].e, &snap.Tanks[s.ranks[r].i], snap.Time)
	}
	for id, w := range c.wrecks {
		if c.wreckOn[id] != s.frame {
			s.world.Remove(w.root)
			w.root.DisposeChildren(true)
			delete(c.wrecks, id)
			delete(c.wreckOn, id)
		}
	}
}

// updateWreck shows tank tv, whose entry is e, either as itself or, when it is a
// wreck, as a dark hull smoking at time t (s).
func (c *combatLayer) updateWreck(s *Scene, e *tankEntry, tv *game.TankView, t float64) {
	if e == nil {
		return
	}
	if !tv.Wreck || !geom.FiniteVec(tv.Position) || !e.detailed {
		// A far wreck is drawn in the crowd batch, without smoke. A wreck model
		// the tank showed before is not shown this frame, so updateWrecks drops
		// it: the hundreds of tanks that show none are not looked up among the
		// wrecks.
		e.showModel(e.detailed && !tv.Wreck)
		return
	}
	w := c.wrecks[tv.ID]
	if w == nil {
		w = newTankModel(s.parts, 0, c.wreckM)
		c.wrecks[tv.ID] = w
		s.world.Add(w.root)
	}
	c.wreckOn[tv.ID] = s.frame
	e.showModel(false)
	w.root.SetVisible(true)
	w.setPose(vec3(tv.Position), quat(tv.Orientation), tv.Turret, tv.Gun-0.15)
	for k := 0; k < 3; k++ {
		phase := math.Mod(t*0.5+float64(k)/3, 1)
		c.puff(tv.Position.Add(mgl64.Vec3{0.3 * float64(k-1), 2.5 + 6*phase, 0.2 * float64(k)}), 1+2*phase, smokeColor, 0.6*(1-phase), false)
	}
}

// drawHitsOverlay draws, for the last claims, the target's hull as this screen showed
// it (yellow), as the host rebuilt it (cyan) and where it truly was (magenta).
func drawHitsOverlay(b *lineBatch, hits []game.HitRecord) {
	for _, h := range hits {
		hullBox(b, h.Shown, shownColor)
		if h.Decided && h.Rebuilt.Orientation.Len() > 0.5 {
			hullBox(b, h.Rebuilt, projectionColor)
		}
		if h.HasTruth {
			hullBox(b, h.Truth, truthColor)
		}
		cross(b, h.Impact, 0.6, tracerColor)
	}
}

// puff shows a pool sphere at p of radius r, colour col and opacity a; glow makes it
// emissive (fire) rather than lit (dust, smoke).
func (c *combatLayer) puff(p mgl64.Vec3, r float64, col math32.Color, a float64, glow bool) {
	if c.used == len(c.pool) || a <= 0 {
		return
	}
	f := &c.pool[c.used]
	c.used++
	if glow {
		// Fire: mostly its own light, so the sun does not wash it out to white.
		dim := math32.Color{R: col.R * 0.35, G: col.G * 0.35, B: col.B * 0.35}
		f.mat.SetColor(&dim)
		f.mat.SetEmissiveColor(&math32.Color{R: col.R * 0.75, G: col.G * 0.75, B: col.B * 0.75})
	} else {
		f.mat.SetColor(&col)
		f.mat.SetEmissiveColor(&math32.Color{R: col.R * 0.3, G: col.G * 0.3, B: col.B * 0.3})
	}
	f.mat.SetOpacity(float32(math.Min(1, a)))
	v := vec3(p)
	f.mesh.SetPositionVec(&v)
	f.mesh.SetScale(float32(r), float32(r), float32(r))
	f.mesh.SetVisible(true)
}

// hidePool hides the pool spheres not used this frame.
func (c *combatLayer) hidePool() {
	for i := c.used; i < len(c.pool); i++ {
		c.pool[i].mesh.SetVisible(false)
	}
}

// hullBox draws a tank's hit box at pose h as twelve edges.
func hullBox(b *lineBatch, h combat.HullPose, col math32.Color) {
	if !geom.FiniteVec(h.Position) {
		return
	}
	spec := tank.Default()
	lo, hi := spec.HullMin(), spec.HullMax()
	var corner [8]mgl64.Vec3
	for i := range corner {
		p := lo
		if i&1 != 0 {
			p[0] = hi[0]
		}
		if i&2 != 0 {
			p[1] = hi[1]
		}
		if i&4 != 0 {
			p[2] = hi[2]
		}
		corner[i] = h.Position.Add(h.Orientation.Rotate(p))
	}
	for i := range corner {
		for _, bit := range [3]int{1, 2, 4} {
			if j := i | bit; j != i {
				b.segment(corner[i], corner[j], col)
			}
		}
	}
}

// cross draws a small three-axis cross at p.
func cross(b *lineBatch, p mgl64.Vec3, r float64, col math32.Color) {
	for _, d := range [3]mgl64.Vec3{{r, 0, 0}, {0, r, 0}, {0, 0, r}} {
		b.segment(p.Sub(d), p.Add(d), col)
	}
}

// updateHUD places the crosshair, bars, marker and clock.
func (c *combatLayer) updateHUD(s *Scene, snap *game.Snapshot) {
	cv := &snap.Combat
	w, h := float32(s.view.Width), float32(s.view.Height)
	self := snap.Self >= 0 && snap.Self < len(snap.Tanks)
	c.cross.SetVisible(false)
	// The markers are the player's gun's: shown while the camera follows the
	// player's tank (not another tank, not the kill camera).
	aiming := self && !cv.Wreck && !cv.Over && !s.centreCovered() && !s.hasFixed
	if wt := s.Watched(snap); wt != nil && aiming {
		aiming = wt == &snap.Tanks[snap.Self]
	}
	c.placeSight(aiming, w, h, c.scale)
	if aiming {
		c.placeCrosshair(s, &snap.Tanks[snap.Self], cv)
	}
	cx, cy := c.cross.Position().X, c.cross.Position().Y
	cw, ch := c.cross.Size()
	c.fb.placeMark(cv.Markers, cx+cw/2, cy+ch/2, c.cross.Visible())
	markKiller(s, snap)
	c.placeBars(cv, self, w, h)
	s.hud.bars = c.barsRect
	c.placeMarker(cv.Markers, w, h)
	c.placeClock(cv, w)
	c.placeTeams(snap.Tanks, cv.Scores, w)
	c.placeBanner(cv, w, h)
	// The damage notices keep clear of the texts placed above.
	if c.rects == nil {
		c.rects = make([]rect, 0, 8+maxHurts) // the texts, then the notices
	}
	c.rects = c.textRects(c.rects[:0])
	c.fb.placeHurts(s, cv.Hurts, w, h, c.scale, c.rects)
	c.res.update(snap, s.view.Width, s.view.Height)
}

// placeCrosshair puts the gun marker (the crosshair) where a shell fired now would
// strike, with a ring on the ground there and the barrel's line of sight from the
// player's tank me; where it would strike nothing within combat.AimRange, at the
// point of its flight that far out. A point off the picture is shown at its edge,
// toward it. It is red while the shot is blocked short of the aim (a crest or a rock
// the camera sees over), grey while the gun reloads, green otherwise.
func (c *combatLayer) placeCrosshair(s *Scene, me *game.TankView, cv *game.CombatView) {
	muzzle, dir := combat.Muzzle(me.Position, me.Orientation, me.Turret, me.Gun)
	col := aimColorOf(cv)

	at := cv.Aim
	if !cv.HasAim || !geom.FiniteVec(at) {
		at = combat.Shot{Origin: muzzle, Direction: dir}.Beyond()
	}
	s.lines.segment(muzzle, muzzle.Add(dir.Mul(math.Min(60, at.Sub(muzzle).Len()))), col)
	if cv.HasAim {
		ring(s.lines, at, 1.5, col)
	}
	cw, ch := c.cross.Size()
	x, y := projectOnto(s.view, at, float64(cw)/2, float64(ch)/2)
	setColor(c.cross, col)
	c.cross.SetPosition(float32(math.Round(x))-cw/2, float32(math.Round(y))-ch/2)
	c.cross.SetVisible(true)
}

// aimColorOf is the gun marker's colour for the combat view cv: blocked, reloading
// or ready.
func aimColorOf(cv *game.CombatView) math32.Color {
	switch {
	case cv.HasAim && cv.AimBlocked:
		return aimBlockColor
	case cv.Loaded < 1:
		return aimLoadColor
	}
	return aimColor
}

// Sight ticks' size and their gap from the middle, pixels at HUD scale 1.
const sightLen, sightThick, sightGap = 12, 4, 7

// placeSight shows the aim marker, four ticks around the middle of a w×h picture
// (where the camera looks, which the turret and gun follow), when on.
func (c *combatLayer) placeSight(on bool, w, h, sc float32) {
	cx, cy := float32(math.Round(float64(w/2))), float32(math.Round(float64(h/2)))
	// Never smaller than 8×4 pixels 5 from the middle: a tick is a white core in a
	// one-pixel dark border, and thinner it is all border.
	ln, th, gap := max(8, px(sightLen*sc)), max(4, px(sightThick*sc)), max(5, px(sightGap*sc))
	half := float32(math.Floor(float64(th / 2)))
	for i, p := range c.sight {
		p.SetVisible(on)
		if !on {
			continue
		}
		switch i {
		case 0: // left
			p.SetSize(ln, th)
			p.SetPosition(cx-gap-ln, cy-half)
		case 1: // right
			p.SetSize(ln, th)
			p.SetPosition(cx+gap, cy-half)
		case 2: // up
			p.SetSize(th, ln)
			p.SetPosition(cx-half, cy-gap-ln)
		default: // down
			p.SetSize(th, ln)
			p.SetPosition(cx-half, cy+gap)
		}
	}
}

// projectOnto returns where world point p lies on v's picture, pixels; a point off
// the picture, or behind the eye, is brought to its edge (less a margin mx, my)
// along the line from the middle toward it.
func projectOnto(v View, p mgl64.Vec3, mx, my float64) (x, y float64) {
	w, h := float64(v.Width), float64(v.Height)
	cx, cy := w/2, h/2
	x, y, ok := v.Project(p)
	if !ok || !geom.Finite(x, y) {
		local := v.Orientation.Conjugate().Rotate(p.Sub(v.Eye))
		x, y = cx+local[0], cy-local[1]
		if local[0] == 0 && local[1] == 0 {
			y = h // straight behind: at the bottom
		}
		ok = false
	}
	dx, dy := x-cx, y-cy
	k := 1.0
	if hx := cx - mx; math.Abs(dx) > hx {
		k = hx / math.Abs(dx)
	}
	if hy := cy - my; math.Abs(dy)*k > hy {
		k = hy / math.Abs(dy)
	}
	if !ok && k == 1 { // behind the eye: all the way to the edge
		k = math.Min((cx-mx)/math.Max(math.Abs(dx), 1e-9), (cy-my)/math.Max(math.Abs(dy), 1e-9))
	}
	return cx + dx*k, cy + dy*k
}

// Health and reload bars' size, their gap, and their bottom's height over the
// picture's bottom edge, pixels at HUD scale 1.
const barW, barH, barGap, barsUp = 220, 12, 6, 34

// px rounds a length in pixels to a whole pixel, at least one.
func px(v float32) float32 { return float32(max(1, math.Round(float64(v)))) }

// placeBars shows the health and reload bars, bottom centre of a w×h screen, when the
// player has a tank (self). They and their texts scale with the HUD as one block,
// centred as a whole so the texts on their right stay inside a narrow picture.
func (c *combatLayer) placeBars(cv *game.CombatView, self bool, w, h float32) {
	sc := c.scale
	bw, bh, gap := px(barW*sc), px(barH*sc), px(barGap*sc)
	tw := max(c.healthText.Width(), c.reloadText.Width())
	x0 := float32(math.Round(float64(w/2 - bw/2)))
	if right := x0 + bw + gap + tw; right > w-hudMargin*sc {
		x0 = max(hudMargin*sc, float32(math.Round(float64(w-hudMargin*sc-tw-gap-bw))))
	}
	y0 := float32(math.Round(float64(h - barsUp*sc - bh - gap - bh/2)))
	c.healthBg.SetVisible(self)
	c.healthBar.SetVisible(self && cv.Health > 0)
	c.reloadBg.SetVisible(self)
	c.reloadBar.SetVisible(self && cv.Loaded > 0)
	c.healthText.SetVisible(self)
	c.reloadText.SetVisible(self)
	c.barsRect = rect{}
	if !self {
		return
	}
	c.placeHealthBar(cv, x0, y0, bw, bh)
	c.placeReloadBar(cv, x0, y0+bh+gap, bw, px(bh/2))
	// The two texts stack beside the bars, the armour's level with its bar.
	_, hth := c.healthText.Size()
	ty := float32(math.Round(float64(y0 + bh/2 - hth/2)))
	c.healthText.SetPosition(x0+bw+gap, ty)
	c.reloadText.SetPosition(x0+bw+gap, ty+hth)
	c.barsRect = rect{x0, min(y0, ty), bw + gap + tw, max(y0+bh+gap+px(bh/2), ty+2*hth) - min(y0, ty)}
}

// placeHealthBar draws the armour left at (x0, y0), green when full turning red.
func (c *combatLayer) placeHealthBar(cv *game.CombatView, x0, y0, barW, barH float32) {
	frac := 0.0
	if cv.MaxHealth > 0 {
		frac = math.Max(0, math.Min(1, cv.Health/cv.MaxHealth))
	}
	c.healthBg.SetPosition(x0, y0)
	c.healthBg.SetSize(barW, barH)
	c.healthBar.SetPosition(x0, y0)
	c.healthBar.SetSize(float32(float64(barW)*frac), barH)
	c.healthBar.SetColor4(&math32.Color4{R: float32(0.95 - 0.75*frac), G: float32(0.25 + 0.6*frac), B: 0.2, A: 0.95})
	if cv.Health != c.lastHealth {
		c.lastHealth = cv.Health
		setText(c.healthText, fmt.Sprintf("armour %.0f / %.0f", cv.Health, cv.MaxHealth))
	}
}

// placeReloadBar draws how far the gun has reloaded at (x0, y0).
func (c *combatLayer) placeReloadBar(cv *game.CombatView, x0, y0, barW, barH float32) {
	c.reloadBg.SetPosition(x0, y0)
	c.reloadBg.SetSize(barW, barH)
	c.reloadBar.SetPosition(x0, y0)
	c.reloadBar.SetSize(float32(float64(barW)*math.Max(0, math.Min(1, cv.Loaded))), barH)
	loaded := math.Floor(cv.Loaded * 10)
	if loaded != c.lastLoaded {
		c.lastLoaded = loaded
		if cv.Loaded >= 1 {
			setText(c.reloadText, "gun ready (Space)")
		} else {
			setText(c.reloadText, "loading…")
		}
	}
}

// placeMarker shows the latest hit marker, just under the middle of a w×h screen.
func (c *combatLayer) placeMarker(markers []game.HitMarker, w, h float32) {
	c.marker.SetVisible(false)
	n := len(markers)
	if n == 0 {
		return
	}
	msg, col := markerText(markers[n-1])
	if msg != c.lastMsg {
		c.lastMsg = msg
		setText(c.marker, msg)
		setColor(c.marker, col)
	}
	mw, _ := c.marker.Size()
	c.marker.SetPosition(float32(math.Round(float64(w/2-mw/2))), float32(math.Round(float64(h*0.58))))
	c.marker.SetVisible(true)
}

// markerText is what a hit marker says and in which colour.
func markerText(mk game.HitMarker) (string, math32.Color) {
	if !mk.Confirmed {
		return fmt.Sprintf("refused: %s", strings.ReplaceAll(mk.Reason.String(), "_", " ")), math32.Color{R: 0.75, G: 0.75, B: 0.75}
	}
	switch {
	case mk.Kill:
		return "DESTROYED", math32.Color{R: 1, G: 0.35, B: 0.2}
	case mk.Damage == 0:
		return "HIT  (a teammate: no damage)", math32.Color{R: 1, G: 0.8, B: 0.2}
	}
	return fmt.Sprintf("HIT  −%.0f", mk.Damage), math32.Color{R: 1, G: 0.8, B: 0.2}
}

// placeClock shows the match clock and the score, top centre of a screen w wide.
// The line is written out only when what it shows changes (a second a second, a
// kill): summing the scoreboard is all a frame does.
func (c *combatLayer) placeClock(cv *game.CombatView, w float32) {
	line := clockLineOf(cv)
	if line != c.lastClock || !c.clockSet {
		c.lastClock, c.clockSet = line, true
		setText(c.clock, line.String())
	}
	cw, _ := c.clock.Size()
	c.clock.SetPosition(float32(math.Round(float64(w/2-cw/2))), float32(math.Round(float64(hudMargin*c.scale))))
	c.clock.SetVisible(c.clock.Text() != "")
}

// placeTeams shows how many tanks each team has alive, under the clock of a screen
// w wide; the text is made again only when a count changes.
func (c *combatLayer) placeTeams(tanks []game.TankView, scores []combat.Score, w float32) {
	n := countTeams(tanks, scores)
	if n != c.lastTeams || c.teams.Text() == "" {
		c.lastTeams = n
		setText(c.teams, n.String())
	}
	tw, _ := c.teams.Size()
	y := c.clock.Position().Y
	if c.clock.Visible() {
		_, ch := c.clock.Size()
		y += ch + 2
	}
	c.teams.SetPosition(float32(math.Round(float64(w/2-tw/2))), y)
	c.teams.SetVisible(c.teams.Text() != "")
}

// teamCount counts the tanks of teams 1…4 (teams past 4 share their colour's) and
// then of no team: alive and in all.
type teamCount struct{ alive, all [5]int }

// countTeams counts tanks by team, DIS entities left out. A client of a large match
// hears only of the tanks that matter to it, so a team has as many tanks as the
// scoreboard has lines of it when that is more, and all but the wrecks heard of are
// alive.
func countTeams(tanks []game.TankView, scores []combat.Score) teamCount {
	var n, wrecks, lines teamCount
	slot := func(team int) int {
		if team > 0 {
			return (team - 1) % 4
		}
		return 4
	}
	for i := range tanks {
		t := &tanks[i]
		if t.DIS() {
			continue
		}
		k := slot(t.Team)
		n.all[k]++
		if t.Wreck {
			wrecks.all[k]++
		}
	}
	for _, s := range scores {
		lines.all[slot(s.Team)]++
	}
	for k := range n.all {
		n.all[k] = max(n.all[k], lines.all[k])
		n.alive[k] = n.all[k] - wrecks.all[k]
	}
	return n
}

// String is the HUD's team-size line: each team's tanks alive of its tanks, by team
// number, tanks on no team last ("alive: Blue 203/256 · Yellow 198/255"); empty
// without tanks on a team.
func (n teamCount) String() string {
	if n.all[0]+n.all[1]+n.all[2]+n.all[3] == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("alive:")
	sep := " "
	for k := range n.all {
		if n.all[k] == 0 {
			continue
		}
		name := "no team"
		if k < 4 {
			name = game.TeamName(k + 1)
		}
		fmt.Fprintf(&b, "%s%s %d/%d", sep, name, n.alive[k], n.all[k])
		sep = " · "
	}
	return b.String()
}

// placeBanner shows a banner when the match is over or the player's tank is a wreck.
func (c *combatLayer) placeBanner(cv *game.CombatView, w, h float32) {
	banner := ""
	switch {
	case cv.Wreck && cv.KilledBy != "":
		banner = fmt.Sprintf("DESTROYED by %s (marked red) — respawn in %.0f s", cv.KilledBy, math.Ceil(cv.RespawnIn))
	case cv.Wreck:
		banner = fmt.Sprintf("DESTROYED — respawn in %.0f s", math.Ceil(cv.RespawnIn))
	}
	if banner != c.banner.Text() {
		setText(c.banner, banner)
	}
	bw, _ := c.banner.Size()
	y := h * 0.3
	if cv.Wreck && !cv.Over {
		y = h * 0.62 // under the middle, clear of the killer's marker
	}
	c.banner.SetPosition(float32(math.Round(float64(w/2-bw/2))), float32(math.Round(float64(y))))
	c.banner.SetVisible(banner != "")
}

// textRects appends to out the screen rectangles of the layer's visible texts and
// bars the damage notices must keep clear of.
func (c *combatLayer) textRects(out []rect) []rect {
	for _, p := range []gui.IPanel{c.marker, c.clock, c.banner, c.healthText, c.reloadText, c.healthBg, c.reloadBg, c.fb.mark} {
		if pp := p.GetPanel(); pp.Visible() {
			pos := pp.Position()
			out = append(out, rect{pos.X, pos.Y, p.Width(), p.Height()})
		}
	}
	return out
}

// matchClock is the top line: the time left and the teams' scores.
func matchClock(cv *game.CombatView) string { return clockLineOf(cv).String() }

// clockLine is what the top line shows: the whole seconds left (when timed is
// set) and the kills of each of teams 1…4 that has a line on the scoreboard
// (kills[t-1] when has[t-1]).
type clockLine struct {
	timed bool
	left  int
	kills [4]int
	has   [4]bool
}

// clockLineOf reads the top line's figures from cv, allocating nothing.
func clockLineOf(cv *game.CombatView) clockLine {
	var l clockLine
	if !math.IsInf(cv.Remaining, 1) && !cv.Over {
		l.timed, l.left = true, int(math.Ceil(cv.Remaining))
	}
	for _, s := range cv.Scores {
		if s.Team >= 1 && s.Team <= 4 {
			l.kills[s.Team-1] += s.Kills
			l.has[s.Team-1] = true
		}
	}
	return l
}

// String writes the top line out: "4:59   Blue: 3   Yellow: 1".
func (l clockLine) String() string {
	var b strings.Builder
	if l.timed {
		fmt.Fprintf(&b, "%d:%02d", l.left/60, l.left%60)
	}
	for t := 1; t <= 4; t++ {
		if l.has[t-1] {
			if b.Len() > 0 {
				b.WriteString("   ")
			}
			fmt.Fprintf(&b, "%s: %d", game.TeamName(t), l.kills[t-1])
		}
	}
	return b.String()
}

// teamLabel is the scoreboard's name of team t: its colour, or "-" for no team.
func teamLabel(t int) string {
	if t == 0 {
		return "-"
	}
	return game.TeamName(t)
}

// drawProtected rings every tank under spawn protection at the height of its hull,
// twice, so that every player sees which tanks shells cannot harm yet.
func drawProtected(b *lineBatch, tanks []game.TankView) {
	for i := range tanks {
		tv := &tanks[i]
		if !tv.Protected || !geom.FiniteVec(tv.Position) {
			continue
		}
		ring(b, tv.Position.Add(mgl64.Vec3{0, 0.8, 0}), protectRadius, protectColor)
		ring(b, tv.Position.Add(mgl64.Vec3{0, 1.6, 0}), protectRadius, protectColor)
	}
}

// protectRadius is the radius of the rings around a tank under spawn protection, m:
// clear of the hull (6.9 m long) whatever its heading.
const protectRadius = 4.5

// ring draws a flat circle of radius r around p.
func ring(b *lineBatch, p mgl64.Vec3, r float64, col math32.Color) {
	const n = 16
	lift := mgl64.Vec3{0, 0.15, 0}
	for k := 0; k < n; k++ {
		a0, a1 := 2*math.Pi*float64(k)/n, 2*math.Pi*float64(k+1)/n
		b.segment(p.Add(lift).Add(mgl64.Vec3{r * math.Cos(a0), 0, r * math.Sin(a0)}),
			p.Add(lift).Add(mgl64.Vec3{r * math.Cos(a1), 0, r * math.Sin(a1)}), col)
	}
}

// combatScoreRows is the Tab scoreboard of a match with combat: page page of the
// host's lines by team, best first, in fit table lines, the DIS entities apart,
// unscored, and the observers counted in the title (scoreboardRows).
func combatScoreRows(snap *game.Snapshot, page, fit int) (rows [][]string, shown, pages int) {
	self := ""
	if snap.Self >= 0 && snap.Self < len(snap.Tanks) {
		self = snap.Tanks[snap.Self].Name
	}
	return scoreboardRows(boardInput{Scores: snap.Combat.Scores, Self: self, Tanks: snap.Tanks, Over: snap.Combat.Over,
		Observers: snap.Observers, Observing: snap.Observing, Page: page, Fit: fit})
}
