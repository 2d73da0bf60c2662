package client

import (
	"context"
	"io"
	"log/slog"
	"math"
	"path/filepath"
	"testing"
	"time"

	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/record/recordtest"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/terrain"
)

// TestKillCamShot checks the kill camera's framing: over the shooter's turret and
// behind it, looking at the target, zoomed as a gunner's sight for a far target and
// never wider than the player's field of view.
func TestKillCamShot(t *testing.T) {
	shooter := game.TankView{ID: 4, Position: mgl64.Vec3{10, 2, 0}}
	fov := 70 * math.Pi / 180
	for _, c := range []struct {
		name    string
		target  mgl64.Vec3
		wantFOV float64 // 0: narrower than fov
	}{
		{"far", mgl64.Vec3{110, 2, 0}, 0},
		{"close", mgl64.Vec3{14, 2, 0}, fov},
	} {
		snap := &game.Snapshot{Tanks: []game.TankView{shooter, {ID: 8, Position: c.target}}}
		eye, look, got, ok := killCamShot(snap, replay.Kill{Shooter: 4, Target: 8}, fov)
		if !ok {
			t.Fatalf("%s: no shot", c.name)
		}
		wantEye := mgl64.Vec3{10 - killCamBack, 2 + killCamHeight, 0}
		if eye.Sub(wantEye).Len() > 1e-9 || look.Sub(c.target.Add(mgl64.Vec3{0, 1.5, 0})).Len() > 1e-9 {
			t.Errorf("%s: eye %v looking at %v, want %v looking at the target", c.name, eye, look, wantEye)
		}
		switch {
		case c.wantFOV == 0 && !(got < fov && got >= killCamMinFOV):
			t.Errorf("%s: field of view %.3f rad, want under %.3f", c.name, got, fov)
		case c.wantFOV != 0 && math.Abs(got-c.wantFOV) > 1e-12:
			t.Errorf("%s: field of view %.3f rad, want %.3f", c.name, got, c.wantFOV)
		}
	}
	if _, _, _, ok := killCamShot(&game.Snapshot{Tanks: []game.TankView{shooter}}, replay.Kill{Shooter: 4, Target: 8}, fov); ok {
		t.Error("a shot without the target")
	}
}

// TestDeathKillCam plays a live match whose player's tank has just been destroyed,
// with what the match kept of its last seconds: the picture is the kill camera's,
// from the shooter's turret with the player's tank in the middle, with its
// timeline; Space skips it without firing, and the respawn ends it.
func TestDeathKillCam(t *testing.T) {
	v := needViewer(t)
	mp := testMap(t)
	recent := killedPractice(t, mp)
	wreck := &game.Snapshot{Self: -1, Combat: game.CombatView{Wreck: true, RespawnIn: 5, KilledBy: "a bot"},
		Net: game.NetStats{RTT: 0.2, Silence: 0.1}}
	sess := &stepMatch{snap: wreck}
	shot := filepath.Join(t.TempDir(), "killcam.png")
	if *docs {
		shot, _ = filepath.Abs("../assets/docs/killcam-live.png")
	}
	cfg := RunConfig{Recent: recent, Map: mp,
		Display: Display{KillCam: true, Screenshot: shot, Frames: 45, FixedStep: time.Second / 30}}
	scene, err := render.NewScene(render.TerrainFromMap(mp, 0), render.SceneConfig{Width: testW, Height: testH,
		Ground: mp.HeightAt, Help: helpLines(DefaultSettings())})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	var l *matchScreen
	gl.Do(func() {
		l = newMatchScreen(cfg, sess, scene, v, logger)
		err = l.run(context.Background())
		v.Window().SetShouldClose(false)
	})
	if err != nil {
		t.Fatal(err)
	}
	if !l.cam.on {
		t.Fatal("no kill camera after the death")
	}
	checkKillCamPicture(t, l, shot)
	checkKillCamEnds(t, l, sess, wreck)
}

// killedPractice records a practice on mp until the player's tank is destroyed,
// keeping its last KillCamMemory in memory as a live match does, and returns what
// the match's Recent would.
func killedPractice(t *testing.T, mp *terrain.Map) func() (*replay.Recording, error) {
	t.Helper()
	live, err := recordtest.Practice(recordtest.Config{Map: mp, Bots: 7, Seconds: 120, Seed: 1, Dir: t.TempDir(),
		Camera: mgl64.Vec3{0, 40, 0}, Ring: KillCamMemory, UntilDeath: true,
		Link: impair.Link{Latency: 100 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.02}})
	if err != nil {
		t.Fatal(err)
	}
	if !live.Died {
		t.Fatal("the player's tank was not destroyed in the test match")
	}
	return func() (*replay.Recording, error) { return replay.ReadRing(live.Ring) }
}

// checkKillCamPicture checks the kill camera 45 frames after the death: where it is
// in the replay, the camera over the shooter, the player's tank in the middle of the
// picture and the timeline under it.
func checkKillCamPicture(t *testing.T, l *matchScreen, shot string) {
	t.Helper()
	k := l.cam.kill
	if want := k.Time - (5 - replay.KillCamTail) + 44.0/30; math.Abs(l.cam.p.Time()-want) > 0.05 {
		t.Errorf("the kill camera is at %.3f s after 45 frames, want %.3f s", l.cam.p.Time(), want)
	}
	shooter, target := tankByID(&l.cam.snap, k.Shooter), tankByID(&l.cam.snap, k.Target)
	if shooter == nil || target == nil {
		t.Fatalf("the kill camera shows shooter %v and target %v", shooter != nil, target != nil)
	}
	// The replay is told the kill camera's view: the two tanks in its picture are
	// reckoned in full, and a tank out of it and away from the camera is not.
	if shooter.Mode != deadreckon.ModeHigh || target.Mode != deadreckon.ModeHigh {
		t.Errorf("the kill camera reckons the shooter in mode %v and the target in %v, want both high", shooter.Mode, target.Mode)
	}
	if l.cam.snap.Modes[deadreckon.ModeLow] == 0 {
		t.Errorf("the kill camera's replay reckons every tank in full (%v): it was not told the view", l.cam.snap.Modes)
	}
	if l.cam.snap.Net.RTT != 0.2 {
		t.Errorf("the kill camera's figures give a round trip of %v s, the live link's is 0.2 s", l.cam.snap.Net.RTT)
	}
	view := l.scene.View()
	if d := view.Eye.Sub(shooter.Position).Len(); d > killCamBack+killCamHeight {
		t.Errorf("the camera stands %.1f m from the shooter", d)
	}
	x, y, ok := view.Project(render.TurretRoof(target))
	if !ok || math.Abs(x-testW/2) > testW/5 || math.Abs(y-testH/2) > testH/4 {
		t.Errorf("the player's tank is drawn at (%.0f, %.0f) (%v), want near the middle of %dx%d", x, y, ok, testW, testH)
	}
	filled, empty := timelinePixels(readPNG(t, shot))
	t.Logf("kill camera at %.2f s of %.2f–%.2f, kill at %.2f; timeline %d filled, %d empty; picture %s", l.cam.p.Time(),
		l.cam.tl.Start, l.cam.tl.End, k.Time, filled, empty, shot)
	if filled < 50 || empty < 50 {
		t.Errorf("timeline: %d filled and %d empty pixels", filled, empty)
	}
}

// tankByID returns the tank with actor id in snap, or nil.
func tankByID(snap *game.Snapshot, id uint32) *game.TankView {
	for i := range snap.Tanks {
		if snap.Tanks[i].ID == id {
			return &snap.Tanks[i]
		}
	}
	return nil
}

// checkKillCamEnds presses Space, which skips the kill camera without firing, then
// plays a respawn and the next death, whose kill camera the respawn ends.
func checkKillCamEnds(t *testing.T, l *matchScreen, sess *stepMatch, wreck *game.Snapshot) {
	t.Helper()
	gl.Do(func() { l.onKey(window.KeySpace) })
	if l.cam.on || sess.fired != 0 || l.panels.Timeline != nil {
		t.Errorf("after Space: kill camera %v, %d shots fired, timeline %v", l.cam.on, sess.fired, l.panels.Timeline != nil)
	}
	var err error
	frames := func(from, to int) {
		for i := from; i < to && err == nil; i++ {
			f := &frame{n: i, dt: 1.0 / 30, fixed: true}
			if _, err = l.Update(f); err == nil {
				err = l.Draw(l.v, f)
				l.v.Swap()
			}
		}
	}
	sess.snap = &game.Snapshot{Self: -1}
	gl.Do(func() {
		frames(1, 2)
		sess.snap = wreck
		frames(2, 5)
	})
	if err != nil || !l.cam.on {
		t.Fatalf("the next death: kill camera %v (%v)", l.cam.on, err)
	}
	played := l.cam.p
	sess.snap = &game.Snapshot{Self: -1}
	gl.Do(func() { frames(5, 6) })
	if err != nil || l.cam.on || l.panels.Timeline != nil {
		t.Errorf("after the respawn: kill camera %v, timeline %v (%v)", l.cam.on, l.panels.Timeline != nil, err)
	}
	if !played.Closed() {
		t.Error("the kill camera's replay was not closed at the respawn: its reckoning's goroutines outlive it")
	}
}

// TestDeathKillCamSpreadsItsSeek: without a fixed step, the kill camera's seek to
// the kill's lead is spread over frames, each given half its frame's time (the
// match's clock here moves a millisecond at each reading), and the wreck is drawn
// meanwhile; then the kill camera plays from where it would be had it started at the
// death, so it still ends at the respawn.
func TestDeathKillCamSpreadsItsSeek(t *testing.T) {
	v := needViewer(t)
	mp := testMap(t)
	recent := killedPractice(t, mp)
	wreck := &game.Snapshot{Self: -1, Combat: game.CombatView{Wreck: true, RespawnIn: 5, KilledBy: "a bot"}}
	sess := &stepMatch{snap: wreck}
	ticks := 0
	clock := func() float64 { ticks++; return float64(ticks) / 1000 }
	var err error
	cfg := RunConfig{Recent: recent, Map: mp,
		Clock: clock, Display: Display{KillCam: true}}
	scene, err := render.NewScene(render.TerrainFromMap(mp, 0), render.SceneConfig{Width: testW, Height: testH, Ground: mp.HeightAt})
	if err != nil {
		t.Fatal(err)
	}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	const dt = 1.0 / 30
	var l *matchScreen
	seeking := 0
	gl.Do(func() {
		l = newMatchScreen(cfg, sess, scene, v, logger)
		for n := 1; n <= 60 && err == nil && !l.cam.on; n++ {
			f := &frame{n: n, dt: dt}
			if _, err = l.Update(f); err != nil {
				break
			}
			if l.cam.seeking {
				seeking++
				if l.shown != &l.snap || l.panels.Timeline != nil {
					t.Errorf("frame %d: the kill camera's picture or timeline is drawn while its replay seeks", n)
				}
			}
			err = l.Draw(l.v, f)
			l.v.Swap()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if !l.cam.on {
		t.Fatal("no kill camera after 60 frames")
	}
	if seeking < 2 {
		t.Errorf("the seek took %d frames: it was not spread", seeking+1)
	}
	// It plays from the lead, caught up by the time since the death and by the
	// frame it started in.
	want := l.cam.tl.Start + (l.elapsed - l.cam.askedAt) + dt
	if got := l.cam.p.Time(); math.Abs(got-want) > 1e-9 {
		t.Errorf("the kill camera plays at %.4f s, want %.4f (its lead %.4f, then %.4f s since the death and a frame)",
			got, want, l.cam.tl.Start, l.elapsed-l.cam.askedAt)
	}
	if k := l.cam.kill; l.cam.tl.Start > k.Time-deathCamMinLead+1e-9 {
		t.Errorf("the kill camera starts at %.3f s, under %v s before the kill at %.3f", l.cam.tl.Start, deathCamMinLead, k.Time)
	}
	t.Logf("seek spread over %d frames; the kill camera plays at %.3f s, the kill at %.3f", seeking+1, l.cam.p.Time(), l.cam.kill.Time)

	// A seek that fails once there (here the kill's target is gone from the
	// replay) lets go of its replay: its goroutines would outlive it.
	n := 60
	step := func(frames int) {
		for i := 0; i < frames && err == nil; i++ {
			n++
			f := &frame{n: n, dt: dt}
			if _, err = l.Update(f); err == nil {
				err = l.Draw(l.v, f)
				l.v.Swap()
			}
		}
	}
	gl.Do(func() {
		sess.snap = &game.Snapshot{Self: -1} // respawned
		step(1)
		sess.snap = wreck // and destroyed again
		step(1)
	})
	if err != nil || !l.cam.seeking {
		t.Fatalf("the second death: seeking %v, on %v (%v)", l.cam.seeking, l.cam.on, err)
	}
	failing := l.cam.p
	l.cam.kill.Target = 0xfffe
	gl.Do(func() { step(10) })
	if err != nil || l.cam.on || l.cam.seeking || l.cam.p != nil || !failing.Closed() {
		t.Errorf("after a failed seek: on %v, seeking %v, replay kept %v, closed %v (%v)",
			l.cam.on, l.cam.seeking, l.cam.p != nil, failing.Closed(), err)
	}
}
