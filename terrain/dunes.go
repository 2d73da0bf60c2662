package terrain

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
)

// Style is the character of a generated map.
type Style uint8

// The map styles.
const (
	// StyleValley is a green valley: hills, a ridge with a ledge, a flat floor.
	StyleValley Style = iota
	// StyleDunes is open desert: rows of dunes about 72 m apart across the map, up to
	// 7 m tall, each with a long windward slope (at most about 15°) from the west and a
	// steeper lee face (about 20°, a few spots up to 35°) to the east, their crests
	// winding and broken by saddles a tank can drive through, flat pans between them, a
	// few rock outcrops, a low rim at the border and four flat spawn pads. The crests
	// hide a tank from one row to the next; the pans and saddles are long open lanes.
	StyleDunes
)

// String returns the style's name: "valley" or "dunes".
func (s Style) String() string {
	switch s {
	case StyleValley:
		return DefaultName
	case StyleDunes:
		return "dunes"
	}
	return fmt.Sprintf("Style(%d)", uint8(s))
}

// MarshalText returns the style's name.
func (s Style) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText reads a style's name, "valley" or "dunes".
func (s *Style) UnmarshalText(b []byte) error {
	for _, st := range []Style{StyleValley, StyleDunes} {
		if string(b) == st.String() {
			*s = st
			return nil
		}
	}
	return fmt.Errorf("map style %q: give valley or dunes", b)
}

// Dune dimensions of the default 512 m map, m.
const (
	duneWave      = 72.0 // distance between crests
	duneHeight    = 7.0  // the tallest crests above the pans
	duneWindward  = 0.58 // share of a wave the windward slope takes
	duneWind      = 0.25 // crest meander amplitude, in waves
	duneMeander   = 220  // crest meander wavelength along the crest
	duneBreak     = 110  // wavelength of the crest height's rise and fall
	duneBaseAmp   = 1.5  // amplitude of the gentle swell under the dunes
	dunePadRadius = 20.0 // spawn pad radius
	duneRockDens  = 24.0 // rock outcrops per km²
)

// dunes holds the seeded layout of a dune field.
type dunes struct {
	cfg   GenerateConfig
	k, hk float64 // horizontal and height scale
	noise valueNoise
	rng   *rand.Rand
	phase float64 // crest offset along X, m
	pads  []pad
}

func newDunes(cfg GenerateConfig) *dunes {
	k := cfg.Size / DefaultSize
	d := &dunes{cfg: cfg, k: k, hk: math.Sqrt(k), noise: valueNoise(cfg.Seed ^ 0x64756e6573),
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x64756e65))}
	d.phase = d.rng.Float64() * duneWave * k
	s := cfg.Size
	for _, c := range [4][2]float64{{-0.34, 0.34}, {0.34, 0.34}, {0.34, -0.34}, {-0.34, -0.34}} {
		p := pad{x: c[0]*s + (d.rng.Float64()*2-1)*0.015*s, z: c[1]*s + (d.rng.Float64()*2-1)*0.015*s, r: dunePadRadius * k}
		d.pads = append(d.pads, p)
	}
	d.pads = morePads(d.pads, cfg, dunePadRadius*k, func(float64, float64) bool { return false })
	for i := range d.pads {
		d.pads[i].level = d.unpadded(d.pads[i].x, d.pads[i].z)
	}
	return d
}

// height is the final height at (x, z), m: the dunes with the pads flattened.
func (d *dunes) height(x, z float64) float64 {
	return flattenPads(d.unpadded(x, z), x, z, d.pads, padBlend*d.k)
}

// unpadded is the swell plus the dune at (x, z), faded out towards the border.
func (d *dunes) unpadded(x, z float64) float64 {
	swell := duneBaseAmp * d.hk * d.noise.fbm(x/(150*d.k), z/(150*d.k))
	half := d.cfg.Size / 2
	edge := math.Min(half-math.Abs(x), half-math.Abs(z))
	fade := smooth(0, rimWidth*d.k, edge)
	return swell + fade*d.dune(x, z) + rimHeight*d.hk*smooth(rimWidth*d.k, 0, edge)
}

// dune is the height of the dune row under (x, z): the wind blows along +X, so each
// wave rises slowly to its crest and falls faster behind it.
func (d *dunes) dune(x, z float64) float64 {
	wave := duneWave * d.k
	// The crest line winds along Z.
	meander := duneWind * wave * math.Sin(2*math.Pi*z/(duneMeander*d.k)+0.8*d.noise.fbm(z/(300*d.k), 3.1))
	u := (x - d.phase - meander) / wave
	row := math.Floor(u)
	u -= row
	// Each crest rises and falls along its length, down to saddles.
	rise := 0.5 + 0.5*math.Sin(2*math.Pi*z/(duneBreak*d.k)+row*2.3+d.noise.fbm(row, 7.7)*2)
	top := duneHeight * d.hk * (0.15 + 0.85*smooth(0.25, 0.85, rise))
	if u < duneWindward {
		return top * smooth(0, 1, u/duneWindward)
	}
	return top * (1 - smooth(0, 1, (u-duneWindward)/(1-duneWindward)))
}

// spawns returns two spawn points per pad, across the wind.
func (d *dunes) spawns() []mgl64.Vec2 {
	var out []mgl64.Vec2
	for _, p := range d.pads {
		off := spawnSpacing * d.k
		out = append(out, mgl64.Vec2{round2(p.x), round2(p.z - off)}, mgl64.Vec2{round2(p.x), round2(p.z + off)})
	}
	return out
}

// landmarks places "pan" at the map's middle facing downwind and "crest" on top of
// the crest nearest the middle, facing down its lee face.
func (d *dunes) landmarks() []Landmark {
	wave := duneWave * d.k
	best, bestH := 0.0, -1.0
	for x := -wave; x <= wave; x += wave / 64 {
		if h := d.dune(x, 0); h > bestH {
			best, bestH = x, h
		}
	}
	return []Landmark{
		{Name: "pan", X: 0, Z: 0, Yaw: 0},
		{Name: "crest", X: round2(best), Z: 0, Yaw: 0},
	}
}

// rocks scatters a few outcrops on level ground, clear of the pads and one another.
func (d *dunes) rocks(m *Map) []Obstacle {
	half := d.cfg.Size / 2
	margin := rockMargin * d.k
	want := int(math.Round(duneRockDens * d.cfg.Size * d.cfg.Size / 1e6))
	var out []Obstacle
	for try := 0; try < 40*want && len(out) < want; try++ {
		x := (d.rng.Float64()*2 - 1) * (half - margin)
		z := (d.rng.Float64()*2 - 1) * (half - margin)
		r := 1.5 + 2.5*d.rng.Float64()
		ht := r * (0.6 + 0.5*d.rng.Float64())
		if n, _ := m.NormalAt(x, z); n[1] < 0.99 {
			continue
		}
		ok := true
		for _, p := range d.pads {
			ok = ok && math.Hypot(x-p.x, z-p.z) >= p.r+padBlend*d.k+rockPadClear
		}
		for _, o := range out {
			ok = ok && math.Hypot(x-o.X, z-o.Z) >= r+o.Radius+4*rockSpacing
		}
		if ok {
			out = append(out, Obstacle{X: round2(x), Z: round2(z), Radius: round2(r), Height: round2(ht)})
		}
	}
	return out
}
