package lab

import (
	"errors"
	"math"
	"strings"
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

// gameRun returns the game algorithm's figures on scenario sc over a link with one
// seed, in a short run.
func gameRun(t *testing.T, sc string, l impair.Link, seed uint64) Result {
	t.Helper()
	return gameRunFor(t, sc, l, seed, 30)
}

// gameRunFor returns the game algorithm's figures on scenario sc over a link with
// one seed, in a run of the given length, s.
func gameRunFor(t *testing.T, sc string, l impair.Link, seed uint64, duration float64) Result {
	t.Helper()
	p, err := BuildScenario(sc, DefaultFPS, duration)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ParseAlgo("game")
	r, err := Simulate(Setup{Path: p, Algo: a, Network: l, Seed: seed})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestGameTargets holds the game's dead reckoning to the issues' targets, measured
// with drlab -algos game over three seeds, in short runs: the distance to the truth,
// the smoothness and the update rate at 150 ± 30 ms with 10% loss; and what a player
// watching sees, there and at 300 ± 60 ms with 20% loss: no overshoot at a stop, no
// late start, no false stale mark; and the wander drives' stops over their whole run.
func TestGameTargets(t *testing.T) {
	if testing.Short() {
		t.Skip("every scenario over two links")
	}
	bad := impair.Link{Latency: units.Duration(0.15), Jitter: units.Duration(0.03), Loss: 0.1}
	worse := impair.Link{Latency: units.Duration(0.3), Jitter: units.Duration(0.06), Loss: 0.2}
	for _, sc := range ScenarioNames() {
		if sc == "respawn" {
			continue
		}
		r := gameRuns(t, sc, bad)
		// The wander drives are physics runs the tuning never saw: their truth
		// carries a collision's one-frame lurch, which the jump counts as the
		// display's; they are held to the rate and the distance. The rate is a
		// tank's uplink, at most 6 updates/s (the host rations each observer's
		// downlink): game.PublishBudget.
		if r.P95ErrM > 0.6 || (r.MaxJumpM > 0.3 && !strings.HasPrefix(sc, "wander")) || r.UpdatesPerS > maxUpdatesPerS {
			t.Errorf("%s at 150 ± 30 ms, 10%% loss: p95 %.3f m (≤ 0.6), jump %.3f m (≤ 0.3), %.2f updates/s (≤ %v)",
				sc, r.P95ErrM, r.MaxJumpM, r.UpdatesPerS, maxUpdatesPerS)
		}
		if r.StalePerMin != 0 || r.staleHeard != 0 {
			t.Errorf("%s at 10%% loss: marked stale %.2f times a minute (%d frames while heard from), want never",
				sc, r.StalePerMin, r.staleHeard)
		}
		lat := bad.Latency.Seconds()
		if over := 0.25; r.MaxOvershootM > over || r.StartDelayP95S > lat+0.15 {
			t.Errorf("%s over %v: overshoot %.3f m (≤ %.2f), start delay p95 %.3f s (≤ %.2f)",
				sc, bad, r.MaxOvershootM, over, r.StartDelayP95S, lat+0.15)
		}
		// A turn in place is shown at most 1° past the last heading heard: the
		// shown heading goes past a turn's rest by at most the goal (1.5° at
		// 150 ms) where turns end at rest or on a scripted path. Before (TurnEnd
		// alone): 24° where a scripted turn in place stops dead (pivot), 18° in
		// the collision, 8.7° on stopgo.
		if g := turnGoal(sc, bad); r.MaxHeadingOvershootDeg > g {
			t.Errorf("%s over %v: the shown heading went %.2f° past a turn's rest, want ≤ %v°", sc, bad, r.MaxHeadingOvershootDeg, g)
		}
		worseTargets(t, sc, worse)
	}
	wholeWanderTargets(t, bad, worse)
	// Stop and go at 50 ms: no overshoot and snap back at the stops (12 m before).
	if r := gameRuns(t, "stopgo", impair.Link{Latency: units.Duration(0.05)}); r.MaxJumpM > 0.3 {
		t.Errorf("stopgo at 50 ms: largest jump %.3f m, want ≤ 0.3 m", r.MaxJumpM)
	}
	// 30% loss in bursts of 4: gaps close as catch-ups, never as pops; a tank is
	// marked stale only after a true silence, as long as the stale rule's, never
	// while updates still arrive.
	burst := impair.Link{Latency: units.Duration(0.15), Jitter: units.Duration(0.03), Loss: 0.3, LossBurst: 4}
	for _, sc := range []string{"zigzag", "tank", "pivot", "collision", "ledge", "parked", "stops"} {
		r := gameRuns(t, sc, burst)
		if r.MaxJumpM > 2 {
			t.Errorf("%s, 30%% loss in bursts of 4: largest jump %.3f m, want ≤ 2 m", sc, r.MaxJumpM)
		}
		if r.staleHeard != 0 {
			t.Errorf("%s, 30%% loss in bursts of 4: shown stale for %d frames while heard from", sc, r.staleHeard)
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

// turnGoal is how far past a turn's rest the game may show scenario sc's heading
// over link l, degrees: 1.5° at 150 ± 30 ms with 10% loss, 3° at 300 ± 60 ms with
// 20% (the goals), where a tank turns in place or on a scripted path. A
// moving tank's turn is not held back (no crabbing on a steady circle), so where
// turns slow as a tank's do or end at speed (ledge, tank, patrol, the wander
// drives) the goal is not met: the bound there, 5° and 15°, only keeps them
// from going back to a turn extrapolated until the next heartbeat (docs/lab.md,
// Turns). The patrol's turns ease off as its tank slows for a waypoint, and their
// ends are published (TurnEndShare): 2° at 150 ms (1.55° on these seeds, 4.6°
// before) and the goal at 300 ms (2.45°, 14° before).
func turnGoal(sc string, l impair.Link) float64 {
	slow := l.Latency.Seconds() > 0.2
	switch sc {
	case "patrol":
		if slow {
			return 3
		}
		return 2
	case "ledge", "tank", "wander1", "wander2", "wander3":
		if slow {
			return 15
		}
		return 5
	}
	if slow {
		return 3
	}
	return 1.5
}

// worseTargets holds scenario sc over link l (300 ± 60 ms, 20% loss) to a player's
// targets on each of three seeds: the overshoot, the start delay and the heading
// past a turn's rest.
func worseTargets(t *testing.T, sc string, l impair.Link) {
	t.Helper()
	lat := l.Latency.Seconds()
	for seed := uint64(1); seed <= 3; seed++ {
		r := gameRun(t, sc, l, seed)
		if r.MaxOvershootM > 0.6 || r.StartDelayP95S > lat+0.15 {
			t.Errorf("%s over %v, seed %d: overshoot %.3f m (≤ 0.6), start delay p95 %.3f s (≤ %.2f)",
				sc, l, seed, r.MaxOvershootM, r.StartDelayP95S, lat+0.15)
		}
		if g := turnGoal(sc, l); r.MaxHeadingOvershootDeg > g {
			t.Errorf("%s over %v, seed %d: the shown heading went %.2f° past a turn's rest, want ≤ %v°", sc, l, seed, r.MaxHeadingOvershootDeg, g)
		}
	}
}

// TestStaleRuleIsTested: the stale checks above can fail. With a stale rule of a tenth
// of a heartbeat, a tank is marked stale many times a minute; where reordering makes
// the remote refuse late updates, some of those marks come while updates still
// arrive, and are counted as such.
func TestStaleRuleIsTested(t *testing.T) {
	p, err := BuildScenario("stops", DefaultFPS, 30)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ParseAlgo("game")
	dr := game.DeadReckoning()
	dr.Reckon.StaleHeartbeats = 0.1
	for _, tc := range []struct {
		link  impair.Link
		heard bool
	}{
		{impair.Link{Latency: units.Duration(0.15)}, false},
		{impair.Link{Latency: units.Duration(0.15), Reorder: 0.5, ReorderDelay: units.Duration(0.2)}, true},
	} {
		r, err := Simulate(Setup{Path: p, Algo: a, Network: tc.link, Seed: 1, DeadReckoning: dr})
		if err != nil {
			t.Fatal(err)
		}
		if r.StalePerMin < 30 || (r.staleHeard > 0) != tc.heard {
			t.Errorf("stale after a tenth of a heartbeat over %v: %.1f stale marks a minute, %d frames while heard from (want some: %v)",
				tc.link, r.StalePerMin, r.staleHeard, tc.heard)
		}
	}
}

// TestPopIgnoresLag: steady lag (pvb at 100 ms on the zigzag, plain blending) counts
// in the jump but not in the pop, which only a snap or a velocity step makes (defect 8).
func TestPopIgnoresLag(t *testing.T) {
	l := impair.Link{Latency: units.Duration(0.1)}
	zigzag := scenario(t, "zigzag")
	lagged := run(t, zigzag, "pvb", 3, l, 0)
	snapping := run(t, zigzag, "linear", 3, l, 0)
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

// maxUpdatesPerS is the most updates per second a tank may send on average: the
// uplink a tank spends on accuracy (about 210 B/s) while the host rations what each
// observer is sent.
const maxUpdatesPerS = 6

// TestBudgetCostsLittle: on the wander drives, paths no tuning has seen, the game's
// budget holds a tank to maxUpdatesPerS and costs the p95 error at most 20% over the
// same publisher without a budget, which spends what the driving asks for (up to
// 4.1 updates/s), over 20 seeds at 150 ± 30 ms with 10% loss. The driving asks for
// less than the budget of 6 a second, so it costs nothing there (p95 0.167, 0.403 and
// 0.252 m, with and without); the bound holds a tighter budget to the rule.
func TestBudgetCostsLittle(t *testing.T) {
	if testing.Short() {
		t.Skip("60 runs of 60 s")
	}
	l := impair.Link{Latency: units.Duration(0.15), Jitter: units.Duration(0.03), Loss: 0.1}
	a, _ := ParseAlgo("game")
	unbudgeted := game.DeadReckoning()
	unbudgeted.Budget = deadreckon.Off
	for _, sc := range []string{"wander1", "wander2", "wander3"} {
		p, err := BuildScenario(sc, DefaultFPS, DefaultDuration)
		if err != nil {
			t.Fatal(err)
		}
		with, err := simulateRuns(Setup{Path: p, Algo: a, Network: l, Seed: 1}, 20)
		if err != nil {
			t.Fatal(err)
		}
		without, err := simulateRuns(Setup{Path: p, Algo: a, Network: l, Seed: 1, DeadReckoning: unbudgeted}, 20)
		if err != nil {
			t.Fatal(err)
		}
		if with.UpdatesPerS > maxUpdatesPerS || with.P95ErrM > 1.2*without.P95ErrM {
			t.Errorf("%s: with the budget %.2f updates/s, p95 %.3f m; without %.2f updates/s, p95 %.3f m: want ≤ %v updates/s and p95 within 20%%",
				sc, with.UpdatesPerS, with.P95ErrM, without.UpdatesPerS, without.P95ErrM, maxUpdatesPerS)
		}
	}
}

// wholeWanderTargets holds the wander drives over their whole 60 s to the overshoot
// goals on every seed, over bad (150 ± 30 ms, 10% loss) and worse (300 ± 60 ms,
// 20%). wander2 coasts to rest through a turn (its acceleration leans 37° across its
// velocity), where integrating the turn's whole sideways acceleration until the
// braking ran out carried the shown tank 0.35 m past the stop at 150 ms (seed 2) and
// 0.90 m at 300 ms (seed 1). wander1 brakes from 2.4 m/s to rest in 0.45 s right
// after a burst of throttle: told of the brake 0.4 s late, the shown tank is 0.5 m
// past the stop before it hears of it, and the blend used to carry it 0.1 m further
// (1.2 m on seed 1, whose update ending the burst was lost).
func wholeWanderTargets(t *testing.T, bad, worse impair.Link) {
	t.Helper()
	for _, tc := range []struct {
		link   impair.Link
		over   float64
		drives []string
	}{{bad, 0.25, []string{"wander1", "wander2", "wander3"}}, {worse, 0.6, []string{"wander1", "wander2", "wander3"}}} {
		for _, sc := range tc.drives {
			for seed := uint64(1); seed <= 3; seed++ {
				if r := gameRunFor(t, sc, tc.link, seed, DefaultDuration); r.MaxOvershootM > tc.over {
					t.Errorf("%s over %v, seed %d, %v s: overshoot %.3f m, want ≤ %.2f", sc, tc.link, seed, DefaultDuration, r.MaxOvershootM, tc.over)
				}
			}
		}
	}
}
