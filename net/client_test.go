package net

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net/wire"
)

// sendRaw hands b as it is, past the client's own checks, to the client's sender: on
// the control stream, or as a datagram. It waits for the write.
func (c *Client) sendRaw(b []byte, control bool) error {
	var (
		o   *outgoing
		err error
	)
	if !c.call(func() { o, err = c.s.queue(&outgoing{b: b, control: control}, true) }) {
		return ErrClosed
	}
	if err != nil {
		return err
	}
	return c.await(o)
}

// validFire and validClaim are game messages the wire can carry, from shooter.
func validFire(shooter uint32) *wire.Fire {
	return &wire.Fire{Shooter: wire.ActorID(shooter), Shot: 1, Direction: mgl64.Vec3{1, 0, 0}}
}

func validClaim(shooter uint32) *wire.HitClaim {
	return &wire.HitClaim{Shooter: wire.ActorID(shooter), Target: wire.ActorID(shooter + 1), Shot: 1,
		Direction: mgl64.Vec3{1, 0, 0}}
}

// TestClientCallsAfterClose: once Close has returned, every call that needs the
// session fails with ErrClosed, the figures stay readable, and the events left
// behind come out once, EventClosed last.
func TestClientCallsAfterClose(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Clock: clk})
		c := pipeJoin(t, h, ClientConfig{Name: "ann", Clock: clk})
		tank, err := c.Spawn("ann", 1, tankAt(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Publish(tank, tankAt(0.1, 0)); err != nil {
			t.Fatal(err)
		}
		before := c.Stats()
		c.Close()
		for _, tc := range []struct {
			name string
			call func() error
		}{
			{"Spawn", func() error { _, err := c.Spawn("ann", 1, tankAt(1, 0)); return err }},
			{"Publish", func() error { return c.Publish(tank, tankAt(0.2, 0)) }},
			{"Despawn", func() error { return c.Despawn(tank) }},
			{"Chat", func() error { return c.Chat("hello") }},
			{"Send", func() error { return c.Send(validFire(tank)) }},
			{"Send a hit claim", func() error { return c.Send(validClaim(tank)) }},
		} {
			if err := tc.call(); !errors.Is(err, ErrClosed) {
				t.Errorf("%s after Close: %v, want ErrClosed", tc.name, err)
			}
		}
		evs := c.Poll(nil)
		if n := len(evs); n == 0 || evs[n-1].Kind != EventClosed || evs[n-1].Ending != EndLeft {
			t.Errorf("events after Close %+v, want EventClosed (left) last", evs)
		}
		if more := c.Poll(nil); len(more) != 0 {
			t.Errorf("a second Poll after Close returned %+v, want nothing", more)
		}
		if st := c.Stats(); st.SendErrors != before.SendErrors || st.Timeout != before.Timeout {
			t.Errorf("stats after Close %+v, want those at Close (%+v)", st, before)
		}
		if err := c.Close(); err != nil {
			t.Errorf("second Close: %v", err)
		}
	})
}

// TestClientConcurrentCalls: Publish, Poll, Send, Chat and Stats from many goroutines
// at once (the race detector watches), each goroutine's chat lines arriving in the
// order it sent them, and every publish counted by the host.
func TestClientConcurrentCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		// Buckets deep enough that no update or chat line of the test is rate-limited, and
		// a tank for each worker.
		h := simHost(t, HostConfig{Clock: clk, Limits: Limits{UpdateBurst: 1e6, ControlBurst: 1e6, ChatBurst: 1e6, MaxActorsPerPlayer: 8}})
		watcher := h.Local()
		// Over the pipe, which loses no datagram, so that every update is counted.
		c := pipeJoin(t, h, ClientConfig{Name: "ann", Clock: clk})
		const (
			workers = 8
			each    = 20
		)
		tanks := make([]uint32, workers)
		for i := range tanks {
			id, err := c.Spawn("ann", 1, tankAt(float64(i), 0))
			if err != nil {
				t.Fatal(err)
			}
			tanks[i] = id
		}
		var wg sync.WaitGroup
		errs := make(chan error, workers*each*3)
		for w := range workers {
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := range each {
					s := tankAt(float64(w)+float64(i)*0.01, 0)
					s.NumArticulations = 0
					if err := c.Publish(tanks[w], s); err != nil {
						errs <- fmt.Errorf("publish: %w", err)
					}
					if err := c.Chat(fmt.Sprintf("%d %d", w, i)); err != nil {
						errs <- fmt.Errorf("chat: %w", err)
					}
					if err := c.Send(validClaim(tanks[w])); err != nil {
						errs <- fmt.Errorf("send: %w", err)
					}
				}
			}()
			go func() {
				defer wg.Done()
				var evs []Event
				for range each {
					evs = c.Poll(evs[:0])
					c.Stats()
					c.HostNow()
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		// Every worker's lines reach the host's player in the order that worker sent them.
		next := make([]int, workers)
		var seen []Event
		poll.Until(t, 5*time.Second, "every chat line at the host's player", func() bool {
			n := len(seen)
			seen = watcher.Poll(seen)
			for _, ev := range seen[n:] {
				if ev.Kind != EventChat {
					continue
				}
				var w, i int
				if _, err := fmt.Sscanf(ev.Text, "%d %d", &w, &i); err != nil || w < 0 || w >= workers {
					t.Fatalf("chat line %q", ev.Text)
				}
				if i != next[w] {
					t.Fatalf("worker %d's line %d arrived when %d was due", w, i, next[w])
				}
				next[w]++
			}
			for _, n := range next {
				if n < each {
					return false
				}
			}
			return true
		})
		if !poll.Within(5*time.Second, func() bool { return h.Stats().Accepted == workers*each }) {
			t.Errorf("host stats %+v, want %d updates accepted", h.Stats(), workers*each)
		}
		if st := c.Stats(); st.SendErrors != 0 {
			t.Errorf("%d send errors", st.SendErrors)
		}
	})
}

// TestClientSpawnOrder: spawns asked for from many goroutines at once each get their
// own actor, so that answers are matched to the requests in the order they were
// written.
func TestClientSpawnOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Clock: clk, Limits: Limits{MaxActorsPerPlayer: 64, ControlBurst: 1e6}})
		c := pipeJoin(t, h, ClientConfig{Name: "ann", Clock: clk})
		const n = 32
		ids := make([]uint32, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				id, err := c.Spawn("ann", i%4, tankAt(float64(i), 0))
				if err != nil {
					t.Errorf("spawn %d: %v", i, err)
				}
				ids[i] = id
			}()
		}
		wg.Wait()
		// The host echoes each actor's spawn: its position tells which request it was.
		var evs []Event
		byID := map[uint32]float64{}
		poll.Until(t, 5*time.Second, "every spawn echoed", func() bool {
			evs = c.Poll(evs[:0])
			for _, ev := range evs {
				if ev.Kind == EventSpawn {
					byID[ev.Actor] = ev.State.Position[0]
				}
			}
			return len(byID) == n
		})
		for i, id := range ids {
			if x, ok := byID[id]; !ok || x != float64(i) {
				t.Errorf("spawn %d got actor %d, which the host placed at x=%v", i, id, x)
			}
		}
	})
}
