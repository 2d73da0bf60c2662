package render

import (
	"errors"
	"fmt"
	"math"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
)

// Mesh is one indexed triangle mesh in world coordinates (meters), as the terrain
// package produces for a chunk at one level of detail. Positions and Normals hold three
// floats per vertex; Colors, when not empty, three linear RGB floats in [0, 1] per
// vertex; Layers, when not empty, four ground material weights per vertex (grass,
// dirt, rock, snow, as terrain.Mesh.Layers); Indices three vertex indices per
// counter-clockwise (seen from above) triangle. Without Colors or Layers, both are
// made from each vertex's height and slope.
type Mesh struct {
	Positions, Normals, Colors, Layers []float32
	Indices                            []uint32
	// Error is how far, m, this level strays vertically from the finest one (as
	// terrain.Map.LODError); the scene keeps a finer level while the error would
	// show at the chunk's distance. Zero means exact.
	Error float64
}

// Validate returns an error naming the first way m is malformed (ragged arrays, an
// index past the vertices, a non-finite position), or nil.
func (m Mesh) Validate() error {
	n := len(m.Positions)
	switch {
	case n == 0 || n%3 != 0:
		return fmt.Errorf("mesh has %d position floats, want a positive multiple of 3", n)
	case len(m.Normals) != n:
		return fmt.Errorf("mesh has %d normal floats for %d position floats", len(m.Normals), n)
	case len(m.Colors) != 0 && len(m.Colors) != n:
		return fmt.Errorf("mesh has %d colour floats for %d position floats", len(m.Colors), n)
	case len(m.Layers) != 0 && len(m.Layers) != n/3*4:
		return fmt.Errorf("mesh has %d layer floats for %d vertices, want 4 per vertex", len(m.Layers), n/3)
	case len(m.Indices) == 0 || len(m.Indices)%3 != 0:
		return fmt.Errorf("mesh has %d indices, want a positive multiple of 3", len(m.Indices))
	}
	for i, idx := range m.Indices {
		if int(idx) >= n/3 {
			return fmt.Errorf("mesh index %d is %d, past the %d vertices", i, idx, n/3)
		}
	}
	for i, f := range m.Positions {
		if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
			return fmt.Errorf("mesh position float %d is %v", i, f)
		}
	}
	return nil
}

// Terrain is the ground to draw: Chunks[i][lod] is chunk i at level of detail lod,
// lod 0 the finest. Every chunk must have the same number of levels.
type Terrain struct {
	Chunks [][]Mesh
	// Rocks are obstacles standing on the ground.
	Rocks []Rock
}

// ErrNoTerrain reports a Terrain without chunks.
var ErrNoTerrain = errors.New("render: terrain has no chunks")

// DefaultLODDistance is the distance in meters from the camera to a chunk's nearest
// point beyond which the next coarser level of detail is drawn; level k starts at
// k × DefaultLODDistance.
const DefaultLODDistance = 120.0

// terrainNode draws the terrain chunk by chunk. g3n's renderer culls each chunk
// against the view frustum from its bounding box; terrainNode picks each chunk's level
// of detail from its distance to the eye.
type terrainNode struct {
	root   *core.Node
	chunks []terrainChunk
	// min and max bound the whole terrain, meters.
	min, max mgl64.Vec3
	lodDist  float64
}

type terrainChunk struct {
	lods     []*graphic.Mesh
	errs     []float64 // each level's Mesh.Error
	min, max mgl64.Vec3
	current  int
}

// newTerrainNode uploads the terrain's meshes. It returns an error for an empty
// terrain or a malformed mesh.
func newTerrainNode(t Terrain, lodDist float64) (*terrainNode, error) {
	if len(t.Chunks) == 0 {
		return nil, ErrNoTerrain
	}
	if lodDist <= 0 {
		lodDist = DefaultLODDistance
	}
	tn := &terrainNode{root: core.NewNode(), lodDist: lodDist}
	tn.min = mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	tn.max = tn.min.Mul(-1)
	mat := material.NewStandard(&math32.Color{R: 1, G: 1, B: 1})
	mat.SetShader(groundShader)
	mat.SetSpecularColor(&math32.Color{R: 0.05, G: 0.05, B: 0.05})
	mat.SetShininess(4)
	mat.AddTexture(newDetailTexture())
	// Far ground, where the detail texture's mipmaps average it out anyway, is drawn
	// without it: software rendering pays for every texture sample.
	far := material.NewStandard(&math32.Color{R: 1, G: 1, B: 1})
	far.SetShader(terrainShader)
	levels := len(t.Chunks[0])
	for i, lods := range t.Chunks {
		if len(lods) == 0 || len(lods) != levels {
			return nil, fmt.Errorf("render: terrain chunk %d has %d levels of detail, want %d", i, len(lods), levels)
		}
		c := terrainChunk{}
		c.min = mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
		c.max = c.min.Mul(-1)
		for lod, m := range lods {
			if err := m.Validate(); err != nil {
				return nil, fmt.Errorf("render: terrain chunk %d lod %d: %w", i, lod, err)
			}
			for v := 0; v < len(m.Positions); v += 3 {
				p := mgl64.Vec3{float64(m.Positions[v]), float64(m.Positions[v+1]), float64(m.Positions[v+2])}
				for k := 0; k < 3; k++ {
					c.min[k] = math.Min(c.min[k], p[k])
					c.max[k] = math.Max(c.max[k], p[k])
				}
			}
			g := meshGeometry(m)
			gm := graphic.NewMesh(g, mat)
			if lod >= texturedLevels {
				gm = graphic.NewMesh(g, far)
			}
			gm.SetVisible(lod == 0)
			c.lods = append(c.lods, gm)
			c.errs = append(c.errs, m.Error)
			tn.root.Add(gm)
		}
		for k := 0; k < 3; k++ {
			tn.min[k] = math.Min(tn.min[k], c.min[k])
			tn.max[k] = math.Max(tn.max[k], c.max[k])
		}
		tn.chunks = append(tn.chunks, c)
	}
	return tn, nil
}

// meshGeometry copies m into a g3n geometry, colouring vertices and weighing their
// ground materials by height and slope when m has no colours or layers.
func meshGeometry(m Mesh) *geometry.Geometry {
	g := geometry.NewGeometry()
	n := len(m.Positions) / 3
	colors := m.Colors
	if len(colors) == 0 {
		colors = make([]float32, 0, 3*n)
		for v := 0; v < n; v++ {
			c := groundColor(float64(m.Positions[3*v+1]), float64(m.Normals[3*v+1]))
			colors = appendColor(colors, c)
		}
	}
	layers := m.Layers
	if len(layers) == 0 {
		layers = make([]float32, 0, 4*n)
		for v := 0; v < n; v++ {
			w := groundLayers(float64(m.Positions[3*v+1]), float64(m.Normals[3*v+1]))
			layers = append(layers, w[:]...)
		}
	}
	g.AddVBO(gls.NewVBO(math32.ArrayF32(append([]float32(nil), m.Positions...))).AddAttrib(gls.VertexPosition))
	g.AddVBO(gls.NewVBO(math32.ArrayF32(append([]float32(nil), m.Normals...))).AddAttrib(gls.VertexNormal))
	g.AddVBO(gls.NewVBO(math32.ArrayF32(append([]float32(nil), colors...))).AddAttrib(gls.VertexColor))
	g.AddVBO(gls.NewVBO(math32.ArrayF32(append([]float32(nil), layers...))).AddCustomAttrib("VertexLayers", 4))
	g.SetIndices(math32.ArrayU32(append([]uint32(nil), m.Indices...)))
	return g
}

// groundColor is the fallback terrain colour for a vertex at height y (meters) whose
// normal has vertical component ny: grass low and flat, rock on steep slopes, snow high.
func groundColor(y, ny float64) math32.Color {
	grass := mgl64.Vec3{0.30, 0.46, 0.20}
	dry := mgl64.Vec3{0.52, 0.50, 0.30}
	rock := mgl64.Vec3{0.45, 0.41, 0.37}
	snow := mgl64.Vec3{0.92, 0.93, 0.95}
	t := clamp01((y - 5) / 30)
	c := grass.Mul(1 - t).Add(dry.Mul(t))
	steep := clamp01((0.9 - ny) / 0.25)
	c = c.Mul(1 - steep).Add(rock.Mul(steep))
	s := clamp01((y - 45) / 10)
	c = c.Mul(1 - s).Add(snow.Mul(s))
	return color(c[0], c[1], c[2])
}

// groundLayers is the fallback ground material mix (grass, dirt, rock, snow) for a
// vertex at height y (meters) whose normal has vertical component ny, matching
// groundColor.
func groundLayers(y, ny float64) [4]float32 {
	rock := clamp01((0.9 - ny) / 0.25)
	snow := clamp01((y-45)/10) * (1 - rock)
	dirt := clamp01((y-5)/30) * 0.5 * (1 - rock) * (1 - snow)
	return [4]float32{float32(1 - rock - snow - dirt), float32(dirt), float32(rock), float32(snow)}
}

func clamp01(x float64) float64 {
	return math.Max(0, math.Min(1, x))
}

// update picks each chunk's level of detail for an eye at eye, and reports how many
// chunks use each level in counts (which it resets first; it may be nil).
func (tn *terrainNode) update(eye mgl64.Vec3, counts []int) {
	clear(counts)
	for i := range tn.chunks {
		c := &tn.chunks[i]
		d := boxDistance(eye, c.min, c.max)
		lod := lodFor(d, tn.lodDist, len(c.lods))
		for lod > 0 && c.errs[lod] > d*maxLODErrorSlope {
			lod--
		}
		if lod != c.current {
			c.lods[c.current].SetVisible(false)
			c.lods[lod].SetVisible(true)
			c.current = lod
		}
		if lod < len(counts) {
			counts[lod]++
		}
	}
}

// texturedLevels is how many of the finest levels of detail are drawn with the
// ground's detail texture (levels start every DefaultLODDistance meters: the
// texture reaches 240 m).
const texturedLevels = 2

// maxLODErrorSlope bounds a chunk's level-of-detail error (Mesh.Error) by its
// distance: a level whose error exceeds this fraction of the distance to the chunk
// is too coarse. 0.008 is about 5 pixels at 720 pixels over a 60° field of view, so
// a cliff keeps its shape in the distance while rolling ground still coarsens.
const maxLODErrorSlope = 0.008

// lodFor returns the level of detail for a chunk at distance d meters when each level
// spans step meters and there are levels levels.
func lodFor(d, step float64, levels int) int {
	lod := int(d / step)
	return max(0, min(lod, levels-1))
}

// boxDistance returns the distance from p to the nearest point of the box [lo, hi].
func boxDistance(p, lo, hi mgl64.Vec3) float64 {
	var d mgl64.Vec3
	for k := 0; k < 3; k++ {
		d[k] = math.Max(0, math.Max(lo[k]-p[k], p[k]-hi[k]))
	}
	return d.Len()
}
