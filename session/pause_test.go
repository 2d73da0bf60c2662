package session

import (
	"context"
	"github.com/treadline/treadline/internal/memnet"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/testmaps"

	"github.com/treadline/treadline/physics"
)

// handClock is a clock moved by hand.
type handClock struct{ t time.Duration }

func (c *handClock) Now() time.Duration { return c.t }

func TestPauseClock(t *testing.T) {
	base := &handClock{t: 5 * time.Second}
	c := NewPauseClock(base)
	steps := []struct {
		advance time.Duration
		pause   int // 1 pause, -1 resume, 0 neither (before advancing)
		want    time.Duration
	}{
		{0, 0, 5 * time.Second},
		{2 * time.Second, 0, 7 * time.Second},
		{10 * time.Second, 1, 7 * time.Second},  // paused: stands still
		{0, 1, 7 * time.Second},                 // pausing again changes nothing
		{3 * time.Second, -1, 10 * time.Second}, // resumed: on from the same instant
		{time.Second, -1, 11 * time.Second},
	}
	for i, s := range steps {
		switch s.pause {
		case 1:
			c.Pause(true)
		case -1:
			c.Pause(false)
		}
		base.t += s.advance
		if got := c.Now(); got != s.want {
			t.Errorf("step %d: Now %v, want %v", i, got, s.want)
		}
	}
}

// wallClock is the test's real-time clock.
type wallClock struct{ start time.Time }

func (c wallClock) Now() time.Duration { return time.Since(c.start) }

// TestPracticePausesForReal pauses a practice alone with bots: while paused, the
// match's clock stands still and no bot moves; after it, the bots go on and the
// match is healthy.
func TestPracticePausesForReal(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a match over QUIC; skipped with -short")
	}
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		mp := testmaps.Small(t)
		m, sess, err := Practice(context.Background(), PracticeConfig{Wrap: lan.Wrap, Match: game.Config{Map: mp, Name: "tester"}, Bots: 3,
			Clock: NewPauseClock(wallClock{start: time.Now()})})
		if err != nil {
			t.Fatalf("Practice: %v", err)
		}
		defer sess.Close()
		positions := func() map[string][3]float64 {
			var snap game.Snapshot
			m.Snapshot(&snap)
			out := map[string][3]float64{}
			for _, v := range snap.Tanks {
				if !v.Local {
					out[v.Name] = v.Position
				}
			}
			return out
		}
		// Played until every bot is in view and a second has passed, rather than for a
		// fixed time.
		runUntil(t, 15*time.Second, "the three bots in view", stepAll(t, physics.Input{}, m), func() bool {
			return len(positions()) == 3 && m.Now() >= 1
		})
		if !sess.Pause(true) {
			t.Fatal("a practice with a PauseClock cannot pause")
		}
		runFor(t, 200*time.Millisecond, physics.Input{}, m) // what was in flight lands
		before, t0 := positions(), m.Now()
		runFor(t, 1500*time.Millisecond, physics.Input{Throttle: 1}, m)
		if now := m.Now(); now != t0 {
			t.Errorf("paused 1.5 s: the match clock went from %.3f to %.3f s", t0, now)
		}
		after := positions()
		if len(before) == 0 {
			t.Fatal("no bots seen")
		}
		for name, p := range before {
			if q := after[name]; q != p {
				t.Errorf("paused: bot %s moved from %v to %v", name, p, q)
			}
		}
		sess.Pause(false)
		moved := false
		for end := time.Now().Add(5 * time.Second); !moved && time.Now().Before(end); {
			runFor(t, 100*time.Millisecond, physics.Input{}, m)
			for name, p := range positions() {
				moved = moved || p != before[name]
			}
		}
		if !moved {
			t.Error("resumed: no bot moved in 5 s")
		}
		if err := m.Err(); err != nil {
			t.Errorf("after the pause the match failed: %v", err)
		}
	})
}
