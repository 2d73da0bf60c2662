package lab

import (
	"math"
	"testing"
	"time"

	"github.com/treadline/treadline/net/impair"
)

// TestPatrolFollowsItsRoute checks the patrol's truth: on its route at every frame,
// at rest at some waypoints and at several speeds between them.
func TestPatrolFollowsItsRoute(t *testing.T) {
	p, err := BuildScenario("patrol", 60, 60)
	if err != nil {
		t.Fatal(err)
	}
	if p.Route == nil || len(p.RouteS) != len(p.Poses) || !p.Route.Closed() {
		t.Fatalf("patrol has route %v and %d arc lengths for %d frames", p.Route, len(p.RouteS), len(p.Poses))
	}
	stops, fastest, slowest := 0, 0.0, math.Inf(1)
	resting := false
	for i, pose := range p.Poses {
		at, _ := p.Route.At(p.RouteS[i])
		if d := math.Hypot(at[0]-pose.Position[0], at[2]-pose.Position[2]); d > 1e-9 {
			t.Fatalf("frame %d: %.3g m off the route", i, d)
		}
		if i == 0 {
			continue
		}
		v := p.Route.Diff(p.RouteS[i-1], p.RouteS[i]) * 60
		if v < 0 {
			t.Fatalf("frame %d: backs along the route at %.3g m/s", i, v)
		}
		if v == 0 && !resting {
			stops++
		}
		resting = v == 0
		fastest = math.Max(fastest, v)
		if v > 1 {
			slowest = math.Min(slowest, v)
		}
	}
	if stops < 2 || fastest < 8 || slowest > 5 {
		t.Errorf("patrol: %d stops, speeds %.1f to %.1f m/s; want stops and speed changes", stops, slowest, fastest)
	}
}

// TestPathGoal holds the path algorithm to its goal on the patrol and on a patrol of
// a seed never tuned on, at 150 ± 30 ms with 10 % loss: at most a third of the
// game's bytes per second, with a p95 error no worse.
func TestPathGoal(t *testing.T) {
	link := impair.Link{Latency: 150 * time.Millisecond, Jitter: 30 * time.Millisecond, Loss: 0.1}
	for _, name := range []string{"patrol", PatrolPrefix + "9001"} {
		p, err := BuildScenario(name, 60, 60)
		if err != nil {
			t.Fatal(err)
		}
		res := map[string]Result{}
		for _, algo := range []string{gameAlgo, pathAlgo} {
			a, err := ParseAlgo(algo)
			if err != nil {
				t.Fatal(err)
			}
			r, err := Simulate(Setup{Path: p, Algo: a, Network: link, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			res[algo] = r
		}
		g, pa := res[gameAlgo], res[pathAlgo]
		if pa.BytesPerS > g.BytesPerS/3 || pa.P95ErrM > g.P95ErrM {
			t.Errorf("%s: path %.1f B/s, p95 %.3f m; game %.1f B/s, p95 %.3f m", name, pa.BytesPerS, pa.P95ErrM, g.BytesPerS, g.P95ErrM)
		}
	}
}
