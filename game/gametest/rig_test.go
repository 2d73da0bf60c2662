package gametest

import (
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
)

var _ game.Link = (*Link)(nil)

func newRig(t *testing.T, cfg Config) *Rig {
	t.Helper()
	r, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

func join(t *testing.T, r *Rig) *Link {
	t.Helper()
	l, err := r.Join()
	if err != nil {
		t.Fatal(err)
	}
	return l
}

func TestRigDelivery(t *testing.T) {
	rig := newRig(t, Config{Link: impair.Link{Latency: 100 * time.Millisecond}})
	a, b := join(t, rig), join(t, rig)
	id, err := a.Spawn("a", 1, deadreckon.NewState(mgl64.Vec3{1, 2, 3}))
	if err != nil {
		t.Fatal(err)
	}
	var evs []net.Event
	if evs = b.Poll(evs[:0]); len(evs) != 0 {
		t.Fatalf("spawn delivered before its delay: %+v", evs)
	}
	rig.SetNow(0.1)
	evs = b.Poll(evs[:0])
	if len(evs) != 1 || evs[0].Kind != net.EventSpawn || evs[0].Actor != id || evs[0].Owner != a.ID() || evs[0].Name != "a" {
		t.Fatalf("b got %+v, want a's spawn", evs)
	}
	if evs = a.Poll(evs[:0]); len(evs) != 1 || evs[0].Kind != net.EventSpawn {
		t.Fatalf("owner got %+v, want its own spawn confirmed", evs)
	}
	s := deadreckon.NewState(mgl64.Vec3{1.5, 2, 3.5}) // within what a tank moves in 0.1 s
	s.Time = -99                                      // the link stamps the time
	if err := a.Publish(id, s); err != nil {
		t.Fatal(err)
	}
	if err := b.Publish(id, s); !errors.Is(err, net.ErrNotOwner) {
		t.Errorf("publishing another's actor: %v, want ErrNotOwner", err)
	}
	rig.SetNow(0.2)
	evs = b.Poll(evs[:0])
	if len(evs) != 1 || evs[0].Kind != net.EventState || evs[0].State.Time != 0.1 || evs[0].State.Position != s.Position {
		t.Fatalf("b got %+v, want the update stamped 0.1", evs)
	}
	if evs = a.Poll(evs[:0]); len(evs) != 0 {
		t.Errorf("owner received its own update: %+v", evs)
	}
	// A late joiner learns of the actor with its latest state.
	c := join(t, rig)
	rig.SetNow(0.35)
	evs = c.Poll(evs[:0])
	if len(evs) != 1 || evs[0].Kind != net.EventSpawn || evs[0].State.Position != s.Position {
		t.Fatalf("late joiner got %+v", evs)
	}
	// Leaving despawns the leaver's actors for everyone else.
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	rig.SetNow(0.5)
	for _, l := range []*Link{b, c} {
		if evs = l.Poll(evs[:0]); len(evs) != 1 || evs[0].Kind != net.EventDespawn || evs[0].Actor != id {
			t.Errorf("%v got %+v, want the despawn", l, evs)
		}
	}
	if _, err := a.Spawn("again", 1, deadreckon.NewState(mgl64.Vec3{})); !errors.Is(err, net.ErrClosed) {
		t.Errorf("spawn on a closed link: %v", err)
	}
}

func TestRigLossJitterAndOrder(t *testing.T) {
	const n = 2000
	// 100 updates a second of one tank, past the uplink a player's publisher needs:
	// the test is of the link's loss, jitter and order, not of the host's rate limit.
	rig := newRig(t, Config{Link: impair.Link{Latency: 70 * time.Millisecond, Jitter: 20 * time.Millisecond,
		Loss: 0.1, Reorder: 0.05}, Seed: 3, Limits: net.Limits{UpdateRate: 200, UpdateBurst: 200}})
	a, b := join(t, rig), join(t, rig)
	id, _ := a.Spawn("a", 1, deadreckon.NewState(mgl64.Vec3{}))
	var evs []net.Event
	got, last := 0, -1.0
	for k := 1; k <= n; k++ {
		now := float64(k) * 0.01
		rig.SetNow(now)
		if err := a.Publish(id, deadreckon.NewState(mgl64.Vec3{})); err != nil {
			t.Fatal(err)
		}
		evs = b.Poll(evs[:0])
		for _, ev := range evs {
			if ev.Kind != net.EventState {
				continue
			}
			if ev.State.Time <= last {
				t.Fatalf("update %.2f delivered after %.2f", ev.State.Time, last)
			}
			// 70 ± 20 ms, plus 20 ms for a reordered update, seen at the next 10 ms step.
			if lat := now - ev.State.Time; lat < 0.05-1e-9 || lat > 0.11+0.01+1e-9 {
				t.Fatalf("latency %.3f s outside [0.05, 0.12]", lat)
			}
			last = ev.State.Time
			got++
		}
	}
	st := b.Stats()
	lost := n - got - int(st.Dropped)
	// Expected 10 % lost; with n = 2000 the standard deviation is about 13.
	if lost < 140 || lost > 260 {
		t.Errorf("%d of %d updates lost, want about 200", lost, n)
	}
	if st.Dropped == 0 {
		t.Error("5% reordering at 100 updates/s reordered nothing")
	}
	if st.UpdatesIn < 60 || st.UpdatesIn > 100 || st.BytesIn <= 0 {
		t.Errorf("rates in: %.1f updates/s, %.1f B/s", st.UpdatesIn, st.BytesIn)
	}
	if out := a.Stats().UpdatesOut; out < 90 || out > 110 {
		t.Errorf("updates out %.1f/s, want 100", out)
	}
}

func TestRigDeterministic(t *testing.T) {
	trace := func() []float64 {
		rig := newRig(t, Config{Link: impair.Link{Latency: 20 * time.Millisecond, Jitter: 15 * time.Millisecond,
			Loss: 0.2, LossBurst: 3, Duplicate: 0.05, Reorder: 0.05}, Seed: 9})
		a, b := join(t, rig), join(t, rig)
		id, _ := a.Spawn("a", 1, deadreckon.NewState(mgl64.Vec3{}))
		var out []float64
		var evs []net.Event
		for k := 1; k <= 300; k++ {
			rig.SetNow(float64(k) * 0.01)
			_ = a.Publish(id, deadreckon.NewState(mgl64.Vec3{}))
			for _, ev := range b.Poll(evs[:0]) {
				out = append(out, ev.State.Time)
			}
		}
		return out
	}
	x, y := trace(), trace()
	if len(x) < 100 || !slices.Equal(x, y) {
		t.Fatalf("two runs delivered %d and %d events, or differently:\n%v\n%v", len(x), len(y), x, y)
	}
}
