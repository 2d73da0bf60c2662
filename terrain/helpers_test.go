package terrain

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// fromFunc builds an n×n map over [−size/2, size/2]² sampling f, quantized to 16 bits
// over [base, base+scale].
func fromFunc(t testing.TB, n int, size, base, scale float64, f func(x, z float64) float64) *Map {
	t.Helper()
	raw := make([]uint16, n*n)
	cell := size / float64(n-1)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			h := f(-size/2+float64(i)*cell, -size/2+float64(j)*cell)
			raw[j*n+i] = uint16(math.Round((h - base) / scale * 65535))
		}
	}
	m, err := newMap(layout{name: "test", nx: n, nz: n, minX: -size / 2, minZ: -size / 2, maxX: size / 2, maxZ: size / 2,
		heightBase: base, heightScale: scale, chunkCells: 8}, raw, features{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// planeMap is a 33×33 map of 64 m on the plane y = 10 + ax·x + az·z.
func planeMap(t testing.TB, ax, az float64) (*Map, func(x, z float64) float64) {
	f := func(x, z float64) float64 { return 10 + ax*x + az*z }
	return fromFunc(t, 33, 64, -40, 100, f), f
}

// quantum is the height step of a map's 16-bit samples, m.
func (m *Map) quantum() float64 { return m.heightScale / 65535 }

func vecNear(a, b mgl64.Vec3, tol float64) bool { return a.Sub(b).Len() <= tol }
