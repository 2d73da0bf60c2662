package client

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/treadline/treadline/record"
	"github.com/treadline/treadline/terrain"
)

// TestLoadReplayAnywhere: a recording plays from any directory, its map found among
// the built-in maps, with or without a maps directory beside them; a maps directory's
// map of the same name is the one loaded. The shipped recording is loaded once, from
// the built-in maps; the other cases load a recording of a few frames made on the same
// map, which finds its map the same way and is read in no time, where the shipped one
// (800 kB) takes seconds under the race detector.
func TestLoadReplayAnywhere(t *testing.T) {
	shipped, err := filepath.Abs("../assets/recordings/practice-7-bots.tread")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	t.Chdir(dir) // nothing of the repository around
	short := filepath.Join(t.TempDir(), "short.tread")
	writeShortRecording(t, short, "valley")
	own := t.TempDir()
	mp, err := terrain.Generate(terrain.GenerateConfig{Seed: 2, Size: 96, Samples: 33, Name: "valley"})
	if err != nil {
		t.Fatal(err)
	}
	if err := mp.Save(filepath.Join(own, "valley")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		rec    string
		mapDir string
		size   float64 // across, m
	}{
		{shipped, "", 512},           // built in
		{short, dir, 512},            // a directory without the map: built in
		{short, "/nonexistent", 512}, // a directory that is not there: built in
		{short, own, 96},             // the directory's valley before the built-in one
	} {
		p, stopped, err := LoadReplay(c.rec, c.mapDir, nil)
		if err != nil {
			t.Errorf("LoadReplay(%s, maps %q) from %s: %v", c.rec, c.mapDir, dir, err)
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

// writeShortRecording writes a recording of a few frames made on the map named mapName
// to path.
func writeShortRecording(t *testing.T, path, mapName string) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w, err := record.NewWriter(f, record.Meta{Map: mapName}, record.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		w.Frame(float64(i)*0.1, 0)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}
