package render

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/math32"
	"github.com/treadline/treadline/game"
)

// The feed is a few lines of the match's recent notices (game.Notice: chat, joins,
// leaves, timeouts, kills) in the bottom-left corner, newest at the bottom, each
// fading out feedLife seconds after it happened. A burst of kills (killBurstMin or
// more in a row within killBurstSpan seconds, as a battle of hundreds brings) is one
// line that counts them by the shooters' teams. Under it the chat box shows the line
// being typed while Panels.Chat is set.
const (
	// killBurstMin and killBurstSpan: this many kills in a row, the last at most
	// that many seconds after the first, make one line.
	killBurstMin, killBurstSpan = 4, 2.0
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
	fonts *fontBook // the HUD's
	lines [feedLines]*textLabel
	more  [feedLines][2]*textLabel // a kill line's verb and victim; hidden on other lines
	shown [feedLines]feedKey       // what each line shows now
	alpha [feedLines]float32
	chat  *textLabel
	items []feedItem // the lines of the notices of itemsOf, reused
	// itemsOf identifies the notices items were made of: they are made again only
	// when a notice comes or goes.
	itemsOf feedSource
}

// feedSource identifies a snapshot's notices: how many, the first and the last.
type feedSource struct {
	n           int
	first, last feedKey
}

// feedItem is one line of the feed: a notice, or a burst of kills summed up.
type feedItem struct {
	// n is the notice; for a burst, its last kill (the line's time and kind).
	n game.Notice
	// text is what the line says.
	text string
	// burst marks a burst of kills summed up in one line.
	burst bool
}

// feedItems appends to dst the feed's lines for notices (oldest first): each notice
// its own line, except a burst of kills, one line for the burst.
func feedItems(dst []feedItem, notices []game.Notice) []feedItem {
	for i := 0; i < len(notices); {
		j := i
		for j < len(notices) && notices[j].Kind == game.NoticeKill && notices[j].Time-notices[i].Time <= killBurstSpan {
			j++
		}
		if j-i >= killBurstMin {
			dst = append(dst, feedItem{n: notices[j-1], text: killBurst(notices[i:j]), burst: true})
			i = j
			continue
		}
		dst = append(dst, feedItem{n: notices[i], text: notices[i].String()})
		i++
	}
	return dst
}

// killBurst sums up a burst of kill notices: how many, over how long, and how many
// each team's shooters scored, most first ("12 kills in 1.6 s: Blue 7, Yellow 5").
func killBurst(kills []game.Notice) string {
	type tally struct{ team, n int }
	var by []tally
	for _, k := range kills {
		at := slices.IndexFunc(by, func(t tally) bool { return t.team == k.Team })
		if at < 0 {
			by = append(by, tally{team: k.Team})
			at = len(by) - 1
		}
		by[at].n++
	}
	slices.SortStableFunc(by, func(a, b tally) int { return cmp.Compare(b.n, a.n) })
	var b strings.Builder
	span := kills[len(kills)-1].Time - kills[0].Time
	if span < 0.05 {
		fmt.Fprintf(&b, "%d kills at once:", len(kills))
	} else {
		fmt.Fprintf(&b, "%d kills in %.1f s:", len(kills), span)
	}
	for i, t := range by {
		if i > 0 {
			b.WriteByte(',')
		}
		name := "no team"
		switch {
		case t.team > 0:
			name = game.TeamName(t.team)
		case t.team < 0:
			name = "unknown"
		}
		fmt.Fprintf(&b, " %s %d", name, t.n)
	}
	return b.String()
}

// feedKey identifies a notice on a line, so a line is redrawn only when it changes.
type feedKey struct {
	kind game.NoticeKind
	time float64
	who  string
	text string
	team int // the victim's team, for a kill
}

func newFeed(parent *core.Node, sc float32, fonts *fontBook) *feed {
	f := &feed{fonts: fonts}
	for i := range f.lines {
		l := f.fonts.label("")
		l.SetPaddings(1, 6, 1, 6)
		l.SetVisible(false)
		parent.Add(l)
		f.lines[i] = l
		for k := range f.more[i] {
			m := f.fonts.label("")
			m.SetVisible(false)
			parent.Add(m)
			f.more[i][k] = m
		}
	}
	f.chat = f.fonts.label("")
	f.chat.SetPaddings(3, 8, 3, 8)
	setColor(f.chat, math32.Color{R: 1, G: 1, B: 1})
	setBgColor4(f.chat, backdrop(0.85))
	f.chat.SetVisible(false)
	parent.Add(f.chat)
	f.setScale(sc)
	return f
}

// setScale sizes the fonts for HUD scale sc.
func (f *feed) setScale(sc float32) {
	for i, l := range f.lines {
		f.fonts.setFontSize(l, feedFontSize*float64(sc))
		l.SetPaddings(sc, 6*sc, sc, 6*sc)
		for k, m := range f.more[i] {
			f.fonts.setFontSize(m, feedFontSize*float64(sc))
			m.SetPaddings(sc, 6*sc*float32(k), sc, 0) // the line's right padding on its last label
		}
		f.shown[i] = feedKey{} // redraw
	}
	f.fonts.setFontSize(f.chat, feedFontSize*float64(sc))
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

// teamsOfNames sets teams[i] to the team of the first tank of snap called names[i]
// (−1 when none is) for each i where want[i] holds, and to −1 elsewhere, in one
// pass over the tanks that ends once every name wanted is found.
func teamsOfNames(snap *game.Snapshot, names *[feedLines]string, want *[feedLines]bool, teams *[feedLines]int) {
	left := 0
	for i := range teams {
		teams[i] = -1
		if want[i] {
			left++
		}
	}
	found := [feedLines]bool{}
	for t := 0; t < len(snap.Tanks) && left > 0; t++ {
		name := snap.Tanks[t].Name
		for i := range names {
			if want[i] && !found[i] && names[i] == name {
				teams[i], found[i] = snap.Tanks[t].Team, true
				left--
			}
		}
	}
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
	f.refresh(snap.Notices)
	live := f.live(snap.Time)
	// The kill lines' victims' teams, found in one pass over the tanks rather
	// than one pass a line: a battle of hundreds fills the feed with kills.
	var victims [feedLines]string
	var teams [feedLines]int
	var kills [feedLines]bool
	for i := range min(len(live), feedLines) {
		kills[i] = live[i].n.Kind == game.NoticeKill && !live[i].burst
		victims[i] = live[i].n.Other
	}
	teamsOfNames(snap, &victims, &kills, &teams)
	for i, l := range f.lines {
		if i >= len(live) {
			l.SetVisible(false)
			f.shown[i] = feedKey{}
			continue
		}
		f.showLine(i, &live[i], kills[i], teams[i], snap.Time)
	}
	for i := len(live); i < feedLines; i++ {
		for _, m := range f.more[i] {
			m.SetVisible(false)
		}
	}
}

// refresh makes the feed's items again from notices when a notice has come or gone
// since they were made (the first and last notices and their number tell), and
// keeps them otherwise: most frames bring no notice.
func (f *feed) refresh(notices []game.Notice) {
	src := feedSource{n: len(notices)}
	if k := len(notices); k > 0 {
		a, z := &notices[0], &notices[k-1]
		src.first, src.last = feedKey{kind: a.Kind, time: a.Time, who: a.Who, text: a.Text}, feedKey{kind: z.Kind, time: z.Time, who: z.Who, text: z.Text}
	}
	if src != f.itemsOf || len(f.items) == 0 && src.n > 0 {
		f.itemsOf = src
		f.items = feedItems(f.items[:0], notices)
	}
}

// live returns the newest feedLines items still alive at match time now (s),
// younger than feedLife, oldest first.
func (f *feed) live(now float64) []feedItem {
	first := len(f.items)
	for first > 0 && len(f.items)-first < feedLines && now-f.items[first-1].n.Time < feedLife {
		first--
	}
	return f.items[first:]
}

// showLine shows item it on feed line i at match time now (s), faded by its age; a
// kill's own line (kill: not a burst summed up) shows its victim in the colour of
// team (-1: unknown). The labels are set again only when what they show changes.
func (f *feed) showLine(i int, it *feedItem, kill bool, team int, now float64) {
	l := f.lines[i]
	n := &it.n
	k := feedKey{n.Kind, n.Time, n.Who, it.text, -1}
	if kill {
		k.team = team
	}
	a := float32(clamp01((feedLife - (now - n.Time)) / feedFade))
	a = float32(int(a*4+0.999)) / 4 // four steps, so fading redraws a line four times
	if k != f.shown[i] || a != f.alpha[i] {
		f.shown[i], f.alpha[i] = k, a
		c := noticeColor(n)
		text := it.text
		if kill {
			text = f.showKill(i, n, k.team, a)
		} else {
			p := l.Paddings()
			l.SetPaddings(p.Top, p.Left, p.Bottom, p.Left)
		}
		setLook(l, text, math32.Color4{R: c.R, G: c.G, B: c.B, A: a}, backdrop(0.7*a))
	}
	l.SetVisible(true)
	for _, m := range f.more[i] {
		m.SetVisible(kill)
	}
}

// showKill sets kill notice n's verb and victim on line i's other labels, the victim
// in team's colour (-1: unknown, a red), with alpha a, and returns the text of the
// line's own label: the shooter. The line loses its right padding, so the three read
// as one line.
func (f *feed) showKill(i int, n *game.Notice, team int, a float32) string {
	l := f.lines[i]
	who, verb, victim := killParts(n)
	vc := math32.Color{R: 1, G: 0.45, B: 0.4}
	if team >= 0 {
		vc = teamTextColor(team)
	}
	for j, p := range [2]struct {
		s string
		c math32.Color
	}{{verb, math32.Color{R: 0.85, G: 0.85, B: 0.85}}, {victim, vc}} {
		setLook(f.more[i][j], p.s, math32.Color4{R: p.c.R, G: p.c.G, B: p.c.B, A: a}, backdrop(0.7*a))
	}
	l.SetPaddings(l.Paddings().Top, 0, l.Paddings().Bottom, l.Paddings().Left)
	return who
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
	setText(f.chat, "say: "+line+"_")
	f.chat.SetVisible(true)
}
