package terrain

import (
	"math"
	"testing"
)

// The shipped map must offer what the game and the tests rely on: a large map
// centered on the origin, spawn points on flat ground clear of rocks, a ledge, long
// slopes and flats.
func TestShippedValley(t *testing.T) {
	m, err := Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	nx, nz := m.Samples()
	if nx < 257 || nz < 257 {
		t.Errorf("%d×%d samples, want at least 257×257", nx, nz)
	}
	if m.Min()[0] != -256 || m.Min()[1] != -256 || m.Max()[0] != 256 || m.Max()[1] != 256 {
		t.Errorf("extent %v…%v, want [−256, 256]²", m.Min(), m.Max())
	}
	if len(m.Spawns()) < 8 {
		t.Errorf("%d spawns, want at least 8", len(m.Spawns()))
	}
	checkSpawns(t, m)
	if len(m.Obstacles()) < 20 {
		t.Errorf("%d rocks, want at least 20", len(m.Obstacles()))
	}

	// Landmarks: from "ledge", the ground ahead drops at least 8 m within 25 m, most of
	// it within 4 m; from "climb", it rises at least 12 m over the next 80 m.
	ahead := func(lm Landmark, d float64) float64 {
		h, _ := m.HeightAt(lm.X+d*math.Cos(lm.Yaw), lm.Z-d*math.Sin(lm.Yaw))
		return h
	}
	if lm, ok := m.Landmark("ledge"); !ok {
		t.Error(`no "ledge" landmark`)
	} else {
		h0 := ahead(lm, 0)
		steepest := 0.0
		for d := 0.0; d < 25; d += 0.5 {
			steepest = math.Max(steepest, ahead(lm, d)-ahead(lm, d+4))
		}
		if h0-ahead(lm, 25) < 8 || steepest < 6 {
			t.Errorf("ledge at (%g, %g): drops %.1f m over 25 m, at most %.1f m within 4 m; want ≥ 8 and ≥ 6", lm.X, lm.Z, h0-ahead(lm, 25), steepest)
		}
	}
	if lm, ok := m.Landmark("climb"); !ok {
		t.Error(`no "climb" landmark`)
	} else if rise := ahead(lm, 80) - ahead(lm, 0); rise < 12 {
		t.Errorf("climb at (%g, %g): rises %.1f m over 80 m, want ≥ 12", lm.X, lm.Z, rise)
	}
	if lm, ok := m.Landmark("floor"); !ok {
		t.Error(`no "floor" landmark`)
	} else if n, _ := m.NormalAt(lm.X, lm.Z); n[1] < 0.999 {
		t.Errorf("floor at (%g, %g): normal %v, want level", lm.X, lm.Z, n)
	}

	// Ledge: some pair of neighbouring samples differs by at least 8 m.
	maxStep := 0.0
	steep, flat, cells := 0, 0, 0
	for j := 0; j+1 < nz; j++ {
		for i := 0; i+1 < nx; i++ {
			maxStep = math.Max(maxStep, math.Abs(m.Sample(i, j+1)-m.Sample(i, j)))
			x, z := m.sampleX(i), m.sampleZ(j)
			n, _ := m.NormalAt(x, z)
			switch slope := math.Acos(n[1]) * 180 / math.Pi; {
			case slope >= 12 && slope <= 30:
				steep++
			case slope <= 2:
				flat++
			}
			cells++
		}
	}
	if maxStep < 8 {
		t.Errorf("largest drop between neighbouring samples %.1f m, want a ledge of at least 8 m", maxStep)
	}
	// At least 4 % of the map is climbable slope (12°…30°) and 10 % flat (≤ 2°).
	if float64(steep) < 0.04*float64(cells) || float64(flat) < 0.10*float64(cells) {
		t.Errorf("%.1f %% slopes of 12°…30° and %.1f %% flats, want ≥ 4 %% and ≥ 10 %%",
			100*float64(steep)/float64(cells), 100*float64(flat)/float64(cells))
	}
	t.Logf("ledge %.1f m; %.1f %% slopes 12°…30°; %.1f %% flat", maxStep, 100*float64(steep)/float64(cells), 100*float64(flat)/float64(cells))
}

func TestGenerateConfig(t *testing.T) {
	for _, c := range []struct {
		cfg GenerateConfig
		ok  bool
	}{
		{GenerateConfig{}, true},
		{GenerateConfig{Size: 100, Samples: 9}, true},
		{GenerateConfig{Size: 2048, Samples: 33}, true},
		{GenerateConfig{Samples: 8}, false},
		{GenerateConfig{Samples: MaxSamples + 1}, false},
		{GenerateConfig{Size: -1}, false},
		{GenerateConfig{Size: math.NaN()}, false},
		{GenerateConfig{Size: math.Inf(1)}, false},
		{GenerateConfig{ChunkCells: -4}, false},
	} {
		m, err := Generate(c.cfg)
		if (err == nil) != c.ok {
			t.Errorf("Generate(%+v): err = %v, want ok = %v", c.cfg, err, c.ok)
			continue
		}
		if err != nil {
			continue
		}
		size := c.cfg.Size
		if size == 0 {
			size = DefaultSize
		}
		if got := m.Size(); got[0] != size || got[1] != size {
			t.Errorf("Generate(%+v): size %v, want %g", c.cfg, got, size)
		}
		if m.Name() != DefaultName || len(m.Spawns()) != 8 {
			t.Errorf("Generate(%+v): name %q, %d spawns", c.cfg, m.Name(), len(m.Spawns()))
		}
	}
}

// checkSpawns checks that every spawn point is on flat ground, every normal within
// 3° of vertical over 8 m, and 10 m clear of rocks.
func checkSpawns(t *testing.T, m *Map) {
	t.Helper()
	for i, s := range m.Spawns() {
		for dz := -8.0; dz <= 8; dz += 2 {
			for dx := -8.0; dx <= 8; dx += 2 {
				if n, _ := m.NormalAt(s[0]+dx, s[1]+dz); n[1] < math.Cos(3*math.Pi/180) {
					t.Errorf("spawn %d at %v: ground tilted %.1f° at offset (%g, %g)", i, s, math.Acos(n[1])*180/math.Pi, dx, dz)
				}
			}
		}
		for _, o := range m.Obstacles() {
			if d := math.Hypot(o.X-s[0], o.Z-s[1]); d < o.Radius+10 {
				t.Errorf("spawn %d at %v: rock at (%g, %g) only %.1f m away", i, s, o.X, o.Z, d)
			}
		}
	}
}
