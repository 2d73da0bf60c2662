package net

import (
	"context"
	"errors"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net/wire"
)

// testHost starts a host on a loopback port; the test closes it.
func testHost(t *testing.T, cfg HostConfig) *Host {
	t.Helper()
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	h, err := Listen(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// testClient joins h with the certificate pinned; the test closes it.
func testClient(t *testing.T, h *Host, cfg ClientConfig) *Client {
	t.Helper()
	c, err := dialTest(h, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func dialTest(h *Host, cfg ClientConfig) (*Client, error) {
	cfg.Addr = h.Addr().String()
	if n := networkOf(h); n != nil {
		cfg.Wrap = onNetwork(n, cfg.Wrap)
	}
	if cfg.Fingerprint == "" {
		cfg.Fingerprint = h.Fingerprint()
	}
	// A bound for failures only: each join also has its RequestTimeout.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return Dial(ctx, cfg)
}

// waitFor polls p until match returns true for an event or the timeout passes; it
// returns every event seen.
func waitFor(t *testing.T, p *Client, timeout time.Duration, match func(Event) bool) []Event {
	t.Helper()
	var all []Event
	found := poll.Within(timeout, func() bool {
		n := len(all)
		all = p.Poll(all)
		for _, ev := range all[n:] {
			if match(ev) {
				return true
			}
		}
		return false
	})
	if !found {
		t.Fatalf("peer %d: no matching event within %v; saw %d events", p.ID(), timeout, len(all))
	}
	return all
}

func tankAt(x, z float64) deadreckon.State {
	s := deadreckon.NewState(mgl64.Vec3{x, 0, z})
	s.NumArticulations = 2
	return s
}

func TestJoinSpawnPublish(t *testing.T) {
	t.Parallel() // real time, over QUIC on UDP sockets (the path every other test of
	// the run loops takes on memnet): runs beside the others
	h := testHost(t, HostConfig{Name: "hostie", Match: MatchSettings{Map: "valley", TickRate: 30}})
	c := testClient(t, h, ClientConfig{Name: "ann", KnownHosts: "-"})
	if c.ID() == 0 {
		t.Fatal("client got the host's id 0")
	}
	if m := c.Match(); m.Map != "valley" || m.TickRate != 30 || m.Extent != DefaultExtent {
		t.Errorf("client match settings %+v", m)
	}
	if got := c.Fingerprint(); got != h.Fingerprint() {
		t.Errorf("client saw fingerprint %s, host has %s", got, h.Fingerprint())
	}
	local := h.Local()
	hostTank, err := local.Spawn("hostie", 1, tankAt(10, 10))
	if err != nil {
		t.Fatal(err)
	}
	clientTank, err := c.Spawn("ann", 2, tankAt(-10, 5))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, c, 3*time.Second, func(ev Event) bool {
		return ev.Kind == EventSpawn && ev.Actor == hostTank && ev.Owner == 0 && ev.Name == "hostie"
	})
	waitFor(t, local, 3*time.Second, func(ev Event) bool {
		return ev.Kind == EventSpawn && ev.Actor == clientTank && ev.Owner == c.ID() && ev.Team == 2
	})

	s := tankAt(-9, 5)
	s.Velocity = mgl64.Vec3{2, 0, 0}
	s.Articulations[0].Angle = 0.05
	if err := c.Publish(clientTank, s); err != nil {
		t.Fatal(err)
	}
	evs := waitFor(t, local, 3*time.Second, func(ev Event) bool { return ev.Kind == EventState && ev.Actor == clientTank })
	got := evs[len(evs)-1].State
	const posTol = 0.001
	if d := got.Position.Sub(s.Position).Len(); d > posTol {
		t.Errorf("host got position %v, sent %v (|Δ| %.4f > %v)", got.Position, s.Position, d, posTol)
	}
	if got.NumArticulations != 2 || got.Articulations[0].Angle < 0.049 || got.Articulations[0].Angle > 0.051 {
		t.Errorf("host got articulations %+v", got.Articulations)
	}
	if d := got.Time - h.Now(); d > 0.5 || d < -0.5 {
		t.Errorf("update stamped %.3f s from the host clock", d)
	}

	sentAt := c.Now()
	if err := local.Publish(hostTank, tankAt(11, 10)); err != nil {
		t.Fatal(err)
	}
	evs = waitFor(t, c, 3*time.Second, func(ev Event) bool {
		return ev.Kind == EventState && ev.Actor == hostTank && ev.State.Position[0] > 10.99 && ev.State.NumArticulations == 2
	})
	// The update is stamped with its arrival on the client's clock: after it was
	// sent, no later than it was polled.
	if at := evs[len(evs)-1].Arrival; at < sentAt || at > c.Now() {
		t.Errorf("update arrived at %.4f s, want within [%.4f, %.4f] s", at, sentAt, c.Now())
	}

	if err := c.Chat("hello"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, local, 3*time.Second, func(ev Event) bool {
		return ev.Kind == EventChat && ev.Text == "hello" && ev.Owner == c.ID()
	})

	if err := c.Despawn(clientTank); err != nil {
		t.Fatal(err)
	}
	waitFor(t, local, 3*time.Second, func(ev Event) bool { return ev.Kind == EventDespawn && ev.Actor == clientTank })
	if err := c.Publish(clientTank, s); !errors.Is(err, ErrNotOwner) {
		t.Errorf("publish after despawn: %v, want ErrNotOwner", err)
	}
	st := h.Stats()
	if st.Players != 2 || st.Actors != 1 || st.Accepted != 2 {
		t.Errorf("host stats %+v, want 2 players, 1 actor, 2 updates accepted", st)
	}
	ps := h.Players()
	if len(ps) != 2 || ps[0].ID != 0 || ps[0].Name != "hostie" || ps[0].Actors != 1 ||
		ps[1].ID != c.ID() || ps[1].Name != "ann" || ps[1].Actors != 0 || ps[1].Addr == "" || !(ps[1].RTT > 0) {
		t.Errorf("players %+v", ps)
	}
}

// TestSpawnUnencodable checks that a spawn the wire cannot carry fails at once and
// does not disturb the answers to the spawns after it.
func TestSpawnUnencodable(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Clock: clk, Limits: Limits{MaxActorsPerPlayer: 3}})
		c := pipeJoin(t, h, ClientConfig{Name: "ann", Clock: clk})
		bad := tankAt(0, 0)
		bad.Position[0] = math.NaN()
		if _, err := c.Spawn("ann", 1, bad); err == nil {
			t.Fatal("spawn with a NaN position succeeded")
		}
		for i := 0; i < 3; i++ {
			id, err := c.Spawn("ann", 1, tankAt(float64(i), 0))
			if err != nil {
				t.Fatalf("spawn %d after the bad one: %v", i, err)
			}
			waitFor(t, c, 3*time.Second, func(ev Event) bool {
				return ev.Kind == EventSpawn && ev.Actor == id && ev.State.Position[0] == float64(i)
			})
		}
	})
}

// TestClientSequencing feeds a client relayed batches directly: duplicates and late
// updates are dropped and counted; every record stands alone, articulations included,
// and is never merged with what the client knew.
func TestClientSequencing(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Clock: clk})
		c := pipeJoin(t, h, ClientConfig{Name: "ann", Clock: clk})
		const actor = 42
		c.call(func() {
			c.s.remote[actor] = &remoteActor{owner: 9}
			c.s.remote[actor].seq.Set(10)
		})
		batch := func(seq uint16, s deadreckon.State) []byte {
			w := wire.NewBatchWriter(0)
			if err := w.Add(&wire.Update{Actor: actor, Seq: seq, State: s}); err != nil {
				t.Fatal(err)
			}
			return append([]byte(nil), w.Bytes()...)
		}
		turret := tankAt(3, 4)
		turret.Time = 1
		turret.Articulations[0].Angle = 0.25
		bare := tankAt(3.5, 4)
		bare.Time = 1.2
		bare.NumArticulations = 0
		steps := []struct {
			name string
			b    []byte
			kept bool
			arts int
		}{
			{"with articulations", batch(11, turret), true, 2},
			{"duplicate", batch(11, turret), false, 0},
			{"older", batch(9, bare), false, 0},
			{"without articulations", batch(12, bare), true, 0},
		}
		var got []Event
		for _, st := range steps {
			before := c.Stats().Dropped
			c.call(func() { c.s.handleDatagram(st.b, c.Now()) })
			got = c.Poll(got[:0])
			if kept := len(got) == 1; kept != st.kept {
				t.Fatalf("%s: %d events, kept %v, want %v", st.name, len(got), kept, st.kept)
			}
			if dropped := c.Stats().Dropped - before; dropped != map[bool]uint64{true: 0, false: 1}[st.kept] {
				t.Errorf("%s: dropped count +%d", st.name, dropped)
			}
			if st.kept && got[0].State.NumArticulations != st.arts {
				t.Errorf("%s: %d articulations, want %d", st.name, got[0].State.NumArticulations, st.arts)
			}
		}
	})
}
