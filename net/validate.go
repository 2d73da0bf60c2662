package net

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/wire"
)

// quantSlack is the length of a vector of half-steps on three axes, in steps.
const quantSlack = 0.8660254037844386 // √3 / 2

// stateLimits returns the bounds the host checks a state's values against, in the one
// validator of package deadreckon: the host's tank-like limits, each widened by what
// the wire's quantization may add (a value at the limit may come back a hair above
// it). Position and time are checked against the match (validateState), not here.
func (l *Limits) stateLimits() deadreckon.Limits {
	return deadreckon.Limits{
		MaxPosition:         -1,
		MaxSpeed:            l.MaxSpeed + quantSlack*wire.VelocityStep,
		MaxAcceleration:     l.MaxAcceleration + quantSlack*wire.AccelerationStep,
		MaxAngularSpeed:     l.MaxTurnRate + quantSlack*wire.AngularVelocityStep,
		MaxArticulationRate: l.MaxArticulationRate + wire.ArticulationRateStep,
		MaxTime:             -1,
	}
}

// validateState checks one state on its own and normalizes it: its values by
// deadreckon's validator with the host's limits (stateLimits), then the match's rules:
// the position inside the map and a timestamp near the host's clock hostNow. Every
// failure wraps deadreckon.ErrInvalidState.
func validateState(s *deadreckon.State, m MatchSettings, l *Limits, hostNow float64) error {
	v, err := l.stateLimits().Validate(*s)
	if err != nil {
		return err
	}
	p := v.Position
	if math.Abs(p[0]) > m.Extent || math.Abs(p[2]) > m.Extent || math.Abs(p[1]) > l.HeightRange {
		return fmt.Errorf("%w: position %.1f outside the map", deadreckon.ErrInvalidState, p)
	}
	if d := v.Time - hostNow; math.Abs(d) > l.TimeSlack.Seconds() {
		return fmt.Errorf("%w: timestamp %.3f s from host clock", deadreckon.ErrInvalidState, d)
	}
	*s = v
	return nil
}

// anchor is where and when the host last pinned an actor down, for the plausibility
// check of the updates that follow. Times are host receive times, which a client
// cannot forge, so a client cannot buy distance by lying about its timestamps.
type anchor struct {
	pos    mgl64.Vec3
	orient mgl64.Quat
	at     float64 // host receive time, s
	stamp  float64 // the owner's timestamp of the last accepted update, s
	speed  float64 // speed at the anchor, m/s, for the reach after silence
}

// anchorPeriod is how often, in seconds, an actor's anchor moves to its latest
// accepted update. The slack is granted once per anchor, not once per update, so a
// stream of small jumps cannot add up to a teleport.
const anchorPeriod = 1.0

// arrivalJitter is how much longer than the time between their arrivals two updates
// may be apart on the owner's clock, s: updates sent frames apart may arrive together
// (an honest bot's update was refused as "turned 0.68 rad in 0.034 s": a collision's
// spin, its updates bunched on arrival). It widens the turn budget by 0.3 rad at the
// default turn rate.
const arrivalJitter = 0.1

// maxStampRegress is how far in seconds an owner's timestamps may run backwards
// between updates (a clock-sync correction) before the update is refused.
const maxStampRegress = 0.3

// validateStep checks that next, arriving at host time now, follows plausibly from
// the actor's anchor: the travel (maxTravel: top speed, or after silence what the
// tank can reach from its anchored speed) and rotation since the anchor fit the
// limits over the time since it arrived (the rotation by its heading alone), with slack for quantization, corrections
// and arrival jitter; and the owner's timestamp does not run backwards.
func validateStep(a *anchor, next *deadreckon.State, now float64, l *Limits) error {
	if next.Time < a.stamp-maxStampRegress {
		return fmt.Errorf("%w: timestamp %.3f s before the previous %.3f s", deadreckon.ErrInvalidState, next.Time, a.stamp)
	}
	dt := math.Max(0, now-a.at)
	if d := next.Position.Sub(a.pos).Len(); d > maxTravel(a.speed, dt, l) {
		return fmt.Errorf("%w: moved %.1f m in %.3f s", deadreckon.ErrInvalidState, d, dt)
	}
	// Only the heading is rate-limited: a tank turns about its vertical axis with its
	// tracks, at most MaxTurnRate. Its pitch and roll are the ground's under its three
	// clamp points, and change at once where it rolls over a crest or a rock's edge,
	// or lands from a ledge, so a tilt taken in one tick is honest.
	if r := math.Abs(geom.WrapAngle(geom.Yaw(next.Orientation) - geom.Yaw(a.orient))); r > l.MaxTurnRate*(dt+arrivalJitter)+l.TurnSlack {
		return fmt.Errorf("%w: turned %.2f rad in %.3f s", deadreckon.ErrInvalidState, r, dt)
	}
	return nil
}

// advance records an accepted update that arrived at host time now.
func (a *anchor) advance(s *deadreckon.State, now float64) {
	a.stamp = math.Max(a.stamp, s.Time)
	if now-a.at >= anchorPeriod {
		a.pos, a.orient, a.at, a.speed = s.Position, s.Orientation, now, s.Velocity.Len()
	}
}
