package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/terrain"
)

func TestRunWritesALoadableMap(t *testing.T) {
	out := filepath.Join(t.TempDir(), "hills")
	cfg := terrain.GenerateConfig{Seed: 3, Size: 128, Samples: 65}
	if err := generate(cfg, out, io.Discard); err != nil {
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
	if err := run(context.Background(), nil, io.Discard, io.Discard); cli.Code(err) != cli.ExitUsage {
		t.Errorf("run without -out: %v, want a usage error", err)
	}
}

func TestBaseName(t *testing.T) {
	for in, want := range map[string]string{"assets/maps/valley": "valley", `a\b`: "b", "x": "x", "dir/": ""} {
		if got := baseName(in); got != want {
			t.Errorf("baseName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestBadInput: bad values are usage errors naming the flag.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "mapgen: -out is required"},
		{[]string{"-out", "/nonexistent/m"}, "mapgen: -out /nonexistent/m.png: directory /nonexistent does not exist"},
		{[]string{"-out", "m", "-size", "NaN"}, "mapgen: -size NaN: give a side above 0"},
		{[]string{"-out", "m", "-samples", "3"}, "mapgen: -samples 3: give 9 to 4097"},
		{[]string{"-out", "m", "-pads", "3"}, "mapgen: -pads 3: give 4 to 64 spawn pads"},
		{[]string{"-out", "m", "stray"}, `mapgen: unexpected argument "stray"`},
	} {
		err := run(context.Background(), c.args, io.Discard, io.Discard)
		if line := cli.Line("mapgen", err); cli.Code(err) != cli.ExitUsage || !strings.HasPrefix(line, c.want) {
			t.Errorf("mapgen %q: code %d, line %q; want %d and %q…", c.args, cli.Code(err), line, cli.ExitUsage, c.want)
		}
	}
}
