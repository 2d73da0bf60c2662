package game

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
)

// patrols reports whether bot i patrols a route when share of the bots do: the bots
// whose index carries the running share past a whole number, spread evenly among
// them (share 0.5: every second bot).
func patrols(share float64, i int) bool {
	if !(share > 0) {
		return false
	}
	share = math.Min(share, 1)
	return math.Floor(float64(i+1)*share+1e-9) > math.Floor(float64(i)*share+1e-9)
}

// newPublisher gives local tank t, under its current actor id, a fresh publisher as
// cfg says (in a zoned match, ZonedPublishing), and a patrolling bot a fresh route through where it stands: a
// PathPublisher when the link is a RouteLink (the route goes out, under the new id,
// with its first update), else a Publisher.
func (m *Match) newPublisher(t *tank, cfg deadreckon.PublisherConfig) {
	seed := m.cfg.Seed ^ uint64(t.id)*0x2545f4914f6cdd1d
	cfg = ZonedPublishing(cfg, m.zoned)
	t.pub = deadreckon.NewPublisher(cfg, seed)
	t.path, t.routeSent = nil, false
	if t.bot == nil || !t.bot.Patrols() {
		return
	}
	p := t.body.Pose()
	r, err := bot.PatrolRoute(m.terr, seed, mgl64.Vec2{p.Position[0], p.Position[2]}, geom.Yaw(p.Orientation))
	if err != nil {
		m.log.Debug("patrol route", "actor", t.id, "err", err)
	}
	t.bot.SetRoute(r) // nil: it roams instead
	if _, ok := m.link.(RouteLink); ok && r != nil {
		t.path = deadreckon.NewPathPublisher(deadreckon.PathPublisherConfig{Publisher: cfg, AccelChange: deadreckon.Off, RepeatChange: 1.5, AccelSmoothing: 0.3}, seed)
	}
}

// onRoute returns where local tank t, a patrolling bot at pose p, is on its route
// (arc length s, m) and whether it keeps to it: following it, within RouteTolerance
// of its line and RouteHeadingTolerance of its heading. Its turret may turn (onto a
// tank in sight): the progress carries it, and publishes again as it moves.
func onRoute(t *tank, p physics.Pose) (s float64, on bool) {
	r, _ := t.path.Route()
	if t.bot.Route() != r {
		return 0, false // the bot gave its route up
	}
	rs := t.bot.RouteState()
	s, off := r.Nearest(p.Position, rs.S, 2*RouteTolerance+10)
	if !rs.Following || off > RouteTolerance {
		return s, false
	}
	_, dir := r.At(s)
	turn := geom.WrapAngle(geom.Yaw(p.Orientation) - geom.Heading(dir))
	return s, math.Abs(turn) <= RouteHeadingTolerance
}

// publishPath is publish for a patrolling bot on a RouteLink: its route once, then
// what its PathPublisher decides, a Progress while it keeps to its route and a
// State off it.
func (m *Match) publishPath(t *tank, p physics.Pose, sample deadreckon.Sample, now float64) {
	link := m.link.(RouteLink)
	if !t.routeSent {
		r := t.bot.Route()
		id := t.path.SetRoute(r)
		if err := link.PublishRoute(t.id, id, r); err != nil {
			m.counters.publishErr++
			m.log.Debug("publish route", "actor", t.id, "err", err)
			t.path.SetRoute(nil) // no progress on a route nobody has
		}
		t.routeSent = true
	}
	ps := deadreckon.PathSample{Sample: sample}
	if r, _ := t.path.Route(); r != nil {
		ps.S, ps.OnRoute = onRoute(t, p)
	}
	u := t.path.Update(ps)
	t.view.Acceleration = t.path.Acceleration()
	switch {
	case u.HasProgress:
		t.published, t.pubAt = t.path.Reckoned(), now
		if o := m.cfg.Observer; o != nil {
			// A recording holds what its own tanks published as states: the state
			// a progress implies.
			r, _ := t.path.Route()
			o.Published(t.id, ImpliedState(r, &u.Progress), now)
		}
		if err := link.PublishProgress(t.id, u.Progress); err != nil {
			m.counters.publishErr++
			m.log.Debug("publish progress", "actor", t.id, "err", err)
		}
	case u.Decision != deadreckon.NoUpdate:
		t.published, t.pubAt = u.State, now
		if o := m.cfg.Observer; o != nil {
			o.Published(t.id, u.State, now)
		}
		if err := m.link.Publish(t.id, u.State); err != nil {
			m.counters.publishErr++
			m.log.Debug("publish", "actor", t.id, "err", err)
		}
	}
}

// routeReckoning returns how remote tank t is reckoned: as every remote tank is, but
// along its route (deadreckon.Path) while it has one and the match reckons with the
// game's algorithm, which Path falls back to off the route.
func (m *Match) routeReckoning(t *tank) deadreckon.Config {
	c := m.remoteReckoning()
	if t.route != nil && c.Algorithm == deadreckon.ProjectiveVelocityBlend {
		c.Algorithm = deadreckon.Path
	}
	return c
}

// routeEvent applies a remote tank's route (net.EventRoute) or its progress along it
// (net.EventProgress). Under another algorithm than the game's (the keys 1–7), a
// progress is shown as the state it implies. A progress before any route of the
// tank is dropped and counted (Snapshot's Net.Dropped: the route travels reliably,
// and the next progress follows it);
// one on a newer route is held by the actor until the route comes; one the actor
// refuses is dropped and counted.
func (m *Match) routeEvent(ev *net.Event, now float64) {
	t := m.remoteOf(ev)
	if t == nil {
		return
	}
	m.applyPending(t, now) // the state updates before it come first
	if ev.Kind == net.EventRoute {
		t.route, t.routeID = ev.Route, ev.RouteID
		t.actor.SetConfig(m.routeReckoning(t))
		t.actor.SetRoute(ev.RouteID, ev.Route)
		return
	}
	var err error
	switch {
	case t.route == nil:
		m.counters.earlyProgress++ // its route is on its way on the reliable stream
		return
	case t.actor.Config().Algorithm == deadreckon.Path:
		err = t.actor.ReceiveProgress(ev.Progress, now) // held by the actor if on a newer route
	case ev.Progress.Route == t.routeID:
		err = t.actor.Receive(ImpliedState(t.route, &ev.Progress), now)
	default:
		m.counters.earlyProgress++ // on a route not arrived yet, under another algorithm
		return
	}
	if err != nil {
		m.counters.rejected++
		m.log.Debug("progress refused", "actor", ev.Actor, "err", err)
		return
	}
	t.lastHeard = now
}

// ImpliedState returns the state progress p along route r implies: the route's point
// at its arc length, facing along it, moving along it at its rate and acceleration,
// with its joints; level (the ground clamp gives the pitch and roll).
func ImpliedState(r *deadreckon.Route, p *deadreckon.Progress) deadreckon.State {
	pos, dir := r.At(p.S)
	s := deadreckon.State{Time: p.Time, Position: pos, Velocity: dir.Mul(p.Rate), Acceleration: dir.Mul(p.Accel),
		Orientation: geom.YawQuat(geom.Heading(dir)), NumArticulations: p.NumArticulations}
	copy(s.Articulations[:], p.Articulations[:])
	return s
}
