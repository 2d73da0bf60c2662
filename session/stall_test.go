package session

import (
	"context"
	"github.com/treadline/treadline/internal/memnet"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
)

// TestPracticeSurvivesStall: a practice match whose clock jumps by more than the
// network timeout while nothing steps (a stopped process, a suspended laptop) goes on
// afterwards: its host runs in the same process, so it is never declared lost and
// never drops its own player. The host's silence checks and the player's run every
// tenth of a second of the bubble's clock, and see the whole stall. Not parallel with the other
// practice tests: box2d keeps package-level counters that worlds stepped on
// different goroutines race on.
func TestPracticeSurvivesStall(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		clk := &gametest.Clock{}
		m, sess, err := Practice(context.Background(), PracticeConfig{Wrap: lan.Wrap, Match: game.Config{Map: testmaps.Small(t), Name: "stalled"},
			Bots: 1, Clock: NewPauseClock(clk)})
		if err != nil {
			t.Fatal(err)
		}
		defer sess.Close()
		var snap game.Snapshot
		step := func() {
			t.Helper()
			clk.Advance(time.Second / 60)
			if err := m.Step(m.Now(), physics.Input{Throttle: 1}); err != nil {
				t.Fatalf("Step: %v", err)
			}
			m.Snapshot(&snap)
		}
		runUntil(t, 10*time.Second, "the bot shows before the stall", step, func() bool { return len(snap.Tanks) == 2 })

		clk.Advance(net.DefaultTimeout + 1500*time.Millisecond)
		// A second of the bubble's clock: the checks that would drop a stalled peer run ten times.
		end := time.Now().Add(time.Second)
		runUntil(t, 5*time.Second, "a second after the stall", step, func() bool { return time.Now().After(end) })
		if err := m.Err(); err != nil {
			t.Fatalf("practice match after a %v stall: %v", net.DefaultTimeout+1500*time.Millisecond, err)
		}
		if len(snap.Tanks) != 2 {
			t.Errorf("after the stall the player sees %d tanks, want itself and the bot", len(snap.Tanks))
		}
	})
}
