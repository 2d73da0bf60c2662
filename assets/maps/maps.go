// Package maps holds the maps Treadline ships, embedded in every program that imports
// it, so that the client and the host run from any directory; and it is the one
// loader of a map by name, among them and in directories a player or an operator adds
// (-maps DIR). Every program and package loads its maps through Library.
//
// A map is a sidecar NAME.json beside the heightmap PNG it names (package terrain,
// Sidecar). The shipped maps:
//
//   - valley: hills, a ridge with a long climb and a ledge, a wide valley floor.
//   - dunes: open desert, rows of dunes with saddles and flat pans between them.
//   - expanse: a valley of 2 × 2 km with sixteen spawn pads, for matches of up to
//     512 tanks.
//
// All were made by cmd/mapgen; its doc gives the command lines.
//
//	mp, err := maps.Library{Dirs: []string{"mymaps"}}.Load("dunes")
package maps

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/treadline/treadline/terrain"
)

//go:embed *.json *.png
var shipped embed.FS

// Default is the map a match runs unless told otherwise.
const Default = "valley"

// ErrNoMap reports a map name that no directory of the library holds.
var ErrNoMap = errors.New("no such map")

// Shipped returns the file system of the maps built into the program.
func Shipped() fs.FS { return shipped }

// Library finds maps by name: in Dirs, in order, then among the shipped maps, so that
// a directory can add maps and replace shipped ones of the same name. The zero value
// finds the shipped maps only. Safe for concurrent use.
type Library struct {
	// Dirs are directories searched before the shipped maps; empty ones are skipped,
	// so Library{Dirs: []string{dir}} with an optional dir reads well.
	Dirs []string
}

// CheckName reports whether name can name a map: a file name without directories
// and without the ".json" extension.
func CheckName(name string) error {
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\`) || strings.HasSuffix(name, ".json") {
		return fmt.Errorf("map name %q: give a name such as %q, without directories or extension", name, Default)
	}
	return nil
}

// Load loads the map called name, the file NAME.json and the heightmap it names: from
// the first of Dirs that holds it, else from the shipped maps. A name no place holds
// is an ErrNoMap naming the places searched and the maps there are.
func (l Library) Load(name string) (*terrain.Map, error) {
	if err := CheckName(name); err != nil {
		return nil, err
	}
	for _, fsys := range l.fileSystems() {
		if _, err := fs.Stat(fsys, name+".json"); err != nil {
			continue
		}
		mp, err := terrain.LoadFS(fsys, name+".json")
		if err != nil {
			return nil, fmt.Errorf("load map %q: %w", name, err)
		}
		return mp, nil
	}
	return nil, fmt.Errorf("load map %q: %w in %s (the maps there: %s)", name, ErrNoMap, l.places(), strings.Join(l.Names(), ", "))
}

// places names where the library looks, in order: "dir1, dir2 or the built-in maps".
func (l Library) places() string {
	var ps []string
	for _, d := range l.Dirs {
		if d != "" {
			ps = append(ps, fmt.Sprintf("%q", d))
		}
	}
	ps = append(ps, "the built-in maps")
	if len(ps) == 1 {
		return ps[0]
	}
	return strings.Join(ps[:len(ps)-1], ", ") + " or " + ps[len(ps)-1]
}

// Open loads the map arg names: a path to a sidecar file when it holds a directory
// separator or ends in ".json", else a name Load finds. Use it for a map a player or
// an operator names (a flag); a name read from elsewhere (a host, a recording) goes
// to Load, which never reads a path.
func (l Library) Open(arg string) (*terrain.Map, error) {
	if strings.ContainsAny(arg, `/\`) || strings.HasSuffix(arg, ".json") {
		return terrain.Load(arg)
	}
	return l.Load(arg)
}

// Names returns the names of every map the library finds, sorted, each once.
func (l Library) Names() []string {
	var names []string
	for _, fsys := range l.fileSystems() {
		found, _ := fs.Glob(fsys, "*.json")
		for _, f := range found {
			names = append(names, strings.TrimSuffix(f, ".json"))
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// fileSystems returns the directories to search, in order, then the shipped maps.
func (l Library) fileSystems() []fs.FS {
	out := make([]fs.FS, 0, len(l.Dirs)+1)
	for _, d := range l.Dirs {
		if d != "" {
			out = append(out, os.DirFS(filepath.Clean(d)))
		}
	}
	return append(out, shipped)
}
