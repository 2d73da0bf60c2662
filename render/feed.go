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

// feed is the notice lines and the chat box.
type feed struct {
	lines [feedLines]*gui.Label
	shown [feedLines]feedKey // what each line shows now
	alpha [feedLines]float32
	chat  *gui.Label
}

// feedKey identifies a notice on a line, so a line is redrawn only when it changes.
type feedKey struct {
	kind game.NoticeKind
	time float64
	who  string
	text string
}

func newFeed(parent *core.Node, sc float32) *feed {
	f := &feed{}
	for i := range f.lines {
		l := gui.NewLabel("")
		l.SetPaddings(1, 6, 1, 6)
		l.SetVisible(false)
		parent.Add(l)
		f.lines[i] = l
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
		return math32.Color{R: 1, G: 0.45, B: 0.4}
	}
	return math32.Color{R: 1, G: 1, B: 1}
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
		k := feedKey{n.Kind, n.Time, n.Who, n.Text}
		a := float32(clamp01((feedLife - (snap.Time - n.Time)) / feedFade))
		a = float32(int(a*4+0.999)) / 4 // four steps, so fading redraws a line four times
		if k != f.shown[i] || a != f.alpha[i] {
			f.shown[i], f.alpha[i] = k, a
			c := noticeColor(n)
			l.SetColor4(&math32.Color4{R: c.R, G: c.G, B: c.B, A: a})
			l.SetBgColor4(ptr(backdrop(0.7 * a)))
			l.SetText(n.String())
		}
		l.SetVisible(true)
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
