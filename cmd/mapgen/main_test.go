package main

import (
	"path/filepath"
	"testing"

	"github.com/treadline/treadline/terrain"
)

func TestRunWritesALoadableMap(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hills")
	cfg := terrain.GenerateConfig{Seed: 3, Size: 128, Samples: 65}
	if err := run(cfg, out); err != nil {
		t.Fatal(err)
	}
	m, err := terrain.Load(out + ".json")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Name = "hills"
	want, _ := terrain.Generate(cfg)
	nx, nz := m.Samples()
	if m.Name() != "hills" || nx != 65 || nz != 65 || m.Size() != want.Size() {
		t.Fatalf("loaded %q %d×%d over %v, want \"hills\" 65×65 over %v", m.Name(), nx, nz, m.Size(), want.Size())
	}
	for j := 0; j < nz; j++ {
		for i := 0; i < nx; i++ {
			if m.Sample(i, j) != want.Sample(i, j) {
				t.Fatalf("sample %d,%d: %g on disk, %g generated", i, j, m.Sample(i, j), want.Sample(i, j))
			}
		}
	}
	if err := run(cfg, ""); err == nil {
		t.Error("run without -out succeeded")
	}
}

func TestBaseName(t *testing.T) {
	for in, want := range map[string]string{"assets/maps/valley": "valley", `a\b`: "b", "x": "x", "dir/": ""} {
		if got := baseName(in); got != want {
			t.Errorf("baseName(%q) = %q, want %q", in, got, want)
		}
	}
}
