package disgate

import (
	"fmt"
	"math"
	stdnet "net"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/dis"
)

// f32Tol is the tolerance of values that travel as float32 (m/s, rad, m/s²).
const f32Tol = 1e-5

// freePort returns a UDP port free on the loopback address now.
func freePort(t *testing.T) int {
	t.Helper()
	c, err := stdnet.ListenUDP("udp4", &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	return c.LocalAddr().(*stdnet.UDPAddr).Port
}

// turning returns a tank at p driving at 6 m/s, yawed by yaw, turning at 0.4 rad/s,
// its turret at 0.5 rad and its gun at 0.1 rad.
func turning(p mgl64.Vec3, yaw float64) deadreckon.State {
	s := deadreckon.NewState(p)
	s.Orientation = geom.YawQuat(yaw)
	s.Velocity = geom.Rotate(s.Orientation, mgl64.Vec3{6, 0, 0})
	s.AngularVelocity = mgl64.Vec3{0, 0.4, 0}
	s.Acceleration = s.AngularVelocity.Cross(s.Velocity)
	s.NumArticulations = 2
	s.Articulations[0].Angle, s.Articulations[1].Angle = 0.5, 0.1
	return s
}

func TestEntityStateRoundTrip(t *testing.T) {
	f := dis.NewFrame(dis.DefaultOrigin)
	s := turning(mgl64.Vec3{120, 4, -80}, 0.7)
	p := EntityState(f, s)
	p.Version = dis.Version7
	b, err := p.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != dis.EntityStateSize+2*dis.ArticulationSize {
		t.Errorf("%d bytes, want 176", len(b))
	}
	q, _, err := dis.Parse(b)
	if err != nil {
		t.Fatal(err)
	}
	got, alg := WorldState(f, q.(*dis.EntityState))
	if alg != DRAlgorithm {
		t.Errorf("model %v, want %v", alg, DRAlgorithm)
	}
	for _, c := range []struct {
		name      string
		got, want mgl64.Vec3
		tol       float64
	}{
		{"position", got.Position, s.Position, 1e-6},
		{"velocity", got.Velocity, s.Velocity, f32Tol},
		{"acceleration", got.Acceleration, s.Acceleration, f32Tol},
		{"angular velocity", got.AngularVelocity, s.AngularVelocity, f32Tol},
	} {
		if d := c.got.Sub(c.want).Len(); d > c.tol {
			t.Errorf("%s %v, want %v (off %g)", c.name, c.got, c.want, d)
		}
	}
	if d := geom.QuatAngle(got.Orientation, s.Orientation); d > 1e-5 {
		t.Errorf("orientation off %g rad", d)
	}
	if got.NumArticulations != 2 || math.Abs(got.Articulations[0].Angle-0.5) > f32Tol || math.Abs(got.Articulations[1].Angle-0.1) > f32Tol {
		t.Errorf("articulations %+v", got.Articulations[:got.NumArticulations])
	}
}

func TestHandleDropsAndCounts(t *testing.T) {
	g, err := New(Config{Addr: fmt.Sprintf("127.0.0.1:%d", freePort(t)), MaxEntities: 2, Application: 5})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	now := time.Unix(1000, 0)
	es := func(site, app, ent uint16, ex uint8) []byte {
		p := EntityState(g.frame, turning(mgl64.Vec3{}, 0))
		p.Version, p.Exercise, p.ID, p.Marking = dis.Version6, ex, dis.EntityID{Site: site, Application: app, Entity: ent}, "eagle"
		b, err := p.Append(nil)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	good := es(2, 3, 1, 1)
	g.Handle(good[:50], now)                      // truncated
	g.Handle(append([]byte{5}, good[1:]...), now) // version
	g.Handle(es(DefaultSite, 5, 1, 1), now)       // own
	g.Handle(es(2, 3, 1, 9), now)                 // exercise
	g.Handle(good, now)
	g.Handle(es(2, 3, 2, 1), now)
	g.Handle(es(2, 3, 3, 1), now) // past the cap of 2
	st := g.Stats()
	want := map[string]uint64{"truncated": 1, "version": 1, ReasonOwn: 1, ReasonExercise: 1, ReasonCap: 1}
	for k, v := range want {
		if st.Dropped[k] != v {
			t.Errorf("dropped %s = %d, want %d (%v)", k, st.Dropped[k], v, st.Dropped)
		}
	}
	if st.Entities != 2 || st.Received != 7 {
		t.Errorf("entities %d, received %d; want 2, 7", st.Entities, st.Received)
	}
	ents := g.Entities(nil, now.Add(time.Second))
	if len(ents) != 2 || ents[0].Name != "eagle"+EntityTag {
		t.Fatalf("entities %+v", ents)
	}
	// A second on, reckoned with DRM(R,V,W) along its turn.
	wantP := deadreckon.ProjectDIS(deadreckon.DISRVW, turning(mgl64.Vec3{}, 0), 1).Position
	if d := ents[0].State.Position.Sub(wantP).Len(); d > 1e-4 {
		t.Errorf("reckoned to %v, want %v", ents[0].State.Position, wantP)
	}
	// Removed by a Remove Entity PDU; silent ones after the timeout.
	rm := dis.RemoveEntity{Version: dis.Version7, Exercise: 1, Originator: dis.EntityID{Site: 2, Application: 3}, Receiver: dis.EntityID{Site: 2, Application: 3, Entity: 1}}
	b, _ := rm.Append(nil)
	g.Handle(b, now)
	if n := len(g.Entities(nil, now)); n != 1 {
		t.Errorf("%d entities after a Remove Entity PDU, want 1", n)
	}
	if n := len(g.Entities(nil, now.Add(DefaultTimeout+time.Second))); n != 0 {
		t.Errorf("%d entities after %v of silence, want 0", n, DefaultTimeout)
	}
}

func TestTwoGatewaysOnMulticast(t *testing.T) {
	addr := fmt.Sprintf("239.255.83.%d:%d", 1+time.Now().Nanosecond()%200, freePort(t))
	a, err := New(Config{Addr: addr, Application: 1})
	if err != nil {
		t.Skipf("no loopback multicast here: %v", err)
	}
	defer a.Close()
	b, err := New(Config{Addr: addr, Application: 2})
	if err != nil {
		t.Skipf("no loopback multicast here: %v", err)
	}
	defer b.Close()
	go b.Receive()
	go a.Receive()
	s := turning(mgl64.Vec3{10, 0, -20}, 0.3)
	deadline := time.Now().Add(5 * time.Second)
	var ents []Entity
	for time.Now().Before(deadline) {
		a.Spawned(7, 1, "ace", 2, s, 1)
		time.Sleep(20 * time.Millisecond)
		if ents = b.Entities(ents[:0], time.Now()); len(ents) > 0 {
			break
		}
	}
	if len(ents) != 1 {
		t.Skipf("no PDU crossed loopback multicast %s in 5 s (sent %d; the sandbox may filter multicast)", addr, a.Stats().Sent)
	}
	e := ents[0]
	if e.Name != "ace"+EntityTag || e.Force != 2 || e.ID != (dis.EntityID{Site: 1, Application: 1, Entity: 7}) {
		t.Errorf("entity %+v", e)
	}
	if d := e.State.Position.Sub(s.Position).Len(); d > 1 {
		t.Errorf("at %v, want near %v", e.State.Position, s.Position)
	}
	// A heartbeat once the tank is silent; a Remove Entity PDU when it leaves.
	sent := a.Stats().Sent
	a.Tick(1 + DefaultHeartbeat.Seconds())
	if a.Stats().Sent != sent+1 {
		t.Errorf("no heartbeat after %v", DefaultHeartbeat)
	}
	a.Tick(2 + DefaultHeartbeat.Seconds())
	if a.Stats().Sent != sent+1 {
		t.Errorf("a heartbeat within %v of the last", DefaultHeartbeat)
	}
	a.Despawned(7, 12)
	for time.Now().Before(deadline) && len(b.Entities(nil, time.Now())) > 0 {
		time.Sleep(10 * time.Millisecond)
	}
	if n := len(b.Entities(nil, time.Now())); n != 0 {
		t.Errorf("%d entities after the Remove Entity PDU", n)
	}
	if a.Stats().Dropped[ReasonOwn] == 0 {
		t.Logf("the sender did not hear its own PDUs back (multicast loop off?)")
	}
}
