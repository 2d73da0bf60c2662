package deadreckon

import (
	"errors"
	"math"

	"github.com/treadline/treadline/internal/geom"
)

// Defaults for Config. A zero field in Config takes the matching default.
const (
	// DefaultUpdateInterval is the expected time between a remote actor's updates, in
	// seconds: three updates per second, the rate at which blended motion starts to
	// look good.
	DefaultUpdateInterval = 1.0 / 3
	// DefaultMaxBlendTime caps the position blend time ΔT, in seconds.
	DefaultMaxBlendTime = 4.0
	// DefaultMaxRotationBlendTime caps the orientation and articulation blend time, in
	// seconds.
	DefaultMaxRotationBlendTime = 2.0
	// DefaultSnapDistance is the gap between the displayed and the last-known position,
	// in meters, beyond which an update is applied at once instead of blended. It is
	// measured from the last-known state projected to the blend start. Measured in
	// drlab: at 150 ms with 10% loss, or 30% loss in bursts of 4, a 15 m/s tank that
	// stops dead, or one driving on through a burst, is 10–30 m off, and a 4 m or 10 m
	// snap pops by that much; blended at CatchUpSpeed it is a catch-up of under 1 m per
	// frame. Only a gap that would take two seconds to close snaps; teleports are sent
	// as breaks.
	DefaultSnapDistance = 60.0
	// DefaultCatchUpSpeed is the mean speed, m/s, at which a blend closes a wide gap
	// between the display and the last-known projection: a 15 m/s tank's own speed
	// plus as much again.
	DefaultCatchUpSpeed = 30.0
	// DefaultAccelerationHorizon is how long a projection integrates the last-known
	// acceleration, in seconds; past it the velocity reached is held. It is the same
	// for the owner's own reckoning and every remote, so the two model one motion.
	DefaultAccelerationHorizon = 0.5
	// DefaultMaxExtrapolation is the age of the last-known state, in seconds, beyond
	// which the projected velocity decays: longer than the game's 1 s heartbeat plus
	// one lost update, so a live actor is heard from within it even over a lossy link,
	// and a longer silence means it stopped or left.
	DefaultMaxExtrapolation = 2.5
	// DefaultExtrapolationDecay is the time constant of that decay, in seconds: a
	// silent actor coasts at most its speed times this far beyond MaxExtrapolation.
	DefaultExtrapolationDecay = 0.5
	// DefaultHeartbeat is the owner's full-update period in seconds.
	DefaultHeartbeat = 5.0
	// DefaultStaleHeartbeats is how many heartbeat periods without any update make an
	// actor stale: DIS's timeout multiplier, for its 5 s heartbeat over links that
	// seldom lose two in a row.
	DefaultStaleHeartbeats = 2.4
	// DefaultMaxLatency caps the one-way latency that timestamp compensation projects
	// over, in seconds.
	DefaultMaxLatency = 1.0
	// DefaultDelayIntervals is the Delayed algorithm's default delay, in update
	// intervals: two, so that one lost update does not run the buffer dry.
	DefaultDelayIntervals = 2.0

	// DefaultMaxPosition bounds |coordinate| of an accepted position, in meters.
	DefaultMaxPosition = 1e6
	// DefaultMaxSpeed bounds the length of an accepted velocity, in m/s.
	DefaultMaxSpeed = 1000.0
	// DefaultMaxAcceleration bounds the length of an accepted acceleration, in m/s².
	DefaultMaxAcceleration = 1000.0
	// DefaultMaxAngularSpeed bounds the length of an accepted angular velocity, in rad/s.
	DefaultMaxAngularSpeed = 100.0
	// DefaultMaxArticulationRate bounds |rate| of an accepted articulation, in rad/s.
	DefaultMaxArticulationRate = 100.0
	// DefaultMaxTime bounds |Time| of an accepted state, in seconds (about 31 years).
	DefaultMaxTime = 1e9
)

// ErrInvalidState is returned (wrapped) for a state with a non-finite or out-of-bounds
// field. The actor's state is left untouched; callers should count and drop it.
var ErrInvalidState = errors.New("invalid state")

// ErrOutOfOrder is returned (wrapped) for a state older than the last known one, as a
// reordered datagram delivers it. The actor's state is left untouched.
var ErrOutOfOrder = errors.New("state older than last known")

// Limits bounds the values an actor accepts. A state beyond any bound is rejected with
// ErrInvalidState. A zero field takes its default; a negative one disables that bound
// (non-finite values are always rejected).
type Limits struct {
	// MaxPosition bounds each |coordinate| in meters; if zero, DefaultMaxPosition.
	MaxPosition float64
	// MaxSpeed bounds |Velocity| in m/s; if zero, DefaultMaxSpeed.
	MaxSpeed float64
	// MaxAcceleration bounds |Acceleration| in m/s²; if zero, DefaultMaxAcceleration.
	MaxAcceleration float64
	// MaxAngularSpeed bounds |AngularVelocity| in rad/s; if zero, DefaultMaxAngularSpeed.
	MaxAngularSpeed float64
	// MaxArticulationRate bounds each articulation's |Rate| in rad/s; if zero,
	// DefaultMaxArticulationRate.
	MaxArticulationRate float64
	// MaxTime bounds |Time| in seconds; if zero, DefaultMaxTime.
	MaxTime float64
}

// AngleLimit restricts an articulation's displayed angle to [Min, Max] radians. It is in
// force only when Min < Max; the zero value means unlimited, and an unlimited joint
// wraps across ±π. A limited joint never wraps: it blends the plain difference, so it
// never swings through its forbidden range.
type AngleLimit struct {
	Min, Max float64
}

// Limited reports whether the limit is in force.
func (l AngleLimit) Limited() bool { return l.Min < l.Max }

// near returns angle a, in radians, moved by whole turns as close as it gets to the
// middle of the limit, so that a range across ±π, such as [150°, 210°], reads a
// wrapped 200° (−160°) as 200° instead of clamping it to 150°.
func (l AngleLimit) near(a float64) float64 {
	mid := 0.5 * (l.Min + l.Max)
	return mid + geom.WrapAngle(a-mid)
}

// Config says how one remote actor is reckoned. The zero value is ready: projective
// velocity blending at three updates per second, no ground clamp.
type Config struct {
	// Algorithm is the reckoning algorithm; the zero value is ProjectiveVelocityBlend.
	Algorithm Algorithm
	// UpdateInterval is the expected time between updates, ΔT, in seconds; if zero (or
	// not a positive finite number), DefaultUpdateInterval.
	UpdateInterval float64
	// AverageIntervals makes ΔT the running average avg = ½(Δ + avg) of the observed
	// intervals between applied updates, starting from UpdateInterval.
	AverageIntervals bool
	// MaxBlendTime caps the position blend time in seconds; if zero,
	// DefaultMaxBlendTime.
	MaxBlendTime float64
	// MaxRotationBlendTime caps the orientation and articulation blend time in seconds;
	// if zero, DefaultMaxRotationBlendTime. Angular velocity keeps being projected after
	// the blend ends.
	MaxRotationBlendTime float64
	// SnapDistance is the gap in meters between the displayed position and the
	// last-known projection beyond which an update is applied at once, as a continuity
	// break; if zero, DefaultSnapDistance; +Inf never snaps.
	SnapDistance float64
	// Delay is how far in the past the Delayed algorithm shows the actor, in seconds;
	// if zero, DefaultDelayIntervals × UpdateInterval. Other algorithms ignore it.
	Delay float64
	// Heartbeat is the owner's full-update period in seconds, the longest it goes
	// without publishing; if zero, DefaultHeartbeat.
	Heartbeat float64
	// StaleHeartbeats is how many heartbeat periods the actor may go without an update
	// before it is stale (see StaleAfter); if zero, DefaultStaleHeartbeats; +Inf never.
	// Over a link that loses a share p of its packets independently, a parked actor
	// (heard from once a heartbeat) is marked stale wrongly when n = ⌈StaleHeartbeats⌉
	// − 1 heartbeats in a row are lost, pⁿ of the time: choose it for the worst loss
	// the actor should be trusted over.
	StaleHeartbeats float64
	// AccelerationHorizon is how long projections integrate the last-known
	// acceleration, in seconds; past it the velocity reached is held (a braking
	// projection goes on to rest). If zero, DefaultAccelerationHorizon; +Inf
	// integrates it forever (the paper's ½A·T²).
	AccelerationHorizon float64
	// CatchUpSpeed bounds how fast a blend closes the gap it starts with, m/s: a
	// blend lasts at least gap/CatchUpSpeed (up to MaxBlendTime), so a wide gap after
	// a loss burst is closed as a quick catch-up, never a pop. If zero,
	// DefaultCatchUpSpeed; +Inf never stretches a blend.
	CatchUpSpeed float64
	// LinearBlend lerps the position by T̂ itself, as Murphy's paper does, instead of
	// by the smoothstep S(T̂) = T̂²(3 − 2T̂). The paper's lerp adds a velocity step of
	// (P'0 − P0)/ΔT at every update; the smoothstep keeps the displayed velocity
	// continuous. Projective velocity blending only.
	LinearBlend bool
	// MaxExtrapolation is the age of the last-known state in seconds beyond which its
	// velocity, angular velocity and articulation rates decay exponentially with time
	// constant ExtrapolationDecay, so a silent actor comes to rest instead of driving
	// on. If zero, DefaultMaxExtrapolation; +Inf never decays.
	MaxExtrapolation float64
	// ExtrapolationDecay is the time constant of that decay, s; if zero,
	// DefaultExtrapolationDecay.
	ExtrapolationDecay float64
	// CompensateLatency projects the last-known state from its owner's timestamp,
	// converted to local time with the offset given to SetClockOffset, instead of from
	// its arrival, so the display shows the present instead of the past. The blend
	// factor T̂ still runs on local arrival time. Because the projection reaches
	// further, each blend lasts ΔT plus the latency. Until SetClockOffset is called,
	// updates are taken at their arrival.
	CompensateLatency bool
	// MaxLatency caps the latency compensated for, in seconds; if zero,
	// DefaultMaxLatency.
	MaxLatency float64
	// Clamp is the ground clamp applied by ClampTo.
	Clamp Clamp
	// Collide keeps the reckoned hull out of the obstacles the receiver knows
	// (Advance applies it); the zero value keeps it out of none.
	Collide Collide
	// Limits bounds accepted input.
	Limits Limits
	// ArticulationLimits optionally restricts each articulation's displayed angle.
	ArticulationLimits [MaxArticulations]AngleLimit
}

// positiveOr returns v when it is a positive finite number and def otherwise.
func positiveOr(v, def float64) float64 {
	if v > 0 && !math.IsInf(v, 0) && !math.IsNaN(v) {
		return v
	}
	return def
}

// horizonOr returns v when it is positive (+Inf included) and def otherwise.
func horizonOr(v, def float64) float64 {
	if v > 0 {
		return v
	}
	return def
}

// StaleAfter returns how long an actor reckoned with c may go without an update before
// it is stale, in seconds: StaleHeartbeats × Heartbeat. A peer that removes silent
// actors should wait longer than this, so that they are shown stale first.
func (c Config) StaleAfter() float64 {
	return horizonOr(c.StaleHeartbeats, DefaultStaleHeartbeats) * positiveOr(c.Heartbeat, DefaultHeartbeat)
}

// boundOr returns the bound to use for a Limits field: def for zero or NaN, +Inf for a
// negative value (disabled), v otherwise.
func boundOr(v, def float64) float64 {
	switch {
	case v < 0:
		return math.Inf(1)
	case v > 0:
		return v
	default:
		return def
	}
}

// withDefaults returns c with every zero or nonsensical field replaced by its default.
func (c Config) withDefaults() Config {
	if c.Algorithm >= numAlgorithms {
		c.Algorithm = ProjectiveVelocityBlend
	}
	c.UpdateInterval = positiveOr(c.UpdateInterval, DefaultUpdateInterval)
	c.MaxBlendTime = positiveOr(c.MaxBlendTime, DefaultMaxBlendTime)
	c.MaxRotationBlendTime = positiveOr(c.MaxRotationBlendTime, DefaultMaxRotationBlendTime)
	if !(c.SnapDistance > 0) { // also NaN
		c.SnapDistance = DefaultSnapDistance
	}
	c.Delay = positiveOr(c.Delay, DefaultDelayIntervals*c.UpdateInterval)
	c.Heartbeat = positiveOr(c.Heartbeat, DefaultHeartbeat)
	c.StaleHeartbeats = horizonOr(c.StaleHeartbeats, DefaultStaleHeartbeats)
	c.CatchUpSpeed = horizonOr(c.CatchUpSpeed, DefaultCatchUpSpeed)
	c.AccelerationHorizon = horizonOr(c.AccelerationHorizon, DefaultAccelerationHorizon)
	c.MaxExtrapolation = horizonOr(c.MaxExtrapolation, DefaultMaxExtrapolation)
	c.ExtrapolationDecay = positiveOr(c.ExtrapolationDecay, DefaultExtrapolationDecay)
	c.MaxLatency = positiveOr(c.MaxLatency, DefaultMaxLatency)
	c.Clamp = c.Clamp.withDefaults()
	c.Limits = c.Limits.withDefaults()
	for i := range c.ArticulationLimits {
		al := &c.ArticulationLimits[i]
		if !(al.Min < al.Max) || math.IsInf(al.Min, 0) || math.IsInf(al.Max, 0) {
			*al = AngleLimit{}
		}
	}
	return c
}
