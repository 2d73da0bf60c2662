package deadreckon

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Path publishing defaults.
const (
	// DefaultPathThreshold is the error along the route, m, that triggers a
	// Progress: the position threshold, since along a route that is the whole error.
	DefaultPathThreshold = DefaultPositionThreshold
	// DefaultPathRepeatChange is the change of rate, m/s, or of acceleration, m/s²,
	// from what the last Progress projected, beyond which a Progress is sent again
	// MinInterval later: a lost one would leave receivers on the old motion until
	// the error grew past the threshold, which the owner cannot see.
	DefaultPathRepeatChange = 0.5
	// DefaultPathAccelChange is the change of acceleration, m/s², that sends a
	// Progress: a quarter of a gentle start's 2 m/s².
	DefaultPathAccelChange = 0.5
	// pathStartCopies is how many fresh copies follow a start from rest, a frame
	// apart: as for a State, a start heard late is the error players see first.
	pathStartCopies = 2
)

// PathPublisherConfig says when a PathPublisher publishes. The zero value takes every
// default.
type PathPublisherConfig struct {
	// Publisher publishes the actor as States while it is off its route. Its Reckon
	// is how receivers reckon the actor; PathPublisher reckons its own progress with
	// it, its Algorithm set to Path.
	Publisher PublisherConfig
	// Threshold is the error along the route that triggers a Progress, m; if zero,
	// DefaultPathThreshold.
	Threshold float64
	// MinInterval is the shortest time between two Progress updates, but for starts
	// and stops, s; if zero, the Publisher's MinInterval (DefaultMinInterval).
	MinInterval float64
	// Heartbeat is the longest time between two, s; if zero, the Publisher's
	// Heartbeat (DefaultPublishHeartbeat).
	Heartbeat float64
	// AccelChange is the change of acceleration from the last Progress, m/s²,
	// that sends one (after MinInterval): the onset and the end of a speed change,
	// which the projection, holding the acceleration, would otherwise miss until
	// the error passes Threshold; if zero, DefaultPathAccelChange; Off never.
	AccelChange float64
	// RepeatChange is the change of rate (m/s) or acceleration (m/s²) beyond which a
	// Progress is repeated MinInterval later; if zero, DefaultPathRepeatChange; Off
	// never repeats.
	RepeatChange float64
	// AccelSmoothing is the time constant, s, of the low-pass filter the measured
	// acceleration along the route passes through: an actor driven by physics over
	// rough ground changes its pace a little every frame, and the frame-to-frame
	// acceleration that measures is noise that would be published and held. Zero
	// measures it frame to frame, as a planned route's smooth pace allows.
	AccelSmoothing float64
}

// withDefaults fills zero fields.
func (c PathPublisherConfig) withDefaults() PathPublisherConfig {
	c.Publisher.Reckon.Algorithm = Path
	if c.Threshold == 0 {
		c.Threshold = DefaultPathThreshold
	}
	if c.MinInterval == 0 {
		c.MinInterval = positiveOr(c.Publisher.MinInterval, DefaultMinInterval)
	}
	if c.Heartbeat == 0 {
		c.Heartbeat = positiveOr(c.Publisher.Heartbeat, DefaultPublishHeartbeat)
	}
	if c.AccelChange == 0 {
		c.AccelChange = DefaultPathAccelChange
	}
	if c.RepeatChange == 0 {
		c.RepeatChange = DefaultPathRepeatChange
	}
	return c
}

// Validate reports a configuration NewPathPublisher cannot use: a threshold,
// interval or heartbeat that is negative or not finite, or an invalid Publisher.
func (c PathPublisherConfig) Validate() error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"threshold", c.Threshold}, {"minimum interval", c.MinInterval}, {"heartbeat", c.Heartbeat}, {"acceleration smoothing", c.AccelSmoothing}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return fmt.Errorf("deadreckon: path publisher: %s %v is not a non-negative number", f.name, f.v)
		}
	}
	if err := c.Publisher.Validate(); err != nil {
		return fmt.Errorf("deadreckon: path publisher: %w", err)
	}
	return nil
}

// PathSample is what the owner knows of its actor each frame: its pose, and whether
// it follows its route and how far along it is.
type PathSample struct {
	// Sample is the actor's pose, published as a State off the route.
	Sample
	// OnRoute says the actor follows the route set by SetRoute.
	OnRoute bool
	// S is its arc length along the route, m (see Route).
	S float64
}

// PathUpdate is what a PathPublisher says to send after a sample: nothing, a State
// (Decision is not NoUpdate) or a Progress (HasProgress).
type PathUpdate struct {
	// Decision and State are the off-route publisher's, as Publisher.Update returns
	// them.
	Decision Decision
	State    State
	// HasProgress says to send Progress.
	HasProgress bool
	Progress    Progress
}

// PathPublisher decides when the owner of an actor that may follow a Route publishes
// its progress along it (Murphy's path-based dead reckoning): once the route is
// published (SetRoute, sent reliably by the caller), a Progress goes out when the
// progress the receivers reckon drifts Threshold from the truth, at a start from rest
// (with copies), at a stop, again after a change it may have lost, and at each
// heartbeat; a steady patrol sends heartbeats alone. A Progress carries the sample's
// joints (a turret, a gun) and their rates, and one goes out when a joint drifts
// past the articulation threshold from what receivers show. Off the route it is an ordinary
// Publisher, and the first State after the route tells receivers the actor left it.
// Not safe for concurrent use.
type PathPublisher struct {
	cfg  PathPublisherConfig
	pub  *Publisher
	self *Actor // what receivers show of the progress, reckoned as they do

	r     *Route
	id    uint16
	sent  bool // a Progress on the current route went out
	on    bool // the last update was a Progress (not a State)
	leave bool // the actor left the route: a State is owed

	last                Progress // the last Progress sent
	lastAt              float64  // when, owner's clock
	repeatAt            float64  // when to repeat the last one, or +Inf
	copies              int      // start copies still to send
	lastTime            float64  // the latest sample's time, owner's clock
	hasTime             bool
	prevS, prevT        float64
	prevRate            float64
	hasPrev, hasPrevVel bool
	accel               float64 // the measured (smoothed) acceleration, m/s²
	sample              Sample  // the frame's sample, for its joints
	prevJoints          [MaxArticulations]float64
	prevJointsN         int
	prevJointsT         float64
	hasJoints           bool
}

// NewPathPublisher returns a publisher as cfg says (defaults for zero fields);
// seed staggers the off-route publisher's heartbeats (see NewPublisher).
func NewPathPublisher(cfg PathPublisherConfig, seed uint64) *PathPublisher {
	cfg = cfg.withDefaults()
	self := cfg.Publisher.Reckon
	self.CompensateLatency = false
	self.Clamp = Clamp{}
	self.Collide = Collide{}
	return &PathPublisher{cfg: cfg, pub: NewPublisher(cfg.Publisher, seed), self: NewActor(self), repeatAt: math.Inf(1)}
}

// Config returns the configuration with defaults filled in.
func (p *PathPublisher) Config() PathPublisherConfig { return p.cfg }

// SetHeartbeatCopy changes the off-route publisher's HeartbeatCopy, as
// Publisher.SetHeartbeatCopy does.
func (p *PathPublisher) SetHeartbeatCopy(d float64) error {
	if err := p.pub.SetHeartbeatCopy(d); err != nil {
		return err
	}
	p.cfg.Publisher.HeartbeatCopy = p.pub.Config().HeartbeatCopy
	return nil
}

// SetRoute sets the route the actor follows (nil for none) and returns its number,
// which the caller publishes with it (reliably, before any Progress on it) and which
// every Progress on it carries. Each call numbers a new route.
func (p *PathPublisher) SetRoute(r *Route) uint16 {
	p.id++
	p.r, p.sent, p.hasPrev, p.hasPrevVel, p.accel = r, false, false, false, 0
	p.self.SetRoute(p.id, r)
	return p.id
}

// Route returns the current route and its number, or nil.
func (p *PathPublisher) Route() (*Route, uint16) { return p.r, p.id }

// Reckoned returns what receivers show of the actor at the last sample, as the
// publisher reckons it (on its route only; off it, the off-route publisher's).
func (p *PathPublisher) Reckoned() State {
	if p.on {
		return p.self.Reckoned()
	}
	return p.pub.Reckoned()
}

// Acceleration returns the actor's acceleration as the off-route publisher measured
// it at the last sample, m/s².
func (p *PathPublisher) Acceleration() mgl64.Vec3 { return p.pub.Acceleration() }

// Update takes the frame's sample and says what to publish.
func (p *PathPublisher) Update(s PathSample) PathUpdate {
	onRoute := s.OnRoute && p.r != nil && geom.Finite(s.S)
	sample := s.Sample
	if !onRoute && p.on {
		p.leave = true
	}
	if p.leave {
		sample.Full = true
	}
	d, st := p.pub.Update(sample)
	if onRoute && (!geom.Finite(s.Time) || math.Abs(s.Time) > p.self.maxTime || p.hasTime && s.Time <= p.lastTime) {
		// A sample no receiver would take, or one that does not move time on: drop it.
		return PathUpdate{}
	}
	if geom.Finite(s.Time) && (!p.hasTime || s.Time > p.lastTime) {
		p.lastTime, p.hasTime = s.Time, true
	}
	if !onRoute {
		p.hasPrev, p.hasPrevVel, p.accel = false, false, 0
		if d == NoUpdate {
			return PathUpdate{}
		}
		p.on, p.leave = false, false
		return PathUpdate{Decision: d, State: st}
	}
	t := s.Time
	p.sample = s.Sample
	prog := p.measure(s.S, t)
	if !p.sent && !p.hasPrevVel {
		return PathUpdate{} // the rate is not measured yet: two frames on the route
	}
	if p.self.HasState() {
		p.self.Advance(t)
	}
	if !p.due(&prog, t) {
		return PathUpdate{}
	}
	p.send(prog, t)
	return PathUpdate{HasProgress: true, Progress: prog}
}

// measure returns the progress at owner time t, arc length s: its rate and
// acceleration from the last samples, tiny ones zeroed as the Publisher does.
func (p *PathPublisher) measure(s, t float64) Progress {
	s = p.r.Wrap(s)
	prog := Progress{Route: p.id, Time: t, S: s}
	pc := &p.pub.config
	if p.hasPrev && t > p.prevT {
		dt := t - p.prevT
		prog.Rate = p.r.Diff(p.prevS, s) / dt
		if p.hasPrevVel {
			prog.Accel = (prog.Rate - p.prevRate) / dt
			if tau := p.cfg.AccelSmoothing; tau > 0 {
				prog.Accel = p.accel + (prog.Accel-p.accel)*math.Min(1, dt/tau)
			}
		}
		p.accel = prog.Accel
		p.prevRate, p.hasPrevVel = prog.Rate, true
	}
	p.prevS, p.prevT, p.hasPrev = s, t, true
	// The joints (a turret, a gun) ride along as the sample has them, turning at the
	// rate of the last two samples: the route carries the hull only, and a joint is
	// published again when it drifts past the articulation threshold (due).
	n := max(0, min(p.sample.NumArticulations, MaxArticulations))
	prog.NumArticulations = n
	for i := 0; i < n; i++ {
		a := geom.WrapAngle(p.sample.Articulations[i])
		prog.Articulations[i] = Articulation{Angle: a}
		if p.hasJoints && i < p.prevJointsN && t > p.prevJointsT {
			prog.Articulations[i].Rate = geom.WrapAngle(a-p.prevJoints[i]) / (t - p.prevJointsT)
		}
		if lim := p.self.c.cfg.Limits.MaxArticulationRate; lim > 0 {
			prog.Articulations[i].Rate = math.Max(-lim, math.Min(lim, prog.Articulations[i].Rate))
		}
		p.prevJoints[i] = a
	}
	p.prevJointsN, p.prevJointsT, p.hasJoints = n, t, true
	if math.Abs(prog.Rate) < pc.TinySpeed {
		prog.Rate = 0
	}
	if math.Abs(prog.Accel) < pc.TinyAcceleration || prog.Rate == 0 && prog.Accel < 0 {
		prog.Accel = 0
	}
	prog.Accel = math.Max(-pc.AccelerationCap, math.Min(pc.AccelerationCap, prog.Accel))
	if vmax := p.self.c.cfg.Limits.MaxSpeed; vmax > 0 {
		prog.Rate = math.Max(-vmax, math.Min(vmax, prog.Rate)) // a jump, not a speed: never past what receivers take
	}
	return prog
}

// due says whether prog, at owner time t, goes out.
func (p *PathPublisher) due(prog *Progress, t float64) bool {
	if !p.sent || !p.on {
		return true
	}
	since := t - p.lastAt
	shownS, shownRate := p.self.RouteProgress()
	atRest := p.last.Rate == 0 && p.last.Accel == 0
	switch {
	case p.copies > 0:
		p.copies--
		return true
	case atRest && (math.Abs(prog.Rate) > positiveOr(p.cfg.Publisher.StartSpeed, DefaultStartSpeed) || prog.Accel != 0):
		p.copies = pathStartCopies
		return true
	case prog.Rate == 0 && prog.Accel == 0 && shownRate != 0 && !atRest:
		return true // a stop: the receivers' display must not run on
	case since >= p.cfg.Heartbeat:
		return true
	case t >= p.repeatAt:
		return true
	}
	if since < p.cfg.MinInterval {
		return false
	}
	return math.Abs(p.r.Diff(prog.S, shownS)) > p.cfg.Threshold ||
		p.cfg.AccelChange > 0 && math.Abs(prog.Accel-p.last.Accel) > p.cfg.AccelChange ||
		p.jointsDrifted(prog)
}

// jointsDrifted reports whether a joint of prog (the sample's) is more than the
// articulation threshold from what the receivers show.
func (p *PathPublisher) jointsDrifted(prog *Progress) bool {
	shown := p.self.Reckoned()
	thr := positiveOr(p.cfg.Publisher.ArticulationThreshold, DefaultArticulationThreshold)
	for i := 0; i < prog.NumArticulations; i++ {
		a := 0.0
		if i < shown.NumArticulations {
			a = shown.Articulations[i].Angle
		}
		if math.Abs(geom.WrapAngle(prog.Articulations[i].Angle-a)) > thr {
			return true
		}
	}
	return false
}

// send records prog as published at t: the publisher reckons it as receivers will, and
// schedules a repeat when it changed the motion much.
func (p *PathPublisher) send(prog Progress, t float64) {
	_, rate := p.self.RouteProgress()
	changed := !p.sent || !p.on || math.Abs(prog.Rate-rate) > p.cfg.RepeatChange ||
		math.Abs(prog.Accel-p.last.Accel) > p.cfg.RepeatChange
	p.repeatAt = math.Inf(1)
	if changed && p.cfg.RepeatChange > 0 {
		p.repeatAt = t + p.cfg.MinInterval
	}
	if err := p.self.ReceiveProgress(prog, t); err == nil {
		p.self.Advance(t)
	}
	p.last, p.lastAt, p.sent, p.on, p.leave = prog, t, true, true, false
}
