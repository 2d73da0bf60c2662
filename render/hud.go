package render

import (
	"fmt"
	"sort"
	"strings"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
)

// flashDuration is how long a status message stays on screen, seconds.
const flashDuration = 2.5

// hud is the 2D layer: connection figures, the help, score and menu panels, status
// messages, and the per-tank labels (which the scene places).
type hud struct {
	root, labels                   *core.Node
	stats, menu, flash             *gui.Label
	help, scores                   *table
	hint                           *gui.Label
	w, h                           int
	sinceText, flashLeft           float64
	frames                         int
	frameTime                      float64
	fps                            float64
	showHelp, showScores, showMenu bool
	textDue                        bool
}

func newHUD(w, h int) *hud {
	u := &hud{root: core.NewNode(), labels: core.NewNode(), w: w, h: h}
	mk := func(size float64, fg math32.Color, bgAlpha float32) *gui.Label {
		l := gui.NewLabel("")
		l.SetFontSize(size)
		l.SetColor(&fg)
		l.SetBgColor4(&math32.Color4{R: 0.05, G: 0.06, B: 0.08, A: bgAlpha})
		l.SetPaddings(4, 8, 4, 8)
		u.root.Add(l)
		return l
	}
	u.root.Add(u.labels)
	white := math32.Color{R: 1, G: 1, B: 1}
	u.stats = mk(14, white, 0.55)
	u.stats.SetPosition(8, 8)
	u.hint = mk(13, math32.Color{R: 0.9, G: 0.9, B: 0.9}, 0.45)
	u.hint.SetText("F1 help · Tab players · Esc menu")
	u.flash = mk(18, math32.Color{R: 1, G: 0.95, B: 0.5}, 0.6)
	u.help = newTable(u.root, 4, 14)
	u.help.set(helpRows())
	u.scores = newTable(u.root, 4, 15)
	u.menu = mk(20, white, 0.85)
	u.menu.SetText("Menu\n\nEnter: leave the match\nEsc: back to the battle")
	u.flash.SetVisible(false)
	u.help.setVisible(false)
	u.scores.setVisible(false)
	u.menu.SetVisible(false)
	u.layout()
	return u
}

func (u *hud) resize(w, h int) {
	u.w, u.h = w, h
	u.layout()
}

// layout places the panels for the current size.
func (u *hud) layout() {
	center := func(l *gui.Label, y float32) {
		lw, lh := l.Size()
		if y < 0 {
			y = (float32(u.h) - lh) / 2
		}
		l.SetPosition((float32(u.w)-lw)/2, y)
	}
	_, hh := u.hint.Size()
	u.hint.SetPosition(8, float32(u.h)-hh-8)
	u.help.layout(u.w, u.h)
	u.scores.layout(u.w, u.h)
	center(u.menu, -1)
	center(u.flash, float32(u.h)*0.78)
}

// setFlash shows a status message for flashDuration seconds.
func (u *hud) setFlash(msg string) {
	u.flash.SetText(msg)
	u.flash.SetVisible(true)
	u.flashLeft = flashDuration
	u.layout()
}

// tick advances the HUD's clocks by dt seconds and decides whether texts are
// rebuilt this frame (every hudInterval seconds, so text rendering stays rare).
func (u *hud) tick(dt float64) {
	u.frames++
	u.frameTime += dt
	u.sinceText += dt
	u.textDue = u.sinceText >= hudInterval || u.stats.Text() == ""
}

// update refreshes the figures when due and the panels' visibility.
func (u *hud) update(snap *game.Snapshot, s *Scene, dt float64) {
	if u.flashLeft > 0 {
		u.flashLeft -= dt
		if u.flashLeft <= 0 {
			u.flash.SetVisible(false)
		}
	}
	u.help.setVisible(u.showHelp)
	u.menu.SetVisible(u.showMenu)
	u.scores.setVisible(u.showScores && !u.showMenu)
	if !u.textDue {
		return
	}
	if u.frameTime > 0 {
		u.fps = float64(u.frames) / u.frameTime
	}
	u.frames, u.frameTime, u.sinceText = 0, 0, 0
	u.stats.SetText(statsText(snap, u.fps, s.overlays))
	if u.showScores {
		u.scores.set(scoresRows(snap))
		u.scores.layout(u.w, u.h)
	}
}

// statsText formats the HUD's figures.
func statsText(snap *game.Snapshot, fps float64, o Overlay) string {
	n := snap.Net
	var b strings.Builder
	fmt.Fprintf(&b, "%.0f fps   %d tanks   t %.1f s\n", fps, len(snap.Tanks), snap.Time)
	fmt.Fprintf(&b, "round trip %.0f ms   clock offset %+.1f ms\n", n.RTT*1000, n.ClockOffset*1000)
	fmt.Fprintf(&b, "in  %6.1f kB/s %5.1f upd/s\n", n.BytesIn/1000, n.UpdatesIn)
	fmt.Fprintf(&b, "out %6.1f kB/s %5.1f upd/s\n", n.BytesOut/1000, n.UpdatesOut)
	fmt.Fprintf(&b, "dropped %d   rejected %d\n", n.Dropped, n.Rejected)
	fmt.Fprintf(&b, "algorithm %s   clamp %s\n", snap.Algorithm, clampName(snap.Clamp))
	if n.Lag > 0 || n.Jitter > 0 || n.Loss > 0 {
		fmt.Fprintf(&b, "impairment %.0f ms ±%.0f ms, %.1f%% loss", n.Lag*1000, n.Jitter*1000, n.Loss*100)
	} else {
		b.WriteString("impairment none")
	}
	if o != 0 {
		fmt.Fprintf(&b, "\noverlays %s", o)
	}
	return b.String()
}

// scoresRows lists the players by team: a header and one row per tank.
func scoresRows(snap *game.Snapshot) [][]string {
	if snap.Combat.Enabled {
		return combatScoreRows(snap)
	}
	idx := make([]int, len(snap.Tanks))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ta, tb := &snap.Tanks[idx[a]], &snap.Tanks[idx[b]]
		if ta.Team != tb.Team {
			return ta.Team < tb.Team
		}
		return ta.Name < tb.Name
	})
	rows := [][]string{{fmt.Sprintf("Players (%d)", len(snap.Tanks)), "team", "tank", "last update"}, {"", "", "", ""}}
	for _, i := range idx {
		t := &snap.Tanks[i]
		where, age := "remote", fmt.Sprintf("%.2f s ago", t.UpdateAge)
		if t.Local {
			where, age = "local", "-"
		}
		if t.Stale {
			age += " (stale)"
		}
		name := t.Name
		if i == snap.Self {
			name += " (you)"
		}
		rows = append(rows, []string{name, fmt.Sprint(t.Team), where, age})
	}
	return rows
}

// table is a panel of text in aligned columns: one label per column over a dark
// background.
type table struct {
	bg    *gui.Panel
	cols  []*gui.Label
	texts []string
}

// tablePad and tableGap are the table's inner margin and column gap, pixels.
const tablePad, tableGap = 12, 18

func newTable(parent *core.Node, ncols int, size float64) *table {
	t := &table{bg: gui.NewPanel(10, 10), texts: make([]string, ncols)}
	t.bg.SetColor4(&math32.Color4{R: 0.05, G: 0.06, B: 0.08, A: 0.82})
	parent.Add(t.bg)
	for i := 0; i < ncols; i++ {
		l := gui.NewLabel("")
		l.SetFontSize(size)
		l.SetColor(&math32.Color{R: 1, G: 1, B: 1})
		parent.Add(l)
		t.cols = append(t.cols, l)
	}
	return t
}

// set fills the table, row by row; rows shorter than the table leave cells empty.
func (t *table) set(rows [][]string) {
	var b strings.Builder
	for c, l := range t.cols {
		b.Reset()
		for r, row := range rows {
			if r > 0 {
				b.WriteByte('\n')
			}
			if c < len(row) {
				b.WriteString(row[c])
			}
		}
		if text := b.String(); text != t.texts[c] {
			t.texts[c] = text
			l.SetText(text)
		}
	}
}

// layout centers the table in a w×h picture.
func (t *table) layout(w, h int) {
	var tw, th float32
	for i, l := range t.cols {
		lw, lh := l.Size()
		if i > 0 {
			tw += tableGap
		}
		tw += lw
		th = max(th, lh)
	}
	x := (float32(w) - tw) / 2
	y := (float32(h) - th) / 2
	t.bg.SetPosition(x-tablePad, y-tablePad)
	t.bg.SetSize(tw+2*tablePad, th+2*tablePad)
	for _, l := range t.cols {
		l.SetPosition(x, y)
		lw, _ := l.Size()
		x += lw + tableGap
	}
}

func (t *table) setVisible(v bool) {
	t.bg.SetVisible(v)
	for _, l := range t.cols {
		l.SetVisible(v)
	}
}

// clampName returns the short name of a ground clamp mode.
func clampName(m deadreckon.ClampMode) string {
	switch m {
	case deadreckon.ClampNone:
		return "none"
	case deadreckon.ClampUp:
		return "up"
	case deadreckon.ClampAlways:
		return "always"
	}
	return fmt.Sprintf("ClampMode(%d)", uint8(m))
}
