package net

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// routeRig is an offline host with two players, each with a tank near the middle.
type routeRig struct {
	o          *Offline
	a, b       uint32 // players
	tankA, tkB uint32 // their tanks
}

// newRouteRig starts it, with the downlink scheduler on (zones) or off.
func newRouteRig(t *testing.T, zones bool) *routeRig {
	t.Helper()
	lim := Limits{RespawnInterval: -1}
	if zones {
		lim.ZonesAbove, lim.Downlink = -1, 30000
	}
	o, err := NewOffline(HostConfig{Limits: lim, Match: MatchSettings{Extent: 400}})
	if err != nil {
		t.Fatal(err)
	}
	r := &routeRig{o: o}
	for i, p := range []*uint32{&r.a, &r.b} {
		if *p, err = o.Join([]string{"ann", "bob"}[i], 0); err != nil {
			t.Fatal(err)
		}
	}
	if r.tankA, err = o.Spawn(r.a, "ann", 1, tankAt(0, 0), 0); err != nil {
		t.Fatal(err)
	}
	if r.tkB, err = o.Spawn(r.b, "bob", 2, tankAt(100, 100), 0); err != nil {
		t.Fatal(err)
	}
	r.take(r.a) // the spawns
	r.take(r.b)
	return r
}

// take empties player's outbox and returns the messages it was sent.
func (r *routeRig) take(player uint32) (dgrams, ctrl []wire.Message) {
	r.o.Take(player, func(b []byte) {
		if m, _, err := wire.Parse(b); err == nil {
			dgrams = append(dgrams, m)
		}
	}, func(b []byte) {
		if m, _, err := wire.Parse(b[wire.FrameHeaderSize:]); err == nil {
			ctrl = append(ctrl, m)
		}
	})
	return dgrams, ctrl
}

// square is a closed 40 m square route round (0, 0) .. (40, −40) at ground level.
var squareWays = []mgl64.Vec3{{0, 0, 0}, {40, 0, 0}, {40, 0, -40}, {0, 0, -40}}

func progressBytes(t *testing.T, actor uint32, seq, route uint16, s, rate, at float64) []byte {
	t.Helper()
	m := wire.Progress{Actor: wire.ActorID(actor), Seq: seq, Progress: deadreckon.Progress{Route: route, Time: at, S: s, Rate: rate}}
	b, err := m.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// TestRouteRelayed: a route goes to the other players (not back to its owner), and
// progress along it is checked as the state it implies and relayed: as sent while
// every player hears every update, as the implied state's update record once the
// downlink scheduler rations them.
func TestRouteRelayed(t *testing.T) {
	for _, zones := range []bool{false, true} {
		r := newRouteRig(t, zones)
		r.o.Control(r.a, &wire.Route{Actor: wire.ActorID(r.tankA), Route: 1, Flags: wire.RouteClosed, Waypoints: squareWays}, sec(0.1))
		r.o.Step(sec(0.1))
		if _, ctrl := r.take(r.b); len(ctrl) != 1 || ctrl[0].Type() != wire.MsgRoute {
			t.Fatalf("zones %v: bob was sent %v, want the route", zones, ctrl)
		}
		if _, ctrl := r.take(r.a); len(ctrl) != 0 {
			t.Errorf("zones %v: ann was sent her own route back: %v", zones, ctrl)
		}
		progress, records := 0, 0
		var last deadreckon.State
		for i := 1; i <= 20; i++ {
			at := 0.1 + 0.1*float64(i)
			r.o.Datagram(r.a, progressBytes(t, r.tankA, uint16(i), 1, 0.5*float64(i), 5, at), sec(at))
			r.o.Step(sec(at))
			dgrams, _ := r.take(r.b)
			for _, m := range dgrams {
				switch m := m.(type) {
				case *wire.Progress:
					if m.Actor == wire.ActorID(r.tankA) {
						progress++
					}
				case *wire.StateBatch:
					for _, u := range m.Updates {
						if u.Actor == wire.ActorID(r.tankA) {
							records++
							last = u.State
						}
					}
				}
			}
		}
		st := r.o.Stats()
		if st.Routes != 1 || st.Accepted != 20 || st.Invalid+st.Unauthorized+st.Malformed != 0 {
			t.Errorf("zones %v: host: %d routes, %d accepted, %d invalid, %d unauthorized, %d malformed",
				zones, st.Routes, st.Accepted, st.Invalid, st.Unauthorized, st.Malformed)
		}
		switch {
		case !zones && (progress != 20 || records != 0):
			t.Errorf("zones off: bob got %d progress datagrams and %d records, want 20 and 0", progress, records)
		case zones && (progress != 0 || records == 0):
			t.Errorf("zones on: bob got %d progress datagrams and %d records, want 0 and some", progress, records)
		case zones:
			// The state a progress implies: on the square's first leg, along +X.
			if last.Position[2] != 0 || last.Position[0] < 1 || last.Position[0] > 10 || last.Velocity[0] < 4.9 {
				t.Errorf("zones on: the last record says %v moving %v, want on the first leg at 5 m/s", last.Position, last.Velocity)
			}
		}
	}
}

// TestHostileRoutes: routes and progress that make no sense, or are someone else's,
// are dropped and counted, and leave the match as it was.
func TestHostileRoutes(t *testing.T) {
	r := newRouteRig(t, false)
	ok := &wire.Route{Actor: wire.ActorID(r.tankA), Route: 1, Flags: wire.RouteClosed, Waypoints: squareWays}
	r.o.Control(r.a, ok, sec(0.1))
	r.take(r.b)
	far := append([]mgl64.Vec3(nil), squareWays...)
	far[2] = mgl64.Vec3{900, 0, 0}
	tooClose := []mgl64.Vec3{{0, 0, 0}, {0.001, 0, 0}, {10, 0, 10}}
	goodProgress := func(seq uint16, s, at float64) []byte { return progressBytes(t, r.tankA, seq, 1, s, 3, at) }
	truncated := goodProgress(9, 1, 0.2)
	for _, c := range []struct {
		name    string
		from    uint32
		route   *wire.Route
		dgram   []byte
		counter func(HostStats) uint64
	}{
		{"route for someone else's tank", r.b, &wire.Route{Actor: wire.ActorID(r.tankA), Route: 7, Waypoints: squareWays},
			nil, func(s HostStats) uint64 { return s.Unauthorized }},
		{"route for an unknown actor", r.a, &wire.Route{Actor: 999, Route: 7, Waypoints: squareWays},
			nil, func(s HostStats) uint64 { return s.Unauthorized }},
		{"route off the map", r.a, &wire.Route{Actor: wire.ActorID(r.tankA), Route: 7, Waypoints: far},
			nil, func(s HostStats) uint64 { return s.Invalid }},
		{"route with coincident waypoints", r.a, &wire.Route{Actor: wire.ActorID(r.tankA), Route: 7, Waypoints: tooClose},
			nil, func(s HostStats) uint64 { return s.Invalid }},
		{"truncated progress", r.a, nil, truncated[:len(truncated)-3], func(s HostStats) uint64 { return s.Malformed }},
		{"oversized progress count", r.a, nil, func() []byte {
			b := append([]byte(nil), truncated...)
			b[len(b)-1] = 9 // more articulations than the datagram holds
			return b
		}(), func(s HostStats) uint64 { return s.Malformed }},
		{"progress on a route never published", r.a, nil, progressBytes(t, r.tankA, 10, 5, 1, 3, 0.2),
			func(s HostStats) uint64 { return s.Invalid }},
		{"progress for someone else's tank", r.b, nil, progressBytes(t, r.tankA, 11, 1, 1, 3, 0.2),
			func(s HostStats) uint64 { return s.Unauthorized }},
		{"progress for an unknown actor", r.a, nil, progressBytes(t, 999, 12, 1, 1, 3, 0.2),
			func(s HostStats) uint64 { return s.Unauthorized }},
		{"progress too fast", r.a, nil, progressBytes(t, r.tankA, 13, 1, 1, 60, 0.2),
			func(s HostStats) uint64 { return s.Invalid }},
		{"progress that jumps along the route", r.a, nil, goodProgress(14, 80, 0.2),
			func(s HostStats) uint64 { return s.Invalid }},
	} {
		before := r.o.Stats()
		beforeC := c.counter(before)
		switch {
		case c.route != nil:
			r.o.Control(c.from, c.route, sec(0.2))
		case c.dgram != nil:
			r.o.Datagram(c.from, c.dgram, sec(0.2))
		}
		r.o.Step(sec(0.2))
		after := r.o.Stats()
		if got := c.counter(after) - beforeC; got != 1 {
			t.Errorf("%s: counted %d times, want once", c.name, got)
		}
		if after.Routes != 1 || after.Accepted != before.Accepted {
			t.Errorf("%s: taken (%d routes, %d accepted after %d)", c.name, after.Routes, after.Accepted, before.Accepted)
		}
		if dgrams, ctrl := r.take(r.b); len(dgrams)+len(ctrl) != 0 {
			t.Errorf("%s: relayed to bob: %v %v", c.name, dgrams, ctrl)
		}
	}
	// The route and the tank are as they were: an honest progress still passes.
	r.o.Datagram(r.a, goodProgress(20, 1, 0.3), sec(0.3))
	r.o.Step(sec(0.3))
	if st := r.o.Stats(); st.Accepted != 1 {
		t.Errorf("an honest progress after the hostile ones: %d accepted, want 1", st.Accepted)
	}
}
