package grid

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAppendNear holds every query to a brute-force scan: whatever the cell size,
// every item within the radius is found, once, after random moves and removals.
func TestAppendNear(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, size := range []float64{3, 40, 500} {
		g := New[int](size)
		pos := map[int][2]float64{}
		for step := range 5000 {
			k := rng.IntN(200)
			if rng.IntN(10) == 0 {
				g.Remove(k)
				delete(pos, k)
			} else {
				x, z := rng.Float64()*400-200, rng.Float64()*400-200
				g.Move(k, x, z)
				pos[k] = [2]float64{x, z}
			}
			if g.Len() != len(pos) {
				t.Fatalf("size %g step %d: Len %d, want %d", size, step, g.Len(), len(pos))
			}
			x, z, r := rng.Float64()*400-200, rng.Float64()*400-200, rng.Float64()*60
			got := g.AppendNear(nil, x, z, r)
			slices.Sort(got)
			if len(slices.Compact(slices.Clone(got))) != len(got) {
				t.Fatalf("size %g step %d: an item found twice: %v", size, step, got)
			}
			for k, p := range pos {
				if math.Hypot(p[0]-x, p[1]-z) <= r {
					if _, ok := slices.BinarySearch(got, k); !ok {
						t.Fatalf("size %g step %d: item %d at %v within %g of (%g, %g) not found", size, step, k, p, r, x, z)
					}
				}
			}
		}
	}
}

// TestEdges: points far off, infinite or NaN go to a cell and come back out.
func TestEdges(t *testing.T) {
	g := New[string](10)
	g.Move("far", 1e300, -1e300)
	g.Move("nan", math.NaN(), 0)
	g.Move("origin", 0, 0)
	if got := g.AppendNear(nil, 1e300, -1e300, 1); !slices.Contains(got, "far") {
		t.Errorf("far item not found near itself: %v", got)
	}
	if got := g.AppendNear(nil, 0, 0, 1); !slices.Contains(got, "origin") {
		t.Errorf("origin not found: %v", got)
	}
	g.Remove("far")
	g.Remove("far")
	if g.Len() != 2 {
		t.Errorf("Len %d after removals, want 2", g.Len())
	}
	defer func() {
		if recover() == nil {
			t.Error("New(0) did not panic")
		}
	}()
	New[int](0)
}
