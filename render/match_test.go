package render

import (
	"image"
	"testing"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// practice is a practice match in process: the player's match and a bot peer joined
// to a host (gametest) with lag, jitter and loss, so every other tank is really reckoned.
type practice struct {
	rig         *gametest.Rig
	player, bot *game.Match
	now         float64
}

func newPractice(t *testing.T, bots int) *practice {
	t.Helper()
	mp, err := terrain.Generate(terrain.GenerateConfig{Seed: 7, Size: 256, Samples: 129})
	if err != nil {
		t.Fatalf("generate map: %v", err)
	}
	link := impair.Link{Latency: 55 * time.Millisecond, Jitter: 5 * time.Millisecond, Loss: 0.02}
	rig, err := gametest.New(gametest.Config{Link: link, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rig.Close() })
	bot, err := game.NewMatch(game.Config{Map: mp, NoPlayer: true, Bots: bots, Seed: 11}, join(t, rig))
	if err != nil {
		t.Fatalf("bot match: %v", err)
	}
	player, err := game.NewMatch(game.Config{Map: mp, Name: "me", Seed: 12,
		Impairment: link}, join(t, rig))
	if err != nil {
		t.Fatalf("player match: %v", err)
	}
	return &practice{rig: rig, player: player, bot: bot}
}

// join adds a player to rig.
func join(t *testing.T, rig *gametest.Rig) *gametest.Link {
	t.Helper()
	l, err := rig.Join()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// step advances both matches by dt with the player's input in.
func (p *practice) step(t *testing.T, dt float64, in physics.Input) {
	t.Helper()
	p.now += dt
	p.rig.SetNow(p.now)
	if err := p.bot.Step(p.now, physics.Input{}); err != nil {
		t.Fatalf("bot step: %v", err)
	}
	if err := p.player.Step(p.now, in); err != nil {
		t.Fatalf("player step: %v", err)
	}
}

// TestPracticeMatch renders a real match and checks sky above the horizon, ground
// below it, and each tank's team colour where the camera projects its turret.
func TestPracticeMatch(t *testing.T) {
	v := needViewer(t)
	p := newPractice(t, 5)
	mp := p.player.Terrain()
	s, err := NewScene(TerrainFromMap(mp, 0), SceneConfig{Width: testW, Height: testH, Ground: mp.HeightAt,
		Overlays: OverlayTrail})
	if err != nil {
		t.Fatal(err)
	}
	var snap game.Snapshot
	var img *image.RGBA
	onMain(func() {
		for i := 0; i < 240; i++ {
			p.step(t, 1.0/60, physics.Input{Throttle: 0.6, Steer: 0.1})
			p.player.Snapshot(&snap)
			s.Update(&snap, 1.0/60)
			if i%20 == 0 || i == 239 {
				if err = v.Draw(s); err != nil {
					return
				}
				if i == 239 {
					img = v.Capture()
				}
				v.Swap()
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, img, "practice.png")
	if len(snap.Tanks) != 6 {
		t.Fatalf("snapshot has %d tanks, want 6 (player and 5 bots)", len(snap.Tanks))
	}
	remote := 0
	for _, tv := range snap.Tanks {
		if !tv.Local {
			remote++
		}
	}
	if remote != 5 {
		t.Errorf("%d remote tanks, want 5", remote)
	}
	view := s.View()
	visible := 0
	for _, tv := range snap.Tanks {
		x, y, ok := view.Project(TurretRoof(&tv))
		if !ok || x < 2 || y < 2 || x >= testW-2 || y >= testH-40 || (x < 280 && y < 160) {
			continue // off the picture or under a HUD panel
		}
		if d := tv.Position.Sub(view.Eye).Len(); d > 120 {
			continue // too small to hit reliably
		}
		visible++
		// The turret roof and its surroundings within 3 px are mostly the team colour
		// (the cupola and gun are dark).
		want := teamColor(tv.Team)
		n, of := 0, 0
		for dy := -3; dy <= 3; dy++ {
			for dx := -3; dx <= 3; dx++ {
				r, g, b := rgb(img, int(x)+dx, int(y)+dy)
				if closeToTeam(r, g, b, want.R, want.G, want.B) {
					n++
				}
				of++
			}
		}
		if n*4 < of {
			t.Errorf("tank %d (team %d) around pixel (%.0f, %.0f): %d of %d pixels near team colour %.2f %.2f %.2f",
				tv.ID, tv.Team, x, y, n, of, want.R, want.G, want.B)
		}
	}
	t.Logf("%d tanks checked by colour", visible)
	if visible == 0 {
		t.Errorf("no tank within 120 m is in view")
	}
	// The ground reads: the lower half of the picture holds many colours, not one
	// flat green.
	if n := distinctColors(img, image.Rect(0, testH/2, testW, testH), 5, nil); n < 60 {
		t.Errorf("the lower half holds %d distinct colours at 5 bits per channel, want at least 60", n)
	} else {
		t.Logf("the lower half holds %d distinct colours at 5 bits per channel", n)
	}
	// The ground alone, away from the tanks and the HUD: flat vertex colours gave it
	// a handful of colours, the textured materials give it dozens.
	skip := s.hud.appendPanelRects(nil)
	for _, tv := range snap.Tanks {
		if x, y, ok := view.Project(tv.Position); ok {
			skip = append(skip, rect{float32(x) - 70, float32(y) - 70, 140, 140})
		}
	}
	if n := distinctColors(img, image.Rect(0, testH/2, testW, testH), 5, skip); n < 30 {
		t.Errorf("the ground in the lower half holds %d distinct colours at 5 bits per channel, want at least 30", n)
	} else {
		t.Logf("the ground in the lower half holds %d distinct colours at 5 bits per channel", n)
	}
}

// distinctColors counts the distinct colours in r of img with each channel cut to
// bits bits, leaving out the pixels inside any of skip.
func distinctColors(img *image.RGBA, r image.Rectangle, bits uint, skip []rect) int {
	seen := map[[3]uint8]bool{}
	shift := 8 - bits
	for y := r.Min.Y; y < r.Max.Y; y++ {
	pixels:
		for x := r.Min.X; x < r.Max.X; x++ {
			for _, k := range skip {
				if k.overlaps(rect{float32(x), float32(y), 1, 1}) {
					continue pixels
				}
			}
			c := img.RGBAAt(x, y)
			seen[[3]uint8{c.R >> shift, c.G >> shift, c.B >> shift}] = true
		}
	}
	return len(seen)
}

// closeToTeam reports whether a lit pixel has the hue of a team colour: its channels
// keep the colour's order, with the strongest clearly above the weakest.
func closeToTeam(r, g, b float64, tr, tg, tb float32) bool {
	got := [3]float64{r, g, b}
	want := [3]float64{float64(tr), float64(tg), float64(tb)}
	for i := 0; i < 3; i++ {
		for j := 0; j < 3; j++ {
			if want[i] > want[j]+0.2 && !(got[i] > got[j]+0.1) {
				return false
			}
		}
	}
	return true
}
