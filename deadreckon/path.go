package deadreckon

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Progress is where an actor is along the Route its owner published (Murphy's
// path-based dead reckoning, seed section 1.8): its arc length, and how fast and how
// quickly that changes. It is all the owner sends while the actor follows the route.
type Progress struct {
	// Route is the route it refers to, as numbered by the owner (Actor.SetRoute); a
	// progress for another route is refused with ErrNoRoute.
	Route uint16
	// Time is the owner's clock when it was taken, s, as State.Time.
	Time float64
	// S is the arc length along the route, m (wrapped on a closed route, clamped to
	// it on an open one).
	S float64
	// Rate is dS/dt, m/s: the speed along the route, negative backing along it.
	Rate float64
	// Accel is dRate/dt, m/s².
	Accel float64
	// NumArticulations and Articulations are the joints (a turret, a gun), as in
	// State: the route carries the hull only.
	NumArticulations int
	Articulations    [MaxArticulations]Articulation
}

// ErrNoRoute is returned (wrapped) for a Progress on a route the actor does not
// hold, or to an actor whose algorithm is not Path. The actor is left untouched.
var ErrNoRoute = errors.New("progress on a route not held")

// validProgress checks p against limits l (defaults filled in).
func validProgress(p Progress, l *Limits) error {
	if !geom.Finite(p.Time, p.S, p.Rate, p.Accel) {
		return fmt.Errorf("%w: progress not finite (t %v, s %v, rate %v, accel %v)", ErrInvalidState, p.Time, p.S, p.Rate, p.Accel)
	}
	if l.MaxTime > 0 && math.Abs(p.Time) > l.MaxTime {
		return invalid("progress time", p.Time)
	}
	if p.NumArticulations < 0 || p.NumArticulations > MaxArticulations {
		return invalid("progress articulation count", p.NumArticulations)
	}
	for i := 0; i < p.NumArticulations; i++ {
		j := p.Articulations[i]
		if !geom.Finite(j.Angle, j.Rate) || l.MaxArticulationRate > 0 && math.Abs(j.Rate) > l.MaxArticulationRate {
			return invalid("progress articulation", j)
		}
	}
	if math.Abs(p.S) > MaxRouteLength {
		return invalid("progress arc length", p.S)
	}
	if l.MaxSpeed > 0 && math.Abs(p.Rate) > l.MaxSpeed {
		return invalid("progress rate", p.Rate)
	}
	if l.MaxAcceleration > 0 && math.Abs(p.Accel) > l.MaxAcceleration {
		return invalid("progress acceleration", p.Accel)
	}
	return nil
}

// projectProgress returns p's arc length and rate age seconds on, m and m/s: with
// its acceleration held, since along a route a speed change is sustained (a tank
// gathers way to its cruising speed over seconds) and its owner says when it ends;
// braking (the acceleration against the rate) on to rest and held there. An owner
// gone silent leaves its actor driving on along the route, as its plan says, until
// the caller drops it as stale; age is capped at hold, the actor's time limit.
func projectProgress(p *Progress, age, hold float64) (s, rate float64) {
	age = math.Max(0, math.Min(age, hold))
	if p.Rate*p.Accel < 0 {
		stop := -p.Rate / p.Accel
		if age >= stop {
			return p.S + 0.5*p.Rate*stop, 0
		}
	}
	return p.S + p.Rate*age + 0.5*p.Accel*age*age, p.Rate + p.Accel*age
}

// routeState is an actor's route: what the owner published and how the display
// follows it. It lives in the actor's cold part.
type routeState struct {
	r    *Route
	id   uint16
	on   bool // following the route: the last update was a Progress on it
	p    Progress
	lead float64 // age of p at the blend start, s
	// The correction the blend fades out: in arc length (ds0, m, and dr0, m/s) when
	// the display was on this route already, else in position (dp0, m; dv0, m/s)
	// and orientation (q0, the displayed orientation relative to the route's).
	ds0, dr0 float64
	dp0, dv0 mgl64.Vec3
	q0       mgl64.Quat
	// s and rate are the arc length and rate shown at the last Advance.
	s, rate float64
	// pending is a Progress that arrived (at pendingAt) before its route.
	pending    Progress
	pendingAt  float64
	hasPending bool
}

// SetRoute installs the route the owner published under number id (replacing any
// other); progress on it follows with ReceiveProgress. The last Progress on it that
// arrived before it is applied now, as arrived then. A nil r forgets the route.
// The display goes on as it was until the next update: a Progress on the new route,
// or a State.
func (a *Actor) SetRoute(id uint16, r *Route) {
	a.ready()
	rs := &a.c.route
	if rs.on && (r != rs.r || id != rs.id) {
		a.leaveRoute()
	}
	rs.r, rs.id = r, id
	if rs.hasPending && r != nil && rs.pending.Route == id {
		rs.hasPending = false
		_ = a.ReceiveProgress(rs.pending, rs.pendingAt) // refused as it would have been on arrival
	}
}

// Route returns the route installed by SetRoute and its number, or nil.
func (a *Actor) Route() (*Route, uint16) { return a.c.route.r, a.c.route.id }

// OnRoute reports whether the actor is reckoned along its route: its last update was
// a Progress. A State received since (the owner leaving the route) ends it.
func (a *Actor) OnRoute() bool { return a.onRoute }

// RouteProgress returns the arc length and rate shown at the last Advance while on
// the route, m and m/s.
func (a *Actor) RouteProgress() (s, rate float64) { return a.c.route.s, a.c.route.rate }

// leaveRoute ends path reckoning: the display goes on from where it is, as the
// configured fallback algorithm reckons the route's last state until the next State.
func (a *Actor) leaveRoute() {
	if !a.onRoute {
		return
	}
	a.onRoute, a.c.route.on, a.alg = false, false, ProjectiveVelocityBlend
	if a.has {
		a.restartBlend()
	}
}

// ReceiveProgress takes a Progress that arrived at local time now: the actor is
// then reckoned along its route, blending from what is displayed as for any update
// (over ΔT, plus the latency when compensating it), and is clamped to the ground as
// others are. It needs the algorithm Path, else it returns ErrNoRoute; a progress on
// a route not installed yet is held until SetRoute installs it. An invalid progress (ErrInvalidState) or one older than the
// last update (ErrOutOfOrder) is refused. Each leaves the actor untouched.
func (a *Actor) ReceiveProgress(p Progress, now float64) error {
	a.ready()
	rs := &a.c.route
	if a.c.cfg.Algorithm != Path {
		return fmt.Errorf("%w: route %d, algorithm %v", ErrNoRoute, p.Route, a.c.cfg.Algorithm)
	}
	if rs.r == nil || p.Route != rs.id {
		// The route may be on its way (it travels reliably, the progress does not):
		// hold the newest progress on it until it comes.
		if geom.Finite(p.Time, now) && (!rs.hasPending || p.Time >= rs.pending.Time) {
			rs.pending, rs.pendingAt, rs.hasPending = p, now, true
		}
		return nil
	}
	if !geom.Finite(now) || math.Abs(now) > a.maxTime {
		return fmt.Errorf("%w: arrival time %v", ErrInvalidState, now)
	}
	if err := validProgress(p, &a.c.cfg.Limits); err != nil {
		return err
	}
	if a.has && p.Time < a.lk.Time {
		return fmt.Errorf("%w: time %v < %v", ErrOutOfOrder, p.Time, a.lk.Time)
	}
	r := rs.r
	p.S = r.Wrap(p.S)
	first := !a.has
	if !a.advanced {
		a.lastNow = now
		a.advanced = true
	}
	t0 := a.lastNow
	a.countInterval(now)
	lat := a.latency(p.Time, now)
	lead := t0 - (now - lat)
	a.c.lat = lat

	// The last-known state is the progress's place on the route: what a fallback
	// reckons from if the owner leaves it, and what Stale and LastKnown read.
	pos, dir := r.At(p.S)
	lk := State{Time: p.Time, Position: pos, Velocity: dir.Mul(p.Rate), Acceleration: dir.Mul(p.Accel),
		Orientation: geom.YawQuat(geom.Heading(dir)), NumArticulations: p.NumArticulations}
	for i := 0; i < p.NumArticulations; i++ {
		lk.Articulations[i] = Articulation{Angle: geom.WrapAngle(p.Articulations[i].Angle), Rate: p.Articulations[i].Rate}
	}
	p.Articulations = lk.Articulations
	a.setLastKnown(lk, now, lead, 0, false)

	sNew, rNew := projectProgress(&p, lead, a.maxTime)
	wasOn := a.onRoute
	rs.p, rs.lead, rs.on = p, lead, true
	a.onRoute, a.alg = true, Path
	a.blending = true
	a.tt = 0
	a.art0 = a.rk.art
	a.setBlendTimes()
	rs.ds0, rs.dr0 = 0, 0
	rs.dp0, rs.dv0, rs.q0 = mgl64.Vec3{}, mgl64.Vec3{}, mgl64.QuatIdent()
	if first {
		a.blending = false
	} else if wasOn {
		rs.ds0, rs.dr0 = r.Diff(sNew, rs.s), rs.rate-rNew
		a.setRouteBlendTime(math.Abs(rs.ds0))
	} else {
		ppos, pdir := r.At(sNew)
		rs.dp0, rs.dv0 = a.rk.pos.Sub(ppos), a.vel.Sub(pdir.Mul(rNew))
		q := geom.QuatMul(a.rk.rot, geom.YawQuat(geom.Heading(pdir)).Conjugate())
		if q.W < 0 {
			q = mgl64.Quat{W: -q.W, V: q.V.Mul(-1)}
		}
		rs.q0 = q
		if gap := rs.dp0.Len(); gap > a.c.cfg.SnapDistance {
			a.blending = false
		} else {
			a.setRouteBlendTime(gap)
		}
	}
	a.reckonRoute()
	return nil
}

// setRouteBlendTime stretches the blend so that a gap of gap m closes no faster than
// CatchUpSpeed on average, as setBlendTimes does for a State.
func (a *Actor) setRouteBlendTime(gap float64) {
	if t := gap / a.c.cfg.CatchUpSpeed; t > a.dtPos {
		a.dtPos = math.Min(t, a.c.cfg.MaxBlendTime)
	}
}

// reckonRoute computes a.rk for the current a.tt along the route: the progress
// projected, plus the correction at the blend start fading out with 1 − S(T̂) (its
// rate too, so the shown motion is C¹ where the blend starts and ends).
func (a *Actor) reckonRoute() {
	rs := &a.c.route
	r := rs.r
	s, rate := projectProgress(&rs.p, rs.lead+a.tt, a.maxTime)
	w, dw := 0.0, 0.0 // 1 − S(T̂) and its time derivative
	if a.blending && a.dtPos > minBlendTime && a.tt < a.dtPos {
		u := a.tt / a.dtPos
		w, dw = 1-u*u*(3-2*u), -6*u*(1-u)/a.dtPos
	}
	off := rs.ds0 + rs.dr0*a.tt
	rate += dw*off + w*rs.dr0
	s = r.Wrap(s + w*off)
	pos, dir := r.At(s)
	rot := geom.YawQuat(geom.Heading(dir))
	if w > 0 && rs.q0 != mgl64.QuatIdent() {
		pos = pos.Add(rs.dp0.Add(rs.dv0.Mul(a.tt)).Mul(w))
		rot = geom.QuatUnit(geom.QuatMul(geom.SlerpShort(mgl64.QuatIdent(), rs.q0, w), rot))
	} else if w > 0 {
		pos = pos.Add(rs.dp0.Add(rs.dv0.Mul(a.tt)).Mul(w))
	}
	rs.s, rs.rate = s, rate
	a.rk.pos, a.rk.rot = pos, rot
	a.reckonArticulations(a.tt, a.lead+a.tt, 1-w)
}
