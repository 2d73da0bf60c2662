// Package terrain is Treadline's battlefield ground: a heightfield loaded from a
// 16-bit grayscale PNG and a JSON sidecar (or generated procedurally from a seed),
// the rocks and spawn points placed on it, the queries that physics, ground clamping
// and picking need, and chunked triangle meshes with levels of detail for the
// renderer.
//
// # World frame
//
// Meters, Y up, right-handed. The map covers a rectangle of the XZ plane (the shipped
// one is 512 m × 512 m, centered on the origin). Sample (i, j) of the grid sits at
// (MinX + i·dx, MinZ + j·dz); the PNG's columns run along +X and its rows along +Z.
// Each grid cell is split into two triangles along its (i, j)–(i+1, j+1) diagonal,
// or along the other one where that one's height difference is at least a meter
// smaller (Map.Flipped), so cliffs are cut along their edges.
//
// # Queries
//
// HeightAt and NormalAt interpolate bilinearly and are smooth: use them for forces and
// for placing things. RayDown and Raycast intersect the triangles, the same surface
// ChunkMesh draws, so a clamped tank sits exactly on the drawn ground. Off the map,
// HeightAt and NormalAt report ok = false with the value at the nearest border point,
// and RayDown misses; physics puts a wall on the border. A *Map implements
// deadreckon.Ground and is immutable, so every method is safe for concurrent use.
//
// # Usage
//
//	m, err := terrain.Load("assets/maps/valley.json")
//	if err != nil {
//		return err
//	}
//	h, _ := m.HeightAt(10, -20)            // ground height, m
//	hit, ok := m.Raycast(eye, dir, 1000)   // mouse picking
//	for i, ch := range m.Chunks() {        // renderer: cull by ch.Min/ch.Max,
//		mesh := m.ChunkMesh(i, lodFor(ch)) // pick a level of detail, upload once
//		_ = mesh
//	}
//
// The shipped map is remade, byte for byte, by
//
//	go run ./cmd/mapgen -seed 7 -size 512 -samples 257 -out assets/maps/valley
package terrain
