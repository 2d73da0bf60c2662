package terrain

import (
	"math"
	"testing"
)

// TestShippedExpanse: the large map is 2 km across, with sixteen flat spawn pads of
// two spawn points each, spread so that every pad's nearest neighbour is more than
// 200 m away, and the rocks of a valley that size.
func TestShippedExpanse(t *testing.T) {
	m, err := Load("../assets/maps/expanse.json")
	if err != nil {
		t.Fatal(err)
	}
	if m.Size()[0] < 2000 || m.Size()[1] < 2000 {
		t.Errorf("%v m across, want at least 2 km", m.Size())
	}
	sp := m.Spawns()
	if len(sp) != 32 {
		t.Fatalf("%d spawns, want 32", len(sp))
	}
	checkSpawns(t, m)
	for i := 0; i < len(sp); i += 2 {
		near := math.Inf(1)
		for j := 0; j < len(sp); j += 2 {
			if j != i {
				near = math.Min(near, sp[i].Sub(sp[j]).Len())
			}
		}
		if near < 200 {
			t.Errorf("pad of spawn %d at %v: another pad %.0f m away, want at least 200", i, sp[i], near)
		}
	}
	if len(m.Obstacles()) < 400 {
		t.Errorf("%d rocks, want at least 400", len(m.Obstacles()))
	}
}

// TestGeneratePads: Pads spawn pads give two spawn points each, in either style; a
// count outside DefaultPads…MaxPads is refused.
func TestGeneratePads(t *testing.T) {
	for _, st := range []Style{StyleValley, StyleDunes} {
		m, err := Generate(GenerateConfig{Seed: 3, Size: 1024, Samples: 65, Style: st, Pads: 9})
		if err != nil {
			t.Fatalf("%v: %v", st, err)
		}
		if n := len(m.Spawns()); n != 18 {
			t.Errorf("%v with 9 pads: %d spawns, want 18", st, n)
		}
	}
	for _, n := range []int{-1, DefaultPads - 1, MaxPads + 1} {
		if _, err := Generate(GenerateConfig{Samples: 33, Pads: n}); err == nil {
			t.Errorf("%d pads: no error", n)
		}
	}
}
