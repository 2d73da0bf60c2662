package render

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/terrain"
)

// DefaultTerrainLevels is how many levels of detail TerrainFromMap builds per chunk.
const DefaultTerrainLevels = 4

// TerrainFromMap builds the drawable terrain of m: every chunk at levels levels of
// detail (if levels is zero or negative, DefaultTerrainLevels; at most the map's own
// MaxLOD+1), and its rocks standing on the ground.
func TerrainFromMap(m *terrain.Map, levels int) Terrain {
	if levels <= 0 {
		levels = DefaultTerrainLevels
	}
	levels = min(levels, m.MaxLOD()+1)
	var t Terrain
	for i := range m.Chunks() {
		lods := make([]Mesh, levels)
		for lod := range lods {
			cm := m.ChunkMesh(i, lod)
			lods[lod] = Mesh{Positions: cm.Positions, Normals: cm.Normals, Colors: cm.Colors, Layers: cm.Layers, Indices: cm.Indices,
				Error: m.LODError(i, lod)}
		}
		t.Chunks = append(t.Chunks, lods)
	}
	for _, o := range m.Obstacles() {
		h, _ := m.HeightAt(o.X, o.Z)
		t.Rocks = append(t.Rocks, Rock{Center: mgl64.Vec3{o.X, h, o.Z}, Radius: o.Radius, Height: o.Height})
	}
	return t
}
