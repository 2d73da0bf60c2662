package geom

import "github.com/go-gl/mathgl/mgl64"

// Finite reports whether every value is neither NaN nor infinite; no values are
// finite. It is small enough to be inlined, so a call with one value costs a
// subtraction and a comparison: v − v is zero exactly when v is finite.
func Finite(vs ...float64) bool {
	for _, v := range vs {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// FiniteVec reports whether every component of v is finite.
func FiniteVec(v mgl64.Vec3) bool { return v[0]-v[0] == 0 && v[1]-v[1] == 0 && v[2]-v[2] == 0 }
