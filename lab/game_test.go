package lab

import (
	"errors"
	"math"
	"testing"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/impair"
)

// TestGameAlgoIsTheGame: drlab's "game" algorithm runs exactly the dead reckoning the
// game ships (cmd/tanks and the match test the same value against
// game.DeadReckoning()).
func TestGameAlgoIsTheGame(t *testing.T) {
	a, err := ParseAlgo("game")
	if err != nil {
		t.Fatal(err)
	}
	dr := game.DeadReckoning()
	if !a.Game || a.Algorithm != dr.Reckon.Algorithm || a.CompensateLatency != dr.Reckon.CompensateLatency {
		t.Fatalf("game algorithm %+v, want the game's %v with compensation %v", a, dr.Reckon.Algorithm, dr.Reckon.CompensateLatency)
	}
	// A run with the default Setup uses that value: the same as passing it.
	p, _ := BuildScenario("zigzag", DefaultFPS, 10)
	l := impair.Link{Latency: units.Duration(0.15), Jitter: units.Duration(0.03), Loss: 0.1}
	def, err := Simulate(Setup{Path: p, Algo: a, Network: l, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	given, _ := Simulate(Setup{Path: p, Algo: a, Network: l, Seed: 3, DeadReckoning: dr})
	def.Record, given.Record = nil, nil
	if def != given {
		t.Errorf("default run %+v\ndiffers from the game's value %+v", def, given)
	}
	if def.PosThresholdM != dr.PositionThreshold || def.MinIntervalS != dr.MinInterval || def.Publish != "threshold" {
		t.Errorf("game run reports threshold %v m, interval %v s (%s), want the game's %v m, %v s",
			def.PosThresholdM, def.MinIntervalS, def.Publish, dr.PositionThreshold, dr.MinInterval)
	}
}

// gameRuns returns the game algorithm's figures on scenario sc over a link, averaged
// over three seeds (maxima over them), with short runs.
func gameRuns(t *testing.T, sc string, l impair.Link) Result {
	t.Helper()
	p, err := BuildScenario(sc, DefaultFPS, 30)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ParseAlgo("game")
	r, err := simulateRuns(Setup{Path: p, Algo: a, Network: l, Seed: 1}, 3)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestGameTargets holds the game's dead reckoning to the targets, measured
// with drlab -algos game over three seeds, in short runs.
func TestGameTargets(t *testing.T) {
	bad := impair.Link{Latency: units.Duration(0.15), Jitter: units.Duration(0.03), Loss: 0.1}
	for _, sc := range ScenarioNames() {
		if sc == "respawn" {
			continue
		}
		r := gameRuns(t, sc, bad)
		if r.P95ErrM > 0.6 || r.MaxJumpM > 0.3 || r.UpdatesPerS > 4 {
			t.Errorf("%s at 150 ± 30 ms, 10%% loss: p95 %.3f m (≤ 0.6), jump %.3f m (≤ 0.3), %.2f updates/s (≤ 4)",
				sc, r.P95ErrM, r.MaxJumpM, r.UpdatesPerS)
		}
	}
	// Stop and go at 50 ms: no overshoot and snap back at the stops (12 m before).
	if r := gameRuns(t, "stopgo", impair.Link{Latency: units.Duration(0.05)}); r.MaxJumpM > 0.3 {
		t.Errorf("stopgo at 50 ms: largest jump %.3f m, want ≤ 0.3 m", r.MaxJumpM)
	}
	// 30% loss in bursts of 4: gaps close as catch-ups, never as pops.
	burst := impair.Link{Latency: units.Duration(0.15), Jitter: units.Duration(0.03), Loss: 0.3, LossBurst: 4}
	for _, sc := range []string{"zigzag", "tank", "pivot", "collision", "ledge"} {
		if r := gameRuns(t, sc, burst); r.MaxJumpM > 2 {
			t.Errorf("%s, 30%% loss in bursts of 4: largest jump %.3f m, want ≤ 2 m", sc, r.MaxJumpM)
		}
	}
	// The ledge, clamped as the game clamps (always): never below the ground, and
	// never dropping ahead of the truth by more than the fall's first frames.
	for _, l := range []impair.Link{{}, bad} {
		r := gameRuns(t, "ledge", l)
		if *r.BelowGroundShare != 0 || *r.MaxDepthM > belowGroundTolerance {
			t.Errorf("ledge over %+v: %.1f%% of frames below the ground, %.3f m deep", l, 100**r.BelowGroundShare, *r.MaxDepthM)
		}
		if *r.MaxUnderTruthM > 0.5 {
			t.Errorf("ledge over %+v: shown %.3f m below the truth", l, *r.MaxUnderTruthM)
		}
	}
}

// TestPopIgnoresLag: steady lag (pvb at 100 ms on the zigzag, plain blending) counts
// in the jump but not in the pop, which only a snap or a velocity step makes (defect 8).
func TestPopIgnoresLag(t *testing.T) {
	l := impair.Link{Latency: units.Duration(0.1)}
	lagged := run(t, "zigzag", "pvb", 3, l, 0)
	snapping := run(t, "zigzag", "linear", 3, l, 0)
	if lagged.MaxPopM > 0.5*lagged.MaxJumpM || snapping.MaxPopM < 0.5*snapping.MaxJumpM {
		t.Errorf("pvb: jump %.3f m, pop %.3f m; linear (snaps): jump %.3f m, pop %.3f m", lagged.MaxJumpM, lagged.MaxPopM, snapping.MaxJumpM, snapping.MaxPopM)
	}
	if math.IsNaN(lagged.MaxDVMPS) || lagged.MaxDVMPS <= 0 || lagged.RMSJerk <= 0 {
		t.Errorf("pvb: dv %v m/s, jerk %v", lagged.MaxDVMPS, lagged.RMSJerk)
	}
}

// TestInvalidDeadReckoningIsReported checks that a Setup whose dead reckoning is out
// of range fails with the publisher's error instead of running.
func TestInvalidDeadReckoningIsReported(t *testing.T) {
	a, err := ParseAlgo("game")
	if err != nil {
		t.Fatal(err)
	}
	p, _ := BuildScenario("circle", DefaultFPS, 5)
	dr := game.DeadReckoning()
	dr.HeartbeatJitter = 2
	if _, err := Simulate(Setup{Path: p, Algo: a, DeadReckoning: dr}); !errors.Is(err, deadreckon.ErrInvalidConfig) {
		t.Errorf("heartbeat jitter 2: error %v, want one wrapping deadreckon.ErrInvalidConfig", err)
	}
}
