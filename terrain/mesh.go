package terrain

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// DefaultChunkCells is the side of a render chunk in grid cells when a map does not
// say otherwise.
const DefaultChunkCells = 32

// Chunk is one rectangle of the map's grid, the unit the renderer culls and picks a
// level of detail for.
type Chunk struct {
	// Col and Row locate the chunk in the chunk grid (Col along +X, Row along +Z);
	// the chunk's index in Chunks is Row·cols + Col.
	Col, Row int
	// I0, J0 is the chunk's first grid cell and I1, J1 its last sample: the chunk
	// covers samples I0…I1 along X and J0…J1 along Z (cells I0…I1−1, J0…J1−1).
	I0, J0, I1, J1 int
	// Min and Max bound the chunk's ground, m (for frustum culling).
	Min, Max mgl64.Vec3
}

// Center returns the middle of the chunk's bounding box, m.
func (c Chunk) Center() mgl64.Vec3 { return c.Min.Add(c.Max).Mul(0.5) }

// Mesh is triangle data for one chunk, ready to upload: three float32 per vertex in
// Positions (world meters), Normals (unit) and Colors (linear RGB in 0..1), four in
// Layers, and three indices per triangle, counter-clockwise seen from above (front
// faces point up).
type Mesh struct {
	// Positions holds x, y, z per vertex, world meters.
	Positions []float32
	// Normals holds a unit normal per vertex.
	Normals []float32
	// Colors holds r, g, b per vertex, 0…1.
	Colors []float32
	// Layers holds, per vertex, the weights of the four ground materials by slope
	// and height (LayerGrass, LayerDirt, LayerRock, LayerSnow), each 0…1, summing to
	// 1: a renderer picks each material's detail texture by them.
	Layers []float32
	// Indices holds three vertex indices per triangle.
	Indices []uint32
}

// Ground material layers: the index of each material's weight in a vertex's four
// Mesh.Layers.
const (
	LayerGrass = iota
	LayerDirt
	LayerRock
	LayerSnow
	NumLayers
)

// VertexCount returns the number of vertices in the mesh.
func (m Mesh) VertexCount() int { return len(m.Positions) / 3 }

// TriangleCount returns the number of triangles in the mesh.
func (m Mesh) TriangleCount() int { return len(m.Indices) / 3 }

// Chunks returns the chunk grid, row by row. The slice is shared: do not modify it.
func (m *Map) Chunks() []Chunk { return m.chunks }

// ChunkGrid returns the number of chunk columns (along X) and rows (along Z).
func (m *Map) ChunkGrid() (cols, rows int) { return m.chunkCols, m.chunkRows }

// ChunkCells returns the side of a full chunk in grid cells.
func (m *Map) ChunkCells() int { return m.chunkCells }

// MaxLOD returns the coarsest level of detail ChunkMesh accepts: at level MaxLOD a
// full chunk is a single cell.
func (m *Map) MaxLOD() int {
	l := 0
	for c := m.chunkCells; c > 1; c = (c + 1) / 2 {
		l++
	}
	return l
}

// ChunkMesh builds the mesh of chunk i at level of detail lod: level 0 uses every
// sample, and each further level takes every second vertex of the one before, so
// neighbouring chunks at different levels would not meet exactly. To hide those cracks
// every chunk mesh carries a skirt: a strip hanging from each of its four edges down
// to below the lowest point the neighbouring levels can reach. It panics if i or lod
// is out of range (programmer misuse). The result is freshly allocated; the renderer
// uploads it once per chunk and level.
func (m *Map) ChunkMesh(i, lod int) Mesh {
	return m.AppendChunkMesh(Mesh{}, i, lod)
}

// AppendChunkMesh is ChunkMesh appending into dst's slices (each reset to length
// zero first), so a caller rebuilding meshes can reuse its buffers.
func (m *Map) AppendChunkMesh(dst Mesh, i, lod int) Mesh {
	if i < 0 || i >= len(m.chunks) {
		panic(fmt.Sprintf("terrain: chunk %d out of range [0, %d)", i, len(m.chunks)))
	}
	if lod < 0 || lod > m.MaxLOD() {
		panic(fmt.Sprintf("terrain: level of detail %d out of range [0, %d]", lod, m.MaxLOD()))
	}
	ch := m.chunks[i]
	step := 1 << lod
	var xsBuf, zsBuf [DefaultChunkCells + 2]int
	xs := lodSamples(xsBuf[:0], ch.I0, ch.I1, step)
	zs := lodSamples(zsBuf[:0], ch.J0, ch.J1, step)
	cols, rows := len(xs), len(zs)

	dst.Positions, dst.Normals, dst.Colors, dst.Indices = dst.Positions[:0], dst.Normals[:0], dst.Colors[:0], dst.Indices[:0]
	dst.Layers = dst.Layers[:0]
	add := func(si, sj int, drop float64) {
		k := sj*m.nx + si
		h, n := m.h[k], m.n[k]
		c, w := m.colorAt(si, sj)
		dst.Positions = append(dst.Positions, float32(m.sampleX(si)), float32(h-drop), float32(m.sampleZ(sj)))
		dst.Normals = append(dst.Normals, float32(n[0]), float32(n[1]), float32(n[2]))
		dst.Colors = append(dst.Colors, c[0], c[1], c[2])
		dst.Layers = append(dst.Layers, w[0], w[1], w[2], w[3])
	}
	for _, sj := range zs {
		for _, si := range xs {
			add(si, sj, 0)
		}
	}
	at := func(c, r int) uint32 { return uint32(r*cols + c) }
	height := func(c, r int) float64 { return m.h[zs[r]*m.nx+xs[c]] }
	for r := 0; r+1 < rows; r++ {
		for c := 0; c+1 < cols; c++ {
			a, b, cc, d := at(c, r), at(c+1, r), at(c, r+1), at(c+1, r+1)
			// The same split as the surface's queries at level 0 (Flipped); coarser
			// levels choose theirs by the same rule on their own corners.
			if flipDiagonal(height(c, r), height(c+1, r), height(c, r+1), height(c+1, r+1)) {
				dst.Indices = append(dst.Indices, a, cc, b, b, cc, d)
			} else {
				dst.Indices = append(dst.Indices, a, d, b, a, cc, d)
			}
		}
	}

	// Skirts: each edge again, dropped by the chunk's height span plus a meter, and a
	// strip facing outward between the two.
	drop := ch.Max[1] - ch.Min[1] + 1
	skirt := func(n int, sample func(k int) (si, sj, grid int), outwardPositive bool) {
		base := uint32(len(dst.Positions) / 3)
		for k := 0; k < n; k++ {
			si, sj, _ := sample(k)
			add(si, sj, drop)
		}
		for k := 0; k+1 < n; k++ {
			_, _, e0 := sample(k)
			_, _, e1 := sample(k + 1)
			l0, l1 := base+uint32(k), base+uint32(k+1)
			if outwardPositive {
				dst.Indices = append(dst.Indices, uint32(e0), l1, uint32(e1), uint32(e0), l0, l1)
			} else {
				dst.Indices = append(dst.Indices, uint32(e0), uint32(e1), l1, uint32(e0), l1, l0)
			}
		}
	}
	// The −Z and +Z edges run along +X; the −X and +X edges along +Z. For an edge
	// running along +X, the winding (e0, e1, l1) faces −Z; along +Z it faces +X.
	skirt(cols, func(k int) (int, int, int) { return xs[k], zs[0], int(at(k, 0)) }, false)
	skirt(cols, func(k int) (int, int, int) { return xs[k], zs[rows-1], int(at(k, rows-1)) }, true)
	skirt(rows, func(k int) (int, int, int) { return xs[0], zs[k], int(at(0, k)) }, true)
	skirt(rows, func(k int) (int, int, int) { return xs[cols-1], zs[k], int(at(cols-1, k)) }, false)
	return dst
}

// LODError returns how far, m, the surface of chunk i at level of detail lod strays
// vertically from the map's samples in the chunk: the largest difference between a
// sample's height and the coarser triangles' height above or below it (0 at level
// 0). A renderer keeps a chunk at a finer level while this error would show: a 12 m
// cliff decimated to 16 m cells would otherwise read as a sawtooth from afar. It
// panics if i or lod is out of range.
func (m *Map) LODError(i, lod int) float64 {
	if i < 0 || i >= len(m.chunks) {
		panic(fmt.Sprintf("terrain: chunk %d out of range [0, %d)", i, len(m.chunks)))
	}
	if lod < 0 || lod > m.MaxLOD() {
		panic(fmt.Sprintf("terrain: level of detail %d out of range [0, %d]", lod, m.MaxLOD()))
	}
	if lod == 0 {
		return 0
	}
	ch := m.chunks[i]
	step := 1 << lod
	var xsBuf, zsBuf [DefaultChunkCells + 2]int
	xs := lodSamples(xsBuf[:0], ch.I0, ch.I1, step)
	zs := lodSamples(zsBuf[:0], ch.J0, ch.J1, step)
	worst := 0.0
	for r := 0; r+1 < len(zs); r++ {
		for c := 0; c+1 < len(xs); c++ {
			i0, i1, j0, j1 := xs[c], xs[c+1], zs[r], zs[r+1]
			ha, hb, hc, hd := m.h[j0*m.nx+i0], m.h[j0*m.nx+i1], m.h[j1*m.nx+i0], m.h[j1*m.nx+i1]
			for sj := j0; sj <= j1; sj++ {
				for si := i0; si <= i1; si++ {
					u := float64(si-i0) / float64(i1-i0)
					v := float64(sj-j0) / float64(j1-j0)
					h := splitHeight(ha, hb, hc, hd, u, v)
					worst = math.Max(worst, math.Abs(h-m.h[sj*m.nx+si]))
				}
			}
		}
	}
	return worst
}

// lodSamples appends the sample indices from a to b every step, always ending on b.
func lodSamples(dst []int, a, b, step int) []int {
	for s := a; s < b; s += step {
		dst = append(dst, s)
	}
	return append(dst, b)
}

// colorAt returns the colour of sample (i, j) and its material weights (see
// Mesh.Layers), by its height and slope, in the map's palette: grass (Low) on level
// ground, dry grass (High) higher up, dirt (Slope) on moderate slopes, rock (Cliff) on
// steep ones and snow (Peak) on the highest level ground, with a little per-sample
// variation of the colour.
func (m *Map) colorAt(i, j int) (rgb [3]float32, layers [NumLayers]float32) {
	p := &m.palette
	grass, dryGrass, dirt, rock, snow := p.Low, p.High, p.Slope, p.Cliff, p.Peak
	k := j*m.nx + i
	ny := m.n[k][1]
	f := 0.0
	if m.maxH > m.minH {
		f = (m.h[k] - m.minH) / (m.maxH - m.minH)
	}
	dirtW := smooth(0.97, 0.9, ny)
	snowW := smooth(0.86, 0.96, f) * smooth(0.85, 0.95, ny)
	rockW := smooth(0.85, 0.7, ny)
	c := mix(grass, dryGrass, smooth(0.35, 0.7, f))
	c = mix(c, dirt, dirtW)
	c = mix(c, snow, snowW)
	c = mix(c, rock, rockW)
	// The mixes above, as weights of the four materials.
	layers[LayerRock] = float32(rockW)
	layers[LayerSnow] = float32(snowW * (1 - rockW))
	layers[LayerDirt] = float32(dirtW * (1 - snowW) * (1 - rockW))
	layers[LayerGrass] = float32((1 - dirtW) * (1 - snowW) * (1 - rockW))
	// Deterministic per-sample variation of ±6 %.
	hsh := uint32(i)*0x9E3779B1 ^ uint32(j)*0x85EBCA77
	hsh ^= hsh >> 15
	hsh *= 0x2C1B3C6D
	hsh ^= hsh >> 12
	v := 0.94 + 0.12*float32(hsh&0xffff)/0xffff
	return [3]float32{c[0] * v, c[1] * v, c[2] * v}, layers
}

func mix(a, b [3]float32, t float64) [3]float32 {
	w := float32(t)
	return [3]float32{a[0] + (b[0]-a[0])*w, a[1] + (b[1]-a[1])*w, a[2] + (b[2]-a[2])*w}
}

// smooth is a smoothstep from edge a to edge b (b may be below a to fall instead).
func smooth(a, b, x float64) float64 {
	t := (x - a) / (b - a)
	t = math.Min(math.Max(t, 0), 1)
	return t * t * (3 - 2*t)
}
