package session

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// TestChatRoundTripBetweenClients: two clients joined to a real host over QUIC on
// loopback; a line one sends shows in the other's feed (and its own), named after
// its sender.
func TestChatRoundTripBetweenClients(t *testing.T) {
	if testing.Short() {
		t.Skip("real-time network test; skipped with -short")
	}
	mp := smallMap(t)
	ctx := context.Background()
	host, hsess, err := Host(ctx, HostConfig{Addr: "127.0.0.1:0", Passphrase: "p", Match: game.Config{Map: mp, NoPlayer: true}})
	if err != nil {
		t.Fatalf("Host: %v", err)
	}
	defer hsess.Close()
	join := func(name string, seed uint64) *game.Match {
		m, sess, err := Join(ctx, JoinConfig{Addr: hsess.Addr + "#" + hsess.Fingerprint, Passphrase: "p",
			KnownHosts: "-", Match: game.Config{Map: mp, Name: name, Seed: seed}})
		if err != nil {
			t.Fatalf("Join %s: %v", name, err)
		}
		t.Cleanup(func() { sess.Close() })
		return m
	}
	ann, bob := join("ann", 1), join("bob", 2)
	runFor(t, 500*time.Millisecond, physics.Input{}, host, ann, bob)
	if err := ann.Chat("gg, bob"); err != nil {
		t.Fatalf("Chat: %v", err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		runFor(t, 100*time.Millisecond, physics.Input{}, host, ann, bob)
		gotBob, gotAnn := noticesOf(bob, game.NoticeChat), noticesOf(ann, game.NoticeChat)
		if len(gotBob) == 1 && len(gotAnn) == 1 {
			if gotBob[0].String() != "ann: gg, bob" {
				t.Errorf("bob got %q", gotBob[0].String())
			}
			if gotAnn[0].Text != "gg, bob" {
				t.Errorf("ann's own line came back as %q", gotAnn[0].String())
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s bob has chat %v and ann %v", gotBob, gotAnn)
		}
	}
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

var (
	testMapOnce sync.Once
	testMap     *terrain.Map
	testMapErr  error
)

// smallMap returns a generated test map, built once (a Map is immutable).
func smallMap(t testing.TB) *terrain.Map {
	t.Helper()
	testMapOnce.Do(func() {
		testMap, testMapErr = terrain.Generate(terrain.GenerateConfig{Seed: 7, Size: 256, Samples: 129})
	})
	if testMapErr != nil {
		t.Fatalf("generate map: %v", testMapErr)
	}
	return testMap
}

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
