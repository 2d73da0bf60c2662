package client

import (
	"math"
	"testing"

	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
)

// TestObserveFly: the observer's free camera flies at observeFreeSpeed where it
// heads, W A S D alike (diagonals no faster), turns with Q and E, keeps to the
// ground.
func TestObserveFly(t *testing.T) {
	ground := func(x, z float64) (float64, bool) { return 0.1 * x, true }
	held := func(keys ...window.Key) func(window.Key) bool {
		return func(k window.Key) bool {
			for _, h := range keys {
				if h == k {
					return true
				}
			}
			return false
		}
	}
	var o observeCam
	for range 60 {
		o.fly(held(window.KeyW), ground, 1.0/60)
	}
	if math.Abs(o.pos[0]-observeFreeSpeed) > 1e-9 || math.Abs(o.pos[2]) > 1e-9 || math.Abs(o.pos[1]-0.1*o.pos[0]) > 1e-9 {
		t.Errorf("a second of W from the origin heading +X: %v, want %v m along +X on the ground", o.pos, observeFreeSpeed)
	}
	o = observeCam{}
	for range 60 {
		o.fly(held(window.KeyW, window.KeyD), ground, 1.0/60)
	}
	if d := math.Hypot(o.pos[0], o.pos[2]); math.Abs(d-observeFreeSpeed) > 1e-9 || o.pos[2] <= 0 {
		t.Errorf("a second of W and D: %v (%.1f m), want %v m ahead and to the right (+Z)", o.pos, d, observeFreeSpeed)
	}
	o = observeCam{}
	o.fly(held(window.KeyQ), nil, 0.5)
	if math.Abs(o.heading-observeFreeTurn*0.1) > 1e-9 {
		t.Errorf("Q held over a long frame turned %v rad, want %v (a frame counts 0.1 s at most)", o.heading, observeFreeTurn*0.1)
	}
	if o.pos != (mgl64.Vec3{}) {
		t.Errorf("turning moved the camera to %v", o.pos)
	}
}

// TestJoinAsRow: the Join screen's "Join as" row switches between joining as a
// player and as an observer, in the settings, which it saves.
func TestJoinAsRow(t *testing.T) {
	s := DefaultSettings()
	saved := 0
	sc := joinScreen(nil, &s, nil, func(MenuMode) {}, func() { saved++ }, nil)
	var row *menuItem
	for i := range sc.items {
		if sc.items[i].label == "Join as" {
			row = &sc.items[i]
		}
	}
	if row == nil || row.kind != itemChoice {
		t.Fatalf("no \"Join as\" choice among the Join screen's rows")
	}
	if got := row.value(); got != "player" || s.Last.JoinObserve {
		t.Fatalf("fresh settings join as %q (observe %v), want a player", got, s.Last.JoinObserve)
	}
	row.change(1)
	if got := row.value(); got != "observer (no tank)" || !s.Last.JoinObserve || saved != 1 {
		t.Errorf("after →: %q, observe %v, saved %d times; want an observer, saved once", got, s.Last.JoinObserve, saved)
	}
	row.change(-1)
	if s.Last.JoinObserve {
		t.Error("← again still joins as an observer")
	}
}
