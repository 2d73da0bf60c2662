package terrain

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/fstest"
)

// sameMap reports the first difference between two maps, or "".
func sameMap(a, b *Map) string {
	switch {
	case a.nx != b.nx || a.nz != b.nz:
		return "sample counts"
	case a.Min() != b.Min() || a.Max() != b.Max():
		return "extent"
	case a.heightBase != b.heightBase || a.heightScale != b.heightScale:
		return "height encoding"
	case !slices.Equal(a.raw, b.raw) || !slices.Equal(a.h, b.h):
		return "heights"
	case !slices.Equal(a.obstacles, b.obstacles):
		return "rocks"
	case !slices.Equal(a.spawns, b.spawns):
		return "spawns"
	case !slices.Equal(a.landmarks, b.landmarks):
		return "landmarks"
	case a.name != b.name || a.chunkCells != b.chunkCells || a.seed != b.seed:
		return "name, chunk size or seed"
	}
	return ""
}

func TestSaveLoadRoundTrip(t *testing.T) {
	m, err := Generate(GenerateConfig{Seed: 5, Size: 300, Samples: 101, Name: "round"})
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "round")
	if err := m.Save(base); err != nil {
		t.Fatal(err)
	}
	back, err := Load(base + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if d := sameMap(m, back); d != "" {
		t.Fatalf("loaded map differs from the saved one in its %s", d)
	}
}

func TestGenerateIsDeterministic(t *testing.T) {
	cfg := GenerateConfig{Seed: 99, Size: 200, Samples: 81}
	a, err := Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate(cfg)
	if d := sameMap(a, b); d != "" {
		t.Fatalf("two maps from one config differ in their %s", d)
	}
	cfg.Seed++
	c, _ := Generate(cfg)
	if slices.Equal(a.raw, c.raw) {
		t.Fatal("seeds 99 and 100 gave the same heights")
	}
}

// The shipped map must be exactly what `go run ./cmd/mapgen -seed 7 -size 512
// -samples 257 -out assets/maps/valley` writes.
func TestShippedMapIsReproducible(t *testing.T) {
	wantJSON, err := os.ReadFile("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	wantPNG, err := os.ReadFile("../assets/maps/valley.png")
	if err != nil {
		t.Fatal(err)
	}
	m, err := Generate(GenerateConfig{Seed: 7, Size: 512, Samples: 257, Name: "valley"})
	if err != nil {
		t.Fatal(err)
	}
	var js, img bytes.Buffer
	if err := m.Encode(&js, &img, "valley.png"); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(js.Bytes(), wantJSON) {
		t.Error("valley.json differs from the generator's output for seed 7")
	}
	if !bytes.Equal(img.Bytes(), wantPNG) {
		t.Error("valley.png differs from the generator's output for seed 7")
	}
}

// gray16PNG encodes a w×h 16-bit grayscale image of constant value v.
func gray16PNG(t testing.TB, w, h int, v uint16) []byte {
	img := image.NewGray16(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetGray16(x, y, color.Gray16{Y: v})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestLoadRejectsBadMaps(t *testing.T) {
	good := `{"name":"t","heightmap":"h.png","extent":{"minX":-8,"minZ":-8,"maxX":8,"maxZ":8},
		"heightBase":0,"heightScale":10,"rocks":[{"x":1,"z":1,"radius":1,"height":1}],"spawns":[{"x":0,"z":0}]}`
	pngOK := gray16PNG(t, 9, 9, 1000)
	cases := []struct {
		name    string
		sidecar string
		png     []byte
		invalid bool // want ErrInvalidMap (else another error, such as a missing file)
	}{
		{"not json", `{"name":`, pngOK, true},
		{"unknown field", `{"name":"t","hieghtmap":"h.png"}`, pngOK, true},
		{"no heightmap", `{"name":"t","extent":{"minX":-8,"minZ":-8,"maxX":8,"maxZ":8},"heightScale":10}`, pngOK, true},
		{"heightmap in another directory", replace(good, `"h.png"`, `"../h.png"`), pngOK, true},
		{"heightmap missing", replace(good, `"h.png"`, `"gone.png"`), pngOK, false},
		{"empty extent", replace(good, `"maxX":8`, `"maxX":-8`), pngOK, true},
		{"zero height scale", replace(good, `"heightScale":10`, `"heightScale":0`), pngOK, true},
		{"rock off the map", replace(good, `"x":1,"z":1`, `"x":100,"z":1`), pngOK, true},
		{"rock without radius", replace(good, `"radius":1`, `"radius":0`), pngOK, true},
		{"spawn off the map", replace(good, `"spawns":[{"x":0,"z":0}]`, `"spawns":[{"x":0,"z":-9}]`), pngOK, true},
		{"negative chunk", replace(good, `"heightBase":0`, `"heightBase":0,"chunkCells":-1`), pngOK, true},
		{"not a png", good, []byte("GIF89a"), true},
		{"one pixel", good, gray16PNG(t, 1, 1, 0), true},
		{"truncated png", good, pngOK[:len(pngOK)/2], true},
	}
	for _, c := range cases {
		fsys := fstest.MapFS{"m.json": {Data: []byte(c.sidecar)}, "h.png": {Data: c.png}}
		_, err := LoadFS(fsys, "m.json")
		if err == nil {
			t.Errorf("%s: loaded without error", c.name)
			continue
		}
		if got := errors.Is(err, ErrInvalidMap); got != c.invalid {
			t.Errorf("%s: %v; errors.Is(ErrInvalidMap) = %v, want %v", c.name, err, got, c.invalid)
		}
		if !c.invalid && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s: %v, want a not-exist error", c.name, err)
		}
	}
	fsys := fstest.MapFS{"m.json": {Data: []byte(good)}, "h.png": {Data: pngOK}}
	m, err := LoadFS(fsys, "m.json")
	if err != nil {
		t.Fatalf("good map: %v", err)
	}
	if h, _ := m.HeightAt(3, -2); h != 1000*10.0/65535 {
		t.Errorf("good map: HeightAt = %g, want %g", h, 1000*10.0/65535)
	}
}

func replace(s, old, new string) string {
	out := bytes.Replace([]byte(s), []byte(old), []byte(new), 1)
	return string(out)
}

func TestLoad8BitPNG(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 5, 5))
	img.SetGray(2, 3, color.Gray{Y: 255})
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	sc := `{"name":"g","heightmap":"g.png","extent":{"minX":0,"minZ":0,"maxX":4,"maxZ":4},"heightBase":1,"heightScale":2,"rocks":[],"spawns":[]}`
	m, err := LoadFS(fstest.MapFS{"g.json": {Data: []byte(sc)}, "g.png": {Data: b.Bytes()}}, "g.json")
	if err != nil {
		t.Fatal(err)
	}
	if h, _ := m.HeightAt(2, 3); h != 3 {
		t.Errorf("HeightAt(2, 3) = %g, want 3 (white = base + scale)", h)
	}
	if h, _ := m.HeightAt(0, 0); h != 1 {
		t.Errorf("HeightAt(0, 0) = %g, want 1 (black = base)", h)
	}
}

func FuzzLoad(f *testing.F) {
	good := `{"name":"t","heightmap":"h.png","extent":{"minX":-8,"minZ":-8,"maxX":8,"maxZ":8},"heightBase":0,"heightScale":10,"rocks":[],"spawns":[]}`
	f.Add([]byte(good), gray16PNG(f, 9, 9, 1000))
	f.Add([]byte(good), gray16PNG(f, 3, 40, 65535))
	f.Add([]byte(`{}`), []byte{})
	f.Fuzz(func(t *testing.T, sidecar, img []byte) {
		m, err := LoadFS(fstest.MapFS{"m.json": {Data: sidecar}, "h.png": {Data: img}}, "m.json")
		if err != nil {
			return
		}
		lo, hi := m.Bounds()
		mid := lo.Add(hi).Mul(0.5)
		h, ok := m.HeightAt(mid[0], mid[2])
		if !ok || h < lo[1] || h > hi[1] {
			t.Fatalf("HeightAt(middle) = %g, %v outside %g…%g", h, ok, lo[1], hi[1])
		}
		if n, _ := m.NormalAt(mid[0], mid[2]); !(n[1] > 0) {
			t.Fatalf("NormalAt(middle) = %v", n)
		}
		for i := range m.Chunks() {
			_ = m.ChunkMesh(i, m.MaxLOD())
		}
	})
}
