package render

import (
	"fmt"
	"math"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// Combat feedback: what tells the player what happened. A hit marker on the
// crosshair for the host's answer to the player's shot (a white × for a hit, a
// larger red × for a kill, a grey ? for a refused claim); a damage indicator around the middle
// of the picture pointing at whoever hit the player, with their name; and, while the
// player's wreck waits, the killer marked in the world.
const (
	// markerShow is how long the hit marker stays on the crosshair, s.
	markerShow = 0.6
	// hurtRadius is how far from the middle of the picture the damage indicator
	// sits, pixels at scale 1.
	hurtRadius = 150
	// maxHurts is how many damage indicators show at once.
	maxHurts = 3
)

// Feedback colours.
var (
	hitMarkColor     = math32.Color{R: 1, G: 1, B: 1}
	killMarkColor    = math32.Color{R: 1, G: 0.2, B: 0.1}
	refusedMarkColor = math32.Color{R: 0.6, G: 0.6, B: 0.6}
	hurtColor        = math32.Color{R: 1, G: 0.3, B: 0.2}
	killerColor      = math32.Color{R: 1, G: 0.15, B: 0.1}
)

// feedback is the combat layer's feedback labels.
type feedback struct {
	fonts    *fontBook // the HUD's
	mark     *textLabel
	markKind int // 0 none, 1 hit, 2 kill, 3 refused: the mark's look as last set
	hurts    [maxHurts]*textLabel
	hurtText [maxHurts]string
	scale    float32 // the HUD scale the fonts are set for
	// shooter and victim are a kill camera's tanks (Scene.MarkKill), 0 when none;
	// victim is the label over the victim.
	shooter, victimID uint32
	victimName        string // the victim label's name; "" for the tank's
	victim            *textLabel
	victimText        string
}

// hurtFontSize is the damage indicator's font size at HUD scale 1, points, and
// victimFontSize the kill camera's victim label's.
const hurtFontSize, victimFontSize = 17, 18

// victimColor marks a kill camera's victim: its label's background and the rings
// and post around it.
var victimColor = math32.Color{R: 1, G: 0.55, B: 0.05}

// victimPost is the height of the post over a kill camera's victim, m; its label
// sits on top.
const victimPost = 8.0

// MarkKill marks the tanks of a kill camera from the next Update on: the shooter,
// whose turret the camera rides, gets no name label (it would float over the
// picture, beside the victim), and the victim, with no label of its own, is marked
// by an orange label "▼ NAME" over it and orange rings and a post around it. name,
// when set, is the label's name in place of the victim's ("you" for the player's own
// death). MarkKill(0, 0, "") ends it.
func (s *Scene) MarkKill(shooter, victim uint32, name string) {
	f := s.combat.fb
	f.shooter, f.victimID, f.victimName = shooter, victim, name
}

// killCamHides reports whether the kill camera's marks replace tank id's label.
func (f *feedback) killCamHides(id uint32) bool {
	return id != 0 && (id == f.shooter || id == f.victimID)
}

// markVictim draws the kill camera's victim marks for snap (MarkKill).
func (f *feedback) markVictim(s *Scene, snap *game.Snapshot, w, h float32) {
	var tv *game.TankView
	self := false
	for i := range snap.Tanks {
		if f.victimID != 0 && snap.Tanks[i].ID == f.victimID && geom.FiniteVec(snap.Tanks[i].Position) {
			tv, self = &snap.Tanks[i], i == snap.Self
		}
	}
	if tv == nil {
		f.victim.SetVisible(false)
		return
	}
	ring(s.lines, tv.Position, 4.5, victimColor)
	ring(s.lines, tv.Position, 5.2, victimColor)
	s.lines.segment(tv.Position.Add(mgl64.Vec3{0, 3, 0}), tv.Position.Add(mgl64.Vec3{0, victimPost, 0}), victimColor)
	text := "▼ " + tv.Name
	switch {
	case f.victimName != "":
		text = "▼ " + f.victimName
	case self || tv.Name == "":
		text = "▼ you"
	}
	if text != f.victimText {
		f.victimText = text
		setText(f.victim, text)
	}
	x, y, ok := s.view.Project(tv.Position.Add(mgl64.Vec3{0, victimPost + 0.5, 0})) // on top of the post
	if !ok || !geom.Finite(x, y) {
		f.victim.SetVisible(false)
		return
	}
	lw, lh := f.victim.Size()
	m := hudMargin * f.scale
	r := rect{float32(x) - lw/2, float32(y) - lh - 4*f.scale, lw, lh}
	r.x = max(m, min(r.x, w-m-lw))
	r.y = max(m, min(r.y, h-m-lh))
	f.victim.SetPosition(float32(math.Round(float64(r.x))), float32(math.Round(float64(r.y))))
	f.victim.SetVisible(true)
}

// setScale sets the labels' fonts for HUD scale sc.
func (f *feedback) setScale(sc float32) {
	f.scale = sc
	f.markKind = 0 // the mark's font is set with its look: redo it
	for _, l := range f.hurts {
		f.fonts.setFontSize(l, hurtFontSize*float64(sc))
		l.SetPaddings(2*sc, 6*sc, 2*sc, 6*sc)
	}
	f.fonts.setFontSize(f.victim, victimFontSize*float64(sc))
	f.victim.SetPaddings(2*sc, 6*sc, 2*sc, 6*sc)
}

func newFeedback(parent *core.Node, fonts *fontBook) *feedback {
	f := &feedback{fonts: fonts, mark: fonts.label("×"), scale: 1, victim: fonts.label("")}
	f.mark.SetVisible(false)
	parent.Add(f.mark)
	f.fonts.setFontSize(f.victim, victimFontSize)
	setColor(f.victim, math32.Color{R: 1, G: 1, B: 1})
	setBgColor4(f.victim, math32.Color4{R: victimColor.R * 0.8, G: victimColor.G * 0.8, B: victimColor.B, A: 0.9})
	f.victim.SetPaddings(2, 6, 2, 6)
	f.victim.SetVisible(false)
	parent.Add(f.victim)
	for i := range f.hurts {
		l := f.fonts.label("")
		f.fonts.setFontSize(l, hurtFontSize)
		setColor(l, hurtColor)
		setBgColor4(l, backdrop(0.55))
		l.SetPaddings(2, 6, 2, 6)
		l.SetVisible(false)
		parent.Add(l)
		f.hurts[i] = l
	}
	return f
}

// markKindOf is the look of hit marker mk on the crosshair: 1 hit, 2 kill, 3 refused.
func markKindOf(mk game.HitMarker) int {
	switch {
	case !mk.Confirmed:
		return 3
	case mk.Kill:
		return 2
	}
	return 1
}

// placeMark puts the latest hit marker on the crosshair at (x, y), pixels, while it
// is fresh; shown is whether the crosshair is.
func (f *feedback) placeMark(markers []game.HitMarker, x, y float32, shown bool) {
	n := len(markers)
	if !shown || n == 0 || markers[n-1].Age >= markerShow {
		f.mark.SetVisible(false)
		return
	}
	if k := markKindOf(markers[n-1]); k != f.markKind {
		f.markKind = k
		text, size, col := "×", 40.0, hitMarkColor
		switch k {
		case 2:
			text, size, col = "×", 64, killMarkColor
		case 3:
			text, size, col = "?", 30, refusedMarkColor
		}
		setText(f.mark, text)
		f.fonts.setFontSize(f.mark, size*float64(f.scale))
		setColor(f.mark, col)
	}
	mw, mh := f.mark.Size()
	f.mark.SetPosition(float32(math.Round(float64(x-mw/2))), float32(math.Round(float64(y-mh/2))))
	f.mark.SetVisible(true)
}

// hurtDirection is the direction on the picture, from its middle, toward world point
// p as seen from view v: a unit vector in pixels' axes (x right, y down), pointing up
// for a point straight ahead and down for one behind.
func hurtDirection(v View, p mgl64.Vec3) (dx, dy float64) {
	d := v.Orientation.Conjugate().Rotate(p.Sub(v.Eye)) // camera frame: −Z ahead, +X right
	a := math.Atan2(d[0], -d[2])
	if d[0] == 0 && d[2] == 0 {
		a = 0
	}
	return math.Sin(a), -math.Cos(a)
}

// arrows are the eight directions of the damage indicator, clockwise from up.
var arrows = [8]string{"↑", "↗", "→", "↘", "↓", "↙", "←", "↖"}

// hurtText is what the damage indicator says for hit h from direction (dx, dy).
func hurtText(h game.Hurt, dx, dy float64) string {
	k := int(math.Round(math.Atan2(dx, -dy)/(math.Pi/4))+8) % 8
	what := fmt.Sprintf("−%.0f", h.Damage)
	if h.Kill {
		what = "destroyed you"
	}
	return fmt.Sprintf("%s %s %s", arrows[k], h.Name, what)
}

// placeHurts shows the latest hits on the player around the middle of a w×h
// picture, each toward its shooter, fading over game.HurtLife. The notices stack:
// one that would cover another, or a text in taken, moves away from the middle by
// its own height until it is clear, and stays inside the picture.
func (f *feedback) placeHurts(s *Scene, hurts []game.Hurt, w, h, scale float32, taken []rect) {
	shown := 0
	for i := len(hurts) - 1; i >= 0 && shown < maxHurts; i-- {
		hu := hurts[i]
		if !hu.HasFrom || !geom.FiniteVec(hu.From) {
			continue
		}
		dx, dy := hurtDirection(s.view, hu.From)
		l := f.hurts[shown]
		if text := hurtText(hu, dx, dy); text != f.hurtText[shown] {
			f.hurtText[shown] = text
			setText(l, text)
		}
		fade := float32(math.Max(0.25, 1-hu.Age/game.HurtLife))
		col := math32.Color{R: hurtColor.R * fade, G: hurtColor.G * fade, B: hurtColor.B * fade}
		setColor(l, col)
		lw, lh := l.Size()
		r := hurtRadius * scale
		x := w/2 + float32(dx)*r - lw/2
		y := h/2 + float32(dy)*r - lh/2
		got := stackRect(rect{x, y, lw, lh}, float32(math.Copysign(1, dy)), w, h, hudMargin*scale, taken)
		taken = append(taken, got)
		l.SetPosition(got.x, got.y)
		l.SetVisible(true)
		shown++
	}
	for i := shown; i < maxHurts; i++ {
		f.hurts[i].SetVisible(false)
	}
}

// markKiller draws, while the player's wreck waits, a red ring on the ground around
// the tank that destroyed it and a line rising from it, so the player sees where it is.
func markKiller(s *Scene, snap *game.Snapshot) {
	cv := &snap.Combat
	if !cv.Wreck || cv.Killer == 0 {
		return
	}
	for i := range snap.Tanks {
		tv := &snap.Tanks[i]
		if tv.ID != cv.Killer || !geom.FiniteVec(tv.Position) {
			continue
		}
		ring(s.lines, tv.Position, 4.5, killerColor)
		ring(s.lines, tv.Position, 5, killerColor)
		s.lines.segment(tv.Position.Add(mgl64.Vec3{0, 3, 0}), tv.Position.Add(mgl64.Vec3{0, 14, 0}), killerColor)
		return
	}
}

// stackRect moves r, a notice's rectangle, inside a w×h picture (margin pixels in
// from its edges) and then by its own height in direction dir (+1 down, −1 up) until
// it overlaps none of taken; when that runs off the picture it tries the other way.
// The result is rounded to whole pixels.
func stackRect(r rect, dir, w, h, margin float32, taken []rect) rect {
	fit := func(r rect) rect {
		r.x = max(margin, min(r.x, w-margin-r.w))
		r.y = max(margin, min(r.y, h-margin-r.h))
		r.x, r.y = float32(math.Round(float64(r.x))), float32(math.Round(float64(r.y)))
		return r
	}
	start := fit(r)
	free := func(r rect) bool {
		for _, o := range taken {
			if r.overlaps(o) {
				return false
			}
		}
		return true
	}
	for _, d := range [2]float32{dir, -dir} {
		c := start
		for range 2 * maxHurts * 4 {
			if free(c) {
				return c
			}
			next := fit(rect{c.x, c.y + d*(c.h+1), c.w, c.h})
			if next.y == c.y { // at the edge
				break
			}
			c = next
		}
	}
	return start
}
