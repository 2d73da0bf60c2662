package combat

import "math"

// BallisticElevation returns the low elevation (rad, above the horizontal) that sends
// a shell at MuzzleVelocity to a point dx meters away horizontally and dy meters
// higher, and false when it is out of reach.
func BallisticElevation(dx, dy float64) (float64, bool) {
	v2 := MuzzleVelocity * MuzzleVelocity
	disc := v2*v2 - Gravity*(Gravity*dx*dx+2*dy*v2)
	if disc < 0 || dx <= 0 {
		return 0, false
	}
	return math.Atan2(v2-math.Sqrt(disc), Gravity*dx), true
}
