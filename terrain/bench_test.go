package terrain

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func benchMap(b *testing.B) *Map {
	m, err := Load("../assets/maps/valley.json")
	if err != nil {
		b.Fatal(err)
	}
	return m
}

// benchPoints returns n seeded random points on the map.
func benchPoints(n int) []mgl64.Vec2 {
	rng := rand.New(rand.NewPCG(1, 1))
	p := make([]mgl64.Vec2, n)
	for i := range p {
		p[i] = mgl64.Vec2{rng.Float64()*500 - 250, rng.Float64()*500 - 250}
	}
	return p
}

func BenchmarkHeightAt(b *testing.B) {
	m := benchMap(b)
	pts := benchPoints(1024)
	b.ReportAllocs()
	sum := 0.0
	i := 0
	for b.Loop() {
		p := pts[i&1023]
		h, _ := m.HeightAt(p[0], p[1])
		sum += h
		i++
	}
	_ = sum
}

func BenchmarkNormalAt(b *testing.B) {
	m := benchMap(b)
	pts := benchPoints(1024)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p := pts[i&1023]
		m.NormalAt(p[0], p[1])
		i++
	}
}

// BenchmarkRaycastDown casts vertical rays from 100 m up: Raycast as the general
// picking path and RayDown as the clamp's path.
func BenchmarkRaycastDown(b *testing.B) {
	m := benchMap(b)
	pts := benchPoints(1024)
	b.Run("Raycast", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p := pts[i&1023]
			if _, ok := m.Raycast(mgl64.Vec3{p[0], 100, p[1]}, mgl64.Vec3{0, -1, 0}, 200); !ok {
				b.Fatal("vertical ray missed")
			}
			i++
		}
	})
	b.Run("RayDown", func(b *testing.B) {
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			p := pts[i&1023]
			if _, ok := m.RayDown(p[0], 100, p[1]); !ok {
				b.Fatal("vertical ray missed")
			}
			i++
		}
	})
}

// BenchmarkRaycastPick casts camera-like rays: 40 m up, looking 20° down, so each
// crosses about 55 cells before it hits.
func BenchmarkRaycastPick(b *testing.B) {
	m := benchMap(b)
	pts := benchPoints(1024)
	rng := rand.New(rand.NewPCG(2, 2))
	dirs := make([]mgl64.Vec3, 1024)
	for i := range dirs {
		a := rng.Float64() * 6.283
		dirs[i] = mgl64.Vec3{0.94 * math.Cos(a), -0.34, 0.94 * math.Sin(a)}
	}
	b.ReportAllocs()
	i, hits := 0, 0
	for b.Loop() {
		p := pts[i&1023]
		if _, ok := m.Raycast(mgl64.Vec3{p[0] * 0.5, 40, p[1] * 0.5}, dirs[i&1023], 1000); ok {
			hits++
		}
		i++
	}
	b.ReportMetric(float64(hits)/float64(i), "hits/op")
}

func BenchmarkChunkMesh(b *testing.B) {
	m := benchMap(b)
	var buf Mesh
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		buf = m.AppendChunkMesh(buf, i%len(m.Chunks()), 0)
		i++
	}
}

func BenchmarkGenerate(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Generate(GenerateConfig{Seed: 7}); err != nil {
			b.Fatal(err)
		}
	}
}
