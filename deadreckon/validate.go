package deadreckon

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// withDefaults returns l with every zero bound replaced by its default and every
// negative one by +Inf (disabled).
func (l Limits) withDefaults() Limits {
	l.MaxPosition = boundOr(l.MaxPosition, DefaultMaxPosition)
	l.MaxSpeed = boundOr(l.MaxSpeed, DefaultMaxSpeed)
	l.MaxAcceleration = boundOr(l.MaxAcceleration, DefaultMaxAcceleration)
	l.MaxAngularSpeed = boundOr(l.MaxAngularSpeed, DefaultMaxAngularSpeed)
	l.MaxArticulationRate = boundOr(l.MaxArticulationRate, DefaultMaxArticulationRate)
	l.MaxTime = boundOr(l.MaxTime, DefaultMaxTime)
	return l
}

// Validate checks s against the limits and returns it normalized: the orientation
// scaled to unit length (the zero quaternion read as the identity, as the wire sends
// it) and articulation angles wrapped into (−π, π]. A state with a non-finite value,
// an orientation whose norm is outside [0.5, 2], an articulation count outside
// [0, MaxArticulations] or a value beyond a bound gives an error wrapping
// ErrInvalidState, and the zero State. Zero limits take their defaults; negative ones
// are not checked.
//
// It is the one check of a state's values: remote actors run it on every update, and a
// host runs it (with its tank-like limits) before relaying one.
func (l Limits) Validate(s State) (State, error) {
	l = l.withDefaults()
	return l.validate(s)
}

// validate is Validate for limits with their defaults already filled in.
func (l *Limits) validate(s State) (State, error) {
	if err := l.checkMotion(&s); err != nil {
		return State{}, err
	}
	q, err := validOrientation(s.Orientation)
	if err != nil {
		return State{}, err
	}
	s.Orientation = q
	if err := l.checkArticulations(&s); err != nil {
		return State{}, err
	}
	return s, nil
}

func invalid(what string, v any) error { return fmt.Errorf("%w: %s %v", ErrInvalidState, what, v) }

// checkMotion checks time, position and the rates of s.
func (l *Limits) checkMotion(s *State) error {
	switch {
	case !geom.Finite(s.Time) || math.Abs(s.Time) > l.MaxTime:
		return invalid("time", s.Time)
	case !geom.FiniteVec(s.Position) || math.Abs(s.Position[0]) > l.MaxPosition ||
		math.Abs(s.Position[1]) > l.MaxPosition || math.Abs(s.Position[2]) > l.MaxPosition:
		return invalid("position", s.Position)
	case !geom.FiniteVec(s.Velocity) || s.Velocity.Dot(s.Velocity) > l.MaxSpeed*l.MaxSpeed:
		return invalid("velocity", s.Velocity)
	case !geom.FiniteVec(s.Acceleration) || s.Acceleration.Dot(s.Acceleration) > l.MaxAcceleration*l.MaxAcceleration:
		return invalid("acceleration", s.Acceleration)
	case !geom.FiniteVec(s.AngularVelocity) || s.AngularVelocity.Dot(s.AngularVelocity) > l.MaxAngularSpeed*l.MaxAngularSpeed:
		return invalid("angular velocity", s.AngularVelocity)
	}
	return nil
}

// validOrientation returns q at unit length, the identity for the zero quaternion.
func validOrientation(q mgl64.Quat) (mgl64.Quat, error) {
	n2 := geom.QuatDot(q, q)
	switch {
	case !geom.Finite(n2) || !geom.Finite(q.W) || !geom.FiniteVec(q.V):
		return mgl64.Quat{}, invalid("orientation", q)
	case n2 == 0:
		return mgl64.QuatIdent(), nil
	case n2 < 0.25 || n2 > 4:
		return mgl64.Quat{}, invalid("orientation norm", math.Sqrt(n2))
	}
	return geom.QuatNormalize(q), nil
}

// checkArticulations checks the articulations of s, wraps their angles and zeroes the
// unused ones.
func (l *Limits) checkArticulations(s *State) error {
	if s.NumArticulations < 0 || s.NumArticulations > MaxArticulations {
		return invalid("articulation count", s.NumArticulations)
	}
	for i := range s.Articulations {
		ar := &s.Articulations[i]
		switch {
		case i >= s.NumArticulations:
			*ar = Articulation{}
		case !geom.Finite(ar.Angle) || math.Abs(ar.Angle) > 1e6:
			return invalid("articulation angle", ar.Angle)
		case !geom.Finite(ar.Rate) || math.Abs(ar.Rate) > l.MaxArticulationRate:
			return invalid("articulation rate", ar.Rate)
		default:
			ar.Angle = geom.WrapAngle(ar.Angle)
		}
	}
	return nil
}
