package terrain

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Limits on what a map may be, so hostile files cannot exhaust memory.
const (
	// MinSamples is the fewest height samples a map may have along a side.
	MinSamples = 2
	// MaxSamples is the most height samples a map may have along a side.
	MaxSamples = 4097
	// MaxObstacles is the most rocks a map may list.
	MaxObstacles = 4096
	// MaxSpawns is the most spawn points a map may list.
	MaxSpawns = 256
	// MaxLandmarks is the most landmarks a map may list.
	MaxLandmarks = 64
)

// layout is everything that places a grid of samples in the world.
type layout struct {
	name                    string
	nx, nz                  int
	minX, minZ, maxX, maxZ  float64
	heightBase, heightScale float64
	chunkCells              int
	seed                    uint64
}

// features are what stands on a map's ground.
type features struct {
	obstacles []Obstacle
	spawns    []mgl64.Vec2
	landmarks []Landmark
	// palette colours the ground; nil means DefaultPalette.
	palette *Palette
}

// validate checks the layout and the features against it.
func (l layout) validate(f features) error {
	obstacles, spawns := f.obstacles, f.spawns
	switch {
	case l.nx < MinSamples || l.nz < MinSamples || l.nx > MaxSamples || l.nz > MaxSamples:
		return fmt.Errorf("%w: %d×%d samples, want %d…%d per side", ErrInvalidMap, l.nx, l.nz, MinSamples, MaxSamples)
	case !geom.Finite(l.minX, l.minZ, l.maxX, l.maxZ, l.maxX-l.minX, l.maxZ-l.minZ) ||
		!((l.maxX-l.minX)/float64(l.nx-1) > 1e-6) || !((l.maxZ-l.minZ)/float64(l.nz-1) > 1e-6):
		return fmt.Errorf("%w: extent [%g, %g]×[%g, %g] is empty or not finite", ErrInvalidMap, l.minX, l.maxX, l.minZ, l.maxZ)
	case !geom.Finite(l.heightBase, l.heightScale, l.heightBase+l.heightScale) || !(l.heightScale > 0):
		return fmt.Errorf("%w: height base %g and scale %g, want finite and scale > 0", ErrInvalidMap, l.heightBase, l.heightScale)
	case l.chunkCells < 1 || l.chunkCells > MaxSamples:
		return fmt.Errorf("%w: chunk of %d cells", ErrInvalidMap, l.chunkCells)
	case len(obstacles) > MaxObstacles:
		return fmt.Errorf("%w: %d rocks, at most %d", ErrInvalidMap, len(obstacles), MaxObstacles)
	case len(spawns) > MaxSpawns:
		return fmt.Errorf("%w: %d spawns, at most %d", ErrInvalidMap, len(spawns), MaxSpawns)
	case len(f.landmarks) > MaxLandmarks:
		return fmt.Errorf("%w: %d landmarks, at most %d", ErrInvalidMap, len(f.landmarks), MaxLandmarks)
	}
	if f.palette != nil {
		if err := f.palette.check(); err != nil {
			return err
		}
	}
	return l.validateFeatures(f)
}

// validateFeatures checks that the rocks, spawns and landmarks lie on the map.
func (l layout) validateFeatures(f features) error {
	in := func(x, z float64) bool { return x >= l.minX && x <= l.maxX && z >= l.minZ && z <= l.maxZ }
	for i, o := range f.obstacles {
		if !geom.Finite(o.X, o.Z, o.Radius, o.Height) || !in(o.X, o.Z) || !(o.Radius > 0) || o.Height < 0 {
			return fmt.Errorf("%w: rock %d at (%g, %g) radius %g height %g", ErrInvalidMap, i, o.X, o.Z, o.Radius, o.Height)
		}
	}
	for i, s := range f.spawns {
		if !geom.Finite(s[0], s[1]) || !in(s[0], s[1]) {
			return fmt.Errorf("%w: spawn %d at (%g, %g) is off the map", ErrInvalidMap, i, s[0], s[1])
		}
	}
	for i, lm := range f.landmarks {
		if lm.Name == "" || len(lm.Name) > 64 || !geom.Finite(lm.X, lm.Z, lm.Yaw) || !in(lm.X, lm.Z) {
			return fmt.Errorf("%w: landmark %d %q at (%g, %g) yaw %g", ErrInvalidMap, i, lm.Name, lm.X, lm.Z, lm.Yaw)
		}
	}
	return nil
}

// newMap builds a map from quantized samples (row-major, j*nx + i). It takes
// ownership of raw and copies the features.
func newMap(l layout, raw []uint16, f features) (*Map, error) {
	if err := l.validate(f); err != nil {
		return nil, err
	}
	if len(raw) != l.nx*l.nz {
		return nil, fmt.Errorf("%w: %d samples for a %d×%d grid", ErrInvalidMap, len(raw), l.nx, l.nz)
	}
	m := &Map{
		name: l.name, nx: l.nx, nz: l.nz,
		minX: l.minX, minZ: l.minZ, maxX: l.maxX, maxZ: l.maxZ,
		heightBase: l.heightBase, heightScale: l.heightScale,
		raw: raw, chunkCells: l.chunkCells, seed: l.seed,
		obstacles: append([]Obstacle(nil), f.obstacles...),
		spawns:    append([]mgl64.Vec2(nil), f.spawns...),
		landmarks: append([]Landmark(nil), f.landmarks...),
		palette:   DefaultPalette(),
	}
	if f.palette != nil {
		m.palette = *f.palette
	}
	m.cellX = (m.maxX - m.minX) / float64(m.nx-1)
	m.cellZ = (m.maxZ - m.minZ) / float64(m.nz-1)
	m.invX, m.invZ = 1/m.cellX, 1/m.cellZ
	m.h = make([]float64, len(raw))
	m.minH, m.maxH = math.Inf(1), math.Inf(-1)
	for k, r := range raw {
		h := m.decode(r)
		m.h[k] = h
		m.minH = math.Min(m.minH, h)
		m.maxH = math.Max(m.maxH, h)
	}
	m.computeNormals()
	m.computeCells()
	m.computeChunks()
	return m, nil
}

// decode turns a stored 16-bit sample into a height, m.
func (m *Map) decode(r uint16) float64 {
	return m.heightBase + float64(r)*m.heightScale/65535
}

// computeNormals fills the per-sample normals from central differences (one-sided
// on the border).
func (m *Map) computeNormals() {
	m.n = make([]mgl64.Vec3, len(m.h))
	for j := 0; j < m.nz; j++ {
		j0, j1 := max(j-1, 0), min(j+1, m.nz-1)
		for i := 0; i < m.nx; i++ {
			i0, i1 := max(i-1, 0), min(i+1, m.nx-1)
			dhdx := (m.h[j*m.nx+i1] - m.h[j*m.nx+i0]) / (float64(i1-i0) * m.cellX)
			dhdz := (m.h[j1*m.nx+i] - m.h[j0*m.nx+i]) / (float64(j1-j0) * m.cellZ)
			m.n[j*m.nx+i] = mgl64.Vec3{-dhdx, 1, -dhdz}.Normalize()
		}
	}
}

// computeCells records each cell's height range, for ray traversal.
func (m *Map) computeCells() {
	cx, cz := m.nx-1, m.nz-1
	m.cellMinMax = make([]float32, 2*cx*cz)
	for j := 0; j < cz; j++ {
		for i := 0; i < cx; i++ {
			k := j*m.nx + i
			a, b, c, d := m.h[k], m.h[k+1], m.h[k+m.nx], m.h[k+m.nx+1]
			lo := math.Min(math.Min(a, b), math.Min(c, d))
			hi := math.Max(math.Max(a, b), math.Max(c, d))
			// Round outward so float32 never shrinks the range.
			m.cellMinMax[2*(j*cx+i)] = math.Nextafter32(float32(lo), float32(math.Inf(-1)))
			m.cellMinMax[2*(j*cx+i)+1] = math.Nextafter32(float32(hi), float32(math.Inf(1)))
		}
	}
}

// computeChunks splits the cells into chunks of chunkCells × chunkCells (the last
// column and row may be narrower).
func (m *Map) computeChunks() {
	cx, cz := m.nx-1, m.nz-1
	m.chunkCols = (cx + m.chunkCells - 1) / m.chunkCells
	m.chunkRows = (cz + m.chunkCells - 1) / m.chunkCells
	m.chunks = make([]Chunk, 0, m.chunkCols*m.chunkRows)
	for r := 0; r < m.chunkRows; r++ {
		for c := 0; c < m.chunkCols; c++ {
			ch := Chunk{Col: c, Row: r, I0: c * m.chunkCells, J0: r * m.chunkCells}
			ch.I1, ch.J1 = min(ch.I0+m.chunkCells, cx), min(ch.J0+m.chunkCells, cz)
			lo, hi := math.Inf(1), math.Inf(-1)
			for j := ch.J0; j <= ch.J1; j++ {
				for i := ch.I0; i <= ch.I1; i++ {
					h := m.h[j*m.nx+i]
					lo, hi = math.Min(lo, h), math.Max(hi, h)
				}
			}
			ch.Min = mgl64.Vec3{m.sampleX(ch.I0), lo, m.sampleZ(ch.J0)}
			ch.Max = mgl64.Vec3{m.sampleX(ch.I1), hi, m.sampleZ(ch.J1)}
			m.chunks = append(m.chunks, ch)
		}
	}
}

// sampleX and sampleZ return the world coordinate of sample column i and row j.
func (m *Map) sampleX(i int) float64 {
	if i == m.nx-1 {
		return m.maxX
	}
	return m.minX + float64(i)*m.cellX
}

func (m *Map) sampleZ(j int) float64 {
	if j == m.nz-1 {
		return m.maxZ
	}
	return m.minZ + float64(j)*m.cellZ
}
