package geom

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestFinite checks Finite and FiniteVec on finite extremes, NaN and both infinities.
func TestFinite(t *testing.T) {
	for _, c := range []struct {
		vs   []float64
		want bool
	}{
		{nil, true}, {[]float64{0, -1e308, 5}, true}, {[]float64{1, math.NaN()}, false},
		{[]float64{math.Inf(-1)}, false}, {[]float64{math.MaxFloat64, math.SmallestNonzeroFloat64}, true},
	} {
		if got := Finite(c.vs...); got != c.want {
			t.Errorf("Finite(%v) = %v, want %v", c.vs, got, c.want)
		}
	}
	for _, c := range []struct {
		v    mgl64.Vec3
		want bool
	}{
		{mgl64.Vec3{1, 2, 3}, true}, {mgl64.Vec3{-math.MaxFloat64, 0, math.MaxFloat64}, true},
		{mgl64.Vec3{math.NaN(), 0, 0}, false}, {mgl64.Vec3{0, math.Inf(1), 0}, false}, {mgl64.Vec3{0, 0, math.Inf(-1)}, false},
	} {
		if got := FiniteVec(c.v); got != c.want {
			t.Errorf("FiniteVec(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}
