package render

import (
	"fmt"
	"strings"
	"testing"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
)

func TestWinner(t *testing.T) {
	for _, c := range []struct {
		scores []combat.Score
		want   string
	}{
		{nil, "ROUND OVER"},
		{[]combat.Score{{Name: "ada", Team: 1, Kills: 3}, {Name: "bo", Team: 2, Kills: 2}, {Name: "cy", Team: 2, Kills: 2}}, "TEAM 2 WINS"},
		{[]combat.Score{{Name: "ada", Team: 1, Kills: 2}, {Name: "bo", Team: 2, Kills: 2}}, "DRAW"},
		{[]combat.Score{{Name: "ada", Kills: 4}, {Name: "bo", Kills: 1}}, "ADA WINS"},
		{[]combat.Score{{Name: "ada", Kills: 1}, {Name: "bo", Kills: 1}}, "DRAW"},
	} {
		if got := winner(c.scores); got != c.want {
			t.Errorf("winner(%+v) = %q, want %q", c.scores, got, c.want)
		}
	}
}

func TestResultsRows(t *testing.T) {
	rows, mine := resultsRows([]combat.Score{{Name: "ada", Team: 1, Kills: 3, Deaths: 1, Hits: 4, Shots: 8},
		{Name: "me", Team: 2, Kills: 1, Deaths: 2, Hits: 1, Shots: 0}}, "me")
	if mine != 3 || !strings.HasSuffix(rows[3][0], "(you)") {
		t.Errorf("own line at %d: %q, want row 3 marked (you)", mine, rows[mine][0])
	}
	if got := strings.Join(rows[2], " "); got != "ada Blue 3 1 4 50%" {
		t.Errorf("best line %q, want ada Blue 3 1 4 50%%", got)
	}
	if rows[3][5] != "-" {
		t.Errorf("accuracy without shots %q, want -", rows[3][5])
	}
}

// TestResultsScreenDrawn ends a round: the results show by themselves, with the
// winner, the table and the countdown, the player's own line highlighted, and no
// crosshair over them.
func TestResultsScreenDrawn(t *testing.T) {
	with, without, s, _ := feedbackScene(t, func(snap *game.Snapshot) {
		cv := &snap.Combat
		cv.Over, cv.NextIn = true, 7.2
		cv.Scores = []combat.Score{
			{Name: "tank-1", Team: 1, Kills: 5, Deaths: 1, Hits: 7, Shots: 10},
			{Name: "tank-0", Team: 0, Kills: 2, Deaths: 2, Hits: 3, Shots: 9},
			{Name: "tank-2", Team: 0, Kills: 0, Deaths: 4, Hits: 1, Shots: 6},
		}
	})
	savePNG(t, with, "results.png")
	r := s.combat.res
	if !r.title.Visible() || !strings.Contains(r.title.Text(), "WINS") {
		t.Errorf("results title %q (shown %v), want a winner", r.title.Text(), r.title.Visible())
	}
	if !strings.Contains(r.foot.Text(), "Next round in 8 s") || !strings.Contains(r.foot.Text(), "Best player: tank-1") {
		t.Errorf("results foot %q, want the best player and the countdown", r.foot.Text())
	}
	if s.combat.cross.Visible() {
		t.Error("the crosshair is drawn over the results")
	}
	// The highlight behind the player's line (tank-0, the second line).
	p := r.mine.Position()
	mw, mh := r.mine.Size()
	x, y := float64(p.X+mw-20), float64(p.Y+mh/2)
	gold := func(r, g, b float64) bool { return r > 0.4 && g > 0.3 && b < r-0.2 }
	if got, base := near(with, x, y, 3, gold), near(without, x, y, 3, gold); got < base+20 {
		t.Errorf("own line's highlight at (%.0f, %.0f): %d gold pixels, %d without it", x, y, got, base)
	}
	if diffPixels(with, without) < 5000 {
		t.Errorf("the results changed only %d pixels", diffPixels(with, without))
	}
}

// TestClipRows: a full match's table shows maxTableLines players, the player's own
// line below them when it ranks lower, and how many more there are.
func TestClipRows(t *testing.T) {
	var scores []combat.Score
	for i := range 512 {
		scores = append(scores, combat.Score{Name: fmt.Sprintf("tank-%d", i), Kills: 512 - i})
	}
	rows, mine := resultsRows(scores, "tank-300")
	if len(rows) != 2+maxTableLines+2 || mine != 2+maxTableLines || rows[mine][0] != "tank-300 (you)" {
		t.Fatalf("%d rows, own line %d %q; want %d rows, own line %d", len(rows), mine, rows[mine][0], 2+maxTableLines+2, 2+maxTableLines)
	}
	if last := rows[len(rows)-1][0]; last != fmt.Sprintf("and %d more", 512-maxTableLines-1) {
		t.Errorf("last row %q", last)
	}
	rows, mine = resultsRows(scores, "tank-3")
	if len(rows) != 2+maxTableLines+1 || mine != 5 {
		t.Errorf("a player among the best: %d rows, own line %d; want %d and 5", len(rows), mine, 2+maxTableLines+1)
	}
}
