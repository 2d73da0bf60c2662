package deadreckon

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// noCopy makes go vet's copylocks check report a copied value holding it.
type noCopy struct{}

// Lock is a no-op; it and Unlock make noCopy a sync.Locker for go vet.
func (*noCopy) Lock() {}

// Unlock is a no-op.
func (*noCopy) Unlock() {}

// delayedBufferLen is how many updates the Delayed algorithm buffers.
const delayedBufferLen = 16

// minFrameTime is the shortest frame, in seconds, over which the displayed velocity
// is measured; shorter frames keep the last velocity.
const minFrameTime = 1e-6

// minBlendTime is the shortest blend time used, in seconds; a shorter ΔT counts as done.
const minBlendTime = 1e-6

// Actor reckons one remote actor: it takes the updates its owner publishes and says
// where to draw it at each frame. Create one with NewActor (or Reckoner.Add). An Actor
// must not be copied: its configuration, clock offset and Delayed buffer live in a
// part a copy would share, so that SetConfig or Receive on a copy would change the
// original; go vet's copylocks check reports copies. An Actor is not safe for
// concurrent use.
//
// Each frame, call Receive (or Break) for every update that arrived, then Advance with
// the frame's local time, then optionally ClampTo, then read Reckoned. All times are
// seconds on the receiver's local clock except State.Time, which is on the owner's.
type Actor struct {
	_ noCopy
	actorState
}

// actorState is an Actor's data, apart from the copy guard, so that the package can
// copy an actor on purpose (copyFrom).
type actorState struct {
	// The fields are laid out for the per-frame loop (Advance, then ClampTo): it
	// reads and writes one run of adjacent cache lines, in order, and never the
	// out-of-line cold part, which only updates and the rarer algorithms touch.
	// Whatever depends only on an update is computed once, when it is applied
	// (prepareBlend), so that a frame is a few multiply-adds per component.

	// First cache line: flags and per-frame scalars.
	alg      Algorithm
	has      bool  // a state was received
	advanced bool  // lastNow is valid
	blending bool  // a blend is running (false after a snap)
	linear   bool  // Config.LinearBlend
	clamped  bool  // ClampTo ran since the last Advance
	limited  uint8 // bit i: articulation i has an AngleLimit
	fresh    bool  // an update was applied since the last Advance
	shedTurn bool  // the rotation blend sheds the displayed turn evenly (turnShed)
	collide  bool  // Config.Collide has obstacles
	onRoute  bool  // reckoned along the route (alg Path: the last update a Progress)
	low      bool  // ModeLow (SetMode)
	noSweep  bool  // the obstacle sweep is off in ModeHigh too (SetSweep)
	rHeld    bool  // the rotation is held back (rDelay > 0 or rCap finite): off the blend's common path
	lastNow  float64
	tt       float64 // Tt: time since the blend start, accumulated from frame deltas
	maxTime  float64 // Limits.MaxTime, copied here from the configuration
	lead     float64 // age of lk's projection at the blend start
	gLead    float64 // hz.terms(lead)'s g: the rotation already in qLead, per rad/s
	dtPos    float64 // ΔT for position
	dtVel    float64 // ΔT for the blended velocity Vb: dtPos before a catch-up stretched it
	dtRot    float64 // ΔT for orientation and articulations
	stop     float64 // age at which lk's projection comes to rest (horizon.stopAge), +Inf if never
	rDelay   float64 // how far the rotation is shown behind the position (Config.LagTurns), s; 0 for none
	gRLead   float64 // the rotation already in qLead, per rad/s: gLead, or its lagged or capped term

	lk State // last known state, validated and normalized

	hz horizon // how far projections extrapolate

	// Per-update constants of the blend.
	vl     mgl64.Vec3 // V'0: lk's velocity projected to the blend start
	p0, v0 mgl64.Vec3 // displayed position and velocity at the blend start
	brake  float64    // time the display sheds v0 over in a blend toward a stop (stopBlend), s; 0 if none
	qLead  mgl64.Quat // lk's orientation projected to the blend start
	wAxis  mgl64.Vec3 // unit axis of lk's angular velocity (zero when none)
	wRate  float64    // lk's angular speed, rad/s
	// r0 is the displayed orientation at the blend start, its sign chosen so that
	// r0·qLead ≥ 0: the blend from r0 to qLead takes the short way.
	r0 mgl64.Quat
	// Orientation blend factors from geom.SlerpFactors(r0·qLead): slK is the corrected
	// lerp's coefficient (1 − r0·qLead)/3, used when slOm is zero; otherwise slOm is
	// the arc between r0 and qLead in radians and slInv = 1/sin(slOm).
	slK, slOm, slInv float64
	art0             [MaxArticulations]float64 // displayed angles at the blend start

	rk  pose       // reckoned pose, before clamping
	vel mgl64.Vec3 // displayed instantaneous velocity

	clampFrame int
	clampDY    float64 // last vertical clamp offset, for intermittent clamping
	fall       Fall    // limits how fast ClampAlways lowers the actor
	clampCfg   Clamp
	clamp      ClampResult

	c *actorCold
	_ [8]byte // to a multiple of 64 bytes, so that page-aligned actors start on cache lines
}

// actorCold holds what an actor touches on updates or for some algorithms only, out
// of the way of the per-frame loop.
type actorCold struct {
	cfg       Config
	rCap      float64 // the most rotation shown past lk's orientation, per rad/s (Config.MaxTurnLead, MaxTurnExtrapolation); +Inf for none
	lkArrival float64 // local arrival time of lk
	// staleAfter is cfg.StaleAfter(), kept beside lkArrival so that Stale, which a
	// client asks of every actor every frame, reads one cache line of this part.
	staleAfter float64
	prevLK     State   // the update before lk (TwoPath)
	prevLead   float64 // age of prevLK's projection at the blend start
	bez        [4]mgl64.Vec3

	// Running average of intervals between applied updates.
	avg         float64
	avgBase     float64 // avg before this frame's updates
	prevArrival float64 // arrival of the last update applied in an earlier frame

	clockOffset float64 // owner clock minus local clock
	hasOffset   bool
	lat         float64    // latency compensated for lk, s (0 unless compensating)
	wShown      mgl64.Vec3 // the displayed angular velocity at the last update's arrival, rad/s
	gap         float64    // distance from the display to lk's projection at the blend start, m

	// Collision (Config.Collide): the blend's path is swept on a grid of sweepStep
	// from the blend start, so the shown pose is a function of the blend and its
	// time alone, however the frames step it (see collideShown).
	sweepK    int        // grid samples swept since the blend start
	sweepAt   mgl64.Vec3 // the hull's collided position at sample sweepK
	sweepPath mgl64.Vec3 // the unconstrained path's position at sample sweepK
	room      room       // where the hull touches no Walls (see room)

	// Path algorithm: the route and the progress along it.
	route routeState

	// Delayed algorithm.
	buf      *[delayedBufferLen]State // allocated by the first Delayed update
	bufN     int
	estOff   float64 // estimated owner-minus-local offset (includes latency)
	hasEst   bool
	corr     mgl64.Vec3 // position correction fading over ΔT after a late update
	corrLeft float64
}

// pose is what reckoning computes each frame; the rest of the displayed state comes
// from the last-known state.
type pose struct {
	pos mgl64.Vec3
	rot mgl64.Quat
	art [MaxArticulations]float64
}

// NewActor returns an actor reckoned as cfg says; zero fields of cfg take their
// defaults. It has no state until its first Receive or Break. A zero Actor is an
// actor with the default Config.
func NewActor(cfg Config) *Actor {
	a := &Actor{}
	a.init(cfg)
	return a
}

func (a *Actor) init(cfg Config) {
	c := a.c
	if c == nil {
		c = new(actorCold)
	} else {
		*c = actorCold{}
	}
	a.actorState = actorState{c: c}
	a.rk.rot = mgl64.QuatIdent()
	a.setConfig(cfg)
	c.avg = c.cfg.UpdateInterval
}

// setConfig installs cfg with defaults and its hot copies.
func (a *Actor) setConfig(cfg Config) {
	a.c.cfg = cfg.withDefaults()
	a.alg = a.c.cfg.Algorithm
	if a.alg == Path {
		// Off its route a Path actor is reckoned by projective velocity blending;
		// a.alg is Path only while it is on the route (ReceiveProgress).
		a.alg = ProjectiveVelocityBlend
	}
	a.maxTime = a.c.cfg.Limits.MaxTime
	a.c.staleAfter = a.c.cfg.StaleAfter()
	a.hz = newHorizon(&a.c.cfg)
	a.stop = a.hz.stopAge(a.lk.Velocity, a.lk.Acceleration)
	a.linear = a.c.cfg.LinearBlend
	a.clampCfg = a.c.cfg.Clamp
	a.collide = a.c.cfg.Collide.Obstacles != nil
	a.c.room = room{}
	a.limited = 0
	for i, l := range a.c.cfg.ArticulationLimits {
		if l.Limited() {
			a.limited |= 1 << i
		}
	}
}

// Config returns the actor's configuration with defaults filled in.
func (a *Actor) Config() Config {
	a.ready()
	return a.c.cfg
}

// ready initializes a zero Actor with the default configuration.
func (a *Actor) ready() {
	if a.c == nil {
		a.init(Config{})
	}
}

// SetConfig changes how the actor is reckoned, keeping its last-known and displayed
// state. A blend in progress restarts from what is displayed now, so switching
// algorithms does not jump.
func (a *Actor) SetConfig(cfg Config) {
	a.ready()
	old := a.alg
	a.setConfig(cfg)
	if a.onRoute && a.c.cfg.Algorithm == Path {
		a.alg = Path
		return // the route's blend goes on
	}
	a.onRoute, a.c.route.on = false, false
	if !a.has {
		return
	}
	if a.alg == TwoPath && old != TwoPath {
		// The previous path is what is shown now.
		a.c.prevLK = a.Reckoned()
		a.c.prevLK.Acceleration = mgl64.Vec3{}
		a.c.prevLead = 0
	}
	if a.alg == Delayed && old != Delayed {
		// Start the buffer from the last known state and fade from what is shown.
		shown := a.rk.pos
		a.delayedReceive(a.lk, a.c.lkArrival, true)
		a.c.corr = shown.Sub(a.delayedTarget(a.lastNow).Position)
		a.c.corrLeft = 1
	}
	a.restartBlend()
}

// SetClockOffset sets the owner's clock minus the local clock, in seconds, as a clock
// synchronization estimates it. CompensateLatency and the Delayed algorithm use it to
// convert State.Time to local time. Non-finite values are ignored.
func (a *Actor) SetClockOffset(offset float64) {
	a.ready()
	if geom.Finite(offset) {
		a.c.clockOffset = offset
		a.c.hasOffset = true
	}
}

// validate checks s against the actor's limits and returns it normalized (see
// Limits.Validate).
func (a *Actor) validate(s State) (State, error) { return a.c.cfg.Limits.validate(s) }

// Receive takes an update from the actor's owner that arrived at local time now. The
// next Advance blends from what is displayed toward it. The update is taken as valid
// at its arrival; with CompensateLatency (once SetClockOffset has been called) at its
// owner timestamp converted to local time, the latency capped at MaxLatency. Otherwise
// State.Time only orders updates. When several updates arrive in one frame the last
// one wins: each restarts the blend from the same displayed state. An update that holds
// the actor at rest where the last one left it (within 1 cm and 0.5°) does not restart
// the blend: it only renews the last-known state's time. An invalid state
// (ErrInvalidState) or one older than the last known (ErrOutOfOrder) is rejected and
// leaves the actor untouched.
func (a *Actor) Receive(s State, now float64) error {
	return a.apply(s, now, false)
}

// Break applies a continuity break (teleport, respawn): the update s, arrived at local
// time now, is shown at once, without a blend. Invalid input is rejected as by Receive.
func (a *Actor) Break(s State, now float64) error {
	return a.apply(s, now, true)
}

func (a *Actor) apply(s State, now float64, brk bool) error {
	a.ready()
	s, err := a.check(s, now, brk)
	if err != nil {
		return err
	}
	first := !a.has
	// A State ends path reckoning: the owner has left the route.
	wasRoute := a.onRoute
	if wasRoute {
		a.onRoute, a.c.route.on, a.alg = false, false, ProjectiveVelocityBlend
	}
	if !brk && !first && !wasRoute && a.alg != Delayed && a.confirms(&s) {
		a.countInterval(now)
		a.confirm(s.Time, now)
		return nil
	}
	if !a.advanced {
		a.lastNow = now
		a.advanced = true
	}
	t0 := a.lastNow // the blend starts at the last displayed frame
	a.countInterval(now)

	// The projection age of s at the blend start: s is valid at its arrival, or, when
	// compensating latency, at its owner timestamp converted to local time.
	lat := a.latency(s.Time, now)
	lead := t0 - (now - lat)
	a.c.lat = lat
	if a.alg == ProjectiveVelocityBlend && !first {
		a.c.wShown = a.shownTurn()
	}
	a.lagTurns(lat)
	gLead, _, _, _ := a.hz.terms(lead)
	a.setLastKnown(s, now, lead, gLead, brk)

	if a.alg == Delayed {
		a.delayedReceive(s, now, brk || first)
	}

	if brk || first || a.alg == Static || a.alg.IsDIS() {
		a.snap()
		return nil
	}
	// Continuity break when displayed and last known are too far apart.
	gp, kp, _, _ := a.hz.motion(lead, a.stop)
	pl := s.Position.Add(s.Velocity.Mul(gp)).Add(s.Acceleration.Mul(kp))
	d := a.rk.pos.Sub(pl)
	// An actor always clamped to the ground never shows its height: a collision's
	// lurch (15 m/s up or down in one update) reckoned on through a loss burst puts
	// the unclamped place tens of meters under or over the ground, and that gap
	// alone must not snap the shown hull, which a catch-up brings back.
	snapGap := d
	if a.clampCfg.Mode == ClampAlways {
		snapGap[1] = 0
	}
	if snapGap.Dot(snapGap) > a.c.cfg.SnapDistance*a.c.cfg.SnapDistance && a.alg != Delayed {
		a.c.prevLK, a.c.prevLead = s, lead
		a.snap()
		return nil
	}
	a.c.gap = d.Len()
	a.restartBlend()
	return nil
}

// latency returns how old an update stamped ownerTime (owner's clock) and arrived at
// local time now is, s: zero unless compensating latency, then capped at MaxLatency.
func (a *Actor) latency(ownerTime, now float64) float64 {
	if !a.c.cfg.CompensateLatency || !a.c.hasOffset {
		return 0
	}
	return math.Max(0, math.Min(now-(ownerTime-a.c.clockOffset), a.c.cfg.MaxLatency))
}

// confirm takes an update stamped ownerTime, arrived at now, that confirms the
// last-known state (see confirms): the actor rests where the last update left it, so
// the running blend goes on toward that place. Restarting it from the displayed
// motion (a catch-up after a stop dead) would carry the display past the place and
// back. Only the time changes: the pose stays the last update's, so that changes too
// small to confirm-reject cannot add up unseen, and the projection's age is counted
// from the new update.
func (a *Actor) confirm(ownerTime, now float64) {
	a.lk.Time = ownerTime
	a.c.lkArrival = now
	a.lead = (a.lastNow - a.tt) - (now - a.latency(ownerTime, now))
	a.gLead, _, _, _ = a.hz.terms(a.lead)
}

// Tolerances within which an update at rest confirms the last-known state.
const (
	confirmDistance = 0.01                // m
	confirmAngle    = 0.5 * math.Pi / 180 // rad
)

// confirms reports whether s and the last-known state both hold the actor at rest
// (no velocity, acceleration or rates) in the same pose, within confirmDistance and
// confirmAngle: s then changes nothing that is shown.
func (a *Actor) confirms(s *State) bool {
	lk := &a.lk
	if !atRest(lk) || !atRest(s) || lk.NumArticulations != s.NumArticulations {
		return false
	}
	if d := s.Position.Sub(lk.Position); d.Dot(d) > confirmDistance*confirmDistance {
		return false
	}
	if geom.UnitQuatAngle(s.Orientation, lk.Orientation) > confirmAngle {
		return false
	}
	for i := 0; i < s.NumArticulations; i++ {
		if math.Abs(geom.WrapAngle(s.Articulations[i].Angle-lk.Articulations[i].Angle)) > confirmAngle {
			return false
		}
	}
	return true
}

// atRest reports whether s has no velocity, acceleration, angular velocity or
// articulation rate.
func atRest(s *State) bool {
	var zero mgl64.Vec3
	if s.Velocity != zero || s.Acceleration != zero || s.AngularVelocity != zero {
		return false
	}
	for i := 0; i < s.NumArticulations; i++ {
		if s.Articulations[i].Rate != 0 {
			return false
		}
	}
	return true
}

// check validates update s arrived at local time now: a finite arrival time, valid
// values (normalised as validate does), and, unless it is a break, not older than
// the last known.
func (a *Actor) check(s State, now float64, brk bool) (State, error) {
	if !geom.Finite(now) || math.Abs(now) > a.maxTime {
		return s, fmt.Errorf("%w: arrival time %v", ErrInvalidState, now)
	}
	s, err := a.validate(s)
	if err != nil {
		return s, err
	}
	if a.has && s.Time < a.lk.Time && !brk {
		return s, fmt.Errorf("%w: time %v < %v", ErrOutOfOrder, s.Time, a.lk.Time)
	}
	return s, nil
}

// countInterval updates the running average of update intervals with an update
// arrived at now, counting one update per frame.
func (a *Actor) countInterval(now float64) {
	if !a.fresh {
		a.c.avgBase = a.c.avg
		if a.has {
			a.c.prevArrival = a.c.lkArrival
		}
	}
	if a.has {
		if d := now - a.c.prevArrival; d > 0 {
			a.c.avg = 0.5 * (d + a.c.avgBase)
		}
	}
	a.fresh = true
}

// setLastKnown makes s, arrived at now, the last-known state, projected by lead
// (gLead its velocity term) at the blend start, and keeps the previous one for the
// blend unless this is the first update or a break.
func (a *Actor) setLastKnown(s State, now, lead, gLead float64, brk bool) {
	if a.has && !brk {
		a.c.prevLK, a.c.prevLead = a.lk, a.lead+a.tt
	} else {
		a.c.prevLK, a.c.prevLead = s, lead
	}
	a.lk, a.c.lkArrival, a.lead, a.gLead = s, now, lead, gLead
	a.stop = a.hz.stopAge(s.Velocity, s.Acceleration)
	// Rotations about one axis compose, so R(ω, g(lead + Tt)) = R(ω, g(lead + Tt) −
	// g(lead))·R(ω, g(lead)): the last-known orientation at the blend start is
	// computed once here.
	a.wRate = s.AngularVelocity.Len()
	a.wAxis = mgl64.Vec3{}
	a.c.rCap = math.Inf(1)
	if a.wRate > 0 {
		a.wAxis = s.AngularVelocity.Mul(1 / a.wRate)
		if a.alg == ProjectiveVelocityBlend {
			if s.Velocity.Len() < a.c.cfg.MaxTurnLeadSpeed {
				a.c.rCap = a.c.cfg.MaxTurnLead / a.wRate
			}
			if h := a.c.cfg.MaxTurnExtrapolation; !math.IsInf(h, 1) {
				g, _, _, _ := a.hz.terms(h)
				a.c.rCap = math.Min(a.c.rCap, g)
			}
		}
	}
	a.rHeld = a.rDelay > 0 || !math.IsInf(a.c.rCap, 1)
	a.gRLead = a.rotationTerm(lead)
	a.qLead = geom.QuatUnit(geom.QuatMul(geom.RotationQuat(s.AngularVelocity, a.gRLead), s.Orientation))
	a.has = true
}

// turnEndLate is how much later than its latency the end of a turn is heard at the
// latest, s: its owner sees it a sample (a frame at 60 Hz) after it happened.
const turnEndLate = 1.0 / 60

// lagTurns sets how far the rotation is shown behind the position for an update of
// latency lat: with Config.LagTurns under ProjectiveVelocityBlend, the latency and
// turnEndLate; none otherwise. It depends on the update alone, so that a referee
// that rebuilds what a peer showed from the updates and their latencies rebuilds
// the rotation too.
func (a *Actor) lagTurns(lat float64) {
	a.rDelay = 0
	if a.c.cfg.LagTurns && a.alg == ProjectiveVelocityBlend && lat > 0 {
		a.rDelay = math.Max(0, lat+turnEndLate-a.c.cfg.LagTurnsLead)
	}
}

// rotationTerm returns how far the last-known rotation is projected at projection
// age age, per rad/s: the horizon's velocity term of the age, less rDelay (not below
// zero: a turn is never shown before it was told), at most rCap (MaxTurnLead,
// MaxTurnExtrapolation).
func (a *Actor) rotationTerm(age float64) float64 {
	if a.rDelay > 0 {
		age = math.Max(0, age-a.rDelay)
	}
	g, _, _, _ := a.hz.terms(age)
	return math.Min(g, a.c.rCap)
}

// snap makes the last-known projection the displayed state, with no blend.
func (a *Actor) snap() {
	a.blending = false
	a.tt = 0
	p := a.project(0)
	if a.alg == Static {
		p = a.lk
		p.Velocity = mgl64.Vec3{}
	}
	if a.alg.IsDIS() {
		p = ProjectDIS(a.alg, a.lk, a.lead)
	}
	if a.alg == ProjectiveVelocityBlend {
		// The orientation as the blend shows it: LagTurns and MaxTurnLead hold
		// back what project does not.
		p.Orientation = a.qLead
	}
	a.rk = pose{pos: p.Position, rot: p.Orientation}
	for i := range a.rk.art {
		a.rk.art[i] = p.Articulations[i].Angle
	}
	a.vel = p.Velocity
	a.clamped = false
	a.fall.Reset()
	a.p0, a.v0, a.r0 = p.Position, p.Velocity, p.Orientation
	for i := range a.art0 {
		a.art0[i] = p.Articulations[i].Angle
	}
	a.c.corr, a.c.corrLeft = mgl64.Vec3{}, 0
	a.c.gap = 0
	a.c.sweepK, a.c.sweepAt, a.c.sweepPath = 0, a.p0, a.p0
	a.setBlendTimes()
	a.prepareBlend()
}

// restartBlend starts a new blend at the last displayed frame from the displayed
// position, instantaneous velocity, orientation and articulations.
func (a *Actor) restartBlend() {
	a.blending = true
	a.tt = 0
	a.p0, a.v0, a.r0 = a.rk.pos, a.vel, a.rk.rot
	a.art0 = a.rk.art
	a.c.sweepK, a.c.sweepAt, a.c.sweepPath = 0, a.p0, a.p0
	a.setBlendTimes()
	a.prepareBlend()
	if a.alg == CubicBezier {
		a.setBezier()
	}
}

// prepareBlend computes the constants that the per-frame reckoning of a blend reads,
// once the last-known state, the blend start and the blend times are set, so that
// each frame is a few multiply-adds: the last-known velocity at the blend start, the
// short-path sign of the blend start orientation, and the orientation blend factors.
func (a *Actor) prepareBlend() {
	_, _, gv, hv := a.hz.motion(a.lead, a.stop)
	lk := &a.lk
	for i := 0; i < 3; i++ {
		a.vl[i] = lk.Velocity[i]*gv + lk.Acceleration[i]*hv
	}
	d := geom.QuatDot(a.r0, a.qLead)
	if d < 0 {
		d = -d
		a.r0 = mgl64.Quat{W: -a.r0.W, V: mgl64.Vec3{-a.r0.V[0], -a.r0.V[1], -a.r0.V[2]}}
	}
	a.slK, a.slOm, a.slInv = geom.SlerpFactors(d)
}

func (a *Actor) setBlendTimes() {
	dt := a.c.cfg.UpdateInterval
	if a.c.cfg.AverageIntervals {
		dt = a.c.avg
	}
	a.dtPos = math.Min(dt, a.c.cfg.MaxBlendTime)
	if a.c.lat > 0 {
		// A compensated update is projected latency seconds further than a plain
		// one, so its prediction errors at the onset and end of a manoeuvre, and the
		// corrections that fix them, are larger: spread the correction over the
		// update's whole age window, ΔT plus the latency.
		a.dtPos = math.Min(dt+a.c.lat, a.c.cfg.MaxBlendTime)
	}
	a.dtRot = math.Min(a.dtPos, a.c.cfg.MaxRotationBlendTime)
	if !math.IsInf(a.c.rCap, 1) && a.c.cfg.TurnBlendTime > 0 {
		// A turn the cap holds is projected no further for the latency, so its
		// correction does not grow with it: a fixed time, which a referee that
		// knows an older update's arrival only within the jitter rebuilds alike.
		a.dtRot = math.Min(a.c.cfg.TurnBlendTime, a.c.cfg.MaxRotationBlendTime)
	}
	a.dtVel = a.dtPos
	// A wide gap (after a loss burst) closes no faster than CatchUpSpeed on
	// average, so the correction is a visible catch-up instead of a pop. The
	// velocity still blends over the usual time: a display that ran on past a
	// stop it heard of late turns back within it, instead of carrying its old
	// speed on through a long catch-up.
	if t := a.c.gap / a.c.cfg.CatchUpSpeed; t > a.dtPos {
		a.dtPos = math.Min(t, a.c.cfg.MaxBlendTime)
	}
	a.brake = 0
	a.shedTurn = false
	if a.alg == ProjectiveVelocityBlend && a.blending {
		a.brake = a.stopBlend()
		if t := a.turnShed(); t > 0 {
			a.dtRot, a.shedTurn = t, true
		}
	}
}

// project returns the last-known state projected to tt seconds after the blend start:
// position with velocity and acceleration, orientation with angular velocity,
// articulations with their rates, all within the actor's horizon.
func (a *Actor) project(tt float64) State {
	return projectState(&a.lk, a.lead+tt, &a.hz)
}

// projectState returns s projected by age seconds within horizon hz; a braking s
// comes to rest (horizon.stopAge).
func projectState(s *State, age float64, hz *horizon) State {
	p := *s
	p.Time = s.Time + age
	g, _, _, _ := hz.terms(age)
	gp, h, gv, hv := hz.motion(age, hz.stopAge(s.Velocity, s.Acceleration))
	p.Position = s.Position.Add(s.Velocity.Mul(gp)).Add(s.Acceleration.Mul(h))
	p.Velocity = s.Velocity.Mul(gv).Add(s.Acceleration.Mul(hv))
	p.Orientation = geom.QuatNormalize(geom.QuatMul(geom.RotationQuat(s.AngularVelocity, g), s.Orientation))
	p.AngularVelocity = s.AngularVelocity.Mul(gv)
	for i := 0; i < s.NumArticulations; i++ {
		p.Articulations[i].Angle = geom.WrapAngle(s.Articulations[i].Angle + s.Articulations[i].Rate*g)
		p.Articulations[i].Rate = s.Articulations[i].Rate * gv
	}
	return p
}

// Advance reckons the actor to local time now, in seconds. Time that runs backwards is
// ignored, and so is a non-finite now or one beyond Limits.MaxTime. Advance does
// nothing before the first update. It does not allocate.
func (a *Actor) Advance(now float64) {
	if !a.has || !geom.Finite(now) || math.Abs(now) > a.maxTime {
		return
	}
	dt := now - a.lastNow
	if !(dt > 0) {
		dt = 0
	} else {
		a.lastNow = now
	}
	a.fresh = false
	a.tt += dt
	prev := a.rk.pos
	// reckonNow, written out: the blend is every common actor's per-frame path,
	// and a call level less is measurable at ten thousand actors (BenchmarkReckon).
	if a.alg == ProjectiveVelocityBlend {
		a.reckonBlend()
	} else {
		a.reckon()
	}
	if a.collide && !a.onRoute && !a.low && !a.noSweep {
		// A route keeps clear of obstacles its owner knows. ModeLow (and SetSweep
		// off) skips the obstacle sweep: a far tank grazing a rock is not seen, and
		// the sweep is most of a frame's cost. Back on, the sweep resumes from its
		// last sample and rejoins the path at the catch-up speed.
		a.collideShown(prev)
	}
	if dt > minFrameTime {
		k := 1 / dt
		v := mgl64.Vec3{(a.rk.pos[0] - prev[0]) * k, (a.rk.pos[1] - prev[1]) * k, (a.rk.pos[2] - prev[2]) * k}
		if v[0]*0+v[1]*0+v[2]*0 == 0 { // finite: x·0 is NaN for ±Inf and NaN
			a.vel = v
		}
	}
	a.clamped = false
}

// reckonArticulations blends each articulation from its displayed angle at the blend
// start, turned at the last-known rate for turn seconds, toward the last-known
// projection (turned for g seconds since the update) by thr.
func (a *Actor) reckonArticulations(turn, g, thr float64) {
	lk := &a.lk
	out := &a.rk
	if a.limited == 0 {
		// No joint has an AngleLimit (a tank's turret and gun wrap): the common
		// case, in a loop with nothing to keep across calls and one bounds check.
		blend := !(thr >= 1) && a.blending && !a.low // as the general loop decides, NaN included
		n := lk.NumArticulations
		arts, art0, shown := lk.Articulations[:n], a.art0[:n], out.art[:n]
		for i := range arts {
			rate := arts[i].Rate
			v := arts[i].Angle + rate*g
			if blend {
				cur := art0[i] + rate*turn
				v = cur + geom.WrapAngle(v-cur)*thr
			}
			shown[i] = geom.WrapAngle(v)
		}
		clear(out.art[n:])
		return
	}
	for i := 0; i < lk.NumArticulations; i++ {
		rate := lk.Articulations[i].Rate
		target := lk.Articulations[i].Angle + rate*g
		limited := a.limited&(1<<i) != 0
		var lim AngleLimit
		if limited {
			lim = a.c.cfg.ArticulationLimits[i]
			target = lim.near(target)
		}
		var v float64
		if thr >= 1 || !a.blending || a.low {
			v = target
		} else {
			cur := a.art0[i] + rate*turn
			if limited {
				cur = lim.near(cur)
				v = cur + (target-cur)*thr
			} else {
				v = cur + geom.WrapAngle(target-cur)*thr
			}
		}
		// showJoints, written out in the same loop: held within the limit or
		// wrapped into (−π, π].
		if limited {
			v = math.Max(lim.Min, math.Min(lim.Max, v))
		} else {
			v = geom.WrapAngle(v)
		}
		out.art[i] = v
	}
	for i := lk.NumArticulations; i < MaxArticulations; i++ {
		out.art[i] = 0
	}
}

// showJoints finishes the articulations of a.rk once their blended angles are in
// place: the first n held within their AngleLimits or wrapped into (−π, π], the
// rest zero.
func (a *Actor) showJoints(n int) {
	out := &a.rk
	for i := 0; i < n; i++ {
		if a.limited&(1<<i) != 0 {
			lim := &a.c.cfg.ArticulationLimits[i]
			out.art[i] = math.Max(lim.Min, math.Min(lim.Max, out.art[i]))
		} else {
			out.art[i] = geom.WrapAngle(out.art[i])
		}
	}
	for i := n; i < MaxArticulations; i++ {
		out.art[i] = 0
	}
}

// Reckoned returns the state to draw this frame: reckoned by the last Advance and
// clamped by ClampTo if it ran since. Velocity is the displayed instantaneous
// velocity; Acceleration, AngularVelocity and articulation rates are the ones the
// algorithm projects with (zero where it projects none); Time is the owner-clock
// instant shown. Before the first update it is a state at rest at the origin.
func (a *Actor) Reckoned() State {
	if !a.has {
		return NewState(mgl64.Vec3{})
	}
	lk := &a.lk
	s := State{
		Time:             lk.Time + a.lead + a.tt,
		Position:         a.rk.pos,
		Velocity:         a.vel,
		Orientation:      a.rk.rot,
		NumArticulations: lk.NumArticulations,
	}
	switch a.alg {
	case Static:
		s.Velocity = mgl64.Vec3{}
	case Linear, TwoPath:
		s.AngularVelocity = lk.AngularVelocity
	case Delayed:
		s.Time = a.renderTime(a.lastNow)
		s.AngularVelocity = lk.AngularVelocity
	default:
		s.Acceleration = lk.Acceleration
		s.AngularVelocity = lk.AngularVelocity
	}
	for i := 0; i < lk.NumArticulations; i++ {
		s.Articulations[i].Angle = a.rk.art[i]
		if a.alg != Static {
			s.Articulations[i].Rate = lk.Articulations[i].Rate
		}
	}
	if a.clamped {
		s.Position = a.clamp.Position
		s.Orientation = a.clamp.Orientation
	}
	return s
}

// lkVelocityNow returns the last-known state's projected velocity at the last
// Advance, m/s.
func (a *Actor) lkVelocityNow() mgl64.Vec3 { return a.lkVelocityAhead(0) }

// lkVelocityAhead returns the last-known state's projected velocity ahead seconds
// after the last Advance, m/s.
func (a *Actor) lkVelocityAhead(ahead float64) mgl64.Vec3 {
	_, _, gv, hv := a.hz.motion(a.lead+a.tt+ahead, a.stop)
	return a.lk.Velocity.Mul(gv).Add(a.lk.Acceleration.Mul(hv))
}

// LastKnown returns the last state received from the owner, normalized.
func (a *Actor) LastKnown() State { return a.lk }

// LastKnownProjected returns the last-known state projected to the last Advance's
// time with its velocity, acceleration, angular velocity and articulation rates: the
// "ghost" the displayed state converges to.
func (a *Actor) LastKnownProjected() State {
	if !a.has {
		return NewState(mgl64.Vec3{})
	}
	return a.project(a.tt)
}

// HasState reports whether the actor has received any update.
func (a *Actor) HasState() bool { return a.has }

// SinceUpdate returns the local time in seconds from the last accepted update's
// arrival to now, or +Inf before the first one.
func (a *Actor) SinceUpdate(now float64) float64 {
	if !a.has {
		return math.Inf(1)
	}
	return now - a.c.lkArrival
}

// Stale reports whether the actor has gone Config.StaleAfter seconds (StaleHeartbeats
// heartbeat periods) without an accepted update at local time now, or has never had
// one. Callers mark, fade or remove stale actors.
func (a *Actor) Stale(now float64) bool {
	return !a.has || now-a.c.lkArrival > a.c.staleAfter
}

// BlendProgress returns the position blend factor T̂ in [0, 1] at the last Advance:
// 0 just after an update, 1 once the display follows the last-known projection.
func (a *Actor) BlendProgress() float64 {
	if !a.blending || a.dtPos <= minBlendTime {
		return 1
	}
	return math.Min(1, a.tt/a.dtPos)
}

// BlendTime returns the current position blend time ΔT in seconds: the expected
// update interval or the running average of observed ones, capped by MaxBlendTime.
func (a *Actor) BlendTime() float64 { return a.dtPos }

// copyFrom makes a an exact copy of src that shares nothing with it: what src would
// show from now on, a shows as well. It allocates only when src has a Delayed buffer
// and a has none yet.
func (a *Actor) copyFrom(src *Actor) {
	a.ready()
	src.ready()
	c, buf := a.c, a.c.buf
	a.actorState = src.actorState
	a.c = c
	*c = *src.c
	c.buf = buf
	if src.c.buf != nil {
		if c.buf == nil {
			c.buf = new([delayedBufferLen]State)
		}
		*c.buf = *src.c.buf
	}
}

// frameState is what Advance changes in an Actor: the per-frame reckoning.
type frameState struct {
	lastNow, tt              float64
	advanced, fresh, clamped bool
	rk                       pose
	vel                      mgl64.Vec3
}

// frame returns the actor's per-frame state, for restoreFrame.
func (a *Actor) frame() frameState {
	return frameState{a.lastNow, a.tt, a.advanced, a.fresh, a.clamped, a.rk, a.vel}
}

// restoreFrame undoes the Advance calls since f was taken (the blend and the
// last-known state must not have changed in between).
func (a *Actor) restoreFrame(f *frameState) {
	a.lastNow, a.tt, a.advanced, a.fresh, a.clamped, a.rk, a.vel = f.lastNow, f.tt, f.advanced, f.fresh, f.clamped, f.rk, f.vel
}
