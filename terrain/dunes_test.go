package terrain

import (
	"math"
	"testing"
)

// TestShippedDunes: the shipped dune map is what mapgen makes of its command line, and
// offers what the game needs: flat spawns clear of rocks, crests that hide a tank,
// slopes a tank can drive.
func TestShippedDunes(t *testing.T) {
	m, err := Load("../assets/maps/dunes.json")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Generate(GenerateConfig{Style: StyleDunes, Seed: 11, Size: 512, Samples: 257})
	if err != nil {
		t.Fatal(err)
	}
	nx, nz := m.Samples()
	for j := 0; j < nz; j++ {
		for i := 0; i < nx; i++ {
			if m.Sample(i, j) != want.Sample(i, j) {
				t.Fatalf("sample %d,%d: %g shipped, %g generated", i, j, m.Sample(i, j), want.Sample(i, j))
			}
		}
	}
	if m.Palette() != StyleDunes.Palette() || m.Palette() == DefaultPalette() {
		t.Errorf("palette %v, want the dunes' sand %v", m.Palette(), StyleDunes.Palette())
	}
	if m.Name() != "dunes" || len(m.Spawns()) != 8 || len(m.Obstacles()) < 4 {
		t.Errorf("name %q, %d spawns, %d rocks; want dunes, 8, at least 4", m.Name(), len(m.Spawns()), len(m.Obstacles()))
	}
	checkSpawns(t, m)
	crest, okC := m.Landmark("crest")
	pan, okP := m.Landmark("pan")
	if !okC || !okP {
		t.Fatal(`no "crest" or "pan" landmark`)
	}
	hc, _ := m.HeightAt(crest.X, crest.Z)
	hp, _ := m.HeightAt(pan.X, pan.Z)
	if hc-hp < 3 { // a tank is about 2.5 m tall
		t.Errorf("the crest stands %.1f m over the pan, want at least 3 m to hide a tank", hc-hp)
	}
	// Mostly drivable: 99% of the ground under 25°.
	steep, all := 0, 0
	for z := -240.0; z <= 240; z += 2 {
		for x := -240.0; x <= 240; x += 2 {
			n, _ := m.NormalAt(x, z)
			if n[1] < math.Cos(25*math.Pi/180) {
				steep++
			}
			all++
		}
	}
	if steep*100 > all {
		t.Errorf("%d of %d points steeper than 25°", steep, all)
	}
}

func TestStyleText(t *testing.T) {
	for _, s := range []Style{StyleValley, StyleDunes} {
		b, _ := s.MarshalText()
		var got Style
		if err := got.UnmarshalText(b); err != nil || got != s {
			t.Errorf("%v → %q → %v, %v", s, b, got, err)
		}
	}
	var s Style
	if err := s.UnmarshalText([]byte("moon")); err == nil {
		t.Error(`style "moon" accepted`)
	}
	if _, err := Generate(GenerateConfig{Style: 9}); err == nil {
		t.Error("style 9 generated")
	}
}
