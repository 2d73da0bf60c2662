package render

import (
	"strings"
	"testing"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
)

// TestScoreboardCountsObservers: observers have no line of their own on the
// scoreboard; the title counts them, and only when there are some.
func TestScoreboardCountsObservers(t *testing.T) {
	snap := game.Snapshot{Self: -1, Combat: game.CombatView{Scores: []combat.Score{{Name: "ann", Team: 1}}}}
	board := func() string {
		rows, _, _ := combatScoreRows(&snap, 0, 40)
		var b strings.Builder
		for _, r := range rows {
			b.WriteString(strings.Join(r, "|") + "\n")
		}
		return b.String()
	}
	if got := board(); strings.Contains(got, "observer") || !strings.Contains(got, "ann") {
		t.Errorf("no observers: board\n%s", got)
	}
	snap.Observers, snap.Observing = 2, true
	got := board()
	if !strings.Contains(got, "2 observers watching (you among them)") || !strings.Contains(got, "ann") {
		t.Errorf("two observers, the player one: board\n%s", got)
	}
	if strings.Count(got, "observer") != 1 {
		t.Errorf("observers counted more than once, or given lines: board\n%s", got)
	}
}
