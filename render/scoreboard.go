package render

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
)

// The scoreboard (Tab) of a match with combat holds up to 512 lines, so it is paged:
// the teams side by side, two across (a third and fourth team under them), each
// block its team's lines best first under a line of the team's kills and tanks
// alive; the player's own team first and the player's own line pinned at the top of
// it on every page. A page holds as many lines as the window fits (boardFit); the
// client turns pages (Panels.ScoresPage).
const (
	// boardAcross is how many team blocks stand side by side.
	boardAcross = 2
	// boardCols is the columns of one block: rank, player, kills, deaths, ping.
	boardCols = 5
	// boardTableCols is the table's columns: the blocks with a spacer between them.
	boardTableCols = boardAcross*(boardCols+1) - 1
	// boardMinLines is the fewest lines a block shows on a page, however small the
	// window.
	boardMinLines = 3
	// boardLineHeight is a table line's height as a multiple of its font size.
	boardLineHeight = 1.25
)

// boardInput is what a scoreboard page is made of.
type boardInput struct {
	// Scores is the host's board, best first; Self the player's name ("" without a
	// tank).
	Scores []combat.Score
	Self   string
	// Tanks are the match's tanks, for the tanks alive per team and the DIS
	// entities (listed apart, unscored).
	Tanks []game.TankView
	// Over titles the board "Final scores".
	Over bool
	// Observers is how many watch the match without a tank; shown when positive.
	// Observing says the player is one of them.
	Observers int
	Observing bool
	// Page is the page asked for (clamped); Fit is how many table lines the page
	// may take, title included.
	Page, Fit int
}

// boardGroup is one team's lines on the board.
type boardGroup struct {
	team   int
	label  string
	lines  []int // indexes into Scores (or, for DIS, Tanks), best first
	dis    bool
	kills  int
	alive  int
	tanks  int
	wrecks int
	selfAt int // index in lines of the player's own line, or −1
}

// scoreboardRows lays out one page of the board: its table rows (boardTableCols
// cells each), the page shown (in.Page clamped) and the number of pages.
func scoreboardRows(in boardInput) (rows [][]string, page, pages int) {
	groups := boardGroups(in)
	bands := max(1, (len(groups)+boardAcross-1)/boardAcross)
	// Title, a gap, then per band a header line and its lines, a gap between bands.
	per := max(boardMinLines, (in.Fit-2-bands-(bands-1))/bands)
	pages = 1
	for _, g := range groups {
		room := per
		if g.selfAt >= 0 {
			room-- // the pinned line
		}
		n := len(g.lines)
		if g.selfAt >= 0 {
			n--
		}
		pages = max(pages, (n+max(1, room)-1)/max(1, room))
	}
	page = min(max(in.Page, 0), pages-1)
	players := 0
	for _, g := range groups {
		if !g.dis {
			players += len(g.lines)
		}
	}
	title := "Scoreboard"
	if in.Over {
		title = "Final scores"
	}
	title = fmt.Sprintf("%s: %d players", title, players)
	if in.Observers > 0 {
		title += ", " + observersLine(in.Observers, in.Observing)
	}
	head := make([]string, boardTableCols)
	head[1] = title
	if pages > 1 {
		head[boardCols+2] = fmt.Sprintf("page %d of %d (PgUp, PgDn, wheel)", page+1, pages)
	}
	rows = append(rows, head, make([]string, boardTableCols))
	for b := 0; b < bands; b++ {
		if b > 0 {
			rows = append(rows, make([]string, boardTableCols))
		}
		band := groups[b*boardAcross : min(len(groups), (b+1)*boardAcross)]
		top := len(rows)
		rows = append(rows, make([]string, boardTableCols))
		for k := 0; k < per; k++ {
			rows = append(rows, make([]string, boardTableCols))
		}
		for j, g := range band {
			col := j * (boardCols + 1)
			copy(rows[top][col:], boardHeader(g))
			for k, cells := range boardPage(in, g, page, per) {
				copy(rows[top+1+k][col:], cells)
			}
		}
	}
	// Drop the blank lines at the end of the last band (a short last page).
	for len(rows) > 2 && empty(rows[len(rows)-1]) {
		rows = rows[:len(rows)-1]
	}
	return rows, page, pages
}

// empty reports whether every cell of row is blank.
func empty(row []string) bool {
	for _, c := range row {
		if c != "" {
			return false
		}
	}
	return true
}

// boardHeader is a team block's header: its name, tanks alive and kills over the
// columns' names.
func boardHeader(g boardGroup) []string {
	if g.dis {
		return []string{"", fmt.Sprintf("%s: %d entities", g.label, len(g.lines)), "", "", ""}
	}
	name := fmt.Sprintf("%s: %d kills, %d/%d alive", g.label, g.kills, g.alive, g.tanks)
	return []string{"#", name, "kills", "deaths", "ping"}
}

// boardPage returns the cells of group g's lines on page page, per lines a page:
// the player's own line first on every page, then the page's share of the others.
func boardPage(in boardInput, g boardGroup, page, per int) [][]string {
	var out [][]string
	line := func(i int) []string {
		if g.dis {
			return []string{"", in.Tanks[i].Name, "-", "-", "DIS"}
		}
		s := in.Scores[i]
		name := s.Name
		if name == in.Self {
			name = "▶ " + name + " (you)"
		}
		return []string{fmt.Sprint(i + 1), name, fmt.Sprint(s.Kills), fmt.Sprint(s.Deaths), pingText(s)}
	}
	rest := g.lines
	if g.selfAt >= 0 {
		out = append(out, line(g.lines[g.selfAt]))
		rest = slices.Delete(slices.Clone(g.lines), g.selfAt, g.selfAt+1)
		per--
	}
	for k := page * per; k < min(len(rest), (page+1)*per); k++ {
		out = append(out, line(rest[k]))
	}
	return out
}

// pingText is what the ping column says of line s: the host's measure of the
// player's round trip, "host" for the host's own player, "bot", or "-" when the host
// said nothing.
func pingText(s combat.Score) string {
	switch s.Link {
	case combat.LinkMeasured:
		return fmt.Sprintf("%d ms", max(1, int(math.Round(float64(s.RTT)/float64(time.Millisecond)))))
	case combat.LinkHost:
		return "host"
	case combat.LinkBot:
		return "bot"
	}
	return "-"
}

// boardGroups splits the board into teams: the player's own team first, then the
// others by team number (team 0, no team, after them), then the DIS entities.
func boardGroups(in boardInput) []boardGroup {
	byTeam := map[int]*boardGroup{}
	selfTeam := math.MinInt
	for i, s := range in.Scores {
		g := byTeam[s.Team]
		if g == nil {
			g = &boardGroup{team: s.Team, label: teamLabel(s.Team), selfAt: -1}
			if s.Team == 0 {
				g.label = "No team"
			}
			byTeam[s.Team] = g
		}
		if s.Name == in.Self && in.Self != "" && selfTeam == math.MinInt {
			g.selfAt, selfTeam = len(g.lines), s.Team
		}
		g.lines = append(g.lines, i)
		g.kills += s.Kills
	}
	var dis *boardGroup
	for i := range in.Tanks {
		t := &in.Tanks[i]
		if t.DIS() {
			if dis == nil {
				dis = &boardGroup{team: game.TeamDIS, label: "DIS", dis: true, selfAt: -1}
			}
			dis.lines = append(dis.lines, i)
			continue
		}
		if g := byTeam[t.Team]; g != nil {
			g.tanks++
			if t.Wreck {
				g.wrecks++
			}
		}
	}
	// A client of a large match hears only of the tanks that matter to it: the
	// board counts a team's players, the tanks heard of its wrecks.
	for _, g := range byTeam {
		g.tanks = max(g.tanks, len(g.lines))
		g.alive = g.tanks - g.wrecks
	}
	out := make([]boardGroup, 0, len(byTeam)+1)
	for _, g := range byTeam {
		out = append(out, *g)
	}
	slices.SortFunc(out, func(a, b boardGroup) int {
		if (a.team == selfTeam) != (b.team == selfTeam) {
			if a.team == selfTeam {
				return -1
			}
			return 1
		}
		if (a.team == 0) != (b.team == 0) {
			if a.team == 0 {
				return 1
			}
			return -1
		}
		return cmp.Compare(a.team, b.team)
	})
	if dis != nil {
		out = append(out, *dis)
	}
	return out
}

// boardFit is how many table lines of font size font (pixels) fit a picture h
// pixels high, with room for the table's padding and a margin.
func boardFit(h int, font float64) int {
	usable := 0.9*float64(h) - 2*tablePad*font/tableFontSize
	return max(2+1+boardMinLines, int(usable/(font*boardLineHeight)))
}

// observersLine counts the observers for the scoreboard's title; you says the player
// is one of them.
func observersLine(n int, you bool) string {
	s := fmt.Sprintf("%d observers watching", n)
	if n == 1 {
		s = "1 observer watching"
	}
	if you {
		s += " (you among them)"
	}
	return s
}
