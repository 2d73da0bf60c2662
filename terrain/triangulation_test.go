package terrain

import (
	"math"
	"testing"
)

// TestCliffAcrossTheGridHasNoSawtooth builds a 10 m cliff one cell wide that runs
// across the grid at 30°, and walks along its middle: the triangulated surface must
// stay as even as the bilinear one there. Split along one fixed diagonal it
// alternates between the cliff's top and foot every few cells (the sawtooth seen on
// the valley's ridge from afar).
func TestCliffAcrossTheGridHasNoSawtooth(t *testing.T) {
	const drop, slope = 10.0, -0.577 // tan −30°: across the cells' (i, j)–(i+1, j+1) diagonals
	cliff := func(x, z float64) float64 {
		d := z - slope*x // signed distance along z to the cliff line
		return drop * smooth(1, -1, d)
	}
	m := fromFunc(t, 129, 256, -5, 30, cliff) // 2 m cells
	flipped := 0
	var surf, bilin float64 // total variation along the cliff's middle
	prevS, prevB := math.NaN(), math.NaN()
	for x := -80.0; x <= 80; x += 0.25 {
		z := slope * x
		s, _ := m.SurfaceAt(x, z)
		b, _ := m.HeightAt(x, z)
		if !math.IsNaN(prevS) {
			surf += math.Abs(s - prevS)
			bilin += math.Abs(b - prevB)
		}
		prevS, prevB = s, b
	}
	nx, nz := m.Samples()
	for j := 0; j < nz-1; j++ {
		for i := 0; i < nx-1; i++ {
			if m.Flipped(i, j) {
				flipped++
			}
		}
	}
	if flipped == 0 {
		t.Errorf("no cell is split along the cliff")
	}
	if surf > 1.5*bilin+1 {
		t.Errorf("along the cliff the surface climbs and falls %.1f m in all, the bilinear ground %.1f m: a sawtooth", surf, bilin)
	}
	t.Logf("%d cells flipped; variation along the cliff: triangles %.1f m, bilinear %.1f m", flipped, surf, bilin)
}

// TestEvenSlopesKeepTheirDiagonal checks that a plane is split as it always was, so
// only cells with a real crease change.
func TestEvenSlopesKeepTheirDiagonal(t *testing.T) {
	m, _ := planeMap(t, 0.3, -0.2)
	nx, nz := m.Samples()
	for j := 0; j < nz-1; j++ {
		for i := 0; i < nx-1; i++ {
			if m.Flipped(i, j) {
				t.Fatalf("cell (%d, %d) of a plane is flipped", i, j)
			}
		}
	}
}

// TestLODErrorSeesTheCliff checks LODError: zero at level 0, small on gentle ground,
// and most of the drop where a coarse level decimates the cliff.
func TestLODErrorSeesTheCliff(t *testing.T) {
	const drop = 12.0
	cliff := func(x, z float64) float64 { return drop*smooth(1.5, -1.5, z-0.4*x) + 0.01*x }
	m := fromFunc(t, 65, 128, -5, 30, cliff)
	var worst, flat float64
	for i, ch := range m.Chunks() {
		if e := m.LODError(i, 0); e != 0 {
			t.Errorf("chunk %d: level 0 error %g, want 0", i, e)
		}
		e := m.LODError(i, m.MaxLOD())
		if ch.Max[1]-ch.Min[1] > drop/2 {
			worst = math.Max(worst, e)
		} else {
			flat = math.Max(flat, e)
		}
	}
	if worst < drop/3 {
		t.Errorf("coarsest level over the cliff strays %.2f m, want at least %.1f", worst, drop/3)
	}
	if flat > 0.5 {
		t.Errorf("coarsest level on even ground strays %.2f m", flat)
	}
}
