package lab

import (
	"fmt"
	"strings"

	"github.com/treadline/treadline/deadreckon"
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
}

// AlgoNames returns every algorithm name ParseAlgos accepts, in the order "all" uses:
// the snapping ones, the blending ones, then the clock-synchronised ones.
func AlgoNames() []string {
	return []string{"static", "linear", "quadratic", "pvb", "bezier", "twopath", "pvb-ts", "delayed"}
}

// ParseAlgo returns the algorithm called name: a deadreckon algorithm name, or
// "pvb-ts" for projective velocity blending with latency compensation.
func ParseAlgo(name string) (Algo, error) {
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
