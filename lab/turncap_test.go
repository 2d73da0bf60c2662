package lab

import (
	"math"
	"testing"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/impair"
)

// turnCap is the game's dead reckoning with every turn's lead capped (deadreckon's
// MaxTurnLead 1°, TurnBlendTime 0.25 s), where the game caps only turns in place: it
// keeps the shown heading within the turn goals at a turn's end, and holds every
// turn's heading behind its truth meanwhile (docs/lab.md, "A cap on a turn's lead").
func turnCap() deadreckon.PublisherConfig {
	c := game.DeadReckoning()
	c.Reckon.MaxTurnLead = 1 * math.Pi / 180
	c.Reckon.MaxTurnLeadSpeed = deadreckon.Off // every turn, moving or in place
	c.Reckon.TurnBlendTime = 0.25
	return c
}

// TestTurnCapMeetsTheTurnGoals holds the capped configuration to the turn goals (at
// most 1.5° past a turn's rest at 150 ± 30 ms with 10% loss, 3° at 300 ± 60 ms with
// 20%) on the scenarios whose turns end, three seeds each, and logs what it costs
// beside the shipped configuration: the mean heading error and the bytes.
func TestTurnCapMeetsTheTurnGoals(t *testing.T) {
	if testing.Short() {
		t.Skip("five scenarios over two links, twice")
	}
	a, _ := ParseAlgo("game")
	for _, l := range []struct {
		link impair.Link
		goal float64
	}{
		{impair.Link{Latency: units.Duration(0.15), Jitter: units.Duration(0.03), Loss: 0.1}, 1.5},
		{impair.Link{Latency: units.Duration(0.3), Jitter: units.Duration(0.06), Loss: 0.2}, 3},
	} {
		for _, sc := range []string{"turns", "pivot", "stopgo", "tank", "wander1"} {
			p, err := BuildScenario(sc, DefaultFPS, 30)
			if err != nil {
				t.Fatal(err)
			}
			capped, err := simulateRuns(Setup{Path: p, Algo: a, Network: l.link, Seed: 1, DeadReckoning: turnCap()}, 3)
			if err != nil {
				t.Fatal(err)
			}
			shipped, err := simulateRuns(Setup{Path: p, Algo: a, Network: l.link, Seed: 1}, 3)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s over %v: past a turn's rest %.2f° capped, %.2f° shipped; mean heading error %.2f° and %.2f°; %.0f and %.0f B/s",
				sc, l.link, capped.MaxHeadingOvershootDeg, shipped.MaxHeadingOvershootDeg,
				capped.MeanHeadingDeg, shipped.MeanHeadingDeg, capped.BytesPerS, shipped.BytesPerS)
			if capped.MaxHeadingOvershootDeg > l.goal {
				t.Errorf("%s over %v: capped, the shown heading went %.2f° past a turn's rest, want ≤ %v°",
					sc, l.link, capped.MaxHeadingOvershootDeg, l.goal)
			}
		}
	}
}
