package render

import (
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
	"github.com/treadline/treadline/game"
)

// The feed is a few lines of the match's recent notices (game.Notice: chat, joins,
// leaves, timeouts, kills) in the bottom-left corner, newest at the bottom, each
// fading out feedLife seconds after it happened. Under it the chat box shows the line
// being typed while Panels.Chat is set.
const (
	// feedLines is how many notices the feed shows at most.
	feedLines = 6
	// feedLife is how long a notice stays, seconds; it fades over the last
	// feedFade of them.
	feedLife, feedFade = 12.0, 3.0
	// feedFontSize is the feed's font size at HUD scale 1, points.
	feedFontSize = 14
)

// feed is the notice lines and the chat box. A kill's line is three labels side by
// side: the shooter in their team's colour, " destroyed ", and the victim in theirs.
type feed struct {
	lines [feedLines]*gui.Label
	more  [feedLines][2]*gui.Label // a kill line's verb and victim; hidden on other lines
	shown [feedLines]feedKey       // what each line shows now
	alpha [feedLines]float32
	chat  *gui.Label
}

// feedKey identifies a notice on a line, so a line is redrawn only when it changes.
type feedKey struct {
	kind game.NoticeKind
	time float64
	who  string
	text string
	team int // the victim's team, for a kill
}

func newFeed(parent *core.Node, sc float32) *feed {
	f := &feed{}
	for i := range f.lines {
		l := gui.NewLabel("")
		l.SetPaddings(1, 6, 1, 6)
		l.SetVisible(false)
		parent.Add(l)
		f.lines[i] = l
		for k := range f.more[i] {
			m := gui.NewLabel("")
			m.SetVisible(false)
			parent.Add(m)
			f.more[i][k] = m
		}
	}
	f.chat = gui.NewLabel("")
	f.chat.SetPaddings(3, 8, 3, 8)
	f.chat.SetColor(&math32.Color{R: 1, G: 1, B: 1})
	f.chat.SetBgColor4(ptr(backdrop(0.85)))
	f.chat.SetVisible(false)
	parent.Add(f.chat)
	f.setScale(sc)
	return f
}

// setScale sizes the fonts for HUD scale sc.
func (f *feed) setScale(sc float32) {
	for i, l := range f.lines {
		l.SetFontSize(feedFontSize * float64(sc))
		l.SetPaddings(sc, 6*sc, sc, 6*sc)
		for k, m := range f.more[i] {
			m.SetFontSize(feedFontSize * float64(sc))
			m.SetPaddings(sc, 6*sc*float32(k), sc, 0) // the line's right padding on its last label
		}
		f.shown[i] = feedKey{} // redraw
	}
	f.chat.SetFontSize(feedFontSize * float64(sc))
}

// noticeColor is the text colour of notice n: by its kind, and the team's colour for
// the team the player was put on.
func noticeColor(n *game.Notice) math32.Color {
	switch n.Kind {
	case game.NoticeTeam:
		return teamColor(n.Team)
	case game.NoticeJoin:
		return math32.Color{R: 0.6, G: 1, B: 0.6}
	case game.NoticeLeave, game.NoticeTimeout:
		return math32.Color{R: 1, G: 0.7, B: 0.4}
	case game.NoticeKill:
		if n.Team >= 0 {
			return teamTextColor(n.Team)
		}
		return math32.Color{R: 1, G: 0.45, B: 0.4}
	}
	return math32.Color{R: 1, G: 1, B: 1}
}

// teamTextColor is team t's colour lightened for text over the HUD's dark backdrop
// (the tanks' blue is too dark to read there).
func teamTextColor(t int) math32.Color {
	c := teamColor(t)
	const k = 0.35 // toward white
	return math32.Color{R: c.R + (1-c.R)*k, G: c.G + (1-c.G)*k, B: c.B + (1-c.B)*k}
}

// teamOfName returns the team of the tank called name in snap, or −1 when none is.
func teamOfName(snap *game.Snapshot, name string) int {
	for i := range snap.Tanks {
		if snap.Tanks[i].Name == name {
			return snap.Tanks[i].Team
		}
	}
	return -1
}

// killParts splits a kill's line: the shooter, the verb, and the victim with the
// detail.
func killParts(n *game.Notice) (who, verb, victim string) {
	victim = n.Other
	if n.Text != "" {
		victim += " (" + n.Text + ")"
	}
	return n.Who, " destroyed ", victim
}

// update shows the newest notices of snap younger than feedLife.
func (f *feed) update(snap *game.Snapshot) {
	// The newest feedLines notices still alive, oldest first.
	first := len(snap.Notices)
	for first > 0 && len(snap.Notices)-first < feedLines && snap.Time-snap.Notices[first-1].Time < feedLife {
		first--
	}
	live := snap.Notices[first:]
	for i, l := range f.lines {
		if i >= len(live) {
			l.SetVisible(false)
			f.shown[i] = feedKey{}
			continue
		}
		n := &live[i]
		k := feedKey{n.Kind, n.Time, n.Who, n.Text, -1}
		kill := n.Kind == game.NoticeKill
		if kill {
			k.team = teamOfName(snap, n.Other)
		}
		a := float32(clamp01((feedLife - (snap.Time - n.Time)) / feedFade))
		a = float32(int(a*4+0.999)) / 4 // four steps, so fading redraws a line four times
		if k != f.shown[i] || a != f.alpha[i] {
			f.shown[i], f.alpha[i] = k, a
			c := noticeColor(n)
			l.SetColor4(&math32.Color4{R: c.R, G: c.G, B: c.B, A: a})
			l.SetBgColor4(ptr(backdrop(0.7 * a)))
			text := n.String()
			if kill {
				who, verb, victim := killParts(n)
				text = who
				vc := math32.Color{R: 1, G: 0.45, B: 0.4}
				if k.team >= 0 {
					vc = teamTextColor(k.team)
				}
				for j, p := range [2]struct {
					s string
					c math32.Color
				}{{verb, math32.Color{R: 0.85, G: 0.85, B: 0.85}}, {victim, vc}} {
					m := f.more[i][j]
					m.SetColor4(&math32.Color4{R: p.c.R, G: p.c.G, B: p.c.B, A: a})
					m.SetBgColor4(ptr(backdrop(0.7 * a)))
					m.SetText(p.s)
				}
				l.SetPaddings(l.Paddings().Top, 0, l.Paddings().Bottom, l.Paddings().Left)
			} else {
				p := l.Paddings()
				l.SetPaddings(p.Top, p.Left, p.Bottom, p.Left)
			}
			l.SetText(text)
		}
		l.SetVisible(true)
		for _, m := range f.more[i] {
			m.SetVisible(kill)
		}
	}
	for i := len(live); i < feedLines; i++ {
		for _, m := range f.more[i] {
			m.SetVisible(false)
		}
	}
}

// place puts feed line i with its top-left corner at (x, y), and a kill line's other
// labels after it.
func (f *feed) place(i int, x, y float32) {
	f.lines[i].SetPosition(x, y)
	x += f.lines[i].Width()
	for _, m := range f.more[i] {
		if m.Visible() {
			m.SetPosition(x, y)
			x += m.Width()
		}
	}
}

// setChat shows the chat box with line typed in it, or hides it when not open.
func (f *feed) setChat(open bool, line string) {
	if !open {
		f.chat.SetVisible(false)
		return
	}
	f.chat.SetText("say: " + line + "_")
	f.chat.SetVisible(true)
}
