package session

import (
	"context"
	"errors"
	"github.com/treadline/treadline/internal/memnet"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// viewOf returns the view of actor id in snap.
func viewOf(t testing.TB, snap *game.Snapshot, id uint32) game.TankView {
	t.Helper()
	for _, v := range snap.Tanks {
		if v.ID == id {
			return v
		}
	}
	t.Fatalf("tank %d not in snapshot (%d tanks)", id, len(snap.Tanks))
	return game.TankView{}
}

// runUntil calls step at 60 Hz of the clock (a bubble's) until done holds, and fails the test
// when it does not within limit.
func runUntil(t *testing.T, limit time.Duration, what string, step func(), done func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	deadline := time.Now().Add(limit)
	for !done() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, limit)
		}
		<-tick.C
		step()
	}
}

// runFor steps every match in ms at 60 Hz of the clock (a bubble's) for d, with in as the
// player's input.
func runFor(t *testing.T, d time.Duration, in physics.Input, ms ...*game.Match) {
	t.Helper()
	end := time.Now().Add(d)
	runUntil(t, d+5*time.Second, "stepping for "+d.String(), stepAll(t, in, ms...), func() bool { return !time.Now().Before(end) })
}

// stepAll returns a step of every match in ms at its own clock, with in as the
// player's input.
func stepAll(t *testing.T, in physics.Input, ms ...*game.Match) func() {
	return func() {
		t.Helper()
		for _, m := range ms {
			if err := m.Step(m.Now(), in); err != nil {
				t.Fatalf("Step: %v", err)
			}
		}
	}
}

// TestPractice: a practice match over QUIC on an in-memory network in a synctest
// bubble, through the impairment wrapper, shows the host's bots to the player,
// reckoned from network updates; closing the session stops every goroutine it
// started.
func TestPractice(t *testing.T) {
	if testing.Short() {
		t.Skip("a match over QUIC; skipped with -short")
	}
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		mp := testmaps.Small(t)
		m, sess, err := Practice(context.Background(), PracticeConfig{Wrap: lan.Wrap, Match: game.Config{Map: mp, Name: "tester"}, Bots: 3})
		if err != nil {
			t.Fatalf("Practice: %v", err)
		}
		if sess.Addr == "" || len(sess.Fingerprint) != 64 {
			t.Errorf("session address %q, fingerprint %q", sess.Addr, sess.Fingerprint)
		}
		var snap game.Snapshot
		step := stepAll(t, physics.Input{Throttle: 1, Steer: 0.2}, m)
		// Two seconds of play with every bot in view and the clocks synchronised: a bot
		// that stopped publishing would be a second and a half behind.
		runUntil(t, 15*time.Second, "the bots in view, the clocks in sync", step, func() bool {
			m.Snapshot(&snap)
			return len(snap.Tanks) == 4 && snap.Time >= 2 && snap.Net.RTT >= 0.15 && snap.Net.UpdatesIn > 0
		})
		remote := 0
		for _, v := range snap.Tanks {
			if v.Local {
				continue
			}
			remote++
			if v.Stale || v.UpdateAge > 1.5 {
				t.Errorf("bot %s: stale %v, last update %.2f s ago", v.Name, v.Stale, v.UpdateAge)
			}
			if !mp.Contains(v.Position[0], v.Position[2]) {
				t.Errorf("bot %s displayed off the map at %v", v.Name, v.Position)
			}
		}
		if remote != 3 || snap.Self < 0 {
			t.Fatalf("player sees %d remote tanks (self %d), want 3", remote, snap.Self)
		}
		n := snap.Net
		t.Logf("practice link: rtt %.0f ms, updates in %.1f/s out %.1f/s, bytes in %.0f/s out %.0f/s, dropped %d, refused %d",
			n.RTT*1000, n.UpdatesIn, n.UpdatesOut, n.BytesIn, n.BytesOut, n.Dropped, n.Refused)
		if n.Lag != DefaultPracticeLag.Seconds() || n.Loss != DefaultPracticeLoss {
			t.Errorf("impairment shown as lag %v loss %v", n.Lag, n.Loss)
		}
		if n.RTT < 0.15 {
			t.Errorf("round trip %.3f s through 100 ms of lag each way", n.RTT)
		}
		if n.UpdatesIn <= 0 {
			t.Error("no updates per second coming in")
		}
		if err := sess.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
		// Every goroutine the session started must end: the bubble fails the test
		// (synctest.Test waits for them) if one outlives it.
	})
}

// TestHostAndJoin: a player joins a hosted match; each sees the other's tanks; when
// the host goes away the joined match ends with ErrLinkClosed.
func TestHostAndJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("a match over QUIC; skipped with -short")
	}
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		mp := testmaps.Small(t)
		ctx := context.Background()
		host, hsess, err := Host(ctx, HostConfig{Wrap: lan.Wrap, Addr: "127.0.0.1:0", Passphrase: "tread", Match: game.Config{Map: mp, Name: "host", Bots: 1, Seed: 1}})
		if err != nil {
			t.Fatalf("Host: %v", err)
		}
		defer hsess.Close()
		var steps []JoinStep
		if _, _, err := Join(ctx, JoinConfig{Wrap: lan.Wrap, Addr: hsess.Addr + "#" + hsess.Fingerprint, Passphrase: "wrong",
			KnownHosts: "-", Match: game.Config{Map: mp}, Progress: func(s JoinStep) { steps = append(steps, s) }}); err == nil {
			t.Error("joined with the wrong passphrase")
		}
		if want := []JoinStep{JoinHandshake, JoinAdmission}; !slices.Equal(steps, want) {
			t.Errorf("a join refused for its passphrase told the steps %v, want %v", steps, want)
		}
		other, err := terrain.Generate(terrain.GenerateConfig{Seed: 1, Size: 128, Samples: 65})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := Join(ctx, JoinConfig{Wrap: lan.Wrap, Addr: hsess.Addr + "#" + hsess.Fingerprint, Passphrase: "tread",
			KnownHosts: "-", Match: game.Config{Map: other}}); err == nil || !strings.Contains(err.Error(), "not the same map") {
			t.Errorf("joined with a different map: %v", err)
		}
		steps = nil
		guest, gsess, err := Join(ctx, JoinConfig{Wrap: lan.Wrap, Addr: hsess.Addr + "#" + hsess.Fingerprint, Passphrase: "tread",
			KnownHosts: "-", Match: game.Config{Map: mp, Name: "guest", Seed: 2}, Progress: func(s JoinStep) { steps = append(steps, s) }})
		if err != nil {
			t.Fatalf("Join: %v", err)
		}
		if want := []JoinStep{JoinHandshake, JoinAdmission, JoinSpawn}; !slices.Equal(steps, want) {
			t.Errorf("a join told the steps %v, want %v", steps, want)
		}
		defer gsess.Close()
		var hs, gs game.Snapshot
		// Both matches step in this goroutine, one after the other: a view can lag its
		// owner by the loopback latency and one publishing threshold, within 3 m.
		agree := func() bool {
			host.Snapshot(&hs)
			guest.Snapshot(&gs)
			if len(hs.Tanks) != 3 || len(gs.Tanks) != 3 {
				return false
			}
			for _, pair := range [][2]*game.Snapshot{{&hs, &gs}, {&gs, &hs}} {
				for _, own := range pair[0].Tanks {
					if !own.Local {
						continue
					}
					if seen := viewOf(t, pair[1], own.ID); seen.Position.Sub(own.Position).Len() > 3 {
						return false
					}
				}
			}
			return hs.Time >= 1 && gs.Time >= 1 // a second of driving
		}
		runUntil(t, 10*time.Second, "host and guest each see the other's tanks where they are", stepAll(t, physics.Input{Throttle: 0.7}, host, guest), agree)

		if err := hsess.Close(); err != nil {
			t.Errorf("host Close: %v", err)
		}
		runUntil(t, 10*time.Second, "the guest hears the host is gone", func() { _ = guest.Step(guest.Now(), physics.Input{}) },
			func() bool { return guest.Err() != nil })
		if !errors.Is(guest.Err(), game.ErrLinkClosed) {
			t.Fatalf("after the host closed, guest Err() = %v", guest.Err())
		}
		t.Logf("guest saw: %v", guest.Err())
		gsess.Close()
		// Every goroutine the session started must end: the bubble fails the test
		// (synctest.Test waits for them) if one outlives it.
	})
}

// TestChatRoundTripBetweenClients: two clients joined to a real host over QUIC on
// loopback; a line one sends shows in the other's feed (and its own), named after
// its sender.
func TestChatRoundTripBetweenClients(t *testing.T) {
	if testing.Short() {
		t.Skip("a match over QUIC; skipped with -short")
	}
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		mp := testmaps.Small(t)
		ctx := context.Background()
		host, hsess, err := Host(ctx, HostConfig{Wrap: lan.Wrap, Addr: "127.0.0.1:0", Passphrase: "p", Match: game.Config{Map: mp, NoPlayer: true}})
		if err != nil {
			t.Fatalf("Host: %v", err)
		}
		defer hsess.Close()
		join := func(name string, seed uint64) *game.Match {
			m, sess, err := Join(ctx, JoinConfig{Wrap: lan.Wrap, Addr: hsess.Addr + "#" + hsess.Fingerprint, Passphrase: "p",
				KnownHosts: "-", Match: game.Config{Map: mp, Name: name, Seed: seed}})
			if err != nil {
				t.Fatalf("Join %s: %v", name, err)
			}
			t.Cleanup(func() { sess.Close() })
			return m
		}
		ann, bob := join("ann", 1), join("bob", 2)
		step := stepAll(t, physics.Input{}, host, ann, bob)
		var snap game.Snapshot
		runUntil(t, 5*time.Second, "ann and bob see each other", step, func() bool {
			ann.Snapshot(&snap)
			n := len(snap.Tanks)
			bob.Snapshot(&snap)
			return n == 2 && len(snap.Tanks) == 2
		})
		if err := ann.Chat("gg, bob"); err != nil {
			t.Fatalf("Chat: %v", err)
		}
		runUntil(t, 5*time.Second, "the line reaches bob and ann", step, func() bool {
			return len(noticesOf(bob, game.NoticeChat)) == 1 && len(noticesOf(ann, game.NoticeChat)) == 1
		})
		if got := noticesOf(bob, game.NoticeChat)[0].String(); got != "ann: gg, bob" {
			t.Errorf("bob got %q", got)
		}
		if got := noticesOf(ann, game.NoticeChat)[0].String(); got != "ann: gg, bob" {
			t.Errorf("ann's own line came back as %q", got)
		}
	})
}

// noticesOf returns m's notices of kind k.
func noticesOf(m *game.Match, k game.NoticeKind) []game.Notice {
	var snap game.Snapshot
	m.Snapshot(&snap)
	var out []game.Notice
	for _, n := range snap.Notices {
		if n.Kind == k {
			out = append(out, n)
		}
	}
	return out
}
