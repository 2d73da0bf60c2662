package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// SlerpShort interpolates from unit quaternions a to b by u in [0, 1] along the
// shorter arc and returns a unit quaternion. (mgl64.QuatSlerp and QuatNlerp may take
// the long way.)
//
// Between close orientations (up to a 0.3 rad rotation, the common case in
// reckoning) it avoids trigonometry: it normalizes a linear interpolation whose
// parameter is corrected to second order in the arc, t = u + (Ω²/6)·u(1−u)(1−2u)
// with Ω² ≈ 2(1 − a·b), which keeps the angle error below 0.5 µrad (see
// TestSlerpShortAccuracy). Farther apart it uses the exact slerp. u = 0, ½ and 1 are
// exact on both paths.
func SlerpShort(a, b mgl64.Quat, u float64) mgl64.Quat {
	d := QuatDot(a, b)
	if d < 0 {
		d = -d
		b = mgl64.Quat{W: -b.W, V: mgl64.Vec3{-b.V[0], -b.V[1], -b.V[2]}}
	}
	k, om, inv := SlerpFactors(d)
	return SlerpPrepared(a, b, u, k, om, inv)
}

// SlerpFactors returns what SlerpPrepared needs for unit quaternions whose dot
// product is d ≥ 0: for close ones (d > cos 0.15, a rotation under 0.3 rad) the lerp
// correction k = (1−d)/3 and om = 0; otherwise the arc om = acos d in radians and
// inv = 1/sin om.
func SlerpFactors(d float64) (k, om, inv float64) {
	if d > nlerpMinDot {
		return (1 - d) / 3, 0, 0
	}
	om = math.Acos(min(d, 1))
	return 0, om, 1 / math.Sin(om)
}

// SlerpPrepared is SlerpShort from a to b (with a·b ≥ 0) given SlerpFactors of a·b,
// so that a blend that keeps its ends computes them once.
func SlerpPrepared(a, b mgl64.Quat, u, k, om, inv float64) mgl64.Quat {
	var s, t float64
	if om == 0 {
		t = u + k*u*(1-u)*(1-2*u)
		s = 1 - t
		m := NlerpScale(s*t, k)
		s, t = s*m, t*m
	} else {
		s = math.Sin((1-u)*om) * inv
		t = math.Sin(u*om) * inv
	}
	q := mgl64.Quat{
		W: s*a.W + t*b.W,
		V: mgl64.Vec3{s*a.V[0] + t*b.V[0], s*a.V[1] + t*b.V[1], s*a.V[2] + t*b.V[2]},
	}
	if om != 0 {
		q = QuatUnit(q)
	}
	return q
}

// NlerpScale returns 1/|s·a + t·b| for unit quaternions a and b with a·b = 1 − 3k,
// s + t = 1, s, t ≥ 0 and k from SlerpFactors' close branch (om = 0): the squared
// length is 1 − x with x = 2st(1 − a·b) = 6·st·k ≤ ½(1 − cos 0.15) < 0.0057, so the
// binomial series of (1 − x)^(−½) to x⁵ is within 1e-14 of it, without the square
// root and division of a normalization.
func NlerpScale(st, k float64) float64 {
	x := 6 * st * k
	x2 := x * x
	return 1 + 0.5*x + x2*((0.375+0.3125*x)+x2*(0.2734375+0.24609375*x))
}

// nlerpMinDot is the quaternion dot product above which SlerpShort uses the corrected
// normalized lerp: cos 0.15, a 0.3 rad (17°) rotation.
const nlerpMinDot = 0.9887710779360422
