package lab

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net/impair"
)

func TestGridFinal(t *testing.T) {
	type cand struct {
		name          string
		th, rot, hb   float64
		rep           float64
	}
	cands := []cand{
		{"DIS 1 m/3°/5 s", 1, 3, 5, -1},
		{"Delta3D 0.02 m/1°/10 s", 0.02, 1, 10, -1},
		{"start 0.1 m/4°", 0.1, 4, 1, -1},
		{"chosen 0.03 m/4°/1 s +repeat", 0.03, 4, 1, 1},
	}
	scen := []string{"circle", "eight", "zigzag", "stopgo", "ledge", "tank", "pivot", "collision"}
	fmt.Printf("| link | %s |\n", "candidate | mean p95 m | worst p95 m (scenario) | worst jump m (scenario) | worst pop m | upd/s mean (max)")
	for _, lat := range []float64{50, 150, 300} {
		for _, loss := range []float64{0, 0.1, 0.3} {
			l := impair.Link{Latency: time.Duration(lat * float64(time.Millisecond)), Jitter: time.Duration(lat / 5 * float64(time.Millisecond)), Loss: loss}
			for _, c := range cands {
				dr := game.DeadReckoning()
				dr.PositionThreshold, dr.OrientationThreshold = c.th, c.rot*math.Pi/180
				dr.Heartbeat, dr.Reckon.Heartbeat, dr.RepeatChange = c.hb, c.hb, c.rep
				var mp, wp, wj, wpop, mu, xu float64
				var sp, sj string
				for _, sc := range scen {
					p, _ := BuildScenario(sc, 60, 30)
					a, _ := ParseAlgo("game")
					r, err := SimulateRuns(Setup{Path: p, Algo: a, DeadReckoning: dr, Network: l, Seed: 1}, 3)
					if err != nil {
						t.Fatal(err)
					}
					mp += r.P95ErrM / float64(len(scen))
					mu += r.UpdatesPerS / float64(len(scen))
					xu = math.Max(xu, r.UpdatesPerS)
					if r.P95ErrM > wp {
						wp, sp = r.P95ErrM, sc
					}
					if r.MaxJumpM > wj {
						wj, sj = r.MaxJumpM, sc
					}
					wpop = math.Max(wpop, r.MaxPopM)
				}
				fmt.Printf("| %.0f ± %.0f ms, %.0f%% | %s | %.3f | %.3f (%s) | %.3f (%s) | %.3f | %.2f (%.2f) |\n", lat, lat/5, loss*100, c.name, mp, wp, sp, wj, sj, wpop, mu, xu)
			}
		}
	}
	_ = deadreckon.Gravity
}
