package terrain

import (
	"math"
	"testing"
)

func TestChunkGrid(t *testing.T) {
	for _, c := range []struct {
		samples, cells, cols int
	}{
		{257, 32, 8}, {65, 32, 2}, {66, 32, 3}, {9, 32, 1}, {33, 8, 4},
	} {
		m, err := Generate(GenerateConfig{Seed: 1, Size: 64, Samples: c.samples, ChunkCells: c.cells})
		if err != nil {
			t.Fatal(err)
		}
		cols, rows := m.ChunkGrid()
		if cols != c.cols || rows != c.cols || len(m.Chunks()) != cols*rows {
			t.Errorf("%d samples, %d-cell chunks: grid %d×%d with %d chunks, want %d×%d",
				c.samples, c.cells, cols, rows, len(m.Chunks()), c.cols, c.cols)
		}
		// The chunks tile the grid exactly and bound their samples.
		covered := 0
		for _, ch := range m.Chunks() {
			covered += (ch.I1 - ch.I0) * (ch.J1 - ch.J0)
			for j := ch.J0; j <= ch.J1; j++ {
				for i := ch.I0; i <= ch.I1; i++ {
					if h := m.Sample(i, j); h < ch.Min[1] || h > ch.Max[1] {
						t.Fatalf("chunk %d,%d: sample %d,%d height %g outside its bounds %g…%g", ch.Col, ch.Row, i, j, h, ch.Min[1], ch.Max[1])
					}
				}
			}
		}
		if covered != (c.samples-1)*(c.samples-1) {
			t.Errorf("%d samples: chunks cover %d cells, want %d", c.samples, covered, (c.samples-1)*(c.samples-1))
		}
	}
}

func TestChunkMeshLOD0IsTheSurface(t *testing.T) {
	m, err := Generate(GenerateConfig{Seed: 4, Size: 128, Samples: 65, ChunkCells: 16})
	if err != nil {
		t.Fatal(err)
	}
	for ci, ch := range m.Chunks() {
		mesh := m.ChunkMesh(ci, 0)
		side := ch.I1 - ch.I0 + 1
		grid := side * side
		if want := grid + 4*side; mesh.VertexCount() != want {
			t.Fatalf("chunk %d: %d vertices, want %d (grid and skirts)", ci, mesh.VertexCount(), want)
		}
		if len(mesh.Normals) != len(mesh.Positions) || len(mesh.Colors) != len(mesh.Positions) {
			t.Fatalf("chunk %d: %d positions, %d normals, %d colours", ci, len(mesh.Positions), len(mesh.Normals), len(mesh.Colors))
		}
		if len(mesh.Layers) != 4*mesh.VertexCount() {
			t.Fatalf("chunk %d: %d layer weights for %d vertices", ci, len(mesh.Layers), mesh.VertexCount())
		}
		for k := 0; k < mesh.VertexCount(); k++ {
			w := mesh.Layers[4*k : 4*k+4]
			sum := w[0] + w[1] + w[2] + w[3]
			if math.Abs(float64(sum)-1) > 1e-5 || w[0] < 0 || w[1] < 0 || w[2] < 0 || w[3] < 0 {
				t.Fatalf("chunk %d vertex %d: layer weights %v do not make a mix", ci, k, w)
			}
		}
		for k := 0; k < grid; k++ {
			x, y, z := float64(mesh.Positions[3*k]), float64(mesh.Positions[3*k+1]), float64(mesh.Positions[3*k+2])
			h, _ := m.HeightAt(x, z)
			if math.Abs(y-h) > 1e-4 {
				t.Fatalf("chunk %d vertex %d at (%g, %g): y %g, ground %g", ci, k, x, z, y, h)
			}
			for c := 0; c < 3; c++ {
				if col := mesh.Colors[3*k+c]; !(col >= 0 && col <= 1) {
					t.Fatalf("chunk %d vertex %d: colour %v out of 0…1", ci, k, mesh.Colors[3*k:3*k+3])
				}
			}
		}
		// Grid triangles face up and lie on the ray-cast surface: their centroids are
		// on SurfaceAt.
		ground := 6 * (side - 1) * (side - 1)
		for k := 0; k < len(mesh.Indices); k += 3 {
			var p [3][3]float64
			for v := 0; v < 3; v++ {
				idx := mesh.Indices[k+v]
				if int(idx) >= mesh.VertexCount() {
					t.Fatalf("chunk %d: index %d out of range", ci, idx)
				}
				for c := 0; c < 3; c++ {
					p[v][c] = float64(mesh.Positions[3*idx+uint32(c)])
				}
			}
			if k >= ground {
				continue
			}
			e1 := [3]float64{p[1][0] - p[0][0], p[1][1] - p[0][1], p[1][2] - p[0][2]}
			e2 := [3]float64{p[2][0] - p[0][0], p[2][1] - p[0][1], p[2][2] - p[0][2]}
			if ny := e1[2]*e2[0] - e1[0]*e2[2]; ny <= 0 {
				t.Fatalf("chunk %d triangle %d faces down", ci, k/3)
			}
			cx, cy, cz := (p[0][0]+p[1][0]+p[2][0])/3, (p[0][1]+p[1][1]+p[2][1])/3, (p[0][2]+p[1][2]+p[2][2])/3
			if s, _ := m.SurfaceAt(cx, cz); math.Abs(s-cy) > 1e-4 {
				t.Fatalf("chunk %d triangle %d: centroid y %g, surface %g", ci, k/3, cy, s)
			}
		}
	}
}

func TestChunkMeshLODs(t *testing.T) {
	m, err := Generate(GenerateConfig{Seed: 4, Size: 256, Samples: 129})
	if err != nil {
		t.Fatal(err)
	}
	if m.MaxLOD() != 5 {
		t.Fatalf("MaxLOD() = %d, want 5 for 32-cell chunks", m.MaxLOD())
	}
	prev := math.MaxInt
	for lod := 0; lod <= m.MaxLOD(); lod++ {
		mesh := m.ChunkMesh(0, lod)
		side := 32>>lod + 1
		if got, want := mesh.TriangleCount(), 2*(side-1)*(side-1)+4*2*(side-1); got != want {
			t.Errorf("LOD %d: %d triangles, want %d", lod, got, want)
		}
		if mesh.TriangleCount() >= prev {
			t.Errorf("LOD %d: %d triangles, not fewer than LOD %d", lod, mesh.TriangleCount(), lod-1)
		}
		prev = mesh.TriangleCount()
	}
}

// Neighbouring chunks at different levels of detail: the coarse chunk's edge does not
// meet the fine one's, and the skirts must reach below both edges to hide the crack.
func TestSkirtsHideCracks(t *testing.T) {
	m, err := Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	cols, _ := m.ChunkGrid()
	for ci, ch := range m.Chunks() {
		if ch.Col+1 >= cols {
			continue
		}
		right := ci + 1
		for _, lods := range [][2]int{{0, 3}, {3, 0}, {0, m.MaxLOD()}} {
			a, b := m.ChunkMesh(ci, lods[0]), m.ChunkMesh(right, lods[1])
			edgeX := float32(m.sampleX(ch.I1))
			// lowest is the lowest vertex on the shared edge among the skirt
			// vertices (skirt) or the ground vertices (!skirt).
			lowest := func(mesh Mesh, skirt bool) float32 {
				lo := float32(math.Inf(1))
				for k := 0; k < mesh.VertexCount(); k++ {
					if mesh.Positions[3*k] != edgeX {
						continue
					}
					y := mesh.Positions[3*k+1]
					isSkirt := y < float32(ch.Min[1])-0.5 || y < float32(m.chunks[right].Min[1])-0.5
					if isSkirt == skirt && y < lo {
						lo = y
					}
				}
				return lo
			}
			// Every edge point of either chunk must be above both skirts' bottoms.
			edgeLow := min(lowest(a, false), lowest(b, false))
			skirtA, skirtB := lowest(a, true), lowest(b, true)
			if !(skirtA < edgeLow && skirtB < edgeLow) {
				t.Fatalf("chunks %d/%d at LODs %v: skirts reach %g and %g, edge dips to %g", ci, right, lods, skirtA, skirtB, edgeLow)
			}
		}
	}
}

func TestChunkMeshPanicsOnMisuse(t *testing.T) {
	m, _ := planeMap(t, 0, 0)
	for _, c := range [][2]int{{-1, 0}, {len(m.Chunks()), 0}, {0, -1}, {0, m.MaxLOD() + 1}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("ChunkMesh(%d, %d) did not panic", c[0], c[1])
				}
			}()
			m.ChunkMesh(c[0], c[1])
		}()
	}
}

func TestAppendChunkMeshReusesBuffers(t *testing.T) {
	m, _ := planeMap(t, 0.1, 0.2)
	buf := m.ChunkMesh(0, 0)
	allocs := testing.AllocsPerRun(20, func() { buf = m.AppendChunkMesh(buf, 1, 0) })
	if allocs != 0 {
		t.Errorf("AppendChunkMesh into a big enough buffer: %g allocations, want 0", allocs)
	}
}
