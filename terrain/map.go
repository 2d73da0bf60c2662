package terrain

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Obstacle is a rock on the map: a static vertical cylinder for collisions and a
// boulder for drawing. Coordinates are world meters.
type Obstacle struct {
	// X and Z locate the rock's center on the ground plane, m.
	X float64 `json:"x"`
	Z float64 `json:"z"`
	// Radius is the collision radius on the ground plane, m.
	Radius float64 `json:"radius"`
	// Height is how far the rock stands above the ground at its center, m (drawing only).
	Height float64 `json:"height"`
}

// Map is a heightfield battlefield: a regular grid of height samples over a
// rectangle of the XZ plane, the rocks standing on it and the spawn points.
//
// Sample (i, j) sits at world (MinX + i·CellX, MinZ + j·CellZ); i runs along +X and j
// along +Z. Each grid cell is split into two triangles along the diagonal whose two
// corners differ clearly less in height (see Flipped), so a cliff running across the grid at
// an angle is cut along its edge instead of into a sawtooth; those triangles are the
// surface that RayDown, Raycast and ChunkMesh use, while HeightAt and NormalAt
// interpolate bilinearly.
//
// A Map is immutable once built by Load, LoadFS or Generate, so all its methods are
// safe for concurrent use.
type Map struct {
	name         string
	nx, nz       int
	minX, minZ   float64
	maxX, maxZ   float64
	cellX, cellZ float64
	invX, invZ   float64

	heightBase, heightScale float64
	raw                     []uint16     // quantized samples as stored in the PNG
	h                       []float64    // heights, m, index j*nx + i
	n                       []mgl64.Vec3 // per-sample unit normals (central differences)
	minH, maxH              float64

	obstacles []Obstacle
	spawns    []mgl64.Vec2
	landmarks []Landmark
	palette   Palette

	chunkCells int
	chunkCols  int
	chunkRows  int
	chunks     []Chunk
	cellMinMax []float32 // per cell: min, max height (for ray traversal)

	seed uint64
}

// Palette returns the map's ground colours (DefaultPalette unless its sidecar names
// others).
func (m *Map) Palette() Palette { return m.palette }

// Name returns the map's name from its sidecar (for example "valley").
func (m *Map) Name() string { return m.name }

// Samples returns the number of height samples along X and along Z.
func (m *Map) Samples() (nx, nz int) { return m.nx, m.nz }

// CellSize returns the spacing of the height samples along X and along Z, m.
func (m *Map) CellSize() (dx, dz float64) { return m.cellX, m.cellZ }

// Min returns the map's lowest (x, z) corner, m.
func (m *Map) Min() mgl64.Vec2 { return mgl64.Vec2{m.minX, m.minZ} }

// Max returns the map's highest (x, z) corner, m.
func (m *Map) Max() mgl64.Vec2 { return mgl64.Vec2{m.maxX, m.maxZ} }

// Size returns the map's extent along X and Z, m.
func (m *Map) Size() mgl64.Vec2 { return mgl64.Vec2{m.maxX - m.minX, m.maxZ - m.minZ} }

// HeightRange returns the lowest and highest ground heights on the map, m.
func (m *Map) HeightRange() (lo, hi float64) { return m.minH, m.maxH }

// Bounds returns the box holding the whole ground surface, m (rocks not included).
func (m *Map) Bounds() (lo, hi mgl64.Vec3) {
	return mgl64.Vec3{m.minX, m.minH, m.minZ}, mgl64.Vec3{m.maxX, m.maxH, m.maxZ}
}

// Contains reports whether (x, z) lies on the map, borders included.
func (m *Map) Contains(x, z float64) bool {
	return x >= m.minX && x <= m.maxX && z >= m.minZ && z <= m.maxZ
}

// Obstacles returns the rocks on the map. The slice is shared: do not modify it.
func (m *Map) Obstacles() []Obstacle { return m.obstacles }

// Spawns returns the spawn points, (x, z) in meters, all on flat ground. The slice
// is shared: do not modify it.
func (m *Map) Spawns() []mgl64.Vec2 { return m.spawns }

// Landmark is a named place on a map with a heading, for tests, demos and the lab:
// a generated map has "ledge" (on the ridge's crest, facing off its cliff), "climb"
// (at the foot of the ridge's even climb, facing up it) and "floor" (the middle of
// the flat valley floor).
type Landmark struct {
	// Name identifies the landmark.
	Name string `json:"name"`
	// X and Z locate it, world meters.
	X float64 `json:"x"`
	Z float64 `json:"z"`
	// Yaw is the heading of interest, rad (0 faces +X; positive turns toward −Z).
	Yaw float64 `json:"yaw"`
}

// Landmarks returns the map's landmarks. The slice is shared: do not modify it.
func (m *Map) Landmarks() []Landmark { return m.landmarks }

// Landmark returns the landmark called name; ok is false when there is none.
func (m *Map) Landmark(name string) (lm Landmark, ok bool) {
	for _, l := range m.landmarks {
		if l.Name == name {
			return l, true
		}
	}
	return Landmark{}, false
}

// Seed returns the generator seed recorded in the sidecar, or 0 when unknown.
func (m *Map) Seed() uint64 { return m.seed }

// Sample returns the height of grid sample (i, j), m. It panics if (i, j) is outside
// the grid.
func (m *Map) Sample(i, j int) float64 {
	if i < 0 || i >= m.nx || j < 0 || j >= m.nz {
		panic("terrain: sample index out of range")
	}
	return m.h[j*m.nx+i]
}

// locate maps (x, z) to a cell and the fractions within it, clamping to the grid.
// inside is false when (x, z) lies off the map (NaN included).
func (m *Map) locate(x, z float64) (i, j int, u, v float64, inside bool) {
	inside = x >= m.minX && x <= m.maxX && z >= m.minZ && z <= m.maxZ
	fx := (x - m.minX) * m.invX
	fz := (z - m.minZ) * m.invZ
	if !(fx > 0) { // also catches NaN
		fx = 0
	}
	if !(fz > 0) {
		fz = 0
	}
	if lim := float64(m.nx - 1); fx > lim {
		fx = lim
	}
	if lim := float64(m.nz - 1); fz > lim {
		fz = lim
	}
	i, j = int(fx), int(fz)
	if i > m.nx-2 {
		i = m.nx - 2
	}
	if j > m.nz-2 {
		j = m.nz - 2
	}
	return i, j, fx - float64(i), fz - float64(j), inside
}

// HeightAt returns the ground height at (x, z), m, interpolated bilinearly between
// the four surrounding samples. Outside the map ok is false and h is the height at the
// nearest point of the border (so the border reads as extended outward); NaN input
// reads as the map's lowest corner, also with ok false. HeightAt never allocates.
func (m *Map) HeightAt(x, z float64) (h float64, ok bool) {
	i, j, u, v, inside := m.locate(x, z)
	k := j*m.nx + i
	h00, h10 := m.h[k], m.h[k+1]
	h01, h11 := m.h[k+m.nx], m.h[k+m.nx+1]
	a := h00 + u*(h10-h00)
	b := h01 + u*(h11-h01)
	return a + v*(b-a), inside
}

// NormalAt returns the unit upward ground normal at (x, z): the per-sample normals
// (central differences of the heights) interpolated bilinearly and renormalized, so it
// varies smoothly across cells. Outside the map ok is false and n is the normal at the
// nearest point of the border.
func (m *Map) NormalAt(x, z float64) (n mgl64.Vec3, ok bool) {
	i, j, u, v, inside := m.locate(x, z)
	k := j*m.nx + i
	n00, n10 := m.n[k], m.n[k+1]
	n01, n11 := m.n[k+m.nx], m.n[k+m.nx+1]
	w00, w10, w01, w11 := (1-u)*(1-v), u*(1-v), (1-u)*v, u*v
	n = mgl64.Vec3{
		w00*n00[0] + w10*n10[0] + w01*n01[0] + w11*n11[0],
		w00*n00[1] + w10*n10[1] + w01*n01[1] + w11*n11[1],
		w00*n00[2] + w10*n10[2] + w01*n01[2] + w11*n11[2],
	}
	l := math.Sqrt(n[0]*n[0] + n[1]*n[1] + n[2]*n[2])
	return mgl64.Vec3{n[0] / l, n[1] / l, n[2] / l}, inside
}

// SurfaceAt returns the height of the triangulated surface at (x, z), m: the surface
// drawn by ChunkMesh and hit by RayDown and Raycast. Outside the map ok is false and h
// is the surface height at the nearest point of the border.
func (m *Map) SurfaceAt(x, z float64) (h float64, ok bool) {
	i, j, u, v, inside := m.locate(x, z)
	return m.triHeight(i, j, u, v), inside
}

// Flipped reports whether grid cell (i, j) (the cell whose lowest corner is sample
// (i, j)) is split along its (i+1, j)–(i, j+1) diagonal rather than its (i, j)–(i+1,
// j+1) one. A cell is flipped when that diagonal's corners differ clearly less in
// height (by flipMargin): the split then follows a cliff edge instead of cutting
// across it. It panics if (i, j) is not a cell.
func (m *Map) Flipped(i, j int) bool {
	if i < 0 || i >= m.nx-1 || j < 0 || j >= m.nz-1 {
		panic("terrain: cell index out of range")
	}
	k := j*m.nx + i
	return flipDiagonal(m.h[k], m.h[k+1], m.h[k+m.nx], m.h[k+m.nx+1])
}

// flipDiagonal reports whether a cell with corner heights ha (i, j), hb (i+1, j), hc
// (i, j+1) and hd (i+1, j+1) is split along b–c: when b and c differ at least
// flipMargin less than a and d.
func flipDiagonal(ha, hb, hc, hd float64) bool {
	return math.Abs(hb-hc) < math.Abs(ha-hd)-flipMargin
}

// flipMargin is how much smaller, m, the b–c height difference must be than the a–d
// one for a cell to be flipped. Only real creases, a cliff's edge cutting across the
// cell, differ by that much; gentle ground keeps the split it always had, so driving
// and clamping on it do not change.
const flipMargin = 1.0

// cellPlanes returns cell (i, j)'s two triangles as planes (see splitPlanes).
func (m *Map) cellPlanes(i, j int) (flipped bool, base, su, sv [2]float64) {
	k := j*m.nx + i
	return splitPlanes(m.h[k], m.h[k+1], m.h[k+m.nx], m.h[k+m.nx+1])
}

// splitPlanes returns the two triangles of a cell with corner heights ha (i, j), hb
// (i+1, j), hc (i, j+1) and hd (i+1, j+1), split by flipDiagonal's rule, as planes
// over the cell fractions (u, v): triangle t has height base[t] + u·su[t] + v·sv[t].
// For an unflipped cell triangle 0 covers v ≤ u and triangle 1 u ≤ v; for a flipped
// one triangle 0 covers u + v ≤ 1 and triangle 1 u + v ≥ 1.
func splitPlanes(ha, hb, hc, hd float64) (flipped bool, base, su, sv [2]float64) {
	if flipDiagonal(ha, hb, hc, hd) {
		// (a, c, b): h = ha + u(hb−ha) + v(hc−ha); (b, c, d): h = hb + hc − hd + u(hd−hc) + v(hd−hb).
		return true, [2]float64{ha, hb + hc - hd}, [2]float64{hb - ha, hd - hc}, [2]float64{hc - ha, hd - hb}
	}
	// (a, d, b): h = ha + u(hb−ha) + v(hd−hb); (a, c, d): h = ha + u(hd−hc) + v(hc−ha).
	return false, [2]float64{ha, ha}, [2]float64{hb - ha, hd - hc}, [2]float64{hd - hb, hc - ha}
}

// splitHeight is the height at cell fractions (u, v) of the triangles that split a
// cell with corner heights ha (i, j), hb (i+1, j), hc (i, j+1) and hd (i+1, j+1) by
// flipDiagonal's rule. It is splitPlanes evaluated, without the arrays: the clamp's
// hot path.
func splitHeight(ha, hb, hc, hd, u, v float64) float64 {
	if flipDiagonal(ha, hb, hc, hd) {
		if u+v <= 1 {
			return ha + u*(hb-ha) + v*(hc-ha)
		}
		return hd + (1-u)*(hc-hd) + (1-v)*(hb-hd)
	}
	if u >= v {
		return ha + u*(hb-ha) + v*(hd-hb)
	}
	return ha + v*(hc-ha) + u*(hd-hc)
}

// triHeight is the height of cell (i, j)'s triangles at fractions (u, v).
func (m *Map) triHeight(i, j int, u, v float64) float64 {
	k := j*m.nx + i
	return splitHeight(m.h[k], m.h[k+1], m.h[k+m.nx], m.h[k+m.nx+1], u, v)
}

// RayDown casts a ray from (x, y, z) straight down against the triangulated surface
// and reports the height where it hits, m. ok is false when the ray starts below the
// surface or (x, z) lies off the map; h is then still the surface height at (x, z), or
// at the nearest border point. RayDown never allocates.
func (m *Map) RayDown(x, y, z float64) (h float64, ok bool) {
	h, inside := m.SurfaceAt(x, z)
	return h, inside && h <= y
}
