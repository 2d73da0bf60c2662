package deadreckon

import (
	"errors"
	"math"
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
	// in meters, beyond which an update is applied at once instead of blended.
	DefaultSnapDistance = 4.0
	// DefaultHeartbeat is the owner's full-update period in seconds.
	DefaultHeartbeat = 5.0
	// StaleMultiplier is how many heartbeats without any update make an actor stale
	// (DIS's timeout multiplier).
	StaleMultiplier = 2.4
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
	// Heartbeat is the owner's full-update period in seconds; if zero,
	// DefaultHeartbeat. The actor is stale after StaleMultiplier × Heartbeat without
	// updates.
	Heartbeat float64
	// CompensateLatency projects the last-known state from its owner's timestamp,
	// converted to local time with the offset given to SetClockOffset, instead of from
	// its arrival, so the display shows the present instead of the past. The blend
	// factor T̂ still runs on local arrival time. Because the projection reaches
	// further, each blend lasts ΔT plus the latency and acceleration is integrated
	// for at most 0.8 ΔT, which keeps its corrections as smooth as plain blending's.
	// Until SetClockOffset is called, updates are taken at their arrival.
	CompensateLatency bool
	// MaxLatency caps the latency compensated for, in seconds; if zero,
	// DefaultMaxLatency.
	MaxLatency float64
	// Clamp is the ground clamp applied by ClampTo.
	Clamp Clamp
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
