package net

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
)

// localHost starts a host on a manual clock that relays at once, for JoinLocal.
func localHost(t *testing.T) (*Host, *ManualClock) {
	t.Helper()
	clk := &ManualClock{}
	h, err := Listen(context.Background(), HostConfig{Addr: "127.0.0.1:0", Clock: clk, Coalesce: -1,
		Limits: Limits{IdleKick: -1}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, clk
}

func joinLocal(t *testing.T, h *Host, cfg LocalConfig) *Client {
	t.Helper()
	c, err := h.JoinLocal(cfg)
	if err != nil {
		t.Fatalf("JoinLocal: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// kinds returns the kinds of evs.
func kinds(evs []Event) []EventKind {
	var out []EventKind
	for _, e := range evs {
		out = append(out, e.Kind)
	}
	return out
}

// TestJoinLocalDeliversOnTheHostClock: an in-process player's link delays what the
// host sends it on the host's clock, and Settle delivers it once it is due; the
// answer to a player's own spawn comes at once.
func TestJoinLocalDeliversOnTheHostClock(t *testing.T) {
	h, clk := localHost(t)
	a := joinLocal(t, h, LocalConfig{Name: "a", Link: impair.Link{Latency: 100 * time.Millisecond}})
	b := joinLocal(t, h, LocalConfig{Name: "b", Link: impair.Link{Latency: 100 * time.Millisecond}})
	if a.Stats().ClockOffset != 0 || b.Now() != h.Now() {
		t.Fatalf("offset %v, player clock %v, host clock %v: not one clock", a.Stats().ClockOffset, b.Now(), h.Now())
	}
	id, err := a.Spawn("tank", 1, deadreckon.NewState(mgl64.Vec3{1, 0, 1}))
	if err != nil {
		t.Fatalf("Spawn over a 100 ms link on a stopped clock: %v", err)
	}
	h.Settle()
	var evs []Event
	if evs = b.Poll(evs[:0]); len(evs) != 0 {
		t.Fatalf("b got %v before the link's latency passed", kinds(evs))
	}
	clk.Advance(100 * time.Millisecond)
	h.Settle()
	if evs = b.Poll(evs[:0]); len(evs) != 1 || evs[0].Kind != EventSpawn || evs[0].Actor != id {
		t.Fatalf("after 100 ms b got %v, want a's spawn", kinds(evs))
	}
	s := deadreckon.NewState(mgl64.Vec3{2, 0, 1})
	if err := a.Publish(id, s); err != nil {
		t.Fatal(err)
	}
	h.Settle()
	if evs = b.Poll(evs[:0]); len(evs) != 0 {
		t.Fatalf("b got %v at once", kinds(evs))
	}
	clk.Advance(100 * time.Millisecond)
	h.Settle()
	evs = b.Poll(evs[:0])
	if len(evs) != 1 || evs[0].Kind != EventState || evs[0].State.Position != s.Position || evs[0].State.Time != 0.1 {
		t.Fatalf("b got %+v, want a's update stamped 0.1 s", evs)
	}
	if got := h.Players(); len(got) != 3 || got[2].RTT != 200*time.Millisecond {
		t.Errorf("players %+v, want the host and a and b, b's round trip 200 ms", got)
	}
}

// TestJoinLocalIsDeterministic: the same seeds and the same calls give the same
// deliveries, lost updates included, whatever the goroutines do.
func TestJoinLocalIsDeterministic(t *testing.T) {
	run := func() []float64 {
		h, clk := localHost(t)
		link := impair.Link{Latency: 50 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.3}
		a := joinLocal(t, h, LocalConfig{Seed: 1})
		b := joinLocal(t, h, LocalConfig{Link: link, Seed: 2})
		id, err := a.Spawn("tank", 1, deadreckon.NewState(mgl64.Vec3{}))
		if err != nil {
			t.Fatal(err)
		}
		var got []float64
		var evs []Event
		for k := 1; k <= 120; k++ {
			clk.Advance(time.Second / 60)
			h.Settle()
			s := deadreckon.NewState(mgl64.Vec3{float64(k) * 0.1, 0, 0})
			s.Velocity = mgl64.Vec3{6, 0, 0}
			if err := a.Publish(id, s); err != nil {
				t.Fatal(err)
			}
			h.Settle()
			for _, e := range b.Poll(evs[:0]) {
				if e.Kind == EventState {
					got = append(got, e.State.Time, e.Arrival)
				}
			}
		}
		return got
	}
	first, second := run(), run()
	if len(first) < 100 || len(first) > 190 {
		t.Fatalf("%d of 120 updates arrived through 30 %% loss", len(first)/2)
	}
	if !slices.Equal(first, second) {
		t.Errorf("two runs delivered differently:\n%v\n%v", first, second)
	}
}

// TestChatRate: the host passes on a player's chat lines up to its chat bucket,
// ChatBurst at once and ChatRate a second after, and drops the rest.
func TestChatRate(t *testing.T) {
	clk := &ManualClock{}
	h, err := Listen(context.Background(), HostConfig{Addr: "127.0.0.1:0", Clock: clk, Coalesce: -1,
		Limits: Limits{IdleKick: -1, ChatRate: 1, ChatBurst: 3}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	a := joinLocal(t, h, LocalConfig{Name: "a"})
	b := joinLocal(t, h, LocalConfig{Name: "b"})
	chats := func() int {
		h.Settle()
		n := 0
		for _, ev := range b.Poll(nil) {
			if ev.Kind == EventChat {
				n++
			}
		}
		return n
	}
	for range 10 {
		if err := a.Chat("gg"); err != nil {
			t.Fatal(err)
		}
	}
	if n := chats(); n != 3 {
		t.Errorf("10 lines at once: %d passed on, want ChatBurst 3", n)
	}
	clk.Advance(time.Second)
	for range 10 {
		a.Chat("gg")
	}
	if n := chats(); n != 1 {
		t.Errorf("10 lines a second later: %d passed on, want ChatRate 1", n)
	}
	if st := h.Stats(); st.RateLimited != 16 {
		t.Errorf("%d rate limited, want 16", st.RateLimited)
	}
}

// TestServiceIsNoPlayer: a service joined in process is not counted among the
// players, is listed as a service, takes no player's place, is not dropped for
// silence, and is the only member that may spawn a tank of wire.TeamDIS.
func TestServiceIsNoPlayer(t *testing.T) {
	clk := &ManualClock{}
	h, err := Listen(context.Background(), HostConfig{Addr: "127.0.0.1:0", Clock: clk, Coalesce: -1,
		Limits: Limits{MaxPlayers: 2}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	svc := joinLocal(t, h, LocalConfig{Name: "DIS", Service: true})
	if st := h.Stats(); st.Players != 1 || st.Services != 1 {
		t.Fatalf("with the host's player and a service: %d players, %d services, want 1 and 1", st.Players, st.Services)
	}
	ps := h.Players()
	if i := slices.IndexFunc(ps, func(p PlayerInfo) bool { return p.Name == "DIS" }); i < 0 || !ps[i].Service {
		t.Errorf("Players lists %+v, want DIS as a service", ps)
	}
	player := joinLocal(t, h, LocalConfig{Name: "p"}) // the second of MaxPlayers 2
	if st := h.Stats(); st.Players != 2 || st.Services != 1 {
		t.Fatalf("with a player joined: %d players, %d services, want 2 and 1", st.Players, st.Services)
	}
	if _, err := player.Spawn("p", wire.TeamDIS, deadreckon.NewState(mgl64.Vec3{1, 0, 1})); err == nil {
		t.Error("a player spawned a tank of team DIS")
	}
	if _, err := svc.Spawn("e [DIS]", wire.TeamDIS, deadreckon.NewState(mgl64.Vec3{2, 0, 1})); err != nil {
		t.Errorf("the service's DIS tank: %v", err)
	}
	clk.Advance(DefaultTimeout + DefaultSpawnGrace + time.Second)
	h.Settle()
	if st := h.Stats(); st.Services != 1 || st.TimedOut != 1 {
		t.Errorf("after %v of silence: %d services, %d timed out, want the service kept and the player dropped",
			DefaultTimeout+DefaultSpawnGrace, st.Services, st.TimedOut)
	}
}
