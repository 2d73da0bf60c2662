package session

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// runFor steps m in real time at 60 Hz for d, with in as the player's input.
func runFor(t *testing.T, d time.Duration, in physics.Input, ms ...*game.Match) {
	t.Helper()
	tick := time.NewTicker(time.Second / 60)
	defer tick.Stop()
	end := time.Now().Add(d)
	for time.Now().Before(end) {
		<-tick.C
		for _, m := range ms {
			if err := m.Step(m.Now(), in); err != nil {
				t.Fatalf("Step: %v", err)
			}
		}
	}
}

// TestPractice: a practice match over real QUIC on loopback, through the impairment
// wrapper, shows the host's bots to the player, reckoned from network updates; closing
// the session stops every goroutine it started.
func TestPractice(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time network test; skipped with -short")
	}
	before := runtime.NumGoroutine()
	mp := smallMap(t)
	m, sess, err := Practice(context.Background(), PracticeConfig{Match: game.Config{Map: mp, Name: "tester"}, Bots: 3})
	if err != nil {
		t.Fatalf("Practice: %v", err)
	}
	if sess.Addr == "" || len(sess.Fingerprint) != 64 {
		t.Errorf("session address %q, fingerprint %q", sess.Addr, sess.Fingerprint)
	}
	runFor(t, 4*time.Second, physics.Input{Throttle: 1, Steer: 0.2}, m)
	var snap game.Snapshot
	m.Snapshot(&snap)
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
	waitGoroutines(t, before)
}

// TestHostAndJoin: a player joins a hosted match; each sees the other's tanks; when
// the host goes away the joined match ends with ErrLinkClosed.
func TestHostAndJoin(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time network test; skipped with -short")
	}
	before := runtime.NumGoroutine()
	mp := smallMap(t)
	ctx := context.Background()
	host, hsess, err := Host(ctx, HostConfig{Addr: "127.0.0.1:0", Passphrase: "tread", Match: game.Config{Map: mp, Name: "host", Bots: 1, Seed: 1}})
	if err != nil {
		t.Fatalf("Host: %v", err)
	}
	defer hsess.Close()
	if _, _, err := Join(ctx, JoinConfig{Addr: hsess.Addr + "#" + hsess.Fingerprint, Passphrase: "wrong",
		KnownHosts: "-", Match: game.Config{Map: mp}}); err == nil {
		t.Error("joined with the wrong passphrase")
	}
	other, err := terrain.Generate(terrain.GenerateConfig{Seed: 1, Size: 128, Samples: 65})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := Join(ctx, JoinConfig{Addr: hsess.Addr + "#" + hsess.Fingerprint, Passphrase: "tread",
		KnownHosts: "-", Match: game.Config{Map: other}}); err == nil || !strings.Contains(err.Error(), "not the same map") {
		t.Errorf("joined with a different map: %v", err)
	}
	guest, gsess, err := Join(ctx, JoinConfig{Addr: hsess.Addr + "#" + hsess.Fingerprint, Passphrase: "tread",
		KnownHosts: "-", Match: game.Config{Map: mp, Name: "guest", Seed: 2}})
	if err != nil {
		t.Fatalf("Join: %v", err)
	}
	defer gsess.Close()
	runFor(t, 3*time.Second, physics.Input{Throttle: 0.7}, host, guest)

	var hs, gs game.Snapshot
	host.Snapshot(&hs)
	guest.Snapshot(&gs)
	if len(hs.Tanks) != 3 || len(gs.Tanks) != 3 {
		t.Fatalf("host sees %d tanks, guest %d; want 3 each", len(hs.Tanks), len(gs.Tanks))
	}
	for _, pair := range [][2]*game.Snapshot{{&hs, &gs}, {&gs, &hs}} {
		for _, own := range pair[0].Tanks {
			if !own.Local {
				continue
			}
			seen := viewOf(t, pair[1], own.ID)
			// Both matches step in this goroutine, one after the other: the view can
			// lag the owner by the loopback latency and one publishing threshold.
			if d := seen.Position.Sub(own.Position).Len(); d > 3 {
				t.Errorf("tank %s seen %.2f m from where its owner has it", own.Name, d)
			}
		}
	}

	if err := hsess.Close(); err != nil {
		t.Errorf("host Close: %v", err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for guest.Err() == nil && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
		_ = guest.Step(guest.Now(), physics.Input{})
	}
	if !errors.Is(guest.Err(), game.ErrLinkClosed) {
		t.Fatalf("after the host closed, guest Err() = %v", guest.Err())
	}
	t.Logf("guest saw: %v", guest.Err())
	gsess.Close()
	waitGoroutines(t, before)
}

// waitGoroutines fails when goroutines started by the test are still running after
// a grace period.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines left running (had %d):\n%s", n-before, before, buf[:runtime.Stack(buf, true)])
	}
}
