package deadreckon

import (
	"errors"
	"fmt"
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
	// break (measured across the ground, height left out, under ClampAlways); if zero,
	// DefaultSnapDistance; +Inf never snaps.
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
	// LagTurns, with CompensateLatency and ProjectiveVelocityBlend, shows the
	// rotation as of the last update's latency (and a frame) ago while the position
	// is shown as of now: a turn is shown turning on only as far as its owner had
	// turned when it told, so that the end of a turn, heard a latency late, is not
	// shown passed and swung back from (but by the difference of two updates'
	// latencies, the link's jitter). A turn starts and ends the latency late
	// instead.
	LagTurns bool
	// LagTurnsLead, with LagTurns, is how much of the latency the rotation is still
	// shown ahead by, s: the rotation is held back by the latency less this. If
	// zero, the default, or not a positive finite duration: no lead.
	LagTurnsLead float64
	// MaxTurnLead, under ProjectiveVelocityBlend, caps how far the shown rotation is
	// projected past the last-known orientation, in radians: a turn is shown turning
	// on at its last-known rate until it leads the last word by this angle, then
	// waits for the next. Told of a turn's end a latency late (or not at all, the
	// update lost), the display has gone at most this far past where the turn came
	// to rest, where an uncapped projection goes the latency's worth of turn past it
	// (5° at 35°/s and 150 ms) and on until the next update. A steady turn is shown
	// behind by its rate times the update's age less this angle instead. A publisher
	// reckoning with the cap publishes a steady turn as often as its orientation
	// error falls behind that far. If zero, the default, or Off: no cap.
	MaxTurnLead float64
	// MaxTurnLeadSpeed, with MaxTurnLead, is the speed, m/s, below which a state's
	// turn is capped: a turn in place, which a remote shows behind its truth without
	// pointing the hull off the way it drives. A state moving this fast or faster
	// is shown turning as it would be without the cap. If zero, the default, or Off:
	// every state's turn is capped.
	MaxTurnLeadSpeed float64
	// MaxTurnExtrapolation, under ProjectiveVelocityBlend, is how long past its
	// owner's timestamp, s, a state's angular velocity turns the shown orientation:
	// after that the shown turn waits for the next update. A turn whose end is lost
	// (every copy of it, with PublisherConfig.TurnEnd) runs on at most this long,
	// where it ran on until the next update (a heartbeat, a second later). A
	// publisher reckoning with it publishes a turn that goes on longer as its
	// orientation error grows past the threshold. If zero, the default, or Off: a
	// turn is extrapolated as long as the velocity is (MaxExtrapolation).
	MaxTurnExtrapolation float64
	// TurnBlendTime, with MaxTurnLead, is how long the orientation blends toward an
	// update whose turn the cap holds, s: a fixed time instead of ΔT plus the
	// update's latency, since the capped projection reaches no further with the
	// latency. Each such update corrects the display by the turn's rate times the
	// interval since the last; a time longer than that interval keeps the shown turn
	// moving between updates. If zero, the default: ΔT plus the latency, as other
	// blends.
	TurnBlendTime float64
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
	c.MaxTurnLead = positiveOr(c.MaxTurnLead, math.Inf(1))
	c.MaxTurnExtrapolation = positiveOr(c.MaxTurnExtrapolation, math.Inf(1))
	c.MaxTurnLeadSpeed = positiveOr(c.MaxTurnLeadSpeed, math.Inf(1))
	c.LagTurnsLead = positiveOr(c.LagTurnsLead, 0)
	c.TurnBlendTime = positiveOr(c.TurnBlendTime, 0)
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

// Publisher defaults, chosen for a tank game. A zero field in PublisherConfig takes the
// matching default.
//
// The two anchors disagree by two orders of magnitude: DIS (military simulation over
// wide-area links) publishes on 1 m or 3° of error with a 5 s (±10%) heartbeat;
// Delta3D (the reference engine of the projective-velocity-blending work) on 0.02 m or
// 1°, at most 5 updates per second, with a 10 s heartbeat. A 6.9 m tank is aimed at
// across a few hundred meters: DIS's 1 m is a quarter of its width, a visible miss,
// while Delta3D's 2 cm is below track jitter and makes every bump an update. The
// defaults sit between: 0.25 m (under 4% of the hull, just below NetZ's 5–10%-of-size
// starting point, because tanks are aimed at) and 2° for the hull; 1° for turret and gun, because a degree of gun error is
// 1.7 m at 100 m; at most 5 updates per second as Delta3D, since three per second
// already blends well; DIS's 5 s heartbeat with ±10% stagger, so a silent tank is
// stale after 2.4 × 5 = 12 s; and a tolerance that grows by 5 mm per meter of observer
// distance up to 2 m, because far tanks are a few pixels.
const (
	// DefaultPositionThreshold is the position error that triggers an update, meters.
	DefaultPositionThreshold = 0.25
	// DefaultOrientationThreshold is the orientation error (quaternion angle) that
	// triggers an update, radians (2°).
	DefaultOrientationThreshold = 2 * math.Pi / 180
	// DefaultArticulationThreshold is the articulation angle error that triggers an
	// update, radians (1°).
	DefaultArticulationThreshold = 1 * math.Pi / 180
	// DefaultMinInterval is the shortest time between updates, seconds (5 per second).
	DefaultMinInterval = 0.2
	// DefaultPublishHeartbeat is the longest time between full updates, seconds.
	DefaultPublishHeartbeat = DefaultHeartbeat
	// DefaultHeartbeatJitter is the heartbeat's random stagger as a fraction (±10%).
	DefaultHeartbeatJitter = 0.1
	// DefaultToleranceLinear is how much the position threshold grows per meter of
	// observer distance (meters per meter).
	DefaultToleranceLinear = 0.005
	// DefaultMaxTolerance caps the distance-grown position threshold, meters.
	DefaultMaxTolerance = 2.0
	// DefaultTinySpeed is the speed below which published velocity is zero, m/s.
	DefaultTinySpeed = 0.02
	// DefaultTinyAcceleration is the acceleration below which published acceleration
	// is zero, m/s².
	DefaultTinyAcceleration = 0.1
	// DefaultAccelerationCap bounds the length of a published acceleration, m/s²: a
	// few times what a vehicle's engine or brakes give, so a manoeuvre's acceleration
	// is sent whole while a collision's one-frame spike is not projected into a pop.
	DefaultAccelerationCap = 40.0
	// DefaultRepeatChange is the unforeseen change of velocity, m/s, beyond which an
	// update is followed by another one MinInterval later (see
	// PublisherConfig.RepeatChange).
	DefaultRepeatChange = 3.0
	// DefaultTinyAngularSpeed is the angular speed (and articulation rate) below which
	// the published value is zero, rad/s.
	DefaultTinyAngularSpeed = 0.002
	// DefaultStartSpeed is the speed above which an actor last published at rest has
	// started, m/s: five times DefaultTinySpeed, and half the 0.2 m/s at which a
	// watcher sees a tank move, so the start is on its way before it shows.
	DefaultStartSpeed = 0.1
	// heartbeatSync is the fraction of the heartbeat before it is due within which a
	// threshold update is sent as a full one, keeping heartbeats in step with updates.
	heartbeatSync = 0.1
)

// Off turns off the PublisherConfig features whose fields say they may be Off: the
// distance-grown tolerance, the heartbeat's stagger, the acceleration cap, repeats,
// urgent updates, loss repair, hurried starts, starts seen by speed, the ends of
// slow turns, a gentle start's late copy, a start's debt and the budget.
// Zero never means off: a zero field takes its default.
const Off = -1

// Limits of PublisherConfig fields.
const (
	// MaxHeartbeatJitter is the largest HeartbeatJitter, a fraction of Heartbeat.
	MaxHeartbeatJitter = 0.9
	// MaxVelocityFrames is the largest VelocityFrames.
	MaxVelocityFrames = 3
)

// ErrInvalidConfig is returned (wrapped) by PublisherConfig.Validate for a field out
// of its range.
var ErrInvalidConfig = errors.New("invalid config")

// PublisherConfig says when a locally owned actor publishes. Every field's zero value
// means its default, so the zero value is ready and uses the defaults above; Off
// turns off the features that say they may be Off. Validate reports a field out of
// its range.
type PublisherConfig struct {
	// Reckon is how remote peers reckon this actor; the publisher reckons its own last
	// published state the same way, with no latency, to measure their error. Use the
	// algorithm whose error should trigger updates: with Delayed, remotes show the
	// past by design and the error never falls below the threshold.
	Reckon Config
	// PositionThreshold is the position error that triggers an update at zero observer
	// distance, meters; if zero, DefaultPositionThreshold.
	PositionThreshold float64
	// ToleranceLinear and ToleranceQuadratic grow the position threshold with the
	// observer distance d: threshold + linear·d + quadratic·d², capped at MaxTolerance.
	// If ToleranceLinear is zero, DefaultToleranceLinear (meters per meter); if
	// ToleranceQuadratic is zero, none (per meter). Off grows by neither term.
	ToleranceLinear, ToleranceQuadratic float64
	// MaxTolerance caps the grown position threshold, meters; if zero,
	// DefaultMaxTolerance.
	MaxTolerance float64
	// OrientationThreshold is the orientation error, the angle of the rotation between
	// the sampled and the reckoned orientation, that triggers an update, radians; if
	// zero, DefaultOrientationThreshold.
	OrientationThreshold float64
	// ArticulationThreshold is the articulation angle error that triggers an update,
	// radians; if zero, DefaultArticulationThreshold.
	ArticulationThreshold float64
	// MinInterval is the shortest time between updates, seconds; if zero,
	// DefaultMinInterval. Continuity breaks ignore it, and so do urgent updates (see
	// UrgentChange).
	MinInterval float64
	// Heartbeat is the longest time between full updates, seconds; if zero,
	// DefaultPublishHeartbeat.
	Heartbeat float64
	// HeartbeatJitter is the random stagger of each heartbeat period as a fraction of
	// Heartbeat, at most MaxHeartbeatJitter; if zero, DefaultHeartbeatJitter; Off
	// staggers none.
	HeartbeatJitter float64
	// HeartbeatCopy is how long after a heartbeat that follows half a period or more
	// of silence, seconds, it is sent again: Update returns FullUpdate with the
	// heartbeat's State, time and all, unless another update has gone out
	// meanwhile (it carries newer news). A heartbeat is all a parked or steadily
	// cruising actor sends for a whole Heartbeat, and its
	// loss leaves every peer (and a host that rations what it relays) holding a
	// state a period older; with a copy, a state grows that old only when both are
	// lost (one heartbeat in a hundred at 10% loss, rather than one in ten). A peer
	// that has the heartbeat holds the copy's state already; the copy changes
	// nothing else the publisher decides, but that it draws a token from Budget. If
	// zero, the default, Off: heartbeats go once.
	HeartbeatCopy float64
	// VelocityFrames is how many frames the published velocity averages over, 1 to
	// MaxVelocityFrames; if zero, 1: the instantaneous velocity between the last two
	// samples.
	VelocityFrames int
	// NoAcceleration publishes zero acceleration, for actors whose acceleration is
	// too spiky to help.
	NoAcceleration bool
	// AccelerationCap bounds the length of the published acceleration, m/s²; if zero,
	// DefaultAccelerationCap; Off does not cap. One measured beyond twice the cap is
	// the spike of an impact (a stop dead, a bounce), which no engine sustains: it is
	// published as zero, instead of capped and projected for the horizon in the
	// impulse's direction.
	AccelerationCap float64
	// RepeatChange is how far, in m/s, an update's velocity may differ from the one
	// the last update projected (a manoeuvre remotes could not foresee: a stop dead,
	// a collision) before it is followed by another one MinInterval later. The
	// publisher cannot know that an update was lost, and once a stopped tank's
	// update is out its own reckoning agrees with the truth, so a lost one would leave
	// remotes driving on until the next heartbeat; the repeat bounds that to one
	// interval for the updates that matter. If zero, DefaultRepeatChange; Off never
	// repeats.
	RepeatChange float64
	// UrgentChange is how far, in m/s, the actor's velocity may depart from the
	// velocity its last update projects before an update goes out at once, without
	// waiting for MinInterval: a stop dead against an obstacle, whose every frame of
	// delay remotes show as distance driven on. Early updates draw on a budget of
	// urgentBurst that refills by one per MinInterval, so velocity noise cannot flood:
	// at most twice the MinInterval rate, in bursts of urgentBurst more. If zero, the
	// default, Off: updates never hurry.
	UrgentChange float64
	// LostThreshold is the position error, m, that triggers an update when a peer
	// that lost the last update would show it: the publisher also reckons the update
	// before the last one, as such a peer does, and publishes again (after
	// MinInterval) once that drifts this far from the sample. The publisher cannot
	// know which updates were lost; this bounds how long a lost one goes unrepaired
	// by how fast the actor departs from the update before it, not by the heartbeat.
	// If zero, the default, Off: the publisher never publishes for it.
	LostThreshold float64
	// LostOrientationThreshold is the orientation error, rad, that triggers an
	// update when a peer that lost the last update reckons from the one before it
	// (as LostThreshold does for the position): a turn that eased off in an update
	// that was lost is repaired within an interval or two, where a peer went on
	// turning at the old rate past where the turn came to rest until the next update.
	// A turn's end (TurnEnd) is not repaired so: its copies stand in for it. If zero,
	// the default, Off: no repair of the orientation.
	LostOrientationThreshold float64
	// DampAcceleration scales the published acceleration by the cosine between its
	// direction and the last published one (zero when they disagree by more than
	// 90°), the optional damping of Murphy's "Publish or Perish". It calms a zigzag
	// but zeroes the first acceleration of every manoeuvre that starts from cruise.
	DampAcceleration bool
	// StartSpeed is the speed, m/s, above which an actor whose last update held it at
	// rest has started: the start goes out at once, even within MinInterval and
	// without drawing on the urgent updates' allowance (a standing actor has banked
	// its budget), and startFollowUps more copies follow a frame apart, so that lost
	// updates do not hold the start back by an interval. Stops and brakes to rest are
	// followed up too (stopFollowUps copies). Starts are what a watcher notices
	// first, and from rest the position error grows too slowly to trip a threshold
	// soon. A pull-away from a crawl that remotes show (slower than five times
	// StartSpeed, speeding up 0.3 m/s² more than the last update said, also while
	// remotes show it faster than it moves) is published as a start. If zero, DefaultStartSpeed; Off never hurries: a start is published when
	// its error passes the thresholds, like any other change, and nothing is
	// followed up.
	StartSpeed float64
	// BrakeOnset is how far, in m/s², the acceleration along the actor's velocity may
	// fall below the last update's (along that update's velocity) before the change
	// goes out at once: a brake, a harder brake than the last update projects (a
	// coast that ends in a brake), or the end of a burst of throttle. It goes out,
	// even within MinInterval (from the urgent updates' allowance), once the measured
	// acceleration has settled (brakeSettled); an update that brakes the actor to rest
	// harder than the last by this much, whatever sent it, is copied as a stop is. A
	// tank that brakes from
	// walking pace is at rest within half a second, about as long as its braking
	// takes to trip a position threshold; every frame of that wait a remote shows
	// as distance driven past the stop. A steady turn's sideways acceleration,
	// measured along each velocity, changes nothing. If zero, the default, Off: the
	// change is published when its error passes the thresholds, like any other.
	BrakeOnset float64
	// TurnEnd is how far, in rad/s, the measured angular speed about the last
	// update's axis of rotation may fall below that update's before the end of the
	// turn goes out at once (even within MinInterval), copied as a stop is. Neither
	// the end nor its copies draw on the urgent updates' allowance (one turn, one
	// end): drawn on, it had none left for the copies of a braking onset a few tenths
	// of a second later, and a peer that lost the onset showed the tank driving on
	// past its stop. Until the turn has come to rest, every update
	// publishes no angular velocity and the orientation the turn comes to rest at,
	// from the measured angular deceleration (at most turnEndReach seconds of the
	// present rate ahead), so that remotes turn the actor to rest there and no
	// further: a remote that extrapolates the turn until it hears of its end shows it
	// turning past the rest by the latency's worth and swinging back. If zero, the
	// default, Off: the end of a turn is published when its error passes the
	// orientation threshold, like any other change.
	TurnEnd float64
	// TurnEndShare, with TurnEnd, is the share of the last update's angular speed
	// (0 to 1) by which the measured rate may fall, when that is less than TurnEnd,
	// before the end of the turn goes out; and a turn slowing at turnEndGentle
	// (0.1 rad/s²) or more ends, where without it only one slowing at 0.3 rad/s² or
	// more does. A slow turn that eases off over a second (a tank slowing for a
	// waypoint: 0.2 rad/s falling at 0.15 rad/s²) falls short of both without it,
	// and a remote turns on at the last update's rate past the rest until the
	// orientation threshold trips. If zero, the default, or Off: TurnEnd alone.
	TurnEndShare float64
	// GentleStartCopy is how long after a gentle start, s, one copy more of it goes:
	// a start (from rest, or a pull-away from a crawl) whose actor still speeds up by
	// less than gentleAccel (3 m/s²) along its way then sends, after its
	// startFollowUps copies a frame apart, one more this long after the start. A
	// link's losses come in runs counted in updates, not in time: a run that takes a
	// start and its copies a frame apart would take them all however many there
	// were, and a gentle start is left to the position and loss thresholds, which
	// trip late (a start at 0.5 m/s² drifts 0.25 m from a standing remote in a
	// second). Spaced out, the late copy meets other draws. A harder start leaves
	// the thresholds within about 0.15 s by itself, and is sent no late copy. The
	// copy draws on the budget as the start's others do, and is dropped when the
	// budget has no token for it or another event (a stop) has taken the start's
	// place. If zero, the default, Off: a start goes with its startFollowUps copies
	// alone.
	GentleStartCopy float64
	// SeenSpeed is the speed, m/s, at which a watcher sees a tank move: an actor
	// that remotes show slower than SeenSpeed along its way, that moves faster than
	// SeenSpeed and speeds up, is published at once and copied as a start (even
	// within MinInterval, as StartSpeed's starts are). A creep that eases up through
	// it (0.17 m/s to 0.3 m/s at 0.1–0.3 m/s²) is neither a start from rest nor a
	// pull-away, and its position error reaches the position threshold 0.5 s or more
	// into it: remotes went on showing a creep while it drove off. If zero, the
	// default, Off: such a change is published when its error passes the thresholds.
	SeenSpeed float64
	// StartDebt is how many updates, beyond an empty budget, a start and its copies
	// (StartSpeed, SeenSpeed, GentleStartCopy) may borrow: they go out with the
	// budget run as far as StartDebt tokens into debt, repaid by its refill (the
	// thresholds stay stretched meanwhile), instead of waiting for a token, once the
	// actor moves faster than StartSpeed (an update that holds it still but
	// accelerates it is a start begun again at every frame until then). A tank
	// that sets off within a fraction of a second of a stop has spent its budget on
	// the stop; its start went alone, its copies were dropped, and when the start
	// was lost the stretched loss threshold held the next update back 0.6–0.75 s.
	// Until the debt is repaid, the urgent updates after the start (a stop, a
	// braking onset, a turn's end) may go as deep into it: waiting for the start's
	// debt, a stop showed a gentle drive's tank 0.49 m past it at 150 ms (0.10 m
	// without the debt). If
	// zero, the default, Off: a start and its copies wait for a token, and a copy
	// that finds none in its frame is dropped.
	StartDebt float64
	// Budget is how many updates per second the actor may send on average: a token
	// bucket, which every update draws on, that starts with two seconds' worth and
	// banks up to five while the actor needs few updates (standing, cruising
	// straight), for the turns that follow.
	// Heartbeats, breaks and requested full updates always go (the bucket may run a
	// token into debt); any other update waits for a token, and as the bucket runs
	// below one second's worth the position, orientation, articulation and loss-repair
	// thresholds grow (up to budgetStretch times), so the updates left go to the
	// largest errors. A tank is then held to its budget on any path it drives,
	// instead of spending what its driving asks for. If zero, 2/MinInterval: twice
	// the rate MinInterval allows, the most UrgentChange lets through, so that only a
	// flood of urgent updates feels it; Off keeps none: the updates the thresholds
	// ask for go out, at most one per MinInterval but for urgent ones.
	Budget float64
	// TinySpeed, TinyAcceleration and TinyAngularSpeed are the magnitudes below which
	// published velocity, acceleration, angular velocity and articulation rates are
	// zero; if zero, the Default values.
	TinySpeed, TinyAcceleration, TinyAngularSpeed float64
}

// Validate reports the first field of c that is neither zero (its default), nor Off
// where the field allows it, nor a finite value in its range (positive, and at most
// MaxHeartbeatJitter, MaxVelocityFrames and 1 for those two and TurnEndShare), as an
// error wrapping ErrInvalidConfig. It does not check c.Reckon, whose fields take their defaults.
func (c PublisherConfig) Validate() error {
	for _, f := range []struct {
		name  string
		v     float64
		offOK bool
		max   float64
	}{
		{name: "position threshold", v: c.PositionThreshold},
		{name: "linear tolerance", v: c.ToleranceLinear, offOK: true},
		{name: "quadratic tolerance", v: c.ToleranceQuadratic, offOK: true},
		{name: "maximum tolerance", v: c.MaxTolerance},
		{name: "orientation threshold", v: c.OrientationThreshold},
		{name: "articulation threshold", v: c.ArticulationThreshold},
		{name: "minimum interval", v: c.MinInterval},
		{name: "heartbeat", v: c.Heartbeat},
		{name: "heartbeat jitter", v: c.HeartbeatJitter, offOK: true, max: MaxHeartbeatJitter},
		{name: "heartbeat copy", v: c.HeartbeatCopy, offOK: true},
		{name: "acceleration cap", v: c.AccelerationCap, offOK: true},
		{name: "repeat change", v: c.RepeatChange, offOK: true},
		{name: "urgent change", v: c.UrgentChange, offOK: true},
		{name: "lost threshold", v: c.LostThreshold, offOK: true},
		{name: "lost orientation threshold", v: c.LostOrientationThreshold, offOK: true},
		{name: "start speed", v: c.StartSpeed, offOK: true},
		{name: "brake onset", v: c.BrakeOnset, offOK: true},
		{name: "turn end", v: c.TurnEnd, offOK: true},
		{name: "turn end share", v: c.TurnEndShare, offOK: true, max: 1},
		{name: "gentle start copy", v: c.GentleStartCopy, offOK: true},
		{name: "seen speed", v: c.SeenSpeed, offOK: true},
		{name: "start debt", v: c.StartDebt, offOK: true},
		{name: "budget", v: c.Budget, offOK: true},
		{name: "tiny speed", v: c.TinySpeed},
		{name: "tiny acceleration", v: c.TinyAcceleration},
		{name: "tiny angular speed", v: c.TinyAngularSpeed},
	} {
		if f.max == 0 {
			f.max = math.MaxFloat64 // finite: +Inf is not a setting, Off is
		}
		if f.v == 0 || f.offOK && f.v == Off || f.v > 0 && f.v <= f.max {
			continue
		}
		want := "zero or positive and finite"
		if f.offOK {
			want = "zero, Off or positive and finite"
		}
		if f.max != math.MaxFloat64 {
			want += fmt.Sprintf(" up to %g", f.max)
		}
		return fmt.Errorf("%w: publisher %s %v: want %s", ErrInvalidConfig, f.name, f.v, want)
	}
	if c.VelocityFrames < 0 || c.VelocityFrames > MaxVelocityFrames {
		return fmt.Errorf("%w: publisher velocity frames %d: want 0 to %d", ErrInvalidConfig, c.VelocityFrames, MaxVelocityFrames)
	}
	return nil
}

// withDefaults returns valid c with every zero field replaced by its default, Off
// included where Off is the default: the configuration Publisher.Config reports.
func (c PublisherConfig) withDefaults() PublisherConfig {
	c.Reckon = c.Reckon.withDefaults()
	for _, f := range []struct {
		v   *float64
		def float64
	}{
		{&c.PositionThreshold, DefaultPositionThreshold},
		{&c.ToleranceLinear, DefaultToleranceLinear},
		{&c.ToleranceQuadratic, Off},
		{&c.MaxTolerance, DefaultMaxTolerance},
		{&c.OrientationThreshold, DefaultOrientationThreshold},
		{&c.ArticulationThreshold, DefaultArticulationThreshold},
		{&c.MinInterval, DefaultMinInterval},
		{&c.Heartbeat, DefaultPublishHeartbeat},
		{&c.HeartbeatJitter, DefaultHeartbeatJitter},
		{&c.HeartbeatCopy, Off},
		{&c.AccelerationCap, DefaultAccelerationCap},
		{&c.RepeatChange, DefaultRepeatChange},
		{&c.UrgentChange, Off},
		{&c.LostThreshold, Off},
		{&c.LostOrientationThreshold, Off},
		{&c.StartSpeed, DefaultStartSpeed},
		{&c.BrakeOnset, Off},
		{&c.TurnEnd, Off},
		{&c.TurnEndShare, Off},
		{&c.GentleStartCopy, Off},
		{&c.SeenSpeed, Off},
		{&c.StartDebt, Off},
		{&c.TinySpeed, DefaultTinySpeed},
		{&c.TinyAcceleration, DefaultTinyAcceleration},
		{&c.TinyAngularSpeed, DefaultTinyAngularSpeed},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
	}
	if c.VelocityFrames == 0 {
		c.VelocityFrames = 1
	}
	if c.Budget == 0 {
		c.Budget = 2 / c.MinInterval // twice what MinInterval, now filled in, allows
	}
	return c
}

// effective returns c, with its defaults filled in, in the form the publisher
// computes with: a term that is Off adds zero, a limit that is Off is +Inf.
func (c PublisherConfig) effective() PublisherConfig {
	for _, f := range []struct {
		v   *float64
		off float64
	}{
		{&c.ToleranceLinear, 0},
		{&c.ToleranceQuadratic, 0},
		{&c.HeartbeatJitter, 0},
		{&c.HeartbeatCopy, math.Inf(1)},
		{&c.AccelerationCap, math.Inf(1)},
		{&c.RepeatChange, math.Inf(1)},
		{&c.UrgentChange, math.Inf(1)},
		{&c.LostThreshold, math.Inf(1)},
		{&c.LostOrientationThreshold, math.Inf(1)},
		{&c.StartSpeed, math.Inf(1)},
		{&c.BrakeOnset, math.Inf(1)},
		{&c.TurnEnd, math.Inf(1)},
		{&c.TurnEndShare, 0},
		{&c.GentleStartCopy, math.Inf(1)},
		{&c.SeenSpeed, math.Inf(1)},
		{&c.StartDebt, 0},
		{&c.Budget, math.Inf(1)},
	} {
		if *f.v == Off {
			*f.v = f.off
		}
	}
	return c
}
