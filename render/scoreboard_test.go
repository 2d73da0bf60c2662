package render

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
)

// bigBoard is a board of n lines best first, teams 1 and 2 in turn, with every
// kind of link, and the tanks behind it (every third one a wreck).
func bigBoard(n int) ([]combat.Score, []game.TankView) {
	var scores []combat.Score
	var tanks []game.TankView
	for i := range n {
		s := combat.Score{Owner: uint32(i), Name: fmt.Sprintf("p%03d", i), Team: 1 + i%2, Kills: n - i, Deaths: i % 7}
		switch i % 3 {
		case 0:
			s.Link = combat.LinkBot
		case 1:
			s.Link, s.RTT = combat.LinkMeasured, time.Duration(40+i)*time.Millisecond
		}
		scores = append(scores, s)
		tanks = append(tanks, game.TankView{Name: s.Name, Team: s.Team, Wreck: i%3 == 2})
	}
	return scores, tanks
}

// block returns the cells of team block j (0 left, 1 right) of row r.
func block(rows [][]string, r, j int) []string {
	c := j * (boardCols + 1)
	return rows[r][c : c+boardCols]
}

// TestScoreboardPages: a board of 512 is grouped by team side by side, the player's
// team on the left with the player's line pinned first on every page, the top lines
// on the first page, and every line on exactly one page.
func TestScoreboardPages(t *testing.T) {
	scores, tanks := bigBoard(512)
	self := "p301" // team 2 (Yellow), rank 302
	const fit = 30
	seen := map[string]int{}
	_, _, pages := scoreboardRows(boardInput{Scores: scores, Self: self, Tanks: tanks, Fit: fit})
	// 256 a team; 30 lines: title, gap, header, 27 lines (26 beside the pinned one).
	if want := (255 + 25) / 26; pages != want {
		t.Fatalf("%d pages, want %d", pages, want)
	}
	for p := range pages {
		rows, page, n := scoreboardRows(boardInput{Scores: scores, Self: self, Tanks: tanks, Fit: fit, Page: p})
		if page != p || n != pages {
			t.Fatalf("page %d: shown %d of %d", p, page, n)
		}
		if len(rows) > fit {
			t.Errorf("page %d: %d rows, more than the %d that fit", p, len(rows), fit)
		}
		if h := block(rows, 2, 0); !strings.HasPrefix(h[1], "Yellow: ") || h[4] != "ping" {
			t.Errorf("page %d: left header %q, want the player's team (Yellow) with a ping column", p, h)
		}
		if h := block(rows, 2, 1); !strings.HasPrefix(h[1], "Blue: ") {
			t.Errorf("page %d: right header %q, want Blue", p, h)
		}
		if mine := block(rows, 3, 0); mine[0] != "302" || !strings.Contains(mine[1], "(you)") {
			t.Errorf("page %d: first line %q, want the player's own (rank 302)", p, mine)
		}
		for r := 3; r < len(rows); r++ {
			for j := range 2 {
				if b := block(rows, r, j); b[1] != "" && !strings.Contains(b[1], "(you)") {
					seen[b[1]]++
				}
			}
		}
		if p == 0 {
			if got := block(rows, 3, 1); got[0] != "1" || got[1] != "p000" || got[4] != "bot" {
				t.Errorf("first page's top Blue line %q, want rank 1, p000, a bot", got)
			}
			if got := block(rows, 4, 0); got[0] != "2" || got[4] != "41 ms" {
				t.Errorf("first page's top Yellow line after the player's %q, want rank 2 at 41 ms", got)
			}
			if !strings.Contains(rows[0][boardCols+2], "page 1 of") {
				t.Errorf("title row %q names no page", rows[0])
			}
		}
	}
	if len(seen) != 511 {
		t.Errorf("%d other lines shown over the pages, want 511", len(seen))
	}
	for name, n := range seen {
		if n != 1 {
			t.Errorf("%s shown on %d pages", name, n)
		}
	}
	// Past the last page: the last page.
	if _, page, _ := scoreboardRows(boardInput{Scores: scores, Self: self, Tanks: tanks, Fit: fit, Page: 99}); page != pages-1 {
		t.Errorf("page 99 shows page %d, want the last, %d", page, pages-1)
	}
	if _, page, _ := scoreboardRows(boardInput{Scores: scores, Self: self, Tanks: tanks, Fit: fit, Page: -3}); page != 0 {
		t.Errorf("page −3 shows page %d, want 0", page)
	}
}

// TestScoreboardHeaders: a team's header counts its kills and its tanks alive, the
// title the players and the observers, and the ping column names every link.
func TestScoreboardHeaders(t *testing.T) {
	scores := []combat.Score{
		{Name: "ann", Team: 1, Kills: 4, Link: combat.LinkMeasured, RTT: 87400 * time.Microsecond},
		{Name: "bob", Team: 2, Kills: 3, Link: combat.LinkHost},
		{Name: "Abrams", Team: 1, Kills: 1, Link: combat.LinkBot},
		{Name: "old", Team: 2},
	}
	tanks := []game.TankView{{Name: "ann", Team: 1}, {Name: "Abrams", Team: 1, Wreck: true}, {Name: "bob", Team: 2}, {Name: "old", Team: 2}}
	rows, _, pages := scoreboardRows(boardInput{Scores: scores, Self: "", Tanks: tanks, Fit: 40, Observers: 3})
	if pages != 1 {
		t.Errorf("%d pages, want 1", pages)
	}
	if got, want := rows[0][1], "Scoreboard: 4 players, 3 observers watching"; got != want {
		t.Errorf("title %q, want %q", got, want)
	}
	if got, want := block(rows, 2, 0)[1], "Blue: 5 kills, 1/2 alive"; got != want {
		t.Errorf("left header %q, want %q", got, want)
	}
	if got, want := block(rows, 2, 1)[1], "Yellow: 3 kills, 2/2 alive"; got != want {
		t.Errorf("right header %q, want %q", got, want)
	}
	var pings []string
	for r := 3; r < len(rows); r++ {
		for j := range 2 {
			if b := block(rows, r, j); b[1] != "" {
				pings = append(pings, b[1]+" "+b[4])
			}
		}
	}
	slices.Sort(pings)
	if want := []string{"Abrams bot", "ann 87 ms", "bob host", "old -"}; !slices.Equal(pings, want) {
		t.Errorf("pings %q, want %q", pings, want)
	}
}

// TestScoreboardBands: four teams stand two across in two bands, within the lines
// that fit, and a tiny window still shows a few lines of each.
func TestScoreboardBands(t *testing.T) {
	var scores []combat.Score
	for i := range 40 {
		scores = append(scores, combat.Score{Name: fmt.Sprintf("t%02d", i), Team: 1 + i%4, Kills: 40 - i})
	}
	rows, _, pages := scoreboardRows(boardInput{Scores: scores, Fit: 20})
	// 20 lines: title, gap, two bands of a header and 7 lines, a gap between them.
	if len(rows) != 19 || pages != 2 {
		t.Fatalf("%d rows, %d pages, want 19 and 2", len(rows), pages)
	}
	var heads []string
	for _, r := range []int{2, 11} {
		for j := range 2 {
			heads = append(heads, strings.SplitN(block(rows, r, j)[1], ":", 2)[0])
		}
	}
	if want := []string{"Blue", "Yellow", "Green", "Red"}; !slices.Equal(heads, want) {
		t.Errorf("blocks %q, want %q", heads, want)
	}
	if fit := boardFit(260, tableFontSize*0.5); fit < 2+1+boardMinLines {
		t.Errorf("boardFit(260 px) = %d lines", fit)
	}
	rows, _, _ = scoreboardRows(boardInput{Scores: scores, Fit: 3})
	if got := block(rows, 2+boardMinLines, 0)[1]; got == "" {
		t.Errorf("a tiny window shows fewer than %d lines of a team: %q", boardMinLines, rows)
	}
}

// TestBoardFit: the lines that fit grow with the window and shrink with the font.
func TestBoardFit(t *testing.T) {
	if a, b := boardFit(720, 15), boardFit(1440, 15); b <= a {
		t.Errorf("boardFit: %d lines at 720 px, %d at 1440 px", a, b)
	}
	if a, b := boardFit(720, 15), boardFit(720, 30); b >= a {
		t.Errorf("boardFit: %d lines at 15 px, %d at 30 px", a, b)
	}
}
