package terrain

import (
	"bytes"
	"errors"
	"math"
	"testing"
)

// meanColor is the mean vertex colour of every chunk's finest mesh.
func meanColor(m *Map) [3]float64 {
	var sum [3]float64
	n := 0
	for i := range m.Chunks() {
		cm := m.ChunkMesh(i, 0)
		for k := 0; k+2 < len(cm.Colors); k += 3 {
			for c := range 3 {
				sum[c] += float64(cm.Colors[k+c])
			}
			n++
		}
	}
	for c := range sum {
		sum[c] /= float64(n)
	}
	return sum
}

// TestPalette: a sidecar's palette colours the ground and survives a save and a load;
// without one the ground is the default's green; a palette out of range is refused.
func TestPalette(t *testing.T) {
	m, err := Generate(GenerateConfig{Seed: 3, Size: 128, Samples: 65})
	if err != nil {
		t.Fatal(err)
	}
	if m.Palette() != DefaultPalette() {
		t.Fatalf("a generated map's palette is %v, want the default", m.Palette())
	}
	if c := meanColor(m); !(c[1] > c[0] && c[1] > c[2]) {
		t.Errorf("default ground mean colour %.2f is not green", c)
	}
	sand := Palette{Low: [3]float32{0.74, 0.6, 0.38}, High: [3]float32{0.82, 0.7, 0.47},
		Slope: [3]float32{0.64, 0.49, 0.3}, Cliff: [3]float32{0.56, 0.43, 0.31}, Peak: [3]float32{0.88, 0.79, 0.58}}
	nan := float32(math.NaN())
	for _, tc := range []struct {
		name    string
		palette *Palette
		err     error
	}{
		{"sand", &sand, nil},
		{"none", nil, nil},
		{"over one", &Palette{Low: [3]float32{1.5, 0, 0}}, ErrInvalidMap},
		{"negative", &Palette{Peak: [3]float32{0, -0.1, 0}}, ErrInvalidMap},
		{"not a number", &Palette{Cliff: [3]float32{nan, 0, 0}}, ErrInvalidMap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := m.Sidecar("h.png")
			sc.Palette = tc.palette
			var img bytes.Buffer
			if err := m.Encode(&bytes.Buffer{}, &img, "h.png"); err != nil {
				t.Fatal(err)
			}
			got, err := Decode(sc, &img)
			if !errors.Is(err, tc.err) {
				t.Fatalf("Decode: %v, want %v", err, tc.err)
			}
			if err != nil {
				return
			}
			want := DefaultPalette()
			if tc.palette != nil {
				want = *tc.palette
			}
			if got.Palette() != want {
				t.Errorf("palette %v, want %v", got.Palette(), want)
			}
			if back := got.Sidecar("h.png").Palette; (back == nil) != (tc.palette == nil) || back != nil && *back != want {
				t.Errorf("the sidecar written back has palette %v, want %v", back, tc.palette)
			}
			if tc.palette == &sand {
				if c := meanColor(got); !(c[0] > c[1] && c[1] > c[2] && c[0] > 0.5) {
					t.Errorf("sand ground mean colour %.2f is not sand (red over green over blue, bright)", c)
				}
			}
		})
	}
}
