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

// half returns the acceleration's term of a projection over t s: ½t² below the
// short horizon, the held terms past it. Small enough to inline: the hot path calls
// nothing below the horizon.
func (h *horizon) half(t float64) float64 {
	if t > h.short {
		_, ht, _, _ := h.terms(t)
		return ht
	}
	return 0.5 * t * t
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
// does not). A braking projection models a vehicle whose speed runs out evenly while
// it goes on turning as it did: with T = stop and t = min(age, T), its velocity is
// (1 − t/T)(V + A⊥·t), A⊥ = A + V/T the part of A across V, that is
// V·(1 − t²/T²) + A·t(1 − t/T), which starts as V + A·t and is zero at T. A turn's
// sideways acceleration shrinks with the speed, as a vehicle's does, instead of being
// integrated whole until the speed runs out, which carries a tank that coasts
// through a turn three times too far sideways. For A straight against V it is the
// quadratic to rest. Past stop the position holds and the velocity is zero.
// Rotations and joints keep turning: they take terms' g.
func (hz *horizon) motion(age, stop float64) (g, h, gv, hv float64) {
	if math.IsInf(stop, 1) {
		return hz.terms(age)
	}
	if !(stop > 0) {
		// At rest already: a speed so small that its square underflows to 0.
		return 0, 0, 0, 0
	}
	t := math.Min(age, stop)
	u := t / stop
	return t * (1 - u*u/3), t * t * (0.5 - u/3), 1 - u*u, t * (1 - u)
}
