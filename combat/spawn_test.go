package combat_test

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/testmaps"
)

// TestSpawnFacing: a spawn faces its nearest enemy, or the map's middle without one.
func TestSpawnFacing(t *testing.T) {
	m := testmaps.Small(t)
	lo, hi := m.Min(), m.Max()
	mid := mgl64.Vec2{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}
	c := mid.Add(mgl64.Vec2{40, 0})
	const tol = 1e-9
	for _, k := range []struct {
		name    string
		enemies []mgl64.Vec3
		want    float64
	}{
		{"no enemy: the middle", nil, math.Pi},
		{"the nearest enemy", []mgl64.Vec3{{c[0], 0, c[1] - 100}, {c[0], 0, c[1] + 30}}, -math.Pi / 2},
		{"one enemy", []mgl64.Vec3{{c[0] + 50, 0, c[1]}}, 0},
	} {
		got := combat.SpawnFacing(m, c, k.enemies)
		if math.Abs(geom.WrapAngle(got-k.want)) > tol {
			t.Errorf("%s: SpawnFacing = %.4f rad, want %.4f", k.name, got, k.want)
		}
	}
}
