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

// TestObserveHostedMatch: an observer joins a hosted match: it sees the host's tank
// and bots, has none of its own (firing does nothing, the host's match still holds
// three tanks), and the host's player counts one observer.
func TestObserveHostedMatch(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a match over QUIC; skipped with -short")
	}
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		mp := testmaps.Small(t)
		ctx := context.Background()
		host, hsess, err := Host(ctx, HostConfig{Wrap: lan.Wrap, Addr: "127.0.0.1:0", Match: game.Config{Map: mp, Name: "host", Bots: 2, Seed: 1}})
		if err != nil {
			t.Fatalf("Host: %v", err)
		}
		defer hsess.Close()
		obs, osess, err := Join(ctx, JoinConfig{Wrap: lan.Wrap, Addr: hsess.Addr + "#" + hsess.Fingerprint, KnownHosts: "-",
			Match: game.Config{Map: mp, Name: "eve", Seed: 2, Observe: true}})
		if err != nil {
			t.Fatalf("Join as an observer: %v", err)
		}
		defer osess.Close()
		var hs, os game.Snapshot
		step := stepAll(t, physics.Input{Throttle: 0.5}, host, obs)
		runUntil(t, 10*time.Second, "the observer sees the host's three tanks and the host counts it", func() {
			step()
			obs.Fire()
		}, func() bool {
			host.Snapshot(&hs)
			obs.Snapshot(&os)
			return len(os.Tanks) == 3 && hs.Observers == 1 && os.Time >= 1
		})
		if os.Self != -1 || !os.Observing {
			t.Errorf("the observer's snapshot: self %d, observing %v; want no tank, observing", os.Self, os.Observing)
		}
		for _, tv := range os.Tanks {
			if tv.Local {
				t.Errorf("the observer has a tank of its own: %+v", tv.Name)
			}
		}
		if len(hs.Tanks) != 3 {
			t.Errorf("the host's match holds %d tanks, want 3", len(hs.Tanks))
		}
		for _, sh := range os.Combat.Shells {
			if sh.Own {
				t.Error("the observer fired a shell")
			}
		}
	})
}
