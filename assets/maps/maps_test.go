package maps

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treadline/treadline/terrain"
)

// TestShippedMaps: the shipped maps load from the program itself, wherever it runs.
func TestShippedMaps(t *testing.T) {
	t.Chdir(t.TempDir()) // nothing of the repository around
	for _, name := range []string{"valley", "dunes", "expanse"} {
		mp, err := Library{}.Load(name)
		if err != nil {
			t.Fatalf("shipped map %q: %v", name, err)
		}
		if mp.Name() != name || len(mp.Spawns()) < 8 {
			t.Errorf("shipped map %q: name %q, %d spawns", name, mp.Name(), len(mp.Spawns()))
		}
	}
}

// TestLibraryDirs: a directory adds maps and replaces shipped ones of the same name
// (the directory is searched first); the shipped maps are found beside it.
func TestLibraryDirs(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		size float64
	}{{"hills", 128}, {"valley", 96}} {
		mp, err := terrain.Generate(terrain.GenerateConfig{Seed: 2, Size: c.size, Samples: 33, Name: c.name})
		if err != nil {
			t.Fatal(err)
		}
		if err := mp.Save(filepath.Join(dir, c.name)); err != nil {
			t.Fatal(err)
		}
	}
	lib := Library{Dirs: []string{dir}}
	if got := fmt.Sprint(lib.Names()); got != "[dunes expanse hills valley]" {
		t.Errorf("names %s, want [dunes expanse hills valley]", got)
	}
	for _, c := range []struct {
		arg  string
		size float64 // 0: an error
	}{
		{"hills", 128},
		{"valley", 96}, // the directory's, not the shipped one
		{"dunes", 512},
		{filepath.Join(dir, "hills.json"), 128},
		{"nowhere", 0},
		{"../valley", 0},
		{"missing.json", 0}, // a path to a file that is not there
		{"", 0},
	} {
		mp, err := lib.Open(c.arg)
		switch {
		case c.size == 0 && err == nil:
			t.Errorf("Open(%q) = %q, want an error", c.arg, mp.Name())
		case c.size != 0 && err != nil:
			t.Errorf("Open(%q): %v", c.arg, err)
		case c.size != 0 && math.Abs(mp.Size()[0]-c.size) > 1e-9:
			t.Errorf("Open(%q) is %v m across, want %v", c.arg, mp.Size()[0], c.size)
		}
	}
	_, err := lib.Load("nowhere")
	if !errors.Is(err, ErrNoMap) || !strings.Contains(err.Error(), "dunes, expanse, hills, valley") {
		t.Errorf("a missing map: %v, want ErrNoMap naming the maps there are", err)
	}
}

// TestLoadMissing: a name no place holds is an ErrNoMap that names every place
// searched, in the order searched.
func TestLoadMissing(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		lib  Library
		want string
	}{
		{Library{}, `load map "atlantis": no such map in the built-in maps (the maps there: dunes, expanse, valley)`},
		{Library{Dirs: []string{""}}, `load map "atlantis": no such map in the built-in maps (the maps there: dunes, expanse, valley)`},
		{Library{Dirs: []string{dir}}, fmt.Sprintf(`load map "atlantis": no such map in %q or the built-in maps (the maps there: dunes, expanse, valley)`, dir)},
		{Library{Dirs: []string{dir, "/nonexistent"}}, fmt.Sprintf(`load map "atlantis": no such map in %q, "/nonexistent" or the built-in maps (the maps there: dunes, expanse, valley)`, dir)},
	} {
		_, err := c.lib.Load("atlantis")
		if !errors.Is(err, ErrNoMap) || err.Error() != c.want {
			t.Errorf("Library%v.Load(atlantis): %v, want ErrNoMap: %s", c.lib.Dirs, err, c.want)
		}
	}
}

func ExampleLibrary_Names() {
	fmt.Println(Library{}.Names())
	// Output: [dunes expanse valley]
}
