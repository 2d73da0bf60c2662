package render

import (
	"fmt"
	"image"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
)

// battleSnapshot is a battle of 512 tanks on the test map: the player's (team 1) at
// the middle with three teammates within minimapSquad, eight packs of 48, a lone
// teammate far off at (200, −200), the rest strewn; every line on the board, with
// pings; a sixth of the tanks wrecks.
func battleSnapshot() *game.Snapshot {
	snap := &game.Snapshot{Self: 0, Time: 30}
	add := func(name string, team int, x, z float64) {
		i := len(snap.Tanks)
		tv := placedTank(uint32(i+1), name, team, x, z, 0.37*float64(i), testGround)
		tv.Wreck = i%6 == 5
		snap.Tanks = append(snap.Tanks, tv)
	}
	add("me", 1, 0, 0)
	add("mate1", 1, 40, 30)
	add("mate2", 1, -50, 20)
	add("mate3", 1, 20, -60)
	add("lone", 1, 200, -200)
	for p := range 8 {
		a := float64(p) * math.Pi / 4
		cx, cz := 150*math.Cos(a), 150*math.Sin(a)
		team := 1 + p%2
		for k := range 48 {
			r, b := 3+2*math.Sqrt(float64(k)), float64(k)*2.4
			add(fmt.Sprintf("p%d-%02d", p, k), team, cx+r*math.Cos(b), cz+r*math.Sin(b))
		}
	}
	for i := 0; len(snap.Tanks) < 512; i++ {
		x, z := 230*math.Sin(float64(i)*1.7), 230*math.Cos(float64(i)*2.3)
		add(fmt.Sprintf("s%03d", i), 1+i%2, x, z)
	}
	snap.Combat.Enabled = true
	snap.Combat.Remaining = 400
	snap.Combat.MaxHealth, snap.Combat.Health, snap.Combat.Loaded = 100, 100, 1
	for i, tv := range snap.Tanks {
		s := combat.Score{Owner: uint32(i), Name: tv.Name, Team: tv.Team, Kills: (i * 7) % 13, Deaths: (i * 5) % 9, Link: combat.LinkBot}
		if i < 40 {
			s.Link, s.RTT = combat.LinkMeasured, time.Duration(30+3*i)*time.Millisecond
		}
		snap.Combat.Scores = append(snap.Combat.Scores, s)
	}
	return snap
}

// TestSquadOf: the squad is the four nearest teammates alive within minimapSquad,
// nearest first, whatever order the tanks come in.
func TestSquadOf(t *testing.T) {
	var tanks []game.TankView
	add := func(name string, team int, x float64, wreck bool) {
		tanks = append(tanks, game.TankView{Name: name, Team: team, Position: mgl64.Vec3{x, 0, 0}, Wreck: wreck})
	}
	add("far", 1, 160, false)
	add("d90", 1, 90, false)
	add("me", 1, 0, false)
	add("d30", 1, -30, false)
	add("enemy", 2, 5, false)
	add("d120", 1, 120, false)
	add("wreck", 1, 2, true)
	add("d10", 1, 10, false)
	add("d60", 1, -60, false)
	var got []string
	var near [minimapSquadSize]*game.TankView
	for _, tv := range squadOf(&near, tanks, &tanks[2]) {
		got = append(got, tv.Name)
	}
	if want := "[d10 d30 d60 d90]"; fmt.Sprint(got) != want {
		t.Errorf("squad %v, want %s", got, want)
	}
	if sq := squadOf(&near, tanks, nil); len(sq) != 0 {
		t.Errorf("a squad without a tank: %d", len(sq))
	}
}

// TestCrowdReadable draws a battle of 512 tanks at 1280×720 with the scoreboard
// open: the board stays inside the window, its first page grouped by team with the
// player's line; the minimap shows the player's arrow ringed in white, the squad as
// arrows outlined in white, a lone far teammate as a plain dot, the packs as discs in
// their team's colour; the team line counts the tanks alive.
func TestCrowdReadable(t *testing.T) {
	v := needViewer(t)
	snap := battleSnapshot()
	s := newTestScene(t, 0)
	onMain(func() {
		v.Window().SetSize(DefaultWidth, DefaultHeight)
		v.Swap()
	})
	defer onMain(func() {
		v.Window().SetSize(testW, testH)
		v.Swap()
	})
	var img *image.RGBA
	var err error
	show := func(p Panels) {
		s.SetPanels(p)
		onMain(func() {
			for i := range 3 {
				s.Update(snap, 0.25) // every frame past the HUD's text interval
				if err = v.Draw(s); err != nil {
					return
				}
				if i == 2 {
					img = v.Capture()
				}
				v.Swap()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	show(Panels{})
	savePNG(t, img, "crowd.png")
	m := s.minimap
	pos := m.img.Position()
	savePNG(t, img.SubImage(image.Rect(int(pos.X)-4, int(pos.Y)-4, int(pos.X)+m.size+4, int(pos.Y)+m.size+4)), "crowd-minimap.png")
	// whiteNear counts white pixels on the picture within r pixels of world point p.
	whiteNear := func(p mgl64.Vec3, r int) int {
		px, py := m.pixel(p)
		n := 0
		for dy := -r; dy <= r; dy++ {
			for dx := -r; dx <= r; dx++ {
				if cr, cg, cb := rgb(img, int(pos.X)+int(px)+dx, int(pos.Y)+int(py)+dy); cr > 0.95 && cg > 0.95 && cb > 0.95 {
					n++
				}
			}
		}
		return n
	}
	byName := map[string]*game.TankView{}
	for i := range snap.Tanks {
		byName[snap.Tanks[i].Name] = &snap.Tanks[i]
	}
	if n := whiteNear(byName["me"].Position, 12); n < 20 {
		t.Errorf("the player's own arrow and ring: %d white pixels near it", n)
	}
	for _, name := range []string{"mate1", "mate2", "mate3"} {
		if n := whiteNear(byName[name].Position, 5); n < 3 {
			t.Errorf("squad mate %s: %d white pixels near it, want its arrow outlined in white", name, n)
		}
	}
	if n := whiteNear(byName["lone"].Position, 4); n != 0 {
		t.Errorf("a lone teammate far off: %d white pixels near it, want a plain dot", n)
	}
	// Around a pack the minimap is washed in its team's colour: nearer it than the
	// bare ground, clear of the pack's dots (the pack's edge is 17 m out).
	for p := range 8 {
		a := float64(p) * math.Pi / 4
		px, py := m.pixel(mgl64.Vec3{176 * math.Cos(a), 0, 176 * math.Sin(a)})
		x, y := int(px), int(py)
		c, g := m.frame.RGBAAt(x, y), m.base.RGBAAt(x, y)
		tc := rgba8(teamColor(1+p%2), 1)
		d := func(r, g, b uint8) float64 {
			return math.Abs(float64(r)-float64(tc.R)) + math.Abs(float64(g)-float64(tc.G)) + math.Abs(float64(b)-float64(tc.B))
		}
		if d(c.R, c.G, c.B) >= d(g.R, g.G, g.B)-20 {
			t.Errorf("pack %d (team %d): the minimap at its edge %v is no nearer the team's colour than the ground %v", p, 1+p%2, c, g)
		}
	}
	var alive, all [3]int
	for _, tv := range snap.Tanks {
		all[tv.Team]++
		if !tv.Wreck {
			alive[tv.Team]++
		}
	}
	want := fmt.Sprintf("alive: Blue %d/%d · Yellow %d/%d", alive[1], all[1], alive[2], all[2])
	if got := s.combat.teams.Text(); !s.combat.teams.Visible() || got != want {
		t.Errorf("team line %q (shown %v), want %q", got, s.combat.teams.Visible(), want)
	}

	show(Panels{Scores: true})
	savePNG(t, img, "crowd-scoreboard.png")
	bg := s.hud.scores.bg
	bp := bg.Position()
	if bp.X < 0 || bp.Y < 0 || bp.X+bg.Width() > DefaultWidth || bp.Y+bg.Height() > DefaultHeight || bg.Height() < DefaultHeight/3 {
		t.Errorf("the scoreboard at %v, %v×%v: not inside the %d×%d window, or small", bp, bg.Width(), bg.Height(), DefaultWidth, DefaultHeight)
	}
	if page, pages := s.ScoresPages(); page != 0 || pages < 5 {
		t.Errorf("scoreboard page %d of %d, want the first of many", page, pages)
	}
	texts := s.hud.scores.texts
	if !strings.Contains(texts[1], "▶ me (you)") || !strings.HasPrefix(strings.Split(texts[1], "\n")[2], "Blue: ") {
		t.Errorf("the board's player column %q: want the player's team first, the player's line in it", texts[1])
	}
	// The board is drawn: its middle is the table's dark backdrop with light text.
	light := 0
	for y := int(bp.Y); y < int(bp.Y+bg.Height()); y += 2 {
		for x := int(bp.X); x < int(bp.X+bg.Width()); x += 2 {
			if r, g, b := rgb(img, x, y); r > 0.8 && g > 0.8 && b > 0.8 {
				light++
			}
		}
	}
	if light < 500 {
		t.Errorf("%d light pixels on the scoreboard, want its text", light)
	}
}

// TestCrowdUpdateAllocatesNothing: with 512 tanks and a burst of kills in the feed,
// the feed, the team line and the minimap between its redraws allocate nothing in a
// frame. (The combat layer's clock and crosshair labels allocate on their own.)
func TestCrowdUpdateAllocatesNothing(t *testing.T) {
	s, err := NewScene(synthTerrain(256, 2, 32, 4), SceneConfig{})
	if err != nil {
		t.Fatal(err)
	}
	snap := battleSnapshot()
	for i := range 12 {
		snap.Notices = append(snap.Notices, game.Notice{Kind: game.NoticeKill, Time: 29 + 0.1*float64(i), Who: "a", Team: 1 + i%2, Other: "b"})
	}
	s.SetPanels(Panels{Scores: true})
	s.Update(snap, 1.0/60) // models and labels are made on first sight
	s.Update(snap, 1.0)
	if n := testing.AllocsPerRun(20, func() {
		s.hud.feed.update(snap)
		s.combat.placeTeams(snap.Tanks, snap.Combat.Scores, DefaultWidth)
		s.minimap.update(snap, s.view, nil, 1e-4)
	}); n != 0 {
		t.Errorf("the feed, team line and minimap of 512 tanks allocate %v times per frame, want 0", n)
	}
	if got := s.hud.feed.lines[0].Text(); got != "12 kills in 1.1 s: Blue 6, Yellow 6" {
		t.Errorf("feed's first line %q, want the burst summed up", got)
	}
}
