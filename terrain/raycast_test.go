package terrain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// marchHit finds where the ray first goes below the surface by marching in steps of
// step meters and bisecting; ok is false when it stays above up to maxDist.
func marchHit(m *Map, o, d mgl64.Vec3, maxDist, step float64) (float64, bool) {
	below := func(t float64) bool {
		p := o.Add(d.Mul(t))
		s, on := m.SurfaceAt(p[0], p[2])
		return on && p[1] <= s
	}
	for t := 0.0; t < maxDist; t += step {
		t1 := math.Min(t+step, maxDist)
		if below(t1) {
			lo, hi := t, t1
			for k := 0; k < 60; k++ {
				mid := (lo + hi) / 2
				if below(mid) {
					hi = mid
				} else {
					lo = mid
				}
			}
			return hi, true
		}
	}
	return 0, false
}

func TestRaycastMatchesMarching(t *testing.T) {
	m, err := Generate(GenerateConfig{Seed: 11, Size: 256, Samples: 129})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	const step, maxDist = 0.05, 400.0
	hits, sideHits := 0, 0
	for k := 0; k < 300; k++ {
		o := mgl64.Vec3{rng.Float64()*280 - 140, 5 + rng.Float64()*60, rng.Float64()*280 - 140}
		d := mgl64.Vec3{rng.NormFloat64(), -0.1 - rng.Float64(), rng.NormFloat64()}.Normalize()
		if k%5 == 0 { // some rays rising, to hit hillsides from the side
			d[1] = 0.05 * rng.Float64()
			d = d.Normalize()
			o[1] = 2 + 10*rng.Float64()
		}
		if s, on := m.SurfaceAt(o[0], o[2]); on && o[1] <= s {
			continue // origin under ground: covered elsewhere
		}
		ref, refOK := marchHit(m, o, d, maxDist, step)
		hit, ok := m.Raycast(o, d, maxDist)
		if refOK && !ok {
			t.Fatalf("ray %v→%v: missed, marching hit at t=%g", o, d, ref)
		}
		if !ok {
			continue
		}
		hits++
		th := hit.Sub(o).Len()
		onSide := math.Abs(math.Abs(hit[0])-128) < 1e-9 || math.Abs(math.Abs(hit[2])-128) < 1e-9
		if s, _ := m.SurfaceAt(hit[0], hit[2]); onSide && hit[1] <= s {
			sideHits++ // entered the solid ground through the map's side
		} else if math.Abs(hit[1]-s) > 1e-6 {
			t.Fatalf("ray %v→%v: hit %v is %g m off the surface", o, d, hit, hit[1]-s)
		}
		if refOK && th > ref+1e-6 {
			t.Fatalf("ray %v→%v: hit at t=%g, after marching's first hit at %g", o, d, th, ref)
		}
		for tt := 0.0; tt < th-1e-6; tt += step {
			p := o.Add(d.Mul(tt))
			if s, on := m.SurfaceAt(p[0], p[2]); on && p[1] < s-1e-9 {
				t.Fatalf("ray %v→%v: under the ground at t=%g before its hit at %g", o, d, tt, th)
			}
		}
	}
	t.Logf("%d hits, %d through the map's side", hits, sideHits)
	if hits < 150 {
		t.Fatalf("only %d of 300 rays hit: the test rays are not exercising Raycast", hits)
	}
}

func TestRaycastCases(t *testing.T) {
	m, f := planeMap(t, 0.25, 0)
	tol := 2 * m.quantum()
	down := mgl64.Vec3{0, -1, 0}
	cases := []struct {
		name    string
		o, d    mgl64.Vec3
		max     float64
		ok      bool
		wantHit mgl64.Vec3
	}{
		{"straight down", mgl64.Vec3{3, 50, -4}, down, 100, true, mgl64.Vec3{3, f(3, -4), -4}},
		{"down, unnormalized", mgl64.Vec3{3, 50, -4}, down.Mul(7), 100, true, mgl64.Vec3{3, f(3, -4), -4}},
		{"down, too short", mgl64.Vec3{3, 50, -4}, down, 10, false, mgl64.Vec3{}},
		{"up", mgl64.Vec3{3, 50, -4}, mgl64.Vec3{0, 1, 0}, 100, false, mgl64.Vec3{}},
		// 20 − 0.5(x+60) = 10 + 0.25x ⇒ x = −80/3.
		{"from outside, down the slope", mgl64.Vec3{-60, 20, 0}, mgl64.Vec3{1, -0.5, 0}, 200, true, mgl64.Vec3{-80.0 / 3, f(-80.0/3, 0), 0}},
		{"horizontal, into the slope", mgl64.Vec3{-31, 12, 7}, mgl64.Vec3{1, 0, 0}, 200, true, mgl64.Vec3{8, 12, 7}},
		{"enters the side under the ground", mgl64.Vec3{-50, 0, 3}, mgl64.Vec3{1, 0, 0}, 100, true, mgl64.Vec3{-32, 0, 3}},
		{"origin under ground", mgl64.Vec3{0, 0, 0}, mgl64.Vec3{1, 0, 0}, 10, true, mgl64.Vec3{0, 0, 0}},
		{"misses beside the map", mgl64.Vec3{0, 50, 40}, down, 100, false, mgl64.Vec3{}},
		{"zero direction", mgl64.Vec3{0, 50, 0}, mgl64.Vec3{}, 100, false, mgl64.Vec3{}},
		{"NaN origin", mgl64.Vec3{math.NaN(), 50, 0}, down, 100, false, mgl64.Vec3{}},
		{"NaN distance", mgl64.Vec3{0, 50, 0}, down, math.NaN(), false, mgl64.Vec3{}},
		{"infinite distance", mgl64.Vec3{0, 50, 0}, down, math.Inf(1), true, mgl64.Vec3{0, f(0, 0), 0}},
	}
	for _, c := range cases {
		hit, ok := m.Raycast(c.o, c.d, c.max)
		if ok != c.ok || (ok && !vecNear(hit, c.wantHit, 4*tol)) {
			t.Errorf("%s: Raycast(%v, %v, %g) = %v, %v; want %v, %v", c.name, c.o, c.d, c.max, hit, ok, c.wantHit, c.ok)
		}
	}
}

func TestRaycastDownAgreesWithRayDown(t *testing.T) {
	m, err := Generate(GenerateConfig{Seed: 2, Size: 128, Samples: 65})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for k := 0; k < 1000; k++ {
		x, z := rng.Float64()*128-64, rng.Float64()*128-64
		h, ok := m.RayDown(x, 500, z)
		hit, ok2 := m.Raycast(mgl64.Vec3{x, 500, z}, mgl64.Vec3{0, -1, 0}, 1000)
		if !ok || !ok2 || math.Abs(hit[1]-h) > 1e-9 {
			t.Fatalf("at (%g, %g): RayDown %g, %v; Raycast %v, %v", x, z, h, ok, hit, ok2)
		}
	}
}
