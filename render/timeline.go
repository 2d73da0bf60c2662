package render

import (
	"math"

	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
)

// Timeline is a replay's timeline, drawn across the bottom of the picture: the time
// played as a filled bar with a cursor, a tick at each mark (the kills), and a status
// line above it. Times are seconds on one clock; Start < End.
type Timeline struct {
	// Start and End bound the recording; Now is the time shown.
	Start, End, Now float64
	// Marks are times to tick on the bar.
	Marks []float64
	// Status is the line above the bar (play state, speed, algorithm…).
	Status string
}

// Timeline layout at scale 1, pixels, and its colours.
const (
	timelineHeight = 10.0
	// timelineWidth is the bar's share of the picture's width.
	timelineWidth = 0.6
	timelineMarkW = 2.0
)

var (
	timelineBg     = math32.Color4{R: 0.1, G: 0.11, B: 0.13, A: 0.85}
	timelineFill   = math32.Color4{R: 0.85, G: 0.55, B: 0.15, A: 1}
	timelineCursor = math32.Color4{R: 1, G: 1, B: 1, A: 1}
	timelineMark   = math32.Color4{R: 1, G: 0.25, B: 0.25, A: 1}
)

// timelineView is the HUD's timeline: the bar's panels and the status label.
type timelineView struct {
	fonts            *fontBook // the HUD's
	bg, fill, cursor *gui.Panel
	marks            []*gui.Panel
	status           *textLabel
	x, y, w, h       float32 // the bar, pixels
	shown            bool
}

func newTimelineView(u *hud) *timelineView {
	t := &timelineView{fonts: u.fonts}
	mk := func(c math32.Color4) *gui.Panel {
		p := gui.NewPanel(1, 1)
		p.SetColor4(&c)
		p.SetVisible(false)
		u.root.Add(p)
		return p
	}
	t.bg, t.fill, t.cursor = mk(timelineBg), mk(timelineFill), mk(timelineCursor)
	t.status = t.fonts.label("")
	setColor(t.status, math32.Color{R: 1, G: 1, B: 1})
	bg := backdrop(0.6)
	setBgColor4(t.status, bg)
	t.status.SetPaddings(3, 8, 3, 8)
	t.status.SetVisible(false)
	u.root.Add(t.status)
	return t
}

// set shows tl (nil hides the timeline) in a w×h picture at HUD scale sc, its bar's
// bottom at bottom pixels.
func (t *timelineView) set(u *hud, tl *Timeline, w, bottom, sc float32) {
	t.shown = tl != nil && tl.End > tl.Start
	for _, p := range []*gui.Panel{t.bg, t.fill, t.cursor} {
		p.SetVisible(t.shown)
	}
	t.status.SetVisible(t.shown && tl.Status != "")
	if !t.shown {
		for _, m := range t.marks {
			m.SetVisible(false)
		}
		return
	}
	t.w, t.h = float32(math.Round(float64(w*timelineWidth))), float32(math.Round(timelineHeight*float64(sc)))
	t.x, t.y = float32(math.Round(float64((w-t.w)/2))), bottom-t.h
	frac := func(v float64) float32 {
		return float32(math.Max(0, math.Min(1, (v-tl.Start)/(tl.End-tl.Start))))
	}
	t.bg.SetPosition(t.x, t.y)
	t.bg.SetSize(t.w, t.h)
	t.fill.SetPosition(t.x, t.y)
	t.fill.SetSize(max(1, t.w*frac(tl.Now)), t.h)
	cw := max(2, 3*sc)
	t.cursor.SetPosition(t.x+t.w*frac(tl.Now)-cw/2, t.y-2*sc)
	t.cursor.SetSize(cw, t.h+4*sc)
	for len(t.marks) < len(tl.Marks) {
		c := timelineMark
		p := gui.NewPanel(1, 1)
		p.SetColor4(&c)
		u.root.Add(p)
		t.marks = append(t.marks, p)
	}
	for i, m := range t.marks {
		m.SetVisible(i < len(tl.Marks))
		if i < len(tl.Marks) {
			m.SetPosition(t.x+t.w*frac(tl.Marks[i])-timelineMarkW*sc/2, t.y)
			m.SetSize(timelineMarkW*sc, t.h)
		}
	}
	if tl.Status != t.status.Text() {
		setText(t.status, tl.Status)
	}
	t.fonts.setFontSize(t.status, hintFontSize*float64(sc))
	t.status.SetPosition(float32(math.Round(float64((w-t.status.Width())/2))), t.y-t.status.Height()-4*sc)
}

// top returns the timeline's top edge, pixels, or bottom when it is hidden.
func (t *timelineView) top(bottom float32) float32 {
	if !t.shown {
		return bottom
	}
	if t.status.Visible() {
		return t.status.Position().Y
	}
	return t.y
}

// at returns the time under the picture point (x, y) when it falls on the bar (with
// a few pixels' grace), and false elsewhere.
func (t *timelineView) at(tl *Timeline, x, y float32) (float64, bool) {
	const grace = 6
	if !t.shown || tl == nil || x < t.x-grace || x > t.x+t.w+grace || y < t.y-grace || y > t.y+t.h+grace {
		return 0, false
	}
	f := math.Max(0, math.Min(1, float64((x-t.x)/t.w)))
	return tl.Start + f*(tl.End-tl.Start), true
}

// TimelineAt returns the time of the shown timeline under the picture point (x, y),
// pixels from the top-left, and whether the point is on its bar: a click on the
// timeline seeks there.
func (s *Scene) TimelineAt(x, y float32) (float64, bool) {
	return s.hud.timeline.at(s.hud.panels.Timeline, x, y)
}
