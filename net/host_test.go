package net

import (
	"errors"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/wire"
)

// FuzzHostDatagram feeds arbitrary datagrams to a host's match as if from a joined
// client and checks that nothing panics and every actor the host holds stays valid.
func FuzzHostDatagram(f *testing.F) {
	// No flood disconnect: the fuzzer's garbage would otherwise cut its own player off.
	h := offlineHost(f, HostConfig{Limits: Limits{FloodRate: 1e12}})
	p := h.m.addMember(1, "fuzz", discardConn{}, h.now())
	h.m.addMember(2, "observer", discardConn{}, h.now())
	s := tankAt(1, 2)
	if err := h.m.spawn(p, "fuzz", 1, 0, s, h.now()); err != nil {
		f.Fatal(err)
	}
	tank := p.owned[0].id
	s = tankAt(1.5, 2)
	s.Time = h.now() + 0.01
	w := wire.NewBatchWriter(0)
	for i, n := range []int{0, 2, 4} {
		s.NumArticulations = n
		w.Reset()
		w.Add(&wire.Update{Actor: tank, Seq: uint16(i + 1), State: s})
		f.Add(append([]byte(nil), w.Bytes()...))
	}
	if b, err := (&wire.ClockRequest{ClientSend: 1.5}).Append(nil); err == nil {
		f.Add(b)
	}
	f.Add([]byte{wire.Version, byte(wire.MsgStateBatch), 1, 0})
	f.Add([]byte{0xff, 0xff, 0xff})
	// A route round the tank, and progress along it: the fuzzer mutates these into
	// progress on other routes, actors, places and paces.
	h.m.onRoute(p, &wire.Route{Actor: tank, Route: 1, Flags: wire.RouteClosed | wire.RouteSpline,
		Waypoints: []mgl64.Vec3{{1, 0, 2}, {21, 0, 2}, {21, 0, -18}, {1, 0, -18}}}, h.now())
	for i, n := range []int{0, 2} {
		m := wire.Progress{Actor: tank, Seq: uint16(10 + i), Progress: deadreckon.Progress{Route: 1, Time: h.now() + 0.02,
			S: 0.3, Rate: 3, Accel: 0.5, NumArticulations: n}}
		if b, err := m.Append(nil); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		h.m.onDatagram(p, b, h.now())
		h.m.flushAll()
		for _, a := range h.m.actors {
			st := a.state
			if err := validateState(&st, h.match, &h.lim, st.Time); err != nil {
				t.Fatalf("host holds an invalid state for actor %d: %v", a.id, err)
			}
		}
	})
}

func TestValidateState(t *testing.T) {
	m := MatchSettings{}.withDefaults()
	l := Limits{}.withDefaults()
	base := tankAt(10, 10)
	base.Time = 100
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		mod  func(*deadreckon.State)
		ok   bool
	}{
		{"valid", func(*deadreckon.State) {}, true},
		{"zero orientation is the identity", func(s *deadreckon.State) { s.Orientation.W = 0 }, true},
		{"orientation far from unit", func(s *deadreckon.State) { s.Orientation.W = 3 }, false},
		{"NaN position", func(s *deadreckon.State) { s.Position[1] = nan }, false},
		{"Inf velocity", func(s *deadreckon.State) { s.Velocity[0] = math.Inf(1) }, false},
		{"NaN articulation", func(s *deadreckon.State) { s.Articulations[1].Rate = nan }, false},
		{"NaN time", func(s *deadreckon.State) { s.Time = nan }, false},
		{"edge of map", func(s *deadreckon.State) { s.Position[0] = -256 }, true},
		{"past the edge", func(s *deadreckon.State) { s.Position[2] = 256.01 }, false},
		{"fast", func(s *deadreckon.State) { s.Velocity[2] = 31 }, false},
		{"turning fast", func(s *deadreckon.State) { s.AngularVelocity[1] = 3.5 }, false},
		{"at every limit, as quantized", func(s *deadreckon.State) {
			s.Velocity = mgl64.Vec3{17.33, 0, 17.33}                     // 24.5 m/s ≤ 30
			s.AngularVelocity = mgl64.Vec3{1.734375, 1.734375, 1.734375} // 3 rad/s capped, then quantized: 3.004
			s.Articulations[0].Rate = DefaultMaxArticulationRate + 0.0005
		}, true},
		{"turret spinning", func(s *deadreckon.State) { s.Articulations[0].Rate = 9 }, false},
		{"too many articulations", func(s *deadreckon.State) { s.NumArticulations = 5 }, false},
		{"negative articulations", func(s *deadreckon.State) { s.NumArticulations = -1 }, false},
		{"from the future", func(s *deadreckon.State) { s.Time = 103 }, false},
		{"from the past", func(s *deadreckon.State) { s.Time = 97 }, false},
	} {
		s := base
		tc.mod(&s)
		err := validateState(&s, m, &l, 100)
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, deadreckon.ErrInvalidState) {
			t.Errorf("%s: validateState = %v, want ok=%v (else deadreckon.ErrInvalidState)", tc.name, err, tc.ok)
		}
	}
}

func TestValidateStep(t *testing.T) {
	l := Limits{}.withDefaults()
	prev := tankAt(0, 0)
	pin := Anchor{Pos: prev.Position, Orient: prev.Orientation, At: 50, Stamp: 10}
	for _, tc := range []struct {
		name      string
		dt, dx    float64 // since the anchor: host time, travel
		stamp     float64 // owner timestamp
		ok        bool
		yaw, tilt float64 // heading and pitch, rad: the Mover's, not checked here
	}{
		{name: "tilt over a crest", dt: 0.034, stamp: 10.034, tilt: 0.68, ok: true},
		{name: "drive", dt: 0.1, dx: 2, stamp: 10.1, ok: true},
		{name: "fast but within slack", dt: 0.1, dx: DefaultMaxSpeed*0.1 + DefaultPositionSlack - 0.01, stamp: 10.1, ok: true},
		{name: "jump", dt: 0.1, dx: DefaultMaxSpeed*0.1 + DefaultPositionSlack + 0.01, stamp: 10.1, ok: false},
		{name: "jump with a forged late timestamp", dt: 0.1, dx: 20, stamp: 11.9, ok: false},
		{name: "spin", dt: 0.1, yaw: 1.5, stamp: 10.1, ok: true},
		{name: "same timestamp", dt: 0.01, stamp: 10, ok: true},
		{name: "clock correction", dt: 0.01, stamp: 9.8, ok: true},
		{name: "timestamp far back", dt: 0.01, stamp: 9.5, ok: false},
	} {
		next := prev
		next.Time = tc.stamp
		next.Position[0] += tc.dx
		next.Orientation = geom.YawQuat(tc.yaw).Mul(mgl64.QuatRotate(tc.tilt, mgl64.Vec3{0, 0, 1}))
		if err := validateStep(&pin, &next, pin.At+tc.dt, &l); (err == nil) != tc.ok {
			t.Errorf("%s: validateStep = %v, want ok=%v", tc.name, err, tc.ok)
		}
	}
}

// TestSlackDoesNotAccumulate checks that many small jumps, each within the slack,
// cannot add up: the anchor grants the slack once per AnchorPeriod.
func TestSlackDoesNotAccumulate(t *testing.T) {
	l := Limits{}.withDefaults()
	s := tankAt(0, 0)
	pin := Anchor{Pos: s.Position, Orient: s.Orientation, At: 0}
	accepted := 0.0
	for i := 1; i <= 100; i++ { // 100 updates in 0.1 s, each 2 m further
		now := float64(i) * 0.001
		next := s
		next.Time = now
		next.Position[0] += 2
		if validateStep(&pin, &next, now, &l) == nil {
			pin.Advance(&next, now)
			s = next
			accepted = s.Position[0]
		}
	}
	if limit := DefaultMaxSpeed*0.1 + DefaultPositionSlack; accepted > limit {
		t.Errorf("moved %.1f m in 0.1 s through small jumps, limit %.1f m", accepted, limit)
	}
}

func TestUnwrapTime(t *testing.T) {
	for _, tc := range []struct{ t, now, want float64 }{
		{5, 5.2, 5},
		{0.5, wire.TimeWrap + 0.4, wire.TimeWrap + 0.5},
		{wire.TimeWrap - 0.1, wire.TimeWrap + 0.2, wire.TimeWrap - 0.1},
	} {
		if got := unwrapTime(tc.t, tc.now); math.Abs(got-tc.want) > 1e-6 {
			t.Errorf("unwrapTime(%v, %v) = %v, want %v", tc.t, tc.now, got, tc.want)
		}
	}
}

// BenchmarkRelay measures the host's path for one incoming datagram with one
// update relayed to 31 observers: decode, checks, and the record's bytes appended to
// each observer's batch (the update is never encoded again).
func BenchmarkRelay(b *testing.B) {
	h := offlineHost(b, HostConfig{Limits: Limits{TimeSlack: time.Hour, UpdateRate: 1e9, UpdateBurst: 1e9, MaxPlayers: 64}})
	const observers = 31
	now := h.now()
	sender := h.m.addMember(1, "sender", discardConn{}, now)
	var obs []*member
	for i := 0; i < observers; i++ {
		obs = append(obs, h.m.addMember(wire.PlayerID(i+2), "obs", discardConn{}, now))
	}
	s := tankAt(0, 0)
	s.Time = now
	if err := h.m.spawn(sender, "tank", 1, 0, s, now); err != nil {
		b.Fatal(err)
	}
	id := sender.owned[0].id
	w := wire.NewBatchWriter(0)
	var ctrl [][]byte
	var batches []*wire.BatchWriter
	var probes []clockProbe
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		s.Time = now + float64(i)*0.002
		w.Reset()
		w.Add(&wire.Update{Actor: id, Seq: uint16(i), State: s})
		h.m.onDatagram(sender, w.Bytes(), now)
		if i%32 == 0 { // what the coalescing timer and the send loops do
			h.m.flushAll()
			for _, p := range obs {
				ctrl, batches, probes = p.out.take(ctrl[:0], batches[:0], probes[:0])
				p.out.recycle(batches)
			}
		}
	}
	b.StopTimer()
	if st := h.m.statsNow(); st.Accepted != uint64(i) || st.Relayed != uint64(i*observers) || st.Overflow != 0 {
		b.Fatalf("accepted %d, relayed %d of %d updates, %d overflowed", st.Accepted, st.Relayed, i, st.Overflow)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(i*observers), "ns/relay")
}

// BenchmarkClientReceive measures a client taking in a full batch of relayed
// updates: decode, sequence filter, events queued, and the game's Poll.
func BenchmarkClientReceive(b *testing.B) {
	h, err := Listen(b.Context(), HostConfig{Addr: "127.0.0.1:0"})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	c, err := dialTest(h, ClientConfig{Name: "bench", KnownHosts: "-"})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	const actors = 36 // a full 1199-byte batch of updates without articulations
	c.call(func() {
		for i := 1; i <= actors; i++ {
			c.s.remote[wire.ActorID(i)] = &remoteActor{owner: 7}
		}
	})
	w := wire.NewBatchWriter(0)
	s := tankAt(5, 5)
	s.NumArticulations = 0
	var events []Event
	b.ReportAllocs()
	seq := uint16(0)
	for b.Loop() {
		seq++
		w.Reset()
		for i := 1; i <= actors; i++ {
			s.Time = float64(seq) * 0.01
			if err := w.Add(&wire.Update{Actor: wire.ActorID(i), Seq: seq, State: s}); err != nil {
				b.Fatal(err)
			}
		}
		c.call(func() { c.s.handleDatagram(w.Bytes(), c.Now()) })
		events = c.Poll(events[:0])
		if len(events) != actors {
			b.Fatalf("%d events from a batch of %d", len(events), actors)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*actors), "ns/update")
}
