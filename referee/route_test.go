package referee

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/testmaps"
)

// TestRebuildAlongRoute: a tank that patrols a circle and publishes only its progress
// (once a second: its pace holds) is rebuilt as its watchers reckoned it, along the
// circle; rebuilt from the states the progress implies, as a peer that knows no
// route would reckon them, it would cut the curve.
func TestRebuildAlongRoute(t *testing.T) {
	m := testmaps.Valley(t)
	floor, _ := m.Landmark("floor")
	c := mgl64.Vec3{floor.X, 0, floor.Z}
	const radius, speed = 25.0, 6.0
	var ways []mgl64.Vec3
	for i := range 12 {
		a := float64(i) * 2 * math.Pi / 12
		ways = append(ways, c.Add(mgl64.Vec3{radius * math.Cos(a), 0, -radius * math.Sin(a)}))
	}
	route, err := deadreckon.NewRoute(ways, true, true)
	if err != nil {
		t.Fatal(err)
	}
	link := ShooterLink{Latency: 0.1}
	for _, withRoute := range []bool{true, false} {
		h := NewChecker(m, CheckerConfig{Reckon: game.DeadReckoning().Reckon})
		start, _ := route.Pose(0)
		s0 := deadreckon.NewState(start)
		h.Spawned(1, 1, s0, 0)
		h.Routed(1, 1, route)
		worst := 0.0
		for k := 0; k <= 8; k++ {
			at := float64(k)
			p := deadreckon.Progress{Route: 1, Time: at, S: speed * at, Rate: speed}
			h.Relayed(1, game.ImpliedState(route, &p), at)
			if withRoute {
				h.Progressed(1, p)
			}
			if k < 2 {
				continue
			}
			for f := 0.2; f < 1; f += 0.2 { // between updates
				hp, ok := h.rebuild(1, h.actors[1], view{time: at + f, link: link}, start, false)
				if !ok {
					t.Fatalf("no rebuild at %.1f s", at+f)
				}
				_, off := route.Nearest(hp.Position, 0, 0)
				worst = math.Max(worst, off)
			}
		}
		t.Logf("with the route %v: rebuilt up to %.2f m off the circle", withRoute, worst)
		switch {
		case withRoute && worst > 0.05:
			t.Errorf("rebuilt along the route up to %.2f m off it, want ≤ 0.05 m", worst)
		case !withRoute && worst < 0.3:
			t.Errorf("rebuilt from states up to %.2f m off the circle: the test shows nothing", worst)
		}
	}
}
