package geom

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSincosMatchesMath checks that the inline sine and cosine are bitwise those of
// math.Sincos, inside their range and across its edge.
func TestSincosMatchesMath(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	xs := []float64{0, math.Copysign(0, -1), 1e-300, -1e-300, math.Pi / 4, -math.Pi / 4,
		math.Nextafter(math.Pi/4, 0), math.Nextafter(-math.Pi/4, 0), 1, 3, -7, 1e9,
		math.Inf(1), math.NaN()}
	for i := 0; i < 100000; i++ {
		xs = append(xs, (rng.Float64()*2-1)*math.Pi/3)
	}
	same := func(a, b float64) bool {
		return math.Float64bits(a) == math.Float64bits(b) || (math.IsNaN(a) && math.IsNaN(b))
	}
	for _, x := range xs {
		s, c := Sincos(x)
		ws, wc := math.Sincos(x)
		if !same(s, ws) || !same(c, wc) {
			t.Fatalf("Sincos(%v) = %v, %v, want %v, %v", x, s, c, ws, wc)
		}
		if ax := math.Abs(x); ax > 0 && ax < math.Pi/4 {
			if s, c := SincosOctant(ax); !same(s, math.Abs(ws)) || !same(c, wc) {
				t.Fatalf("SincosOctant(%v) = %v, %v, want %v, %v", ax, s, c, math.Abs(ws), wc)
			}
		}
	}
}
