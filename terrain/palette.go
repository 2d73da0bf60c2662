package terrain

import (
	"fmt"
	"math"
)

// Palette is a map's ground colours, linear RGB in 0…1 each. ChunkMesh colours every
// sample by its height and slope (see Mesh.Colors): Low on level ground low down,
// High on level ground higher up, Slope on moderate slopes, Cliff on steep ones and
// Peak on the highest level ground. A sidecar gives it as "palette"; without one, a
// map has DefaultPalette's grass, dry grass, dirt, rock and snow. Generate gives a map
// its style's palette (Style.Palette).
type Palette struct {
	// Low colours level ground in the lower part of the map's height range.
	Low [3]float32 `json:"low"`
	// High colours level ground in the upper part of the range.
	High [3]float32 `json:"high"`
	// Slope colours moderate slopes.
	Slope [3]float32 `json:"slope"`
	// Cliff colours steep slopes.
	Cliff [3]float32 `json:"cliff"`
	// Peak colours the highest level ground.
	Peak [3]float32 `json:"peak"`
}

// DefaultPalette returns the colours of a map whose sidecar names none: grass, dry
// grass, dirt, rock and snow.
func DefaultPalette() Palette {
	return Palette{
		Low:   [3]float32{0.23, 0.38, 0.14},
		High:  [3]float32{0.42, 0.44, 0.20},
		Slope: [3]float32{0.43, 0.33, 0.22},
		Cliff: [3]float32{0.45, 0.43, 0.41},
		Peak:  [3]float32{0.90, 0.91, 0.94},
	}
}

// check reports a colour component outside 0…1 (or not a number).
func (p Palette) check() error {
	for name, c := range map[string][3]float32{"low": p.Low, "high": p.High, "slope": p.Slope, "cliff": p.Cliff, "peak": p.Peak} {
		for _, v := range c {
			if !(v >= 0 && v <= 1) || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%w: palette %s %v, want components from 0 to 1", ErrInvalidMap, name, c)
			}
		}
	}
	return nil
}

// Palette returns the ground colours of the style: DefaultPalette's for the valley;
// for the dunes sand, pale on the level ground and crests, darker and warmer on the lee
// faces, sandstone on the outcrops' steep sides.
func (s Style) Palette() Palette {
	if s != StyleDunes {
		return DefaultPalette()
	}
	return Palette{
		Low:   [3]float32{0.74, 0.6, 0.38},
		High:  [3]float32{0.82, 0.7, 0.47},
		Slope: [3]float32{0.64, 0.49, 0.3},
		Cliff: [3]float32{0.56, 0.43, 0.31},
		Peak:  [3]float32{0.88, 0.79, 0.58},
	}
}
