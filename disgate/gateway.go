// Package disgate is Treadline's DIS gateway: it sends a hosted match's tanks out as
// DIS Entity State PDUs over UDP and brings the entities of other DIS simulations
// into the match as remote tanks (docs/dis.md).
//
// The host's run loop tells the gateway what it relays (Spawned, Relayed,
// Despawned, Tick: the shape of net.Judge, so a session wraps its referee with it);
// the gateway answers each accepted update with an Entity State PDU, and a tank that
// sends nothing gets a heartbeat PDU every Heartbeat. PDUs from other sites or
// applications in the exercise are kept as entities, reckoned with their own DIS
// model, until Timeout passes without one or a Remove Entity PDU removes them; Run
// joins them to the match as an in-process player that spawns, publishes and
// despawns a tank per entity.
//
//	g, err := disgate.New(disgate.Config{Addr: "239.1.2.3:3000"})
//	defer g.Close()
//	go g.Run(ctx, client, ground) // client from net.Host.JoinLocal
package disgate

import (
	"fmt"
	"log/slog"
	"math"
	stdnet "net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/dis"
)

// Defaults of Config's zero fields.
const (
	// DefaultExercise is the exercise id.
	DefaultExercise = 1
	// DefaultSite is the site number Treadline's entities carry.
	DefaultSite = 1
	// DefaultApplication is the application number Treadline's entities carry.
	DefaultApplication = 1
	// DefaultHeartbeat is the longest time between two PDUs of one parked tank (DIS's
	// own heartbeat is 5 s).
	DefaultHeartbeat = 5 * time.Second
	// DefaultTimeout is how long a DIS entity is kept without a PDU (DIS's 12 s:
	// 2.4 heartbeats).
	DefaultTimeout = 12 * time.Second
	// DefaultMaxEntities caps the DIS entities brought into a match: a match holds
	// 64 tanks of its own, and a crowd from elsewhere should not swamp it. PDUs of
	// entities past the cap are dropped ("cap").
	DefaultMaxEntities = 32
)

// DRAlgorithm is the DIS dead-reckoning model Treadline's tanks go out with,
// DRM(R,V,W): position with velocity and world acceleration, orientation turned by
// the angular velocity, which is Treadline's own projection without its horizon.
const DRAlgorithm = deadreckon.DISRVW

// Config sets a gateway up.
type Config struct {
	// Addr is the UDP address PDUs go to and come from, "host:port": a unicast
	// address, a broadcast address, or a multicast group (joined on every interface
	// that can, loopback included, so two programs on one machine see each other).
	Addr string
	// Listen is the local UDP address PDUs are received on. If empty, Addr's port on
	// every address (shared with other programs on the machine), as DIS programs do.
	Listen string
	// Origin is where the map's origin lies on the earth. If nil, dis.DefaultOrigin.
	Origin *dis.Geodetic
	// Version is the DIS protocol version sent. If zero, dis.Version7.
	Version uint8
	// Exercise is the exercise id; PDUs of other exercises are dropped. If zero,
	// DefaultExercise.
	Exercise uint8
	// Site and Application number Treadline's entities; PDUs carrying them are the
	// gateway's own and ignored. If zero, DefaultSite and DefaultApplication.
	Site, Application uint16
	// Heartbeat is the longest time between PDUs of a tank. If zero, DefaultHeartbeat.
	Heartbeat time.Duration
	// Timeout removes a DIS entity after this long without a PDU. If zero,
	// DefaultTimeout.
	Timeout time.Duration
	// MaxEntities caps the DIS entities kept. If zero, DefaultMaxEntities.
	MaxEntities int
	// Logger receives the gateway's events. If nil, nothing is logged.
	Logger *slog.Logger
	// Wrap, if set, stands in for the gateway's socket once it is open, as
	// net.HostConfig.Wrap does for a host's: an in-memory network's endpoint, for
	// tests in a synctest bubble, where a read from a real socket would keep the
	// bubble's clock from moving. If nil, the socket itself.
	Wrap func(stdnet.PacketConn) (stdnet.PacketConn, error)
}

// withDefaults returns c with its zero fields set.
func (c Config) withDefaults() Config {
	if c.Origin == nil {
		o := dis.DefaultOrigin
		c.Origin = &o
	}
	if c.Version == 0 {
		c.Version = dis.Version7
	}
	if c.Exercise == 0 {
		c.Exercise = DefaultExercise
	}
	if c.Site == 0 {
		c.Site = DefaultSite
	}
	if c.Application == 0 {
		c.Application = DefaultApplication
	}
	if c.Heartbeat <= 0 {
		c.Heartbeat = DefaultHeartbeat
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.MaxEntities <= 0 {
		c.MaxEntities = DefaultMaxEntities
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	return c
}

// Drop reasons counted by Stats.Dropped, besides dis.Reason's.
const (
	// ReasonOwn: a PDU of the gateway's own site and application.
	ReasonOwn = "own"
	// ReasonExercise: a PDU of another exercise.
	ReasonExercise = "exercise"
	// ReasonCap: an entity past MaxEntities.
	ReasonCap = "cap"
	// ReasonSend: a PDU the gateway could not encode or send.
	ReasonSend = "send"
)

// Reasons lists every drop reason, for metrics that start every series at zero.
var Reasons = []string{"truncated", "length", "type", "version", "invalid", "other", ReasonOwn, ReasonExercise, ReasonCap, ReasonSend}

// Stats are the gateway's counters.
type Stats struct {
	// Entities is how many DIS entities are kept now.
	Entities int
	// Sent and Received count PDUs sent and received (dropped ones included).
	Sent, Received uint64
	// Dropped counts PDUs dropped, by reason (Reasons).
	Dropped map[string]uint64
}

// Gateway is a DIS gateway. Its methods are safe for concurrent use.
type Gateway struct {
	cfg   Config
	frame dis.Frame
	conn  stdnet.PacketConn
	dst   *stdnet.UDPAddr

	sent, received atomic.Uint64
	member         atomic.Uint32 // the in-process player Run joins DIS entities under

	mu       sync.Mutex
	dropped  map[string]uint64
	tanks    map[uint32]*tank         // Treadline's tanks going out, by actor
	entities map[dis.EntityID]*entity // DIS entities coming in
	buf      []byte
	closed   bool
}

// tank is one of the match's tanks as the gateway sends it.
type tank struct {
	name   string
	team   int
	s      deadreckon.State
	sentAt float64 // host time of its last PDU, s
}

// entity is a DIS entity from elsewhere.
type entity struct {
	id      dis.EntityID
	name    string
	force   uint8
	alg     deadreckon.Algorithm
	s       deadreckon.State // in the world frame, Time 0 at arrival
	arrival time.Time
	actor   uint32 // its tank in the match, 0 until spawned
	gone    bool   // removed; the member despawns it
}

// New opens the gateway's socket on cfg.Addr. It sends nothing until told of tanks
// and receives nothing until Receive runs.
func New(cfg Config) (*Gateway, error) {
	cfg = cfg.withDefaults()
	dst, err := stdnet.ResolveUDPAddr("udp4", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("dis gateway: %w", err)
	}
	if dst.Port == 0 {
		return nil, fmt.Errorf("dis gateway: %s: no port", cfg.Addr)
	}
	o := *cfg.Origin
	if !(math.Abs(o.Lat) <= 90) || !(math.Abs(o.Lon) <= 180) || !(math.Abs(o.Alt) < 1e5) {
		return nil, fmt.Errorf("dis gateway: origin %+v out of range", o)
	}
	udp, err := listen(dst, cfg.Listen)
	if err != nil {
		return nil, fmt.Errorf("dis gateway: %w", err)
	}
	var conn stdnet.PacketConn = udp
	if cfg.Wrap != nil {
		if conn, err = cfg.Wrap(udp); err != nil {
			udp.Close()
			return nil, fmt.Errorf("dis gateway: %w", err)
		}
	}
	return &Gateway{cfg: cfg, frame: dis.NewFrame(o), conn: conn, dst: dst,
		dropped: map[string]uint64{}, tanks: map[uint32]*tank{}, entities: map[dis.EntityID]*entity{}}, nil
}

// Close closes the socket; Receive returns.
func (g *Gateway) Close() error {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	return g.conn.Close()
}

// Addr returns the address PDUs go to.
func (g *Gateway) Addr() string { return g.dst.String() }

// LocalAddr returns the socket's address.
func (g *Gateway) LocalAddr() stdnet.Addr { return g.conn.LocalAddr() }

// Stats returns the gateway's counters.
func (g *Gateway) Stats() Stats {
	g.mu.Lock()
	defer g.mu.Unlock()
	st := Stats{Sent: g.sent.Load(), Received: g.received.Load(), Dropped: map[string]uint64{}}
	for _, e := range g.entities {
		if !e.gone {
			st.Entities++
		}
	}
	for k, v := range g.dropped {
		st.Dropped[k] = v
	}
	return st
}

// drop counts a dropped PDU; g.mu held.
func (g *Gateway) drop(reason string) { g.dropped[reason]++ }

// Spawned reports a tank of player owner entering the match; the gateway's own DIS
// entities (owned by its member) are not sent back out.
func (g *Gateway) Spawned(actor, owner uint32, name string, team int, s deadreckon.State, at float64) {
	if g.IsMember(owner) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	t := &tank{name: name, team: team, s: s}
	g.tanks[actor] = t
	g.send(actor, t, at)
}

// Relayed reports an accepted update of a tank: it goes out as an Entity State PDU.
func (g *Gateway) Relayed(actor uint32, s deadreckon.State, at float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	t := g.tanks[actor]
	if t == nil {
		return
	}
	t.s = s
	g.send(actor, t, at)
}

// Despawned reports a tank leaving the match: a Remove Entity PDU goes out.
func (g *Gateway) Despawned(actor uint32, at float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.tanks[actor] == nil {
		return
	}
	delete(g.tanks, actor)
	p := dis.RemoveEntity{Version: g.cfg.Version, Exercise: g.cfg.Exercise, Timestamp: dis.Timestamp(at, false),
		Originator: dis.EntityID{Site: g.cfg.Site, Application: g.cfg.Application},
		Receiver:   g.entityID(actor), Request: uint32(actor)}
	g.write(&p)
}

// Tick sends a heartbeat PDU for every tank that has sent none for Heartbeat, at
// host time at.
func (g *Gateway) Tick(at float64) {
	g.mu.Lock()
	defer g.mu.Unlock()
	hb := g.cfg.Heartbeat.Seconds()
	for a, t := range g.tanks {
		if at-t.sentAt >= hb {
			g.send(a, t, at)
		}
	}
}

// IsMember reports whether player is the in-process player the gateway's DIS
// entities play under (Run).
func (g *Gateway) IsMember(player uint32) bool {
	m := g.member.Load()
	return m != 0 && m == player
}

// entityID returns the DIS id of the match's actor.
func (g *Gateway) entityID(actor uint32) dis.EntityID {
	return dis.EntityID{Site: g.cfg.Site, Application: g.cfg.Application, Entity: uint16(actor)}
}

// send sends t's Entity State PDU at host time at; g.mu held. The PDU is stamped
// with the time its state holds for (the owner's, on the host clock), which a
// receiver reckons from; at only when the state has none.
func (g *Gateway) send(actor uint32, t *tank, at float64) {
	t.sentAt = at
	p := EntityState(g.frame, t.s)
	stamp := at
	if ts := t.s.Time; ts > 0 && ts <= at && !math.IsInf(ts, 0) {
		stamp = ts
	}
	p.Version, p.Exercise, p.Timestamp = g.cfg.Version, g.cfg.Exercise, dis.Timestamp(stamp, false)
	p.ID = g.entityID(actor)
	p.Force = force(t.team)
	p.Marking = t.name
	g.write(&p)
}

// write encodes and sends p; g.mu held.
func (g *Gateway) write(p dis.PDU) {
	var err error
	g.buf, err = p.Append(g.buf[:0])
	if err == nil {
		_, err = g.conn.WriteTo(g.buf, g.dst)
	}
	if err != nil {
		g.drop(ReasonSend)
		if !g.closed {
			g.cfg.Logger.Debug("dis: send", "err", err)
		}
		return
	}
	g.sent.Add(1)
}

// force returns the DIS force id of a Treadline team: the team itself (0 other, 1
// friendly, 2 opposing, 3 neutral), 0 beyond a byte.
func force(team int) uint8 {
	if team < 0 || team > 255 {
		return 0
	}
	return uint8(team)
}

// EntityState returns the Entity State PDU of world state s in frame f, without
// header fields, id, force or marking: a land-platform tank (dis.TankType), dead
// reckoned with DRAlgorithm, its first two articulations as turret azimuth and gun
// elevation.
func EntityState(f dis.Frame, s deadreckon.State) dis.EntityState {
	q := s.Orientation
	if q == (mgl64.Quat{}) {
		q = mgl64.QuatIdent()
	}
	p := dis.EntityState{
		EntityType: dis.TankType, AltType: dis.TankType,
		Velocity:    f.ToECEFVector(s.Velocity),
		Location:    f.ToECEF(s.Position),
		Orientation: f.ToEuler(q),
		DeadReckoning: dis.DeadReckoning{
			Algorithm:       DRAlgorithm.DISModel(),
			Acceleration:    f.ToECEFVector(s.Acceleration),
			AngularVelocity: dis.ToBody(q, s.AngularVelocity),
		},
		MarkingCharset: 1,
	}
	params := []uint32{dis.ParamTurretAzimuth, dis.ParamGunElevation}
	for i := 0; i < s.NumArticulations && i < len(params); i++ {
		p.Articulations = append(p.Articulations, dis.Articulation{Parameter: params[i], Value: s.Articulations[i].Angle})
	}
	return p
}

// WorldState returns the world state of Entity State PDU p in frame f, at Time 0,
// and the deadreckon model it is reckoned with (DRM(F,P,W) for "other" and unknown
// models). Body accelerations are turned into the world's, turret azimuth and gun
// elevation into articulations 0 and 1.
func WorldState(f dis.Frame, p *dis.EntityState) (deadreckon.State, deadreckon.Algorithm) {
	alg, ok := deadreckon.DISAlgorithm(p.DeadReckoning.Algorithm)
	if !ok {
		alg = deadreckon.DISFPW
	}
	q := f.FromEuler(p.Orientation)
	s := deadreckon.State{
		Position:        f.FromECEF(p.Location),
		Velocity:        f.FromECEFVector(p.Velocity),
		Orientation:     q,
		AngularVelocity: dis.FromBody(q, p.DeadReckoning.AngularVelocity),
	}
	if alg >= deadreckon.DISFPB {
		s.Acceleration = dis.FromBody(q, p.DeadReckoning.Acceleration).Add(s.AngularVelocity.Cross(s.Velocity))
	} else {
		s.Acceleration = f.FromECEFVector(p.DeadReckoning.Acceleration)
	}
	for _, a := range p.Articulations {
		i := -1
		switch a.Parameter {
		case dis.ParamTurretAzimuth:
			i = 0
		case dis.ParamGunElevation:
			i = 1
		}
		if i >= 0 && a.Designator == 0 {
			s.Articulations[i].Angle = a.Value
			s.NumArticulations = max(s.NumArticulations, i+1)
		}
	}
	return s, alg
}
