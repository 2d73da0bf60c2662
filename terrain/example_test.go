package terrain_test

import (
	"fmt"
	"log"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/terrain"
)

func ExampleLoad() {
	m, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		log.Fatal(err)
	}
	nx, nz := m.Samples()
	fmt.Printf("%s: %d×%d samples over %v m, %d spawns\n", m.Name(), nx, nz, m.Size(), len(m.Spawns()))
	s := m.Spawns()[0]
	h, onMap := m.HeightAt(s[0], s[1])
	n, _ := m.NormalAt(s[0], s[1])
	fmt.Printf("first spawn on the map: %v, level: %v\n", onMap, n[1] > 0.999)
	// A ray straight down from 100 m above the spawn lands on the ground.
	hit, _ := m.Raycast(mgl64.Vec3{s[0], h + 100, s[1]}, mgl64.Vec3{0, -1, 0}, 200)
	fmt.Printf("ray lands within 1 cm of HeightAt: %v\n", math.Abs(hit[1]-h) < 0.01)
	_, onMap = m.HeightAt(300, 0)
	fmt.Println("x = 300 on the map:", onMap)
	// Output:
	// valley: 257×257 samples over [512 512] m, 8 spawns
	// first spawn on the map: true, level: true
	// ray lands within 1 cm of HeightAt: true
	// x = 300 on the map: false
}

func ExampleMap_ChunkMesh() {
	m, err := terrain.Generate(terrain.GenerateConfig{Seed: 1, Size: 128, Samples: 65})
	if err != nil {
		log.Fatal(err)
	}
	cols, rows := m.ChunkGrid()
	fmt.Printf("%d×%d chunks, levels of detail 0…%d\n", cols, rows, m.MaxLOD())
	for lod := 0; lod <= m.MaxLOD(); lod += 2 {
		mesh := m.ChunkMesh(0, lod)
		fmt.Printf("LOD %d: %d vertices, %d triangles\n", lod, mesh.VertexCount(), mesh.TriangleCount())
	}
	// Output:
	// 2×2 chunks, levels of detail 0…5
	// LOD 0: 1221 vertices, 2304 triangles
	// LOD 2: 117 vertices, 192 triangles
	// LOD 4: 21 vertices, 24 triangles
}
