// Command mapgen generates a battlefield heightmap and its sidecar, deterministically
// from a seed. The shipped map was made with
//
//	go run ./cmd/mapgen -seed 7 -size 512 -samples 257 -out assets/maps/valley
//
// which writes assets/maps/valley.png (16-bit grayscale) and assets/maps/valley.json.
package main

import (
	"errors"
	"flag"
	"fmt"
	"log"
	"os"

	"github.com/treadline/treadline/terrain"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("mapgen: ")
	var (
		cfg terrain.GenerateConfig
		out string
	)
	flag.Uint64Var(&cfg.Seed, "seed", 7, "generator seed")
	flag.Float64Var(&cfg.Size, "size", terrain.DefaultSize, "side of the square map, m")
	flag.IntVar(&cfg.Samples, "samples", terrain.DefaultSamples, "height samples per side")
	flag.StringVar(&cfg.Name, "name", "", "map name recorded in the sidecar (default: the base name of -out)")
	flag.StringVar(&out, "out", "", "output path without extension; writes OUT.png and OUT.json")
	flag.Parse()
	if err := run(cfg, out); err != nil {
		log.Fatal(err)
	}
}

func run(cfg terrain.GenerateConfig, out string) error {
	if out == "" {
		flag.Usage()
		return errors.New("-out is required")
	}
	if flag.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", flag.Args())
	}
	if cfg.Name == "" {
		cfg.Name = baseName(out)
	}
	m, err := terrain.Generate(cfg)
	if err != nil {
		return err
	}
	if err := m.Save(out); err != nil {
		return err
	}
	lo, hi := m.HeightRange()
	nx, nz := m.Samples()
	fmt.Fprintf(os.Stdout, "wrote %s.png and %s.json: %d×%d samples, %.0f m, heights %.1f…%.1f m, %d rocks, %d spawns\n",
		out, out, nx, nz, m.Size()[0], lo, hi, len(m.Obstacles()), len(m.Spawns()))
	return nil
}

// baseName returns the last element of a slash- or backslash-separated path.
func baseName(p string) string {
	for i := len(p) - 1; i >= 0; i-- {
		if p[i] == '/' || p[i] == '\\' {
			return p[i+1:]
		}
	}
	return p
}
