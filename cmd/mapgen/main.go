// Command mapgen generates a battlefield heightmap and its sidecar, deterministically
// from a seed, in one of the styles of terrain.Generate (-style valley or dunes). The
// shipped maps were made with
//
//	go run ./cmd/mapgen -seed 7 -size 512 -samples 257 -out assets/maps/valley
//	go run ./cmd/mapgen -style dunes -seed 11 -size 512 -samples 257 -out assets/maps/dunes
//	go run ./cmd/mapgen -seed 23 -size 2048 -samples 513 -pads 16 -out assets/maps/expanse
//
// which write assets/maps/NAME.png (16-bit grayscale) and assets/maps/NAME.json.
package main

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/terrain"
)

func main() { cli.Main("mapgen", run) }

// run parses args, generates the map and writes it.
func run(_ context.Context, args []string, stdout, stderr io.Writer) error {
	var (
		cfg terrain.GenerateConfig
		out string
	)
	fs := cli.NewFlagSet("mapgen", stderr)
	fs.Uint64Var(&cfg.Seed, "seed", 7, "generator seed")
	fs.Float64Var(&cfg.Size, "size", terrain.DefaultSize, fmt.Sprintf("side of the square map, m (up to %g)", terrain.MaxSize))
	fs.IntVar(&cfg.Samples, "samples", terrain.DefaultSamples, fmt.Sprintf("height samples per side, %d..%d", terrain.MinGenerateSamples, terrain.MaxSamples))
	fs.StringVar(&cfg.Name, "name", "", "map name recorded in the sidecar (default: the base name of -out)")
	fs.TextVar(&cfg.Style, "style", terrain.StyleValley, "the map's character: valley (hills, a ridge, a valley floor) or dunes (open desert)")
	fs.IntVar(&cfg.Pads, "pads", terrain.DefaultPads, fmt.Sprintf("spawn pads, two spawn points each, %d..%d", terrain.DefaultPads, terrain.MaxPads))
	fs.StringVar(&out, "out", "", "output path without extension; writes OUT.png and OUT.json")
	if err := cli.Parse(fs, args); err != nil {
		return err
	}
	switch {
	case out == "":
		return cli.Usagef("out", "is required: give the output path without extension, for example -out assets/maps/hills")
	case !(cfg.Size > 0) || cfg.Size > terrain.MaxSize || math.IsInf(cfg.Size, 0):
		return cli.Usagef("size", "%v: give a side above 0 and at most %g m", cfg.Size, terrain.MaxSize)
	case cfg.Pads < terrain.DefaultPads || cfg.Pads > terrain.MaxPads:
		return cli.Usagef("pads", "%d: give %d to %d spawn pads", cfg.Pads, terrain.DefaultPads, terrain.MaxPads)
	case cfg.Samples < terrain.MinGenerateSamples || cfg.Samples > terrain.MaxSamples:
		return cli.Usagef("samples", "%d: give %d to %d samples per side", cfg.Samples, terrain.MinGenerateSamples, terrain.MaxSamples)
	}
	if err := cli.OutputFile("out", out+".png", ""); err != nil {
		return err
	}
	return generate(cfg, out, stdout)
}

// generate writes the map cfg describes to out.png and out.json and says so on stdout.
func generate(cfg terrain.GenerateConfig, out string, stdout io.Writer) error {
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
	fmt.Fprintf(stdout, "wrote %s.png and %s.json: %d×%d samples, %.0f m, heights %.1f…%.1f m, %d rocks, %d spawns\n",
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
