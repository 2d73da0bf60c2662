package cli

import (
	"errors"
	"os"
	"strings"

	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/terrain"
)

// MapsDir checks a directory of extra maps, such as -maps: it exists and is a
// directory.
func MapsDir(flag, dir string) error {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return Usagef(flag, "%s: no such directory", dir)
	case err != nil:
		return Usagef(flag, "%s: %v", dir, err)
	case !st.IsDir():
		return Usagef(flag, "%s: not a directory; give the directory that holds NAME.json and its heightmap", dir)
	}
	return nil
}

// Map loads the map a flag such as -map names, from lib: a map name, or a path to a
// sidecar file. A map that cannot be had is a *UsageError naming the maps there are.
func Map(flag, arg string, lib maps.Library) (*terrain.Map, error) {
	mp, err := lib.Open(arg)
	if err == nil {
		return mp, nil
	}
	if errors.Is(err, maps.ErrNoMap) || maps.CheckName(arg) != nil && !strings.ContainsAny(arg, `/\`) && !strings.HasSuffix(arg, ".json") {
		return nil, Usagef(flag, "%q: give one of %s, or a map file NAME.json", arg, strings.Join(lib.Names(), ", "))
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil, Usagef(flag, "%s: no such file", arg)
	}
	return nil, Usagef(flag, "%s: %v", arg, err)
}
