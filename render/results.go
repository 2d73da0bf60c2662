package render

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
)

// results is the round's end: the winner over a table of every player's kills,
// deaths, hits and accuracy, the best player, the player's own line highlighted, and
// the countdown to the next round. It shows by itself while the round is over.
type results struct {
	fonts       *fontBook // the HUD's
	title, foot *textLabel
	table       *table
	mine        *gui.Panel // the highlight behind the player's own line
	lastTitle   string
	lastFoot    string
}

// resultsHighlight is the colour behind the player's own line.
var resultsHighlight = math32.Color4{R: 0.85, G: 0.65, B: 0.1, A: 0.55}

func newResults(parent *core.Node, fonts *fontBook) *results {
	r := &results{table: newTable(parent, 6, fonts), fonts: fonts}
	r.mine = gui.NewPanel(10, 10)
	r.mine.SetColor4(&resultsHighlight)
	parent.Add(r.mine)
	// The highlight sits over the table's backdrop, under its texts: draw the texts
	// again above it.
	for _, l := range r.table.cols {
		parent.Remove(l)
		parent.Add(l)
	}
	mk := func(size float64, col math32.Color) *textLabel {
		l := r.fonts.label("")
		r.fonts.setFontSize(l, size)
		setColor(l, col)
		setBgColor4(l, backdrop(1))
		l.SetPaddings(6, 14, 6, 14)
		opaque(l)
		parent.Add(l)
		return l
	}
	r.title = mk(resultsTitleSize, math32.Color{R: 1, G: 0.9, B: 0.4})
	r.foot = mk(resultsFootSize, math32.Color{R: 1, G: 1, B: 1})
	r.setVisible(false)
	return r
}

// The results' title and foot font sizes at HUD scale 1, points.
const resultsTitleSize, resultsFootSize = 28, 16

// setScale sets the results' fonts and paddings for HUD scale sc.
func (r *results) setScale(sc float32) {
	f := float64(sc)
	r.fonts.setFontSize(r.title, resultsTitleSize*f)
	r.fonts.setFontSize(r.foot, resultsFootSize*f)
	for _, l := range []*textLabel{r.title, r.foot} {
		l.SetPaddings(6*sc, 14*sc, 6*sc, 14*sc)
	}
	r.table.setFontSize(tableFontSize * f)
	r.lastTitle, r.lastFoot = "", ""
}

func (r *results) setVisible(v bool) {
	r.title.SetVisible(v)
	r.foot.SetVisible(v)
	r.table.setVisible(v)
	r.mine.SetVisible(v)
}

// winner says who won the round: the team with the most kills, or the best player
// when nobody is on a team; a tie is a draw.
func winner(scores []combat.Score) string {
	teams := map[int]int{}
	for _, s := range scores {
		if s.Team != 0 {
			teams[s.Team] += s.Kills
		}
	}
	if len(teams) == 0 {
		if len(scores) == 0 {
			return "ROUND OVER"
		}
		if len(scores) > 1 && scores[1].Kills == scores[0].Kills {
			return "DRAW"
		}
		return strings.ToUpper(scores[0].Name) + " WINS"
	}
	best, top, tie := 0, -1, false
	for _, team := range slices.Sorted(maps.Keys(teams)) {
		switch k := teams[team]; {
		case k > top:
			best, top, tie = team, k, false
		case k == top:
			tie = true
		}
	}
	if tie {
		return "DRAW"
	}
	return fmt.Sprintf("TEAM %d WINS", best)
}

// accuracy is hits per shot as a percentage, or "-" before any shot.
func accuracy(s combat.Score) string {
	if s.Shots == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f%%", 100*float64(s.Hits)/float64(s.Shots))
}

// resultsRows lays the results table out: a header, a gap, then one line per player
// best first; mine is the index among the rows of the line of the player called self
// (−1 when absent).
func resultsRows(scores []combat.Score, self string) (rows [][]string, mine int) {
	rows = [][]string{{"player", "team", "kills", "deaths", "hits", "accuracy"}, {"", "", "", "", "", ""}}
	mine = -1
	for _, s := range scores {
		name, team := s.Name, teamLabel(s.Team)
		if s.Name == self && mine < 0 {
			name += " (you)"
			mine = len(rows)
		}
		rows = append(rows, []string{name, team, fmt.Sprint(s.Kills), fmt.Sprint(s.Deaths), fmt.Sprint(s.Hits), accuracy(s)})
	}
	return clipRows(rows, mine)
}

// maxTableLines is the most player lines a table of players shows: a match of up to
// 512 tanks would run off the screen.
const maxTableLines = 24

// clipRows cuts rows (a header, a gap, then one line per player) to maxTableLines
// player lines, keeps line mine (−1: none) below them when it falls past them, and
// ends with a line counting the players left out. It returns the rows and mine's index
// among them.
func clipRows(rows [][]string, mine int) ([][]string, int) {
	const head = 2
	if len(rows)-head <= maxTableLines {
		return rows, mine
	}
	out := rows[: head+maxTableLines : head+maxTableLines]
	if mine >= len(out) {
		out = append(out, rows[mine])
		mine = len(out) - 1
	}
	return append(out, []string{fmt.Sprintf("and %d more", len(rows)-len(out))}), mine
}

// update shows the results over a w×h picture while snap's round is over.
func (r *results) update(snap *game.Snapshot, w, h int) {
	cv := &snap.Combat
	if !cv.Over {
		r.setVisible(false)
		return
	}
	self := ""
	if snap.Self >= 0 && snap.Self < len(snap.Tanks) {
		self = snap.Tanks[snap.Self].Name
	}
	rows, mine := resultsRows(cv.Scores, self)
	r.table.set(rows)
	r.table.layout(w, h)
	if t := winner(cv.Scores); t != r.lastTitle {
		r.lastTitle = t
		setText(r.title, t)
	}
	foot := fmt.Sprintf("Next round in %.0f s", math.Ceil(cv.NextIn))
	if len(cv.Scores) > 0 {
		b := cv.Scores[0]
		foot = fmt.Sprintf("Best player: %s — %d kills, %d deaths, accuracy %s\n%s", b.Name, b.Kills, b.Deaths, accuracy(b), foot)
	}
	if foot != r.lastFoot {
		r.lastFoot = foot
		setText(r.foot, foot)
	}
	bg := r.table.bg.Position()
	bw, bh := r.table.bg.Size()
	tw, th := r.title.Size()
	r.title.SetPosition(float32(math.Round(float64(float32(w)-tw)/2)), bg.Y-th-6)
	fw, _ := r.foot.Size()
	r.foot.SetPosition(float32(math.Round(float64(float32(w)-fw)/2)), bg.Y+bh+6)
	r.setVisible(true)
	r.mine.SetVisible(mine >= 0)
	if mine >= 0 {
		_, lh := r.table.cols[0].Size()
		rowH := lh / float32(len(rows))
		y := r.table.cols[0].Position().Y
		r.mine.SetPosition(bg.X+4, y+float32(mine)*rowH)
		r.mine.SetSize(bw-8, rowH)
	}
}
