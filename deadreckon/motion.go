package deadreckon

import "math"

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
