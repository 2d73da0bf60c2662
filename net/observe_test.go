package net

import (
	"errors"
	"math"
	"net/netip"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net/wire"
)

// TestObserverJoins: an observer joins a host over QUIC, is counted apart from the
// players, hears of the tanks and their updates, and has no tank: its spawn is
// refused, its shot counted unauthorized; past MaxObservers a second observer is
// refused while a player still gets in, and everyone hears the count.
func TestObserverJoins(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{Limits: Limits{MaxObservers: 1}})
		player := testClient(t, h, ClientConfig{Name: "ann"})
		id, err := player.Spawn("ann", 1, deadreckon.NewState(mgl64.Vec3{10, 0, 5}))
		if err != nil {
			t.Fatal(err)
		}
		obs := testClient(t, h, ClientConfig{Name: "eve", Observe: true})
		if st := h.Stats(); st.Observers != 1 || st.Players != 2 {
			t.Fatalf("with the host's player, ann and an observer: %d players, %d observers; want 2 and 1", st.Players, st.Observers)
		}
		var evs []Event
		spawned, updated := false, false
		poll.Until(t, 5*time.Second, "the observer hears ann's tank and its updates", func() bool {
			s := deadreckon.NewState(mgl64.Vec3{11, 0, 5})
			s.Time = player.Now()
			if err := player.Publish(id, s); err != nil {
				t.Fatal(err)
			}
			for _, e := range obs.Poll(evs[:0]) {
				spawned = spawned || e.Kind == EventSpawn && e.Actor == id
				updated = updated || e.Kind == EventState && e.Actor == id
			}
			return spawned && updated
		})
		if _, err := obs.Spawn("eve", 1, deadreckon.NewState(mgl64.Vec3{0, 0, 0})); err == nil {
			t.Error("the observer spawned a tank")
		}
		unauth := h.Stats().Unauthorized
		if err := obs.Send(validFire(uint32(id))); err != nil {
			t.Fatal(err)
		}
		poll.Until(t, 2*time.Second, "the observer's shot counted unauthorized", func() bool { return h.Stats().Unauthorized > unauth })
		for _, p := range h.Players() {
			if p.Name == "eve" && (!p.Observer || p.Actors != 0) {
				t.Errorf("Players lists the observer as %+v", p)
			}
		}
		_, err = dialTest(h, ClientConfig{Name: "zed", Observe: true})
		if !errors.Is(err, ErrRefused) {
			t.Errorf("a second observer past MaxObservers 1: %v, want refused", err)
		}
		bob := testClient(t, h, ClientConfig{Name: "bob"})
		poll.Until(t, 2*time.Second, "a joining player hears the count of observers", func() bool {
			for _, e := range bob.Poll(evs[:0]) {
				if o, ok := e.Message.(*wire.Observers); ok && o.Count == 1 {
					return true
				}
			}
			return false
		})
	})
}

// TestObserverIsBounded: an observer's place starts at the map's centre, follows a
// tank by the tank's accepted state, and flies toward a free camera no faster than
// observerSpeed and never off the map; a player's View is refused; an observer is
// never kicked for spawning nothing, and gets its own downlink budget.
func TestObserverIsBounded(t *testing.T) {
	clk := &ManualClock{}
	h := offlineHost(t, HostConfig{Clock: clk, Limits: Limits{Downlink: 32000, ObserverDownlink: 8000,
		SpawnGrace: time.Second, IdleKick: time.Second}})
	m := &h.m
	now := h.now()
	o, _, text := m.admit(discardConn{}, "eve", ReconnectToken{}, netipPrefix(1), true)
	if o == nil {
		t.Fatal(text)
	}
	p, _, text := m.admit(discardConn{}, "ann", ReconnectToken{}, netipPrefix(2), false)
	if p == nil {
		t.Fatal(text)
	}
	if o.place != (mgl64.Vec3{}) {
		t.Errorf("the observer starts at %v, want the map's centre", o.place)
	}
	// A full bucket holds downlinkBurst of its rate, and a datagram at least.
	burst := func(r float64) float64 { return math.Max(r*downlinkBurst, wire.MaxBatchSize) }
	if got, player := o.budget.Tokens(now), p.budget.Tokens(now); got != burst(8000) || player != burst(32000) {
		t.Errorf("full budgets: observer %v B, player %v B; want the observer's own %v", got, player, burst(8000))
	}
	view := func(q *member, follow wire.ActorID, pos mgl64.Vec3, at float64) int {
		b, err := (&wire.View{Follow: follow, Position: pos}).Append(nil)
		if err != nil {
			t.Fatal(err)
		}
		return m.onView(q, b, at)
	}
	// A free camera far away: one second lets the place move observerSpeed.
	if bad := view(o, 0, mgl64.Vec3{5000, 30, 0}, now+1); bad != 0 {
		t.Fatalf("an honest view counted %d bad", bad)
	}
	if d := o.place.Len(); math.Abs(d-observerSpeed) > 1e-9 {
		t.Errorf("after 1 s toward a point 5 km away the place moved %.1f m, want %v", d, observerSpeed)
	}
	// However long it flies, it stays on the map.
	view(o, 0, mgl64.Vec3{5000, 0, -5000}, now+1000)
	if e := h.match.Extent; math.Abs(o.place[0]) > e || math.Abs(o.place[2]) > e {
		t.Errorf("the place %v left the map (±%v m)", o.place, e)
	}
	// Following a tank puts it on the tank's accepted state, whatever the view says.
	if err := m.spawn(p, "ann", 1, 0, deadreckon.NewState(mgl64.Vec3{-40, 0, 60}), now); err != nil {
		t.Fatal(err)
	}
	a := p.owned[0]
	view(o, a.id, mgl64.Vec3{900, 0, 900}, now+1000.1)
	if o.place != a.state.Position {
		t.Errorf("following tank %d the place is %v, want the tank's %v", a.id, o.place, a.state.Position)
	}
	unauth := m.stats.Unauthorized
	if bad := view(p, 0, mgl64.Vec3{1, 0, 1}, now+1000.2); bad != 1 || m.stats.Unauthorized != unauth+1 {
		t.Errorf("a player's view: %d bad, unauthorized %d → %d; want refused", bad, unauth, m.stats.Unauthorized)
	}
	if bad := view(o, 0, mgl64.Vec3{1, 0, 1}, now+1000.3); bad != 0 {
		t.Errorf("observer's view counted bad")
	}
	o.lastHeard = now + 1000
	m.dropSilent(now + 1000.5)
	if o.removed {
		t.Error("the observer was kicked for spawning nothing")
	}
}

// netipPrefix returns the address 10.0.0.n/32.
func netipPrefix(n byte) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4([4]byte{10, 0, 0, n}), 32)
}
