package render

import (
	"strings"
	"testing"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
)

// TestScoreboardCountsObservers: observers have no line of their own on the
// scoreboard; their count comes after the players, and only when there are some.
func TestScoreboardCountsObservers(t *testing.T) {
	snap := game.Snapshot{Self: -1, Combat: game.CombatView{Scores: []combat.Score{{Name: "ann", Team: 1}}}}
	last := func() string { r := combatScoreRows(&snap); return strings.Join(r[len(r)-1], "|") }
	if got := last(); !strings.HasPrefix(got, "ann") {
		t.Errorf("no observers: last row %q, want ann's", got)
	}
	snap.Observers, snap.Observing = 2, true
	if got := last(); !strings.HasPrefix(got, "2 observers watching (you among them)") {
		t.Errorf("two observers, the player one: last row %q", got)
	}
}
