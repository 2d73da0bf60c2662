package lab

import (
	"fmt"
	"math"
	"strings"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
)

// Algo is one way of showing the remote actor, as the lab names it: a deadreckon
// algorithm, optionally with latency compensation.
type Algo struct {
	// Name is the lab's name for it, as -algos takes it.
	Name string
	// Algorithm is the deadreckon algorithm used.
	Algorithm deadreckon.Algorithm
	// CompensateLatency projects updates from their owner timestamps with a known clock
	// offset (the "pvb-ts" mode).
	CompensateLatency bool
	// Game runs the game's own dead reckoning (game.DeadReckoning(), or
	// Setup.DeadReckoning when set): its publisher, its remote reckoning and ground
	// clamp, whatever the publishing options say. Algorithm and CompensateLatency
	// are the game's.
	Game bool
}

// gameAlgo is the name of the algorithm that runs what the game ships.
const gameAlgo = "game"

// AlgoNames returns every algorithm name ParseAlgos accepts, in the order "all" uses:
// the snapping ones, the blending ones, the clock-synchronised ones, the game's, the
// game's publishing by path where the truth follows a route ("path"), then the nine
// DIS models (deadreckon.DISStatic … DISFVB).
func AlgoNames() []string {
	return []string{"static", "linear", "quadratic", "pvb", "bezier", "twopath", "pvb-ts", "delayed", gameAlgo, pathAlgo,
		"dis-static", "dis-fpw", "dis-rpw", "dis-rvw", "dis-fvw", "dis-fpb", "dis-rpb", "dis-rvb", "dis-fvb"}
}

// ParseAlgo returns the algorithm called name: a deadreckon algorithm name,
// "pvb-ts" for projective velocity blending with latency compensation, or "game" for
// the game's own dead reckoning (publishing, link and remote, see Algo.Game).
func ParseAlgo(name string) (Algo, error) {
	if name == gameAlgo {
		r := game.DeadReckoning().Reckon
		return Algo{Name: name, Algorithm: r.Algorithm, CompensateLatency: r.CompensateLatency, Game: true}, nil
	}
	if name == "pvb-ts" {
		return Algo{Name: name, Algorithm: deadreckon.ProjectiveVelocityBlend, CompensateLatency: true}, nil
	}
	a, err := deadreckon.ParseAlgorithm(name)
	if err != nil {
		return Algo{}, fmt.Errorf("unknown algorithm %q (have %s)", name, strings.Join(AlgoNames(), ", "))
	}
	return Algo{Name: name, Algorithm: a}, nil
}

// ParseAlgos parses a comma-separated list of algorithm names; "all" stands for every
// one. Duplicates are dropped.
func ParseAlgos(list string) ([]Algo, error) {
	var out []Algo
	seen := map[string]bool{}
	for _, name := range strings.Split(list, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			continue
		}
		names := []string{name}
		if name == "all" {
			names = AlgoNames()
		}
		for _, n := range names {
			if seen[n] {
				continue
			}
			a, err := ParseAlgo(n)
			if err != nil {
				return nil, err
			}
			seen[n] = true
			out = append(out, a)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no algorithm in %q", list)
	}
	return out, nil
}

// describeGame says in words what the game's dead reckoning does.
func describeGame(dr deadreckon.PublisherConfig) string {
	r := dr.Reckon
	comp := ""
	if r.CompensateLatency {
		comp = " latency-compensated"
	}
	budget := ""
	if dr.Budget > 0 {
		budget = fmt.Sprintf(", budget %g/s", dr.Budget)
	}
	return fmt.Sprintf("publish on error over %g m or %g° (at most every %s, heartbeat %g s%s); remote%s %v, ΔT %s, ground clamp %v, stale after %g s",
		dr.PositionThreshold, math.Round(dr.OrientationThreshold*180/math.Pi*100)/100, ms(dr.MinInterval), dr.Heartbeat, budget,
		comp, r.Algorithm, ms(r.UpdateInterval), r.Clamp.Mode, r.StaleAfter())
}
