package terrain

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Defaults and limits for GenerateConfig.
const (
	// DefaultSize is the side of a generated map, m.
	DefaultSize = 512.0
	// DefaultSamples is the number of height samples along each side of a generated map.
	DefaultSamples = 257
	// DefaultName is the name recorded for a generated map.
	DefaultName = "valley"
	// DefaultPads is the number of spawn pads of a generated map: one near each corner.
	DefaultPads = 4
	// MaxPads is the most spawn pads Generate places.
	MaxPads = 64
	// MinGenerateSamples is the fewest samples per side Generate accepts.
	MinGenerateSamples = 9
	// MaxSize is the largest map side Generate accepts, m.
	MaxSize = 65536.0
)

// GenerateConfig describes a procedural map. The zero value generates the default
// 512 m valley with seed 0.
type GenerateConfig struct {
	// Seed selects the map; the same config always gives the same map.
	Seed uint64
	// Size is the side of the square map, m, centered on the origin. If zero,
	// defaults to DefaultSize.
	Size float64
	// Samples is the number of height samples along each side, at least
	// MinGenerateSamples. If zero, defaults to DefaultSamples.
	Samples int
	// Name is recorded in the sidecar. If empty, defaults to DefaultName.
	Name string
	// ChunkCells is the side of a render chunk in cells. If zero, defaults to
	// DefaultChunkCells.
	ChunkCells int
	// Style is the map's character. The zero value is StyleValley.
	Style Style
	// Pads is the number of flat spawn pads, with two spawn points each, from
	// DefaultPads to MaxPads: one near each corner, and the rest spread over the map
	// (clear of a valley's ridge) as far from one another as they fit. If zero,
	// defaults to DefaultPads.
	Pads int
}

// field is one style of generated map: its heights and what stands on it.
type field interface {
	// height is the height at (x, z), m.
	height(x, z float64) float64
	spawns() []mgl64.Vec2
	landmarks() []Landmark
	// rocks places the rocks on the map the heights made.
	rocks(m *Map) []Obstacle
}

// Generate builds a map procedurally and deterministically, in the style cfg.Style
// names. A valley (StyleValley) has rolling hills over fractal noise; a ridge across
// the north with a long even climb (about 16°) on its south face and a cliff of about
// 12 m on its north face (a ledge for clamping tests); a wide flat valley floor;
// cfg.Pads flat spawn pads (four near the corners, any more spread between them) with
// two spawn points each; a low rim along the border; and rocks on gentle ground away
// from the pads. Dunes (StyleDunes) are described at StyleDunes.
// Horizontal features scale with Size. Heights are quantized to 16 bits exactly as the PNG
// stores them, so saving and loading the result gives the same map. The result is a
// pure function of cfg (on a given architecture: Go may fuse floating-point
// multiply-adds on some, such as arm64).
func Generate(cfg GenerateConfig) (*Map, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	var g field
	switch cfg.Style {
	case StyleValley:
		g = newGenerator(cfg)
	case StyleDunes:
		g = newDunes(cfg)
	default:
		return nil, fmt.Errorf("generate: %w: style %d", ErrInvalidMap, cfg.Style)
	}
	n := cfg.Samples
	half := cfg.Size / 2
	raw, base, scale := quantize(sample(g, n, cfg.Size))
	l := layout{
		name: cfg.Name, nx: n, nz: n,
		minX: -half, minZ: -half, maxX: half, maxZ: half,
		heightBase: base, heightScale: scale,
		chunkCells: cfg.ChunkCells, seed: cfg.Seed,
	}
	f := features{spawns: g.spawns(), landmarks: g.landmarks()}
	if p := cfg.Style.Palette(); p != DefaultPalette() {
		f.palette = &p // a sidecar names a palette only when it is not the default
	}
	m, err := newMap(l, raw, f)
	if err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	m.obstacles = g.rocks(m)
	if err := l.validate(features{obstacles: m.obstacles, spawns: m.spawns, landmarks: m.landmarks}); err != nil {
		return nil, fmt.Errorf("generate: %w", err)
	}
	return m, nil
}

// withDefaults returns cfg with its zero fields set to the defaults, or an error
// wrapping ErrInvalidMap when a field is out of range.
func (cfg GenerateConfig) withDefaults() (GenerateConfig, error) {
	if cfg.Size == 0 {
		cfg.Size = DefaultSize
	}
	if cfg.Samples == 0 {
		cfg.Samples = DefaultSamples
	}
	if cfg.Name == "" {
		cfg.Name = cfg.Style.String()
	}
	if cfg.ChunkCells == 0 {
		cfg.ChunkCells = DefaultChunkCells
	}
	if cfg.Pads == 0 {
		cfg.Pads = DefaultPads
	}
	switch {
	case cfg.Pads < DefaultPads || cfg.Pads > MaxPads:
		return cfg, fmt.Errorf("%w: %d spawn pads, want %d…%d", ErrInvalidMap, cfg.Pads, DefaultPads, MaxPads)
	case !(cfg.Size > 0) || cfg.Size > MaxSize:
		return cfg, fmt.Errorf("%w: size %g m, want 0 < size ≤ %g", ErrInvalidMap, cfg.Size, MaxSize)
	case cfg.Samples < MinGenerateSamples || cfg.Samples > MaxSamples:
		return cfg, fmt.Errorf("%w: %d samples, want %d…%d", ErrInvalidMap, cfg.Samples, MinGenerateSamples, MaxSamples)
	case cfg.ChunkCells < 1:
		return cfg, fmt.Errorf("%w: chunk of %d cells", ErrInvalidMap, cfg.ChunkCells)
	}
	return cfg, nil
}

// sample evaluates g on an n × n grid spanning size meters centred on the origin,
// row by row from the north-west corner.
func sample(g field, n int, size float64) []float64 {
	heights := make([]float64, n*n)
	half := size / 2
	cell := size / float64(n-1)
	for j := 0; j < n; j++ {
		z := -half + float64(j)*cell
		for i := 0; i < n; i++ {
			x := -half + float64(i)*cell
			heights[j*n+i] = g.height(x, z)
		}
	}
	return heights
}

// quantize maps heights onto the 16-bit range the PNG stores, returning the raw
// samples and the base and scale (m) that turn them back into heights.
func quantize(heights []float64) (raw []uint16, base, scale float64) {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, h := range heights {
		lo, hi = math.Min(lo, h), math.Max(hi, h)
	}
	base = math.Floor(lo) - 1
	scale = math.Ceil(hi-base) + 1
	raw = make([]uint16, len(heights))
	for k, h := range heights {
		raw[k] = uint16(math.Round((h - base) / scale * 65535))
	}
	return raw, base, scale
}

// generator holds the seeded layout of one procedural map.
type generator struct {
	cfg   GenerateConfig
	k     float64 // horizontal scale: Size / DefaultSize
	hk    float64 // height scale: √k
	seed  uint64
	rng   *rand.Rand
	hills []hill
	pads  []pad
	// Ridge: centerline z = ridgeZ + ridgeAmp·sin(ridgeFreq·x + ridgePhase) for x in
	// [ridgeX0, ridgeX1].
	ridgeZ, ridgeAmp, ridgeFreq, ridgePhase, ridgeX0, ridgeX1 float64
	// Valley floor: an ellipse flattened to floorLevel.
	floorX, floorZ, floorRX, floorRZ, floorLevel float64
}

type hill struct{ x, z, r, h float64 }

type pad struct{ x, z, r, level float64 }

// Feature dimensions of the default 512 m map, m.
const (
	noiseAmp      = 12.0  // fractal noise amplitude
	noiseWave     = 150.0 // longest noise wavelength
	ridgeHeight   = 20.0  // crest above its surroundings
	ridgeClimb    = 70.0  // length of the even south face
	cliffDrop     = 12.0  // height of the north face's cliff
	cliffWidth    = 3.0   // horizontal run of the cliff
	ridgeBackRun  = 45.0  // run of the gentle slope below the cliff
	rimHeight     = 4.0   // border rim
	rimWidth      = 40.0  // border rim width
	padRadius     = 18.0  // spawn pad radius
	padBlend      = 16.0  // spawn pad blend width
	floorBlend    = 30.0  // valley floor blend width
	spawnSpacing  = 7.0   // half the distance between a pad's two spawns
	rockMargin    = 24.0  // rocks stay this far from the border
	rockPadClear  = 12.0  // rocks stay this far beyond a pad's edge
	rockSpacing   = 6.0   // least gap between rocks
	rockLaneClear = 8.0   // rocks stay this far from the climb-and-ledge lane
	rockMinNormal = 0.94  // rocks only where the normal's Y is at least this
	rocksPerKm2   = 140.0 // rock density
)

func newGenerator(cfg GenerateConfig) *generator {
	k := cfg.Size / DefaultSize
	g := &generator{
		cfg: cfg, k: k, hk: math.Sqrt(k),
		seed: cfg.Seed,
		rng:  rand.New(rand.NewPCG(cfg.Seed, 0x747265616420)),
	}
	s := cfg.Size
	jit := func(f float64) float64 { return (g.rng.Float64()*2 - 1) * f * s }

	g.ridgeZ = -0.22*s + jit(0.02)
	g.ridgeAmp = 0.035 * s
	g.ridgeFreq = 2 * math.Pi * 1.2 / s
	g.ridgePhase = g.rng.Float64() * 2 * math.Pi
	g.ridgeX0, g.ridgeX1 = -0.40*s, 0.24*s+jit(0.03)

	g.floorX, g.floorZ = 0.04*s+jit(0.03), 0.10*s+jit(0.02)
	g.floorRX, g.floorRZ = 0.17*s, 0.11*s

	nh := 5 + g.rng.IntN(2)
	for i := 0; i < nh; i++ {
		a := -0.2*math.Pi + float64(i)/float64(nh)*1.4*math.Pi + (g.rng.Float64()-0.5)*0.3
		rr := (0.27 + 0.08*g.rng.Float64()) * s
		hl := hill{
			x: rr * math.Cos(a), z: 0.12*s + 0.6*rr*math.Sin(a),
			r: (35 + 35*g.rng.Float64()) * k,
			h: (14 + 22*g.rng.Float64()) * g.hk,
		}
		// A Gaussian's steepest slope is 0.86·h/r: keep it under about 27°.
		hl.r = math.Max(hl.r, 1.7*hl.h)
		g.hills = append(g.hills, hl)
	}
	g.floorLevel = g.base(g.floorX, g.floorZ)

	centers := [4][2]float64{{-0.34, 0.34}, {0.34, 0.34}, {0.35, -0.33}, {-0.18, -0.38}}
	for _, c := range centers {
		x, z := c[0]*s+jit(0.015), c[1]*s+jit(0.015)
		g.pads = append(g.pads, pad{x: x, z: z, r: padRadius * k})
	}
	// More pads stay off the ridge, its climb and its run-out, with a pad's blend.
	keep := (padRadius + padBlend) * k
	g.pads = morePads(g.pads, cfg, padRadius*k, func(x, z float64) bool {
		if x < g.ridgeX0-keep || x > g.ridgeX1+keep {
			return false
		}
		d := z - g.ridgeLine(x)
		return d > -(cliffWidth+ridgeBackRun*k+keep) && d < ridgeClimb*k+keep
	})
	for i := range g.pads {
		g.pads[i].level = g.unpadded(g.pads[i].x, g.pads[i].z)
	}
	return g
}

// morePads adds pads of radius r to pads until there are cfg.Pads, each at a random
// place within 0.4 × Size of the middle where avoid does not hold, as far from the
// other pads as the map leaves room for: the distance a pad keeps starts at
// 0.9 × Size / √Pads and shrinks by 5% every 200 places refused. Its random numbers
// are its own, so a map of DefaultPads is the same as before pads could be added.
func morePads(pads []pad, cfg GenerateConfig, r float64, avoid func(x, z float64) bool) []pad {
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x70616473))
	s := cfg.Size
	sep := 0.9 * s / math.Sqrt(float64(cfg.Pads))
	for tries := 1; len(pads) < cfg.Pads; tries++ {
		if tries%200 == 0 {
			sep *= 0.95
		}
		x, z := (rng.Float64()*2-1)*0.4*s, (rng.Float64()*2-1)*0.4*s
		if avoid(x, z) {
			continue
		}
		free := true
		for _, p := range pads {
			free = free && math.Hypot(x-p.x, z-p.z) >= sep
		}
		if free {
			pads = append(pads, pad{x: x, z: z, r: r})
		}
	}
	return pads
}

// height is the final height at (x, z), m.
func (g *generator) height(x, z float64) float64 {
	return flattenPads(g.unpadded(x, z), x, z, g.pads, padBlend*g.k)
}

// flattenPads levels height h at (x, z) towards the spawn pads': flat within each
// pad's radius, blended over blend meters beyond it.
func flattenPads(h, x, z float64, pads []pad, blend float64) float64 {
	for _, p := range pads {
		d := math.Hypot(x-p.x, z-p.z)
		w := smooth(p.r+blend, p.r, d)
		h += (p.level - h) * w
	}
	return h
}

// unpadded is the height before the spawn pads are flattened.
func (g *generator) unpadded(x, z float64) float64 {
	h := g.base(x, z)
	// Flatten the valley floor.
	ex, ez := (x-g.floorX)/g.floorRX, (z-g.floorZ)/g.floorRZ
	d := (math.Sqrt(ex*ex+ez*ez) - 1) * math.Min(g.floorRX, g.floorRZ) // ≈ m outside the edge
	h += (g.floorLevel - h) * smooth(floorBlend*g.k, 0, d)
	return h + g.ridge(x, z)
}

// base is noise, hills and the border rim.
func (g *generator) base(x, z float64) float64 {
	h := noiseAmp * g.hk * valueNoise(g.seed).fbm(x/(noiseWave*g.k), z/(noiseWave*g.k))
	for _, hl := range g.hills {
		d2 := ((x-hl.x)*(x-hl.x) + (z-hl.z)*(z-hl.z)) / (hl.r * hl.r)
		h += hl.h * math.Exp(-d2)
	}
	half := g.cfg.Size / 2
	edge := math.Min(half-math.Abs(x), half-math.Abs(z))
	return h + rimHeight*g.hk*smooth(rimWidth*g.k, 0, edge)
}

// ridge is the ridge's height at (x, z): an even climb from the south to the crest,
// a cliff on the north, and a gentle run-out below it; faded out at both ends.
func (g *generator) ridge(x, z float64) float64 {
	taper := smooth(g.ridgeX0, g.ridgeX0+40*g.k, x) * smooth(g.ridgeX1, g.ridgeX1-40*g.k, x)
	if taper == 0 {
		return 0
	}
	d := z - g.ridgeLine(x) // > 0 south
	H := ridgeHeight * g.hk
	climb := ridgeClimb * g.k
	cliffW := math.Max(cliffWidth, 1.5*g.cfg.Size/float64(g.cfg.Samples-1))
	foot := 8 * g.k // the foot of the climb is rounded over this run
	var h float64
	switch {
	case d >= climb+foot/2:
		h = 0
	case d >= climb-foot/2:
		e := climb + foot/2 - d
		h = H / climb * e * e / (2 * foot)
	case d >= 0:
		h = H * (1 - d/climb)
	case d >= -cliffW:
		h = H - cliffDrop*g.hk*smooth(0, -cliffW, d)
	default:
		run := ridgeBackRun * g.k
		h = (H - cliffDrop*g.hk) * smooth(-cliffW-run, -cliffW, d)
	}
	return h * taper
}

// spawns returns two spawn points per pad.
func (g *generator) spawns() []mgl64.Vec2 {
	var out []mgl64.Vec2
	for _, p := range g.pads {
		off := spawnSpacing * g.k
		out = append(out, mgl64.Vec2{round2(p.x - off), round2(p.z)}, mgl64.Vec2{round2(p.x + off), round2(p.z)})
	}
	return out
}

// ridgeLine returns the z of the ridge's crest line at x.
func (g *generator) ridgeLine(x float64) float64 {
	return g.ridgeZ + g.ridgeAmp*math.Sin(g.ridgeFreq*x+g.ridgePhase)
}

// landmarks places "ledge" 12 m south of the crest in the middle of the ridge, facing
// north over the cliff; "climb" 10 m south of the foot of the climb below it, facing
// up; and "floor" in the middle of the valley floor, facing +X. The headings follow
// the crest line's normal.
func (g *generator) landmarks() []Landmark {
	x := (g.ridgeX0 + g.ridgeX1) / 2
	// The crest's downhill normal toward the north, (−dz/dx, −1) normalized.
	slope := g.ridgeAmp * g.ridgeFreq * math.Cos(g.ridgeFreq*x+g.ridgePhase)
	nx, nz := slope/math.Hypot(slope, 1), -1/math.Hypot(slope, 1)
	yaw := geom.Heading(mgl64.Vec3{nx, 0, nz}) // forward (cos ψ, −sin ψ) = (nx, nz)
	at := func(back float64) (float64, float64) {
		return round2(x - nx*back), round2(g.ridgeLine(x) - nz*back)
	}
	lx, lz := at(12 * g.k)
	cx, cz := at((ridgeClimb + 10) * g.k)
	return []Landmark{
		{Name: "ledge", X: lx, Z: lz, Yaw: round4(yaw)},
		{Name: "climb", X: cx, Z: cz, Yaw: round4(yaw)},
		{Name: "floor", X: round2(g.floorX), Z: round2(g.floorZ), Yaw: 0},
	}
}

func round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// rocks scatters rocks on gentle ground, clear of the pads, the border, one another
// and the lane from the "climb" landmark over the "ledge" (so a tank driving it meets
// no rock).
func (g *generator) rocks(m *Map) []Obstacle {
	half := g.cfg.Size / 2
	climb, _ := m.Landmark("climb")
	ledge, _ := m.Landmark("ledge")
	// The lane runs from climb to 40 m past the ledge.
	ax, az := climb.X, climb.Z
	dx, dz := ledge.X-climb.X, ledge.Z-climb.Z
	l := math.Hypot(dx, dz)
	ux, uz := dx/l, dz/l
	laneLen := l + 40*g.k
	inLane := func(x, z, r float64) bool {
		t := math.Max(0, math.Min(laneLen, (x-ax)*ux+(z-az)*uz))
		return math.Hypot(x-(ax+ux*t), z-(az+uz*t)) < r+rockLaneClear*g.k
	}
	margin := rockMargin * g.k
	want := int(math.Round(rocksPerKm2 * g.cfg.Size * g.cfg.Size / 1e6))
	var out []Obstacle
	for try := 0; try < 40*want && len(out) < want; try++ {
		x := (g.rng.Float64()*2 - 1) * (half - margin)
		z := (g.rng.Float64()*2 - 1) * (half - margin)
		r := 1.2 + 2.3*g.rng.Float64()*g.rng.Float64()
		ht := r * (0.9 + 0.6*g.rng.Float64())
		if n, _ := m.NormalAt(x, z); n[1] < rockMinNormal {
			continue
		}
		ok := !inLane(x, z, r)
		for _, p := range g.pads {
			if math.Hypot(x-p.x, z-p.z) < p.r+padBlend*g.k+rockPadClear {
				ok = false
				break
			}
		}
		for _, o := range out {
			if math.Hypot(x-o.X, z-o.Z) < r+o.Radius+rockSpacing {
				ok = false
				break
			}
		}
		if !ok {
			continue
		}
		out = append(out, Obstacle{X: round2(x), Z: round2(z), Radius: round2(r), Height: round2(ht)})
	}
	return out
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }

// valueNoise is seeded value noise: the seed.
type valueNoise uint64

// fbm is fractal value noise in about [−1, 1]: four octaves, each half the
// wavelength and 0.4 times the amplitude of the one before (so the small bumps are
// gentler than the large swells).
func (n valueNoise) fbm(x, z float64) float64 {
	sum, amp, norm := 0.0, 1.0, 0.0
	for o := uint64(0); o < 4; o++ {
		sum += amp * n.noise(x, z, o)
		norm += amp
		amp *= 0.4
		x, z = x*2+17.3, z*2-9.1
	}
	return sum / norm
}

// noise is value noise in [−1, 1] with quintic smoothing on the unit lattice.
func (n valueNoise) noise(x, z float64, octave uint64) float64 {
	x0, z0 := math.Floor(x), math.Floor(z)
	fx, fz := x-x0, z-z0
	ix, iz := int64(x0), int64(z0)
	q := func(t float64) float64 { return t * t * t * (t*(t*6-15) + 10) }
	ux, uz := q(fx), q(fz)
	v00 := n.lattice(ix, iz, octave)
	v10 := n.lattice(ix+1, iz, octave)
	v01 := n.lattice(ix, iz+1, octave)
	v11 := n.lattice(ix+1, iz+1, octave)
	a := v00 + (v10-v00)*ux
	b := v01 + (v11-v01)*ux
	return a + (b-a)*uz
}

// lattice is a hashed value in [−1, 1] for a lattice point.
func (n valueNoise) lattice(ix, iz int64, octave uint64) float64 {
	h := uint64(n) ^ uint64(ix)*0x9E3779B97F4A7C15 ^ uint64(iz)*0xC2B2AE3D27D4EB4F ^ (octave+1)*0x165667B19E3779F9
	h ^= h >> 30
	h *= 0xBF58476D1CE4E5B9
	h ^= h >> 27
	h *= 0x94D049BB133111EB
	h ^= h >> 31
	return float64(h>>11)/float64(1<<52) - 1
}
