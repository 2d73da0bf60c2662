package terrain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

var _ deadreckon.Ground = (*Map)(nil)

func TestHeightAtSamplesAndBilinear(t *testing.T) {
	m := fromFunc(t, 17, 32, 0, 100, func(x, z float64) float64 { return 20 + 5*math.Sin(x/3) + 3*math.Cos(z/5) })
	dx, dz := m.CellSize()
	for j := 0; j < 16; j++ {
		for i := 0; i < 16; i++ {
			x, z := m.minX+float64(i)*dx, m.minZ+float64(j)*dz
			h, ok := m.HeightAt(x, z)
			if !ok || h != m.Sample(i, j) {
				t.Fatalf("HeightAt(%g, %g) = %g, %v; want sample %g, true", x, z, h, ok, m.Sample(i, j))
			}
			// Cell middle: the mean of the four corners.
			want := (m.Sample(i, j) + m.Sample(i+1, j) + m.Sample(i, j+1) + m.Sample(i+1, j+1)) / 4
			if h, _ := m.HeightAt(x+dx/2, z+dz/2); math.Abs(h-want) > 1e-12 {
				t.Fatalf("HeightAt(cell %d,%d middle) = %g, want %g", i, j, h, want)
			}
		}
	}
}

func TestPlaneQueries(t *testing.T) {
	const ax, az = 0.3, -0.2
	m, f := planeMap(t, ax, az)
	want := mgl64.Vec3{-ax, 1, -az}.Normalize()
	tol := 2 * m.quantum()
	rng := rand.New(rand.NewPCG(1, 2))
	for k := 0; k < 500; k++ {
		x, z := rng.Float64()*64-32, rng.Float64()*64-32
		h, ok := m.HeightAt(x, z)
		if !ok || math.Abs(h-f(x, z)) > tol {
			t.Fatalf("HeightAt(%g, %g) = %g, %v; want %g ± %g", x, z, h, ok, f(x, z), tol)
		}
		s, ok := m.SurfaceAt(x, z)
		if !ok || math.Abs(s-f(x, z)) > tol {
			t.Fatalf("SurfaceAt(%g, %g) = %g; want %g ± %g", x, z, s, f(x, z), tol)
		}
		n, ok := m.NormalAt(x, z)
		if !ok || !vecNear(n, want, 1e-3) { // quantization: ±0.0015 m over 4 m
			t.Fatalf("NormalAt(%g, %g) = %v; want %v", x, z, n, want)
		}
		if r, ok := m.RayDown(x, 100, z); !ok || r != s {
			t.Fatalf("RayDown(%g, 100, %g) = %g, %v; want %g, true", x, z, r, ok, s)
		}
		if _, ok := m.RayDown(x, s-0.01, z); ok {
			t.Fatalf("RayDown from under the ground at (%g, %g) hit", x, z)
		}
	}
}

func TestOutsideTheMap(t *testing.T) {
	m, _ := planeMap(t, 0.1, 0.05)
	for _, c := range []struct{ x, z, bx, bz float64 }{
		{40, 0, 32, 0}, {-40, 5, -32, 5}, {3, 100, 3, 32}, {-100, -100, -32, -32},
		{math.NaN(), 0, -32, 0}, {math.Inf(1), math.Inf(-1), 32, -32},
	} {
		h, ok := m.HeightAt(c.x, c.z)
		hb, okb := m.HeightAt(c.bx, c.bz)
		if ok || !okb || h != hb {
			t.Errorf("HeightAt(%g, %g) = %g, %v; want border height %g, false", c.x, c.z, h, ok, hb)
		}
		n, ok := m.NormalAt(c.x, c.z)
		nb, _ := m.NormalAt(c.bx, c.bz)
		if ok || n != nb {
			t.Errorf("NormalAt(%g, %g) = %v, %v; want border normal %v, false", c.x, c.z, n, ok, nb)
		}
		if _, ok := m.RayDown(c.x, 1000, c.z); ok {
			t.Errorf("RayDown(%g, 1000, %g) hit off the map", c.x, c.z)
		}
	}
	if !m.Contains(32, -32) || m.Contains(32.001, 0) {
		t.Error("Contains disagrees with the extent [−32, 32]²")
	}
}

func TestNormalIsUnitAndUp(t *testing.T) {
	m, err := Generate(GenerateConfig{Seed: 3, Samples: 65, Size: 256})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for k := 0; k < 2000; k++ {
		x, z := rng.Float64()*256-128, rng.Float64()*256-128
		n, _ := m.NormalAt(x, z)
		if math.Abs(n.Len()-1) > 1e-12 || n[1] <= 0 {
			t.Fatalf("NormalAt(%g, %g) = %v: not a unit upward normal", x, z, n)
		}
	}
}

func TestSampleOutOfRangePanics(t *testing.T) {
	m, _ := planeMap(t, 0, 0)
	defer func() {
		if recover() == nil {
			t.Error("Sample(33, 0) did not panic")
		}
	}()
	m.Sample(33, 0)
}

// A Map is immutable: many goroutines may query it at once (run with -race).
func TestConcurrentQueries(t *testing.T) {
	m, err := Generate(GenerateConfig{Seed: 8, Size: 128, Samples: 65})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan float64)
	for g := 0; g < 4; g++ {
		go func(seed uint64) {
			rng := rand.New(rand.NewPCG(seed, 0))
			sum := 0.0
			for k := 0; k < 2000; k++ {
				x, z := rng.Float64()*128-64, rng.Float64()*128-64
				h, _ := m.HeightAt(x, z)
				n, _ := m.NormalAt(x, z)
				r, _ := m.RayDown(x, 100, z)
				hit, _ := m.Raycast(mgl64.Vec3{x, 60, z}, mgl64.Vec3{1, -1, 0.5}, 500)
				sum += h + n[1] + r + hit[1]
			}
			done <- sum
		}(uint64(g))
	}
	for g := 0; g < 4; g++ {
		if s := <-done; math.IsNaN(s) {
			t.Error("a concurrent query returned NaN")
		}
	}
}
