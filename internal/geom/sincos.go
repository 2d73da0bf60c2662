package geom

import "math"

// Sincos returns math.Sincos(x). For 0 < |x| < π/4 (half the angle of any rotation
// under 90°, what a frame's reckoning nearly always asks for) it evaluates the same
// polynomials with the same coefficients and operations as math.Sincos does for that
// octant, where it needs no argument reduction, so the result is bitwise the same
// (TestSincosMatchesMath) at a fraction of the cost; other arguments go to math.Sincos.
func Sincos(x float64) (sin, cos float64) {
	ax := math.Abs(x)
	if !(ax*(4/math.Pi) < 1) || ax == 0 {
		return math.Sincos(x)
	}
	sin, cos = SincosOctant(ax)
	if x < 0 {
		sin = -sin
	}
	return sin, cos
}

// SincosOctant returns the sine and cosine of x in [0, π/4) by the polynomials of
// Sincos, bitwise those of math.Sincos there. It is small enough to be inlined, so a
// hot loop that has checked the range itself pays for no call (Go keeps no
// floating-point value in a register across one).
func SincosOctant(x float64) (sin, cos float64) {
	zz := x * x
	cos = 1.0 - 0.5*zz + zz*zz*((((((sinCosC0*zz)+sinCosC1)*zz+sinCosC2)*zz+sinCosC3)*zz+sinCosC4)*zz+sinCosC5)
	sin = x + x*zz*((((((sinCosS0*zz)+sinCosS1)*zz+sinCosS2)*zz+sinCosS3)*zz+sinCosS4)*zz+sinCosS5)
	return sin, cos
}

// The minimax coefficients of sine and cosine on [0, π/4] (Cephes sin.c), the ones
// math.Sincos uses.
const (
	sinCosS0 = 1.58962301576546568060e-10
	sinCosS1 = -2.50507477628578072866e-8
	sinCosS2 = 2.75573136213857245213e-6
	sinCosS3 = -1.98412698295895385996e-4
	sinCosS4 = 8.33333333332211858878e-3
	sinCosS5 = -1.66666666666666307295e-1
	sinCosC0 = -1.13585365213876817300e-11
	sinCosC1 = 2.08757008419747316778e-9
	sinCosC2 = -2.75573141792967388112e-7
	sinCosC3 = 2.48015872888517045348e-5
	sinCosC4 = -1.38888888888730564116e-3
	sinCosC5 = 4.16666666666665929218e-2
)
