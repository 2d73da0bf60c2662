package deadreckon

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// horizon bounds how far a last-known state is extrapolated. It is the one model of
// projected motion: the owner's publisher reckons its own updates with it and every
// remote actor shows them with it, so both sides agree on where the actor is going.
//
// Up to accel seconds of age the acceleration is integrated; past it the velocity
// reached is held. Past coast seconds the velocity (and with it the turning and the
// joints) decays exponentially with time constant decay, so a silent actor comes to
// rest within speed × decay of where it was going. coast ≥ accel is not required.
type horizon struct {
	accel, coast, decay float64
	// short is min(accel, coast): below it a projection is the plain quadratic.
	short float64
}

func newHorizon(c *Config) horizon {
	return horizon{
		accel: c.AccelerationHorizon,
		coast: c.MaxExtrapolation,
		decay: c.ExtrapolationDecay,
		short: math.Min(c.AccelerationHorizon, c.MaxExtrapolation),
	}
}

// terms returns the coefficients of a projection over age seconds:
// position P + V·g + A·h, velocity V·gv + A·hv. The rotation angle and articulation
// angles advance by their rates times g.
func (hz *horizon) terms(age float64) (g, h, gv, hv float64) {
	if age <= hz.short {
		return age, 0.5 * age * age, 1, age
	}
	u := math.Min(age, hz.coast) // time at full velocity
	a := math.Min(u, hz.accel)   // time under acceleration
	g, gv, hv = u, 1, a
	h = 0.5*a*a + a*(u-a)
	if age > u {
		e := math.Exp(-(age - u) / hz.decay)
		f := hz.decay * (1 - e)
		g += f
		h += a * f
		gv, hv = e, a*e
	}
	return g, h, gv, hv
}

// brakeCos2 is the square of the cosine of the largest angle between an acceleration
// and the reverse of the velocity for which it counts as braking (45°): a tank that
// coasts or brakes through a turn, whose acceleration leans across its velocity,
// brakes; a turn at speed, which sheds a little, does not.
const brakeCos2 = 0.5

// stopAge returns the age, s, at which a projection of velocity v under acceleration
// acc comes to rest: when acc brakes v (against it, within 45°), the time the speed
// takes to run out at acc's rate along v, |v|/(−acc·v̂), if that is within the
// coasting horizon; +Inf otherwise. A braking projection comes to rest there (see
// motion) and holds, instead of rolling on at the speed the acceleration horizon
// reached, past that place, or reversing.
func (hz *horizon) stopAge(v, acc mgl64.Vec3) float64 {
	av := acc.Dot(v)
	if !(av < 0) || av*av < brakeCos2*acc.Dot(acc)*v.Dot(v) {
		return math.Inf(1)
	}
	t := v.Dot(v) / -av
	if !(t < hz.coast) {
		return math.Inf(1)
	}
	return t
}

// motion returns the position and velocity terms of a projection over age seconds,
// as terms does, of a state that comes to rest at age stop (stopAge; +Inf when it
// does not). Up to the acceleration horizon (or to stop, if sooner) it is the plain
// quadratic; past the horizon the velocity reached, V + A·accel, slows at an even
// rate to rest at stop, along its own direction, so that a turn's lateral
// acceleration is not integrated on for as long as the braking lasts; past stop the
// position holds and the velocity is zero. For an acceleration straight against the
// velocity this is the quadratic to rest. Rotations and joints keep turning: they
// take terms' g.
func (hz *horizon) motion(age, stop float64) (g, h, gv, hv float64) {
	switch {
	case math.IsInf(stop, 1):
		return hz.terms(age)
	case stop <= hz.accel && age > stop:
		return stop, 0.5 * stop * stop, 0, 0
	case age <= hz.accel || stop <= hz.accel:
		return age, 0.5 * age * age, 1, age
	}
	a, rest := hz.accel, stop-hz.accel
	u := math.Min(age, stop) - a // time slowing past the horizon
	w := u - u*u/(2*rest)        // distance covered then, per m/s at the horizon
	f := 1 - u/rest              // share of the horizon's velocity left
	return a + w, 0.5*a*a + a*w, f, a * f
}
