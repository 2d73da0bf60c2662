package deadreckon

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// The nine dead-reckoning models of DIS (IEEE 1278.1, annex on dead reckoning) as
// deadreckon algorithms. Each snaps to every update, as DIS entities do, and
// projects it without limit of time: no blend, no acceleration horizon, no decay.
//
// DIS names a model DRM(rotation, kind, frame): F holds the orientation and R turns
// it by the angular velocity; P projects the position with the velocity and V with
// velocity and acceleration; W keeps velocity and acceleration fixed in the world and
// B fixes them in the body, so that they turn with the entity's angular velocity
// (a body model turns its velocity even when it holds the orientation, F, as the
// standard's formulas do). In Treadline's terms, with State's world-frame vectors:
//
//	W models: P(t) = P0 + V0·t [+ ½A0·t²]
//	B models: P(t) = P0 + R1(t)·V0 [+ R2(t)·Ab], Ab = A0 − ω × V0
//	R models: Q(t) = exp(ω·t)·Q0;  F models: Q(t) = Q0
//
// where R1(t) = ∫₀ᵗ exp(ω·s) ds and R2(t) = ∫₀ᵗ s·exp(ω·s) ds rotate about ω, and
// Ab is the body-frame acceleration (the velocity's change as the body sees it,
// DIS's body acceleration) expressed in world axes at the update.

// IsDIS reports whether a is one of the nine DIS models (DISStatic … DISFVB).
func (a Algorithm) IsDIS() bool { return a >= DISStatic && a <= DISFVB }

// DISModel returns the DIS dead-reckoning algorithm field (1 static … 9 DRM(F,V,B))
// of a DIS model, and 0 for any other algorithm.
func (a Algorithm) DISModel() uint8 {
	if !a.IsDIS() {
		return 0
	}
	return uint8(a-DISStatic) + 1
}

// DISAlgorithm returns the deadreckon algorithm of DIS dead-reckoning algorithm field
// m (1–9) and whether m is one; 0 ("other") and values above 9 are not.
func DISAlgorithm(m uint8) (Algorithm, bool) {
	if m < 1 || m > 9 {
		return 0, false
	}
	return DISStatic + Algorithm(m-1), true
}

// disRotates reports whether the model turns the orientation.
func disRotates(a Algorithm) bool { return a == DISRPW || a == DISRVW || a == DISRPB || a == DISRVB }

// disAccelerates reports whether the model projects with acceleration.
func disAccelerates(a Algorithm) bool {
	return a == DISRVW || a == DISFVW || a == DISRVB || a == DISFVB
}

// disBody reports whether the model fixes velocity and acceleration in the body.
func disBody(a Algorithm) bool { return a >= DISFPB && a <= DISFVB }

// ProjectDIS returns s projected by t seconds with DIS model alg (as the type's
// comment above says). Time advances by t; velocity, acceleration and angular
// velocity are the model's at t (zero where it holds them still); articulations turn
// at their rates except under DISStatic. A negative t projects backwards; an alg that
// is not a DIS model returns s with its Time advanced. It does not allocate.
func ProjectDIS(alg Algorithm, s State, t float64) State {
	p := s
	p.Time = s.Time + t
	if !alg.IsDIS() {
		return p
	}
	if alg == DISStatic {
		p.Velocity, p.Acceleration, p.AngularVelocity = mgl64.Vec3{}, mgl64.Vec3{}, mgl64.Vec3{}
		for i := range p.Articulations {
			p.Articulations[i].Rate = 0
		}
		return p
	}
	w := s.AngularVelocity
	acc := disAccelerates(alg)
	if disBody(alg) {
		d := newDISTurn(w, t)
		p.Position = s.Position.Add(d.r1(s.Velocity))
		p.Velocity = geom.RotationQuat(w, t).Rotate(s.Velocity)
		p.Acceleration = mgl64.Vec3{}
		if acc {
			ab := s.Acceleration.Sub(w.Cross(s.Velocity))
			p.Position = p.Position.Add(d.r2(ab))
			p.Velocity = geom.RotationQuat(w, t).Rotate(s.Velocity.Add(ab.Mul(t)))
			p.Acceleration = geom.RotationQuat(w, t).Rotate(ab).Add(w.Cross(p.Velocity))
		}
	} else {
		p.Position = s.Position.Add(s.Velocity.Mul(t))
		p.Acceleration = mgl64.Vec3{}
		if acc {
			p.Position = p.Position.Add(s.Acceleration.Mul(0.5 * t * t))
			p.Velocity = s.Velocity.Add(s.Acceleration.Mul(t))
			p.Acceleration = s.Acceleration
		}
	}
	if disRotates(alg) {
		p.Orientation = geom.QuatNormalize(geom.QuatMul(geom.RotationQuat(w, t), s.Orientation))
	} else if !disBody(alg) {
		p.AngularVelocity = mgl64.Vec3{}
	}
	for i := 0; i < s.NumArticulations; i++ {
		p.Articulations[i].Angle = geom.WrapAngle(s.Articulations[i].Angle + s.Articulations[i].Rate*t)
	}
	return p
}

// disSmallAngle is the turn ω·t, radians, below which the rotation integrals take
// their series, which are exact to float64 rounding there.
const disSmallAngle = 1e-4

// disTurn holds the rotation integrals R1(t) = ∫₀ᵗ exp(ω·s) ds and
// R2(t) = ∫₀ᵗ s·exp(ω·s) ds. With k = ω/|ω| and r = |ω|, a vector splits into its
// part along k, which the integrals scale by t and t²/2, and its part across k, which
// turns as exp(ω·s)v⊥ = v⊥·cos(rs) + (k × v⊥)·sin(rs).
type disTurn struct {
	k              mgl64.Vec3
	t              float64
	c1, s1, c2, s2 float64 // ∫cos(rs), ∫sin(rs), ∫s·cos(rs), ∫s·sin(rs) over [0, t]
}

func newDISTurn(w mgl64.Vec3, t float64) disTurn {
	r := w.Len()
	d := disTurn{t: t}
	if th := r * t; math.Abs(th) < disSmallAngle {
		d.c1 = t - r*r*t*t*t/6
		d.s1 = r * t * t / 2
		d.c2 = t*t/2 - r*r*t*t*t*t/8
		d.s2 = r * t * t * t / 3
	} else {
		sn, cs := math.Sincos(th)
		d.c1 = sn / r
		d.s1 = (1 - cs) / r
		d.c2 = t*sn/r + (cs-1)/(r*r)
		d.s2 = sn/(r*r) - t*cs/r
	}
	if r > 0 {
		d.k = w.Mul(1 / r)
	}
	return d
}

// r1 returns R1(t)·v.
func (d *disTurn) r1(v mgl64.Vec3) mgl64.Vec3 { return d.apply(v, d.t, d.c1, d.s1) }

// r2 returns R2(t)·v.
func (d *disTurn) r2(v mgl64.Vec3) mgl64.Vec3 { return d.apply(v, d.t*d.t/2, d.c2, d.s2) }

func (d *disTurn) apply(v mgl64.Vec3, along, c, s float64) mgl64.Vec3 {
	par := d.k.Mul(d.k.Dot(v))
	perp := v.Sub(par)
	return par.Mul(along).Add(perp.Mul(c)).Add(d.k.Cross(perp).Mul(s))
}

// reckonDIS computes a.rk for a DIS model at age seconds past the last-known state.
func (a *Actor) reckonDIS(age float64) {
	p := ProjectDIS(a.alg, a.lk, age)
	a.rk.pos, a.rk.rot = p.Position, p.Orientation
	for i := range a.rk.art {
		a.rk.art[i] = p.Articulations[i].Angle
	}
	a.showJoints(a.lk.NumArticulations)
}
