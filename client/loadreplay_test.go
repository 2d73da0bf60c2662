package client

import (
	"path/filepath"
	"testing"

	"github.com/treadline/treadline/terrain"
)

// TestLoadReplayAnywhere: a recording plays from any directory, its map found among
// the built-in maps, with or without a maps directory beside them; a maps directory's
// map of the same name is the one loaded.
func TestLoadReplayAnywhere(t *testing.T) {
	rec, err := filepath.Abs("../assets/recordings/practice-7-bots.tread")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir) // nothing of the repository around
	own := t.TempDir()
	mp, err := terrain.Generate(terrain.GenerateConfig{Seed: 2, Size: 96, Samples: 33, Name: "valley"})
	if err != nil {
		t.Fatal(err)
	}
	if err := mp.Save(filepath.Join(own, "valley")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		mapDir string
		size   float64 // across, m
	}{
		{"", 512},             // built in
		{dir, 512},            // a directory without the map: built in
		{"/nonexistent", 512}, // a directory that is not there: built in
		{own, 96},             // the directory's valley before the built-in one
	} {
		p, stopped, err := LoadReplay(rec, c.mapDir, nil)
		if err != nil {
			t.Errorf("LoadReplay(%s, maps %q) from %s: %v", rec, c.mapDir, dir, err)
			continue
		}
		if stopped != "" {
			t.Errorf("LoadReplay(maps %q): stopped %q, want a whole file", c.mapDir, stopped)
		}
		if got := p.Map(); got.Name() != "valley" || got.Size()[0] != c.size {
			t.Errorf("LoadReplay(maps %q): map %q %v m across, want valley %v m across", c.mapDir, got.Name(), got.Size()[0], c.size)
		}
	}
}
