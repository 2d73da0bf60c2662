package render

import (
	"image"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/terrain"
)

// newBattle is a refereed match in process: the player's tank ("me", team 2) and a bot
// host's tanks, close enough to fight.
func newBattle(t *testing.T, bots int) *practice {
	t.Helper()
	mp, err := terrain.Generate(terrain.GenerateConfig{Seed: 7, Size: 256, Samples: 129})
	if err != nil {
		t.Fatalf("generate map: %v", err)
	}
	judge, err := referee.New(mp, combat.Rules{WreckTime: 4}, game.DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	link := impair.Link{Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}
	rig, err := gametest.New(gametest.Config{Link: link, Seed: 3, Judge: judge})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rig.Close() })
	bot, err := game.NewMatch(game.Config{Map: mp, NoPlayer: true, Bots: bots, Seed: 11, Difficulty: bot.Hard}, join(t, rig))
	if err != nil {
		t.Fatalf("bot match: %v", err)
	}
	player, err := game.NewMatch(game.Config{Map: mp, Name: "me", Team: 2, Seed: 12}, join(t, rig))
	if err != nil {
		t.Fatalf("player match: %v", err)
	}
	return &practice{rig: rig, player: player, bot: bot}
}

// near counts the pixels within r of (x, y) that pass ok.
func near(img *image.RGBA, x, y float64, r int, ok func(r, g, b float64) bool) int {
	n := 0
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			px, py := int(x)+dx, int(y)+dy
			if px < 0 || py < 0 || px >= img.Rect.Dx() || py >= img.Rect.Dy() {
				continue
			}
			if ok(rgb(img, px, py)) {
				n++
			}
		}
	}
	return n
}

func warm(r, g, b float64) bool  { return r > 0.8 && g > 0.6 && r > b+0.15 }
func fiery(r, g, b float64) bool { return r > 0.5 && r > g+0.2 && r > b+0.3 }

// TestCombatIsDrawn plays a refereed battle and checks, on the picture, a shell's
// tracer where the shell is, an explosion where a tank was destroyed, and the health
// bar and match clock on the HUD.
func TestCombatIsDrawn(t *testing.T) {
	v := needViewer(t)
	p := newBattle(t, 5)
	mp := p.player.Terrain()
	s, err := NewScene(TerrainFromMap(mp, 0), SceneConfig{Width: testW, Height: testH, Ground: mp.HeightAt,
		Overlays: OverlayHits})
	if err != nil {
		t.Fatal(err)
	}
	var snap game.Snapshot
	capture := func() *image.RGBA {
		var img *image.RGBA
		onMain(func() {
			if err = v.Draw(s); err == nil {
				img = v.Capture()
				v.Swap()
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	const dt = 1.0 / 60
	var shellImg, blastImg *image.RGBA
	var shellAt, blastAt mgl64.Vec3
	var shellView, blastView View
	aim, elev := 0.0, 0.0
	var hitsImg *image.RGBA
	hitsFrame := -1
	blastFrame := -1
	for i := 0; i < 60*90 && (shellImg == nil || blastImg == nil || hitsImg == nil); i++ {
		// The teams spawn out of each other's sight: the player drives at the nearest
		// enemy until it is near, its hull (and the chase camera) turned to the aim.
		in := physics.Input{AimYaw: aim, GunElevation: elev}
		if snap.Self >= 0 && snap.Self < len(snap.Tanks) {
			in.Steer = -math.Max(-1, math.Min(1, 2*geom.WrapAngle(aim-geom.Yaw(snap.Tanks[snap.Self].Orientation))))
			if nearestEnemy(&snap) > 90 {
				in.Throttle = 0.7
			}
		}
		p.step(t, dt, in)
		if i%200 == 100 {
			p.player.Fire()
		}
		p.player.Snapshot(&snap)
		s.Update(&snap, dt)
		aim, elev = aimAtNearest(&snap)
		if hitsImg == nil && hitsFrame < 0 && (blastFrame < 0 || blastImg != nil) {
			for _, h := range snap.Combat.Hits {
				if h.Decided && h.HasTruth {
					for _, tv := range snap.Tanks {
						if tv.ID == h.Target {
							s.Watch(tv.Name) // the camera swings round to the target
							hitsFrame = i
						}
					}
					break
				}
			}
		}
		if hitsImg == nil && hitsFrame >= 0 && i == hitsFrame+40 {
			hitsImg = capture()
			savePNG(t, hitsImg, "combat-hits.png")
			s.Watch("")
		}
		if shellImg == nil {
			for _, sh := range snap.Combat.Shells {
				if x, y, ok := s.View().Project(sh.Position); sh.Own && ok && x > 20 && y > 20 && x < testW-20 && y < testH-80 &&
					snap.Self >= 0 && sh.Position.Sub(snap.Tanks[snap.Self].Position).Len() > 30 {
					shellImg, shellAt, shellView = capture(), sh.Position, s.View()
					savePNG(t, shellImg, "combat-shell.png")
					break
				}
			}
		}
		if blastImg == nil {
			for _, e := range snap.Combat.Effects {
				if e.Kind != game.EffectExplosion || e.Age > 0.05 || blastFrame >= 0 || (hitsFrame >= 0 && hitsImg == nil) {
					continue
				}
				// Watch the wreck, so the camera swings round to the explosion.
				best, bestD := "", math.Inf(1)
				for _, tv := range snap.Tanks {
					if d := tv.Position.Sub(e.Point).Len(); d < bestD {
						best, bestD = tv.Name, d
					}
				}
				s.Watch(best)
				blastFrame, blastAt = i, e.Point.Add(mgl64.Vec3{0, 2.5, 0})
			}
			if blastFrame >= 0 && i == blastFrame+24 {
				// Only a blast clear of the picture's edges and the HUD tells: else wait
				// for the next.
				if x, y, ok := s.View().Project(blastAt); ok && x > 20 && y > 20 && x < testW-20 && y < testH-80 {
					blastImg, blastView = capture(), s.View()
					savePNG(t, blastImg, "combat-explosion.png")
				} else {
					blastFrame = -1
				}
				s.Watch("")
			}
		}
	}
	if shellImg == nil {
		t.Fatal("the player's shell never flew in view")
	}
	if hitsImg == nil {
		t.Log("no hit of the player's was decided in 90 s: no hits overlay picture")
	}
	sx, sy, _ := shellView.Project(shellAt)
	if n := near(shellImg, sx, sy, 4, warm); n < 3 {
		t.Errorf("shell at pixel (%.0f, %.0f): %d tracer-coloured pixels within 4 px, want 3", sx, sy, n)
	}
	if blastImg == nil {
		t.Fatal("no tank was destroyed in 90 s of battle")
	}
	bx, by, ok := blastView.Project(blastAt)
	if !ok {
		t.Fatal("the explosion is behind the camera that watched it")
	}
	if n := near(blastImg, bx, by, 14, fiery); n < 20 {
		t.Errorf("explosion at pixel (%.0f, %.0f): %d fiery pixels within 14 px, want 20", bx, by, n)
	}
	// The HUD: the health bar's left end (green or red, never the background) and the
	// match clock's light text at the top centre.
	// Both where the HUD's layout (at this window's scale) put them.
	hp := s.combat.healthBg.Position()
	hx, hy := float64(hp.X)+3, float64(hp.Y+s.combat.healthBg.Height()/2)
	if n := near(blastImg, hx, hy, 2, func(r, g, b float64) bool { return r+g > 0.9 && b < 0.5 }); n < 10 {
		t.Errorf("health bar at (%.0f, %.0f): %d coloured pixels, want 10", hx, hy, n)
	}
	cp := s.combat.clock.Position()
	cx, cy := float64(cp.X+s.combat.clock.Width()/2), float64(cp.Y+s.combat.clock.Height()/2)
	if cy > 30 || cx < float64(testW)/2-5 || cx > float64(testW)/2+5 {
		t.Errorf("match clock centred at (%.0f, %.0f), want the top centre", cx, cy)
	}
	if n := near(blastImg, cx, cy, int(s.combat.clock.Width()/2), func(r, g, b float64) bool { return min(r, g, b) > 0.6 }); n < 5 {
		t.Errorf("match clock: %d light text pixels at the top centre", n)
	}
}

// nearestEnemy returns the distance from the player's tank to the nearest enemy, m
// (+Inf with none).
func nearestEnemy(snap *game.Snapshot) float64 {
	me := &snap.Tanks[snap.Self]
	best := math.Inf(1)
	for i := range snap.Tanks {
		tv := &snap.Tanks[i]
		if i != snap.Self && !tv.Wreck && combat.Enemies(me.Team, tv.Team) {
			best = math.Min(best, tv.Position.Sub(me.Position).Len())
		}
	}
	return best
}

// aimAtNearest returns the world yaw and the elevation that put the player's shell on
// the nearest enemy tank, or straight ahead when there is none.
func aimAtNearest(snap *game.Snapshot) (yaw, elev float64) {
	if snap.Self < 0 {
		return 0, 0
	}
	me := &snap.Tanks[snap.Self]
	yaw = geom.Yaw(me.Orientation)
	best := math.Inf(1)
	for i := range snap.Tanks {
		tv := &snap.Tanks[i]
		d := tv.Position.Sub(me.Position)
		if i == snap.Self || tv.Wreck || !combat.Enemies(me.Team, tv.Team) || d.Len() > best {
			continue
		}
		best = d.Len()
		yaw = math.Atan2(-d[2], d[0])
		elev, _ = combat.BallisticElevation(math.Hypot(d[0], d[2]), d[1])
	}
	return yaw, elev
}

// TestAimColor: the gun marker is red while the shot is blocked short of the aim
// (reloading or not), grey while the gun reloads, green when ready.
func TestAimColor(t *testing.T) {
	for _, c := range []struct {
		name string
		cv   game.CombatView
		want string
	}{
		{"ready", game.CombatView{HasAim: true, Loaded: 1}, "ready"},
		{"reloading", game.CombatView{HasAim: true, Loaded: 0.5}, "reloading"},
		{"blocked", game.CombatView{HasAim: true, Loaded: 1, AimBlocked: true}, "blocked"},
		{"blocked, reloading", game.CombatView{HasAim: true, Loaded: 0.2, AimBlocked: true}, "blocked"},
		{"no aim: never blocked", game.CombatView{Loaded: 1, AimBlocked: true}, "ready"},
	} {
		got := "other"
		switch aimColorOf(&c.cv) {
		case aimColor:
			got = "ready"
		case aimLoadColor:
			got = "reloading"
		case aimBlockColor:
			got = "blocked"
		}
		if got != c.want {
			t.Errorf("%s: the gun marker is %q, want %q", c.name, got, c.want)
		}
	}
}
