package net

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// stateLimits returns the bounds the host checks a state's values against, in the one
// validator of package deadreckon: the host's tank-like limits, each widened by what
// the wire's quantization may add (a value at the limit may come back a hair above
// it). Position and time are checked against the match (validateState), not here.
func (l *Limits) stateLimits() deadreckon.Limits {
	return wire.WidenLimits(deadreckon.Limits{
		MaxPosition:         -1,
		MaxSpeed:            l.MaxSpeed,
		MaxAcceleration:     l.MaxAcceleration,
		MaxAngularSpeed:     l.MaxTurnRate,
		MaxArticulationRate: l.MaxArticulationRate,
		MaxTime:             -1,
	})
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

// Anchor is where and when the host last pinned an actor down, for the plausibility
// checks of the updates that follow: net's own (the timestamps, and without a
// grounded Mover the travel) and the Mover's. Times are host receive times, which a
// client cannot forge, so a client cannot buy distance by lying about its
// timestamps. The host moves it to an accepted update once per AnchorPeriod; a
// Mover may move it when it refuses one (Mover.Refused).
type Anchor struct {
	Pos    mgl64.Vec3
	Orient mgl64.Quat
	At     float64 // host receive time, s
	Stamp  float64 // the owner's timestamp of the last accepted update, s
	Speed  float64 // speed at the anchor, m/s, for the reach after silence
}

// anchorAt returns an anchor at state s, received at host time now.
func anchorAt(s *deadreckon.State, now float64) Anchor {
	return Anchor{Pos: s.Position, Orient: s.Orientation, At: now, Stamp: s.Time, Speed: s.Velocity.Len()}
}

// AnchorPeriod is how often, in seconds, an actor's anchor moves to its latest
// accepted update. The slack is granted once per anchor, not once per update, so a
// stream of small jumps cannot add up to a teleport.
const AnchorPeriod = 1.0

// maxStampRegress is how far in seconds an owner's timestamps may run backwards
// between updates (a clock-sync correction) before the update is refused.
const maxStampRegress = 0.3

// validateStep checks that next, arriving at host time now, follows plausibly from
// the actor's anchor: the travel since the anchor, in three dimensions, fits
// MaxTravel (Limits.MaxSpeed, or after silence what a vehicle can reach from its
// anchored speed) with slack for quantization and corrections, and the owner's
// timestamp does not run backwards. It is the bound where no grounded Mover holds
// the travel, and for an update from where its owner asked to spawn.
func validateStep(a *Anchor, next *deadreckon.State, now float64, l *Limits) error {
	if err := a.CheckStamp(next); err != nil {
		return err
	}
	dt := math.Max(0, now-a.At)
	if d := next.Position.Sub(a.Pos).Len(); d > l.MaxTravel(a.Speed, dt) {
		return fmt.Errorf("%w: moved %.1f m in %.3f s", deadreckon.ErrInvalidState, d, dt)
	}
	return nil
}

// CheckStamp refuses next when its owner's timestamp runs more than maxStampRegress
// behind the last accepted one.
func (a *Anchor) CheckStamp(next *deadreckon.State) error {
	if next.Time < a.Stamp-maxStampRegress {
		return fmt.Errorf("%w: timestamp %.3f s before the previous %.3f s", deadreckon.ErrInvalidState, next.Time, a.Stamp)
	}
	return nil
}

// Advance records an accepted update that arrived at host time now.
func (a *Anchor) Advance(s *deadreckon.State, now float64) {
	a.Stamp = math.Max(a.Stamp, s.Time)
	if now-a.At >= AnchorPeriod {
		a.Pos, a.Orient, a.At, a.Speed = s.Position, s.Orientation, now, s.Velocity.Len()
	}
}
