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
	root, labels                     *core.Node
	stats, help, scores, menu, flash *gui.Label
	hint                             *gui.Label
	w, h                             int
	sinceText, flashLeft             float64
	frames                           int
	frameTime                        float64
	fps                              float64
	showHelp, showScores, showMenu   bool
	textDue                          bool
	helpText                         string
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
	u.help = mk(15, white, 0.8)
	u.scores = mk(15, white, 0.8)
	u.menu = mk(20, white, 0.85)
	u.menu.SetText("Paused\n\nEnter   leave the match\nEsc     back to the battle")
	u.flash.SetVisible(false)
	u.help.SetVisible(false)
	u.scores.SetVisible(false)
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
	center(u.help, -1)
	center(u.scores, -1)
	center(u.menu, -1)
	center(u.flash, float32(u.h)*0.78)
}

// setHelp sets the help panel's text.
func (u *hud) setHelp(text string) {
	if text != u.helpText {
		u.helpText = text
		u.help.SetText(text)
		u.layout()
	}
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
	u.help.SetVisible(u.showHelp)
	u.menu.SetVisible(u.showMenu)
	u.scores.SetVisible(u.showScores && !u.showMenu)
	if !u.textDue {
		return
	}
	if u.frameTime > 0 {
		u.fps = float64(u.frames) / u.frameTime
	}
	u.frames, u.frameTime, u.sinceText = 0, 0, 0
	u.stats.SetText(statsText(snap, u.fps, s.overlays))
	if u.showScores {
		u.scores.SetText(scoresText(snap))
		u.layout()
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

// scoresText lists the players by team.
func scoresText(snap *game.Snapshot) string {
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
	var b strings.Builder
	fmt.Fprintf(&b, "Players (%d)\n\n", len(snap.Tanks))
	fmt.Fprintf(&b, "%-16s %-6s %-7s %s\n", "name", "team", "where", "last update")
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
		fmt.Fprintf(&b, "%-16s %-6d %-7s %s\n", name, t.Team, where, age)
	}
	return strings.TrimRight(b.String(), "\n")
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
