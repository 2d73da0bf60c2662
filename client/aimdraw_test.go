package client

import (
	"context"
	"image"
	"io"
	"log/slog"
	"math"
	"testing"
	"time"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/render"
)

// rigMatch is a refereed practice in process on a clock the frames move: the
// player's match and a bot host's, stepped together.
type rigMatch struct {
	*game.Match
	rig *gametest.Rig
	bot *game.Match
}

func (m *rigMatch) Step(now float64, in physics.Input) error {
	m.rig.SetNow(now)
	if err := m.bot.Step(now, physics.Input{}); err != nil {
		return err
	}
	return m.Match.Step(now, in)
}

// newRigMatch is a practice against n easy bots on the test map, refereed.
func newRigMatch(t *testing.T, n int) *rigMatch {
	t.Helper()
	mp := testMap(t)
	judge, err := referee.New(mp, combat.Rules{}, game.DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	link := impair.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
	rig, err := gametest.New(gametest.Config{Link: link, Seed: 3, Judge: judge})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rig.Close() })
	join := func() *gametest.Link {
		l, err := rig.Join()
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	bots, err := game.NewMatch(game.Config{Map: mp, NoPlayer: true, Bots: n, Seed: 11, Difficulty: bot.Easy}, join())
	if err != nil {
		t.Fatalf("bot match: %v", err)
	}
	player, err := game.NewMatch(game.Config{Map: mp, Name: "me", Team: 2, Seed: 12}, join())
	if err != nil {
		t.Fatalf("player match: %v", err)
	}
	return &rigMatch{Match: player, rig: rig, bot: bots}
}

// sampledScreen plays a match screen for a while with the mouse moving, and hands
// every few frames' picture to check, drawing only those.
type sampledScreen struct {
	*matchScreen
	every int
	until float64 // s of match time
	check func(n int, img *image.RGBA)
}

func (s *sampledScreen) Update(f *frame) (screen, error) {
	// The mouse turns the camera all the way round and from the ground to the sky.
	s.onCursor(&window.CursorEvent{Xpos: float32(4 * f.n), Ypos: float32(110 * math.Sin(2*math.Pi*float64(f.n)/150))})
	next, err := s.matchScreen.Update(f)
	if next != s.matchScreen || err != nil || s.elapsed >= s.until {
		return nil, err
	}
	return s, nil
}

// Draw draws the frames it looks at only: the others are brought up to date (scene,
// effects, panels) as a drawn frame is, and not drawn, which the software renderer
// under Xvfb would spend most of the test's time on for pictures no one sees.
func (s *sampledScreen) Draw(v *render.Viewer, f *frame) error {
	if f.n%s.every != 0 {
		s.bringUp(f)
		return nil
	}
	if err := s.matchScreen.Draw(v, f); err != nil {
		return err
	}
	s.check(f.n, v.Capture())
	return nil
}

// TestAimMarkerEveryFrame plays a practice minute at a fixed step with the mouse
// turning the camera round and from the ground up to the sky (where a line of sight
// meets nothing), and looks at every fifth frame: while the player has a tank, the
// aim marker's four white ticks are in the middle of every picture, and the gun
// marker's green ⊕ where the gun lies.
func TestAimMarkerEveryFrame(t *testing.T) {
	v := needViewer(t)
	m := newRigMatch(t, 3)
	mp := m.Terrain()
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var sampled, alive, sky, missing, gunSeen, gunShown int
	var err error
	gl.Do(func() {
		scene, e := render.NewScene(render.TerrainFromMap(mp, 0), render.SceneConfig{Width: testW, Height: testH,
			Ground: mp.HeightAt, Raycast: mp.Raycast})
		if e != nil {
			err = e
			return
		}
		cfg := RunConfig{Display: Display{FixedStep: 100 * time.Millisecond, Raycast: mp.Raycast, Ground: mp.HeightAt}}
		cfg.Display = cfg.withDefaults("test")
		l := newMatchScreen(cfg, m, scene, v, logger)
		defer v.Window().UnsubscribeAllID(l)
		s := &sampledScreen{matchScreen: l, every: 5, until: 60}
		s.check = func(n int, img *image.RGBA) {
			sampled++
			cv := &l.snap.Combat
			if l.snap.Self < 0 || cv.Wreck || cv.Over || !cv.Enabled {
				return
			}
			alive++
			view := l.scene.View()
			if _, hit := mp.Raycast(view.Eye, view.Forward(), combat.AimRange); !hit {
				sky++
			}
			cx, cy := testW/2, testH/2
			d := sightCentrePx
			ticks := [4][2]int{{cx - d, cy}, {cx + d, cy}, {cx, cy - d}, {cx, cy + d}}
			for _, p := range ticks {
				if r, g, b := rgbAt(img, p[0], p[1]); r < 0.85 || g < 0.85 || b < 0.85 {
					missing++
					t.Errorf("frame %d: no aim marker tick at %v (%.2f %.2f %.2f)", n, p, r, g, b)
					break
				}
			}
			if x, y, ok := view.Project(cv.Aim); ok && x > 20 && y > 20 && x < testW-20 && y < testH-20 && cv.Loaded >= 1 {
				gunShown++
				if countNear(img, x, y, 12, func(r, g, b float64) bool { return g > 0.8 && r < 0.5 && b < 0.6 }) > 3 {
					gunSeen++
				}
			}
		}
		err = runWindow(context.Background(), v, s, cfg.window())
		v.Window().SetShouldClose(false)
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d frames sampled, %d with the player's tank, %d looking at the sky; the gun marker seen in %d of the %d it showed loaded",
		sampled, alive, sky, gunSeen, gunShown)
	if alive < sampled/2 || sky == 0 || missing > 0 {
		t.Errorf("%d of %d sampled frames had the player's tank, %d looked at the sky, %d lacked the aim marker", alive, sampled, sky, missing)
	}
	if gunShown > 0 && gunSeen < gunShown*9/10 {
		t.Errorf("the gun marker was seen in %d of the %d frames it showed loaded", gunSeen, gunShown)
	}
}

// sightCentrePx is how far the aim marker ticks' centres lie from the middle of a
// testW×testH picture, pixels: at its HUD scale (0.5) render draws its smallest
// ticks, 8 pixels long 5 from the middle.
const sightCentrePx = 5 + 8/2

// rgbAt returns the colour of pixel (x, y) of img, 0..1.
func rgbAt(img *image.RGBA, x, y int) (r, g, b float64) {
	c := img.RGBAAt(x, y)
	return float64(c.R) / 255, float64(c.G) / 255, float64(c.B) / 255
}

// countNear counts the pixels within r of (x, y) that pass ok.
func countNear(img *image.RGBA, x, y float64, r int, ok func(r, g, b float64) bool) int {
	n := 0
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			px, py := int(x)+dx, int(y)+dy
			if px >= 0 && py >= 0 && px < img.Rect.Dx() && py < img.Rect.Dy() && ok(rgbAt(img, px, py)) {
				n++
			}
		}
	}
	return n
}
