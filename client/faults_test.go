package client

import (
	"math"
	"testing"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/tank"
)

// follow turns the player's tank of l's snapshot to the aim in, as a turret and gun
// that keep up would.
func follow(l *matchScreen, in physics.Input) {
	me := &l.snap.Tanks[l.snap.Self]
	me.Turret = geom.WrapAngle(in.AimYaw - geom.Yaw(me.Orientation))
	me.Gun = in.GunElevation
}

// heldKeysLoop is a loop over a fresh test scene holding the player's tank (heading
// 0) aiming with the keys, with keys and taps fed by d.
func heldKeysLoop(t *testing.T) (*matchScreen, *core.Dispatcher, *fakeMatch) {
	t.Helper()
	s, mp := newTestScene(t)
	s.Update(tanksOn(mp, 1), 1.0/60)
	d := core.NewDispatcher()
	set := DefaultSettings()
	set.KeyAim = true
	f := &fakeMatch{}
	l := &matchScreen{s: f, scene: s, keys: window.NewKeyState(d), taps: newKeyLatch(d), cfg: RunConfig{Display: Display{Settings: &set}},
		ctl: controlsOf(set), snap: *tanksOn(mp, 1)}
	l.aim.keys = true
	return l, d, f
}

// TestTapShorterThanFrame taps keys down and up between two frames, as a player does
// at a low frame rate: the next frame still sees each of them, and the one after does
// not.
func TestTapShorterThanFrame(t *testing.T) {
	l, d, _ := heldKeysLoop(t)
	tap := func(k window.Key) {
		d.Dispatch(window.OnKeyDown, &window.KeyEvent{Key: k})
		d.Dispatch(window.OnKeyUp, &window.KeyEvent{Key: k})
	}
	tap(window.KeyW)
	tap(window.KeyQ)
	in := l.input(0.1)
	if in.Throttle != 1 || math.Abs(in.AimYaw-tank.DefaultTurretRate*0.1) > 1e-12 {
		t.Errorf("W and Q tapped between frames: throttle %v aim %v, want 1 %v", in.Throttle, in.AimYaw, tank.DefaultTurretRate*0.1)
	}
	if in = l.input(0.1); in.Throttle != 0 {
		t.Errorf("the frame after the tap: throttle %v, want 0", in.Throttle)
	}
}

// TestPanelsHoldAim opens the pause menu, the chat box and a message after aiming the
// turret away from the hull: for as long as they show, the tank stops but the turret
// and gun stay where they were aimed instead of swinging to world yaw 0.
func TestPanelsHoldAim(t *testing.T) {
	l, d, _ := heldKeysLoop(t)
	d.Dispatch(window.OnKeyDown, &window.KeyEvent{Key: window.KeyQ})
	d.Dispatch(window.OnKeyDown, &window.KeyEvent{Key: window.KeyW})
	for range 10 {
		follow(l, l.input(0.1))
	}
	aimed := l.input(0.1)
	if aimed.AimYaw < 0.7 {
		t.Fatalf("Q held 1.1 s: aim %v, want over 0.7 rad", aimed.AimYaw)
	}
	for _, c := range []struct {
		name string
		open func()
	}{
		{"pause menu", func() { l.openPause() }},
		{"chat box", func() { l.panels.Chat = true }},
		{"message", func() { l.panels.Message = "Lost the connection" }},
	} {
		c.open()
		for range 100 { // 10 s behind the panel, keys still held
			in := l.input(0.1)
			if in.Throttle != 0 || in.Steer != 0 || in.AimYaw != aimed.AimYaw || in.GunElevation != aimed.GunElevation {
				t.Fatalf("%s open: input %+v, want stopped with aim %v gun %v", c.name, in, aimed.AimYaw, aimed.GunElevation)
			}
		}
		l.pause, l.panels = nil, render.Panels{}
	}
}

// TestRespawnAimsAhead turns the turret, then respawns (from a wreck, by key, and by
// the match moving the tank just spawned to another place, which only its new id
// tells): the next frame aims where the new tank faces, not where the old one aimed.
func TestRespawnAimsAhead(t *testing.T) {
	for _, how := range []string{"wreck", "key", "moved"} {
		l, d, _ := heldKeysLoop(t)
		l.afterRespawn() // the first tank's id
		d.Dispatch(window.OnKeyDown, &window.KeyEvent{Key: window.KeyQ})
		for range 23 {
			follow(l, l.input(0.1)) // about +90° from the hull
		}
		d.Dispatch(window.OnKeyUp, &window.KeyEvent{Key: window.KeyQ})
		id := l.snap.Tanks[l.snap.Self].ID
		switch how {
		case "key":
			l.onKey(window.KeyBackspace)
			l.afterRespawn()
		case "wreck":
			l.snap.Combat.Wreck = true
			l.afterRespawn()
			l.snap.Combat.Wreck = false
			l.afterRespawn()
		case "moved":
			id++ // the wreck's end already aimed the first place's way
		}
		// The new tank faces yaw 2 rad.
		snap := &game.Snapshot{Self: 0, Tanks: []game.TankView{{ID: id, Name: "me", Local: true,
			Orientation: mgl64.QuatRotate(2, mgl64.Vec3{0, 1, 0})}}}
		l.scene.Update(snap, 1.0/60)
		l.snap = *snap
		l.afterRespawn()
		heading, _ := l.scene.SelfHeading()
		if in := l.input(0.1); math.Abs(in.AimYaw-heading) > 1e-9 {
			t.Errorf("respawn (%s): aim %v, want the new heading %v", how, in.AimYaw, heading)
		}
	}
}

// TestHelpShowsBoundKeys rebinds driving ahead to I: the help panel's key list says
// "I / S", not "W / S".
func TestHelpShowsBoundKeys(t *testing.T) {
	l, _, _ := heldKeysLoop(t)
	l.cfg.Settings.Keys["forward"] = "I"
	l.applySettings()
	help := l.scene.Help()
	if len(help) == 0 || help[0].Key != "I / S" {
		t.Fatalf("help after rebinding forward to I: first line %+v, want key I / S", help)
	}
	for _, h := range help {
		if h.Key == "W / S" {
			t.Errorf("help still lists %q", h.Key)
		}
	}
}

// TestPauseStopsAPausableMatch opens and closes the pause menu over a match that can
// pause (a practice alone with bots): the match is paused while the menu shows and
// goes on after; Esc on the menu resumes it too.
func TestPauseStopsAPausableMatch(t *testing.T) {
	l, _, _ := heldKeysLoop(t)
	var calls []bool
	l.cfg.Pause = func(on bool) bool { calls = append(calls, on); return true }
	l.onKey(window.KeyEscape)
	if l.pause == nil || len(calls) != 1 || !calls[0] {
		t.Fatalf("Esc: menu %v, pause calls %v; want the menu and the match paused", l.pause != nil, calls)
	}
	if p := l.pause.page(); p.Hint != "the match is paused · Esc back to the battle" {
		t.Errorf("paused menu hint %q", p.Hint)
	}
	l.onKey(window.KeyEscape)
	if l.pause != nil || len(calls) != 2 || calls[1] {
		t.Errorf("Esc again: menu %v, pause calls %v; want the match going on", l.pause != nil, calls)
	}
	l.onKey(window.KeyEscape)
	l.onKey(window.KeyEnter) // Resume
	if l.pause != nil || len(calls) != 4 || calls[3] {
		t.Errorf("Resume: menu %v, pause calls %v; want the match going on", l.pause != nil, calls)
	}
}
