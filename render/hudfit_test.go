package render

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gui"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
)

// busyCombat is a snapshot with every part of the playing HUD showing: the bars,
// the clock with two teams' scores, a fresh hit marker, two damage notices from
// nearly the same direction, and a feed with a kill.
func busyCombat() *game.Snapshot {
	snap := testSnapshot(3)
	snap.Time = 40
	cv := &snap.Combat
	cv.Enabled, cv.HasAim, cv.Loaded = true, true, 1
	cv.Health, cv.MaxHealth = 100, 100
	cv.Aim = snap.Tanks[1].Position.Add(mgl64.Vec3{0, 1.5, 0})
	cv.Remaining = 125
	cv.Scores = []combat.Score{{Name: "tank-0", Team: 0, Kills: 3}, {Name: "tank-1", Team: 1, Kills: 12}, {Name: "tank-2", Team: 2, Kills: 10}}
	cv.Markers = []game.HitMarker{{Confirmed: true, Damage: 34, Age: 0.1}}
	from := snap.Tanks[2].Position
	cv.Hurts = []game.Hurt{
		{Shooter: 3, Name: "tank-2", From: from, HasFrom: true, Damage: 25, Age: 0.8},
		{Shooter: 2, Name: "tank-1", From: from.Add(mgl64.Vec3{2, 0, 1}), HasFrom: true, Damage: 40, Age: 0.1},
	}
	snap.Tanks[2].Team = 2
	snap.Notices = []game.Notice{
		{Kind: game.NoticeJoin, Time: 31, Who: "tank-2", Team: 0},
		{Kind: game.NoticeChat, Time: 35, Who: "tank-1", Team: 1, Text: "two of them on the ridge, west end, coming round"},
		{Kind: game.NoticeKill, Time: 38, Who: "tank-1", Team: 1, Other: "tank-2"},
	}
	return snap
}

// hudPanels returns the visible panels under n, with their rectangles on the picture.
func hudPanels(n core.INode, out map[string]rect) {
	for _, c := range n.Children() {
		if !c.Visible() {
			continue
		}
		if p, ok := c.(gui.IPanel); ok {
			pos := p.GetPanel().Position()
			name := fmt.Sprintf("%T %p", c, c)
			if l, ok := c.(*textLabel); ok {
				name = fmt.Sprintf("label %q", l.Text())
			}
			out[name] = rect{pos.X, pos.Y, p.Width(), p.Height()}
		}
		hudPanels(c, out)
	}
}

// TestHUDFitsAnySize lays the playing HUD out with everything showing (the counters
// (F3), the recording indicator, bars, clock, marker, two damage notices, a kill in
// the feed) from 400×260 to 4K: every panel and text lies inside the window, the
// bars and the texts follow one scale (the bars' width and the clock's height are
// their 1280×720 sizes times the HUD scale), and the damage notices, the marker, the
// clock and the bars' texts never cover one another. At 400×260 the frame is drawn
// and the bars' texts and the bars are on the picture where the layout put them.
func TestHUDFitsAnySize(t *testing.T) {
	v := needViewer(t)
	snap := busyCombat()
	s := newTestScene(t, 0)
	s.SetPanels(Panels{Debug: true, Recording: true})
	drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 1)
	var clockH1 float32
	for _, size := range [][2]int{{1280, 720}, {400, 260}, {640, 360}, {1920, 1080}, {3840, 2160}} {
		w, h := float32(size[0]), float32(size[1])
		onMain(func() {
			s.Resize(size[0], size[1])
			s.Update(snap, 1) // texts due
			s.Update(snap, 0) // placed with their new sizes
		})
		sc := s.hud.scale
		if want := float32(math.Max(minUIScale, math.Min(maxUIScale, math.Min(float64(w)/1280, float64(h)/720)))); sc != want {
			t.Errorf("%dx%d: scale %.3f, want %.3f", size[0], size[1], sc, want)
		}
		panels := map[string]rect{}
		hudPanels(s.hud.root, panels)
		for name, r := range panels {
			if r.x < -0.5 || r.y < -0.5 || r.x+r.w > w+0.5 || r.y+r.h > h+0.5 {
				t.Errorf("%dx%d: %s at (%.0f, %.0f) %.0f×%.0f is cut by the window", size[0], size[1], name, r.x, r.y, r.w, r.h)
			}
		}
		c := s.combat
		for _, l := range []*textLabel{c.healthText, c.reloadText, c.clock, c.marker, s.hud.stats, s.hud.rec} {
			if !l.Visible() {
				t.Errorf("%dx%d: %q not shown", size[0], size[1], l.Text())
			}
		}
		if got, want := c.healthBg.Width(), px(barW*sc); got != want {
			t.Errorf("%dx%d: armour bar %.0f px wide, want %.0f (scale %.2f)", size[0], size[1], got, want, sc)
		}
		_, ch := c.clock.Size()
		if size[0] == 1280 {
			clockH1 = ch
		} else if k := ch / clockH1 / sc; k < 0.8 || k > 1.25 {
			t.Errorf("%dx%d: clock %.0f px high, %.2f times its 1280×720 height at scale %.2f", size[0], size[1], ch, ch/clockH1, sc)
		}
		if !strings.Contains(s.hud.stats.Text(), "refused") {
			t.Errorf("%dx%d: F3 on but the figures lack the counters: %q", size[0], size[1], s.hud.stats.Text())
		}
		texts := map[string]*textLabel{"clock": c.clock, "marker": c.marker, "armour": c.healthText, "reload": c.reloadText,
			"hurt 0": c.fb.hurts[0], "hurt 1": c.fb.hurts[1]}
		for a, la := range texts {
			for b, lb := range texts {
				if a >= b || !la.Visible() || !lb.Visible() {
					continue
				}
				ra := rect{la.Position().X, la.Position().Y, la.Width(), la.Height()}
				rb := rect{lb.Position().X, lb.Position().Y, lb.Width(), lb.Height()}
				if ra.overlaps(rb) {
					t.Errorf("%dx%d: %s %q %+v covers %s %q %+v", size[0], size[1], a, la.Text(), ra, b, lb.Text(), rb)
				}
			}
		}
		// The feed's lines keep clear of the bars and their texts.
		for i, fl := range s.hud.feed.lines {
			for _, l := range append([]*textLabel{fl}, s.hud.feed.more[i][:]...) {
				if !l.Visible() {
					continue
				}
				r := rect{l.Position().X, l.Position().Y, l.Width(), l.Height()}
				for _, b := range []gui.IPanel{c.healthText, c.reloadText, c.healthBg, c.reloadBg} {
					if pos := b.GetPanel().Position(); r.overlaps(rect{pos.X, pos.Y, b.Width(), b.Height()}) {
						t.Errorf("%dx%d: feed line %q %+v runs under the bars", size[0], size[1], l.Text(), r)
					}
				}
			}
		}
		if !c.fb.hurts[0].Visible() || !c.fb.hurts[1].Visible() {
			t.Errorf("%dx%d: the two damage notices are not both shown", size[0], size[1])
		}
	}

	// Drawn at 400×260: the texts' pixels are where the layout put them.
	onMain(func() {
		v.Window().SetSize(400, 260)
		v.Swap()
	})
	defer onMain(func() {
		v.Window().SetSize(testW, testH)
		v.Swap()
	})
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 2)
	savePNG(t, img, "hud-400x260.png")
	if b := img.Bounds(); b.Dx() != 400 || b.Dy() != 260 {
		t.Fatalf("picture %v, want 400×260", b)
	}
	// Text this small is mostly its anti-aliased edges: light grey, not white (the
	// grass under it is green, its backdrop dark).
	white := func(r, g, b float64) bool { return min(r, g, b) > 0.5 }
	c := s.combat
	for _, l := range []*textLabel{c.healthText, c.reloadText, c.clock} {
		p := l.Position()
		lw, lh := l.Size()
		n := 0
		for y := int(p.Y); y < int(p.Y+lh); y++ {
			for x := int(p.X); x < int(p.X+lw) && x < 400; x++ {
				if white(rgb(img, x, y)) {
					n++
				}
			}
		}
		if n < 15 {
			t.Errorf("%q at (%.0f, %.0f) %.0f×%.0f: %d light text pixels on the 400×260 picture", l.Text(), p.X, p.Y, lw, lh, n)
		}
	}
	bar := c.healthBar.Position()
	if n := near(img, float64(bar.X+c.healthBar.Width()/2), float64(bar.Y+c.healthBar.Height()/2), 2,
		func(r, g, b float64) bool { return g > 0.6 && r < 0.5 }); n < 5 {
		t.Errorf("the full armour bar is not drawn green at (%.0f, %.0f): %d pixels", bar.X, bar.Y, n)
	}
}

// TestNoticesStack: damage notices from the same direction stack instead of drawing
// over each other, and a notice kept off a taken rectangle stays inside the picture.
func TestNoticesStack(t *testing.T) {
	var taken []rect
	for i := range 4 {
		r := stackRect(rect{180, 200, 80, 20}, -1, 400, 260, 4, taken)
		for _, o := range taken {
			if r.overlaps(o) {
				t.Errorf("notice %d at %+v covers %+v", i, r, o)
			}
		}
		if r.x < 4 || r.y < 4 || r.x+r.w > 396 || r.y+r.h > 256 {
			t.Errorf("notice %d at %+v leaves the picture", i, r)
		}
		taken = append(taken, r)
	}
	if taken[1].y >= taken[0].y {
		t.Errorf("second notice at y %.0f, first at %.0f: want it above (away from the middle)", taken[1].y, taken[0].y)
	}
}

// TestKillFeedTeamColours: a kill's line is the shooter in their team's colour, then
// the victim in theirs.
func TestKillFeedTeamColours(t *testing.T) {
	v := needViewer(t)
	snap := busyCombat()
	s := newTestScene(t, 0)
	drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 1)
	f := s.hud.feed
	i := 2 // the kill, the third notice
	if got := f.lines[i].Text(); got != "tank-1" {
		t.Fatalf("kill line starts %q, want the shooter", got)
	}
	if !f.more[i][1].Visible() || f.more[i][1].Text() != "tank-2" {
		t.Fatalf("kill line's victim %q (shown %v)", f.more[i][1].Text(), f.more[i][1].Visible())
	}
	shooter, victim := teamTextColor(1), teamTextColor(2)
	if shooter == victim {
		t.Fatal("teams 1 and 2 share a text colour")
	}
	// The labels' colours are in their text's style.
	if got := f.lines[i].Color(); got.R != shooter.R || got.G != shooter.G || got.B != shooter.B {
		t.Errorf("shooter drawn in %+v, want team 1's %+v", got, shooter)
	}
	if got := f.more[i][1].Color(); got.R != victim.R || got.G != victim.G || got.B != victim.B {
		t.Errorf("victim drawn in %+v, want team 2's %+v", got, victim)
	}
	sr := rect{f.lines[i].Position().X, f.lines[i].Position().Y, f.lines[i].Width(), f.lines[i].Height()}
	vr := rect{f.more[i][1].Position().X, f.more[i][1].Position().Y, f.more[i][1].Width(), f.more[i][1].Height()}
	if vr.x < sr.x+sr.w || math.Abs(float64(vr.y-sr.y)) > 0.5 {
		t.Errorf("victim %+v not after the shooter %+v on one line", vr, sr)
	}
}

// TestKillCamLabels frames a kill from behind and above the shooter, looking at
// the victim, as a replay's kill camera does (the replay's snapshot may have no
// player's tank): with MarkKill the shooter has no name label, the victim's own
// label gives way to an orange "▼ NAME" just above it, inside the picture, and a
// bystander keeps its label. Without MarkKill the same picture labels both.
func TestKillCamLabels(t *testing.T) {
	v := needViewer(t)
	place := func(id uint32, name string, team int, x, z float64) game.TankView {
		return game.TankView{ID: id, Name: name, Team: team, Position: mgl64.Vec3{x, testGround(x, z), z},
			Orientation: mgl64.QuatIdent(), GroundNormal: mgl64.Vec3{0, 1, 0}}
	}
	snap := &game.Snapshot{Self: -1, Tanks: []game.TankView{
		place(1, "victim", 2, 60, 0), place(2, "gunner", 1, 30, 0), place(3, "bystander", 1, 64, 9)}}
	snap.Combat.Enabled, snap.Combat.MaxHealth = true, 100
	shooter, victim := snap.Tanks[1].Position, snap.Tanks[0].Position
	d := victim.Sub(shooter)
	d[1] = 0
	// Farther back and higher than the kill camera's 3 m and 4 m, so the shooter is
	// in the picture and the test ground's hills hide nothing.
	eye := shooter.Add(mgl64.Vec3{0, 14, 0}).Sub(d.Normalize().Mul(16))
	look := victim.Add(mgl64.Vec3{0, 1.5, 0})
	s := newTestScene(t, 0)
	s.WatchID(2)
	s.LookFrom(eye, look, true)
	s.MarkKill(2, 1, "")
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 3)
	savePNG(t, img, "killcam-labels.png")
	if s.tanks[2].labelled() {
		t.Errorf("the shooter's label %q shows in its own kill camera", s.tanks[2].name.Text())
	}
	if s.tanks[1].labelled() {
		t.Errorf("the victim's plain label %q shows beside its mark", s.tanks[1].name.Text())
	}
	if !s.tanks[3].labelled() {
		t.Error("the bystander's label is hidden")
	}
	l := s.combat.fb.victim
	if !l.Visible() || l.Text() != "▼ victim" {
		t.Fatalf("victim label %q (shown %v), want \"▼ victim\"", l.Text(), l.Visible())
	}
	vx, vy, ok := s.View().Project(victim)
	if !ok {
		t.Fatal("the victim is off the picture")
	}
	p := l.Position()
	lw, lh := l.Size()
	if math.Abs(float64(p.X+lw/2)-vx) > 2 || float64(p.Y+lh) > vy || p.X < 0 || p.Y < 0 || p.X+lw > testW || p.Y+lh > testH {
		t.Errorf("victim label at (%.0f, %.0f) %.0f×%.0f, victim at (%.0f, %.0f) in a %dx%d picture: want it just above",
			p.X, p.Y, lw, lh, vx, vy, testW, testH)
	}
	orange := func(r, g, b float64) bool { return r > 0.7 && g > 0.3 && g < 0.65 && b < 0.25 }
	if n := near(img, float64(p.X+lw/2), float64(p.Y+lh/2), int(lh/2), orange); n < 20 {
		t.Errorf("victim label not drawn orange: %d pixels", n)
	}
	// The same picture without the marks: both tanks' plain labels show, and the
	// victim's mark goes.
	s.MarkKill(0, 0, "")
	drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 1)
	if l.Visible() {
		t.Error("the victim label stays after MarkKill(0, 0, \"\")")
	}
	if !s.tanks[2].labelled() || !s.tanks[1].labelled() {
		t.Errorf("without the marks, shooter's label shown %v, victim's %v: want both (the test's framing shows them)",
			s.tanks[2].labelled(), s.tanks[1].labelled())
	}
}

// TestResultsFitAnySize shows a practice's results (eight players) from 400×260 to
// 4K: the title, the table and the foot lie inside the window, at the HUD's scale.
func TestResultsFitAnySize(t *testing.T) {
	v := needViewer(t)
	snap := busyCombat()
	cv := &snap.Combat
	cv.Over, cv.NextIn = true, 17.5
	cv.Scores = nil
	for i := range 8 {
		cv.Scores = append(cv.Scores, combat.Score{Name: fmt.Sprintf("Challenger-%d", i), Team: 1 + i%2, Kills: 8 - i, Deaths: i, Hits: 9, Shots: 14})
	}
	s := newTestScene(t, 0)
	drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 1)
	for _, size := range [][2]int{{400, 260}, {640, 360}, {1280, 720}, {3840, 2160}} {
		onMain(func() {
			s.Resize(size[0], size[1])
			s.Update(snap, 1)
			s.Update(snap, 0)
		})
		r := s.combat.res
		for _, p := range []gui.IPanel{r.title, r.foot, r.table.bg} {
			pos := p.GetPanel().Position()
			if !p.GetPanel().Visible() || pos.X < -0.5 || pos.Y < -0.5 || pos.X+p.Width() > float32(size[0])+0.5 || pos.Y+p.Height() > float32(size[1])+0.5 {
				t.Errorf("%dx%d: results panel at (%.0f, %.0f) %.0f×%.0f (shown %v) is cut by the window",
					size[0], size[1], pos.X, pos.Y, p.Width(), p.Height(), p.GetPanel().Visible())
			}
		}
		if !strings.Contains(r.foot.Text(), "Next round in 18 s") {
			t.Errorf("%dx%d: results foot %q", size[0], size[1], r.foot.Text())
		}
	}
}
