package render

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// HUD layout. The HUD is a set of panels anchored to the picture's corners and edges
// (hudAnchor), each a fixed margin in from them, all sized by one scale that follows
// the window (uiScale): at 1280×720 it is 1. Panels added later (a crosshair, a
// health bar) take an anchor and join appendPanelRects, so tank labels keep clear of
// them too.
const (
	// hudMargin is the gap between the picture's edge and the panels, pixels at
	// scale 1.
	hudMargin = 8
	// minUIScale and maxUIScale bound the HUD scale.
	minUIScale, maxUIScale = 0.5, 3.0
	// compactScale is the HUD scale below which the figures shrink to two lines.
	compactScale = 0.75
	// warnAfter is how long the host may be silent before the HUD says the connection
	// is interrupted, seconds.
	warnAfter = 1.0
)

// uiScale is the HUD scale for a w×h picture: 1 at 1280×720, following the smaller
// of the two ratios, within minUIScale..maxUIScale.
func uiScale(w, h int) float32 {
	s := min(float64(w)/DefaultWidth, float64(h)/DefaultHeight)
	return float32(math.Max(minUIScale, math.Min(maxUIScale, s)))
}

// hudAnchor is where a HUD panel is held: a corner, the middle of an edge, or the
// center of the picture.
type hudAnchor uint8

const (
	anchorTopLeft hudAnchor = iota
	anchorTop
	anchorTopRight
	anchorBottomLeft
	anchorBottom
	anchorBottomRight
	anchorCenter
)

// anchorAt returns the top-left corner of a pw×ph panel held at a in a w×h picture,
// margin pixels in from the edges and moved by (dx, dy).
func anchorAt(a hudAnchor, w, h, pw, ph, margin, dx, dy float32) (x, y float32) {
	switch a {
	case anchorTopLeft:
		x, y = margin, margin
	case anchorTop:
		x, y = (w-pw)/2, margin
	case anchorTopRight:
		x, y = w-margin-pw, margin
	case anchorBottomLeft:
		x, y = margin, h-margin-ph
	case anchorBottom:
		x, y = (w-pw)/2, h-margin-ph
	case anchorBottomRight:
		x, y = w-margin-pw, h-margin-ph
	default:
		x, y = (w-pw)/2, (h-ph)/2
	}
	return float32(math.Round(float64(x + dx))), float32(math.Round(float64(y + dy)))
}

// hud is the 2D layer: connection figures, the link warning, the minimap, the
// overlay legend, the notice feed and chat box, the help, score and menu panels,
// status messages, and the per-tank labels (which the scene places).
type hud struct {
	fonts                          *fontBook // one font per size, for every HUD label
	root, labels                   *core.Node
	stats, warn, menu, flash, hint *textLabel
	rec                            *textLabel // the recording indicator
	help                           *gui.Image
	helpLines                      []HelpLine
	hintFull                       string // the key hint in full
	scores                         *table
	legend                         *gui.Image
	legendFor                      Overlay // overlays the legend was drawn for
	mini                           *minimap
	feed                           *feed
	timeline                       *timelineView
	w, h                           int
	scale                          float32
	sinceText, flashLeft           float64
	frames                         int
	frameTime                      float64
	fps                            float64
	panels                         Panels
	scoresPage, scoresPages        int // the scoreboard's page shown and its page count
	textDue                        bool
	// bars is the block of the combat layer's bars and their texts on the picture
	// this frame (zero when not shown): the feed goes above it when its lines would
	// reach under it, in a narrow window.
	bars rect
}

// Panels are what the HUD shows over the match besides its figures, as the client
// decides from the player's keys. The zero value shows none of them.
type Panels struct {
	// Help shows the key list (SceneConfig.Help).
	Help bool
	// Scores shows the players list (the scoreboard in combat); ScoresPage is the
	// page of a scoreboard longer than the window, from 0 (clamped to the last:
	// Scene.ScoresPages says how many there are).
	Scores     bool
	ScoresPage int
	// Message, when not empty, is shown in the middle of the picture over the other
	// panels (for example how the match ended).
	Message string
	// Chat opens the chat box, which shows ChatLine, the line being typed.
	Chat     bool
	ChatLine string
	// Timeline, when set, shows a replay's timeline across the bottom.
	Timeline *Timeline
	// Debug shows the link's figures and counters (traffic, late, malformed and
	// refused updates, clock samples refused, the algorithm, the impairment) under
	// the HUD's figures, as any overlay does (F3 in the client).
	Debug bool
	// Recording shows that the match is being recorded into a file: a red "● REC"
	// beside the minimap.
	Recording bool
}

// HelpLine is one row of the help panel: a key and what it does.
type HelpLine struct{ Key, What string }

// The key hint in the bottom-left corner, and its short form for small windows.
const (
	hintText    = "F1 help · Enter chat · Tab players · Esc menu"
	hintCompact = "F1 help"
)

// Font sizes at scale 1, points.
const (
	statsFontSize = 14
	warnFontSize  = 18
	hintFontSize  = 13
	flashFontSize = 18
	menuFontSize  = 20
	helpFontSize  = 14
	tableFontSize = 15
)

func newHUD(w, h int, help []HelpLine, hint string) *hud {
	u := &hud{root: core.NewNode(), labels: core.NewNode(), w: w, h: h, scale: uiScale(w, h), legendFor: ^Overlay(0),
		helpLines: help, hintFull: hint, fonts: &fontBook{}}
	if u.hintFull == "" {
		u.hintFull = hintText
	}
	mk := func(fg math32.Color, bg math32.Color4) *textLabel {
		l := u.fonts.label("")
		setColor(l, fg)
		setBgColor4(l, bg)
		l.SetPaddings(4, 8, 4, 8)
		u.root.Add(l)
		return l
	}
	u.root.Add(u.labels)
	white := math32.Color{R: 1, G: 1, B: 1}
	u.stats = mk(white, backdrop(0.55))
	u.warn = mk(white, math32.Color4{R: 0.7, G: 0.1, B: 0.08, A: 1})
	opaque(u.warn)
	u.hint = mk(math32.Color{R: 0.9, G: 0.9, B: 0.9}, backdrop(0.45))
	setText(u.hint, u.hintFull)
	u.flash = mk(math32.Color{R: 1, G: 0.95, B: 0.5}, backdrop(0.6))
	u.rec = mk(math32.Color{R: 1, G: 1, B: 1}, math32.Color4{R: 0.75, G: 0.05, B: 0.05, A: 1})
	setText(u.rec, "● REC")
	opaque(u.rec)
	u.rec.SetVisible(false)
	u.scores = newTable(u.root, boardTableCols, u.fonts)
	u.menu = mk(white, backdrop(1))
	opaque(u.menu)
	u.feed = newFeed(u.root, u.scale, u.fonts)
	u.timeline = newTimelineView(u)
	u.warn.SetVisible(false)
	u.flash.SetVisible(false)
	u.scores.setVisible(false)
	u.menu.SetVisible(false)
	u.applyScale()
	return u
}

// setMinimap puts the minimap in the top-right corner.
func (u *hud) setMinimap(m *minimap) {
	u.mini = m
	u.fitMinimap()
	u.root.Add(m.img)
	u.layout()
}

// applyScale sets every font and prebuilt image for the current scale.
func (u *hud) applyScale() {
	sc := float64(u.scale)
	u.fonts.setFontSize(u.stats, statsFontSize*sc)
	u.fonts.setFontSize(u.warn, warnFontSize*sc)
	u.fonts.setFontSize(u.hint, hintFontSize*sc)
	u.fonts.setFontSize(u.flash, flashFontSize*sc)
	u.fonts.setFontSize(u.rec, statsFontSize*sc)
	u.fonts.setFontSize(u.menu, menuFontSize*sc)
	u.scores.setFontSize(tableFontSize * sc)
	u.feed.setScale(u.scale)
	if u.scale < compactScale {
		setText(u.hint, hintCompact)
	} else {
		setText(u.hint, u.hintFull)
	}
	u.drawHelp()
	u.legendFor = ^Overlay(0) // redraw
	u.fitMinimap()
	u.layout()
}

// drawHelp draws the help into one opaque image (textimg.go), cheap to show, and
// lays the panels out again.
func (u *hud) drawHelp() {
	sc := float64(u.scale)
	img := columnsImage(helpRows(u.helpLines), helpFontSize*sc, int(12*sc), int(18*sc))
	if u.help == nil {
		u.help = imagePanel(nil, img)
		u.help.SetVisible(false)
		u.root.Add(u.help)
	} else {
		imagePanel(u.help, img)
	}
}

// fitMinimap rebuilds the minimap when the picture calls for another size.
func (u *hud) fitMinimap() {
	if u.mini == nil {
		return
	}
	if n := minimapSide(u.w, u.h, u.scale); n != u.mini.size || u.mini.scale != u.scale {
		u.mini.build(n, u.scale)
	}
}

func (u *hud) resize(w, h int) {
	u.w, u.h = w, h
	if sc := uiScale(w, h); sc != u.scale {
		u.scale = sc
		u.applyScale()
		u.sinceText = hudInterval // the figures' form may change: redo them next frame
	}
	u.fitMinimap()
	u.layout()
}

// layout places the panels for the current size.
func (u *hud) layout() {
	W, H, m := float32(u.w), float32(u.h), hudMargin*u.scale
	put := func(p gui.IPanel, a hudAnchor, dx, dy float32) {
		x, y := anchorAt(a, W, H, p.Width(), p.Height(), m, dx, dy)
		p.SetPosition(x, y)
	}
	put(u.stats, anchorTopLeft, 0, 0)
	put(u.warn, anchorTop, 0, 0)
	recDX := float32(0)
	if u.mini != nil {
		put(u.mini.img, anchorTopRight, 0, 0)
		recDX = -(u.mini.img.Width() + m/2)
	}
	put(u.rec, anchorTopRight, recDX, 0)
	put(u.hint, anchorBottomLeft, 0, 0)
	if u.legend != nil {
		put(u.legend, anchorBottomRight, 0, 0)
	}
	put(u.help, anchorCenter, 0, 0)
	put(u.menu, anchorCenter, 0, 0)
	put(u.flash, anchorBottom, 0, -0.22*H)
	u.scores.layout(u.w, u.h)
	_, hh := u.hint.Size()
	u.timeline.set(u, u.panels.Timeline, W, H-m-hh-m/2, u.scale)
	u.layoutFeed()
}

// layoutFeed stacks the chat box and the feed's lines up from above the hint.
func (u *hud) layoutFeed() {
	m := hudMargin * u.scale
	_, hh := u.hint.Size()
	y := u.timeline.top(float32(u.h)-m-hh-m/2) - m/2*b2f(u.timeline.shown)
	if u.bars.w > 0 && m+u.feedWidth() > u.bars.x && u.bars.y-m/2 < y {
		y = u.bars.y - m/2
	}
	if u.feed.chat.Visible() {
		_, ch := u.feed.chat.Size()
		y -= ch
		u.feed.chat.SetPosition(m, y)
		y -= m / 2
	}
	for i := len(u.feed.lines) - 1; i >= 0; i-- {
		l := u.feed.lines[i]
		if !l.Visible() {
			continue
		}
		_, lh := l.Size()
		y -= lh
		u.feed.place(i, m, y)
	}
}

// feedWidth is the width of the widest of the feed's shown lines and the chat box,
// pixels.
func (u *hud) feedWidth() float32 {
	w := float32(0)
	if u.feed.chat.Visible() {
		w = u.feed.chat.Width()
	}
	for i, l := range u.feed.lines {
		if !l.Visible() {
			continue
		}
		lw := l.Width()
		for _, k := range u.feed.more[i] {
			if k.Visible() {
				lw += k.Width()
			}
		}
		w = max(w, lw)
	}
	return w
}

// appendPanelRects appends the screen rectangles of the visible HUD panels to dst.
func (u *hud) appendPanelRects(dst []rect) []rect {
	add := func(p gui.IPanel) {
		if p.GetPanel().Visible() {
			pos := p.GetPanel().Position()
			dst = append(dst, rect{pos.X, pos.Y, p.Width(), p.Height()})
		}
	}
	add(u.stats)
	add(u.rec)
	add(u.warn)
	add(u.hint)
	add(u.flash)
	add(u.help)
	add(u.menu)
	add(u.scores.bg)
	add(u.feed.chat)
	add(u.timeline.bg)
	add(u.timeline.status)
	for i, l := range u.feed.lines {
		add(l)
		for _, k := range u.feed.more[i] {
			add(k)
		}
	}
	if u.mini != nil {
		add(u.mini.img)
	}
	if u.legend != nil {
		add(u.legend)
	}
	return dst
}

// helpRows lays the help panel out: the lines in two column pairs under a heading.
func helpRows(lines []HelpLine) [][]string {
	half := (len(lines) + 1) / 2
	rows := [][]string{{"Keys", "", "", ""}, {"", "", "", ""}}
	for i := 0; i < half; i++ {
		row := []string{lines[i].Key, lines[i].What, "", ""}
		if j := i + half; j < len(lines) {
			row[2], row[3] = lines[j].Key, lines[j].What
		}
		rows = append(rows, row)
	}
	return rows
}

// setFlash shows a status message for d seconds.
func (u *hud) setFlash(msg string, d float64) {
	setText(u.flash, msg)
	u.flash.SetVisible(true)
	u.flashLeft = d
	u.layout()
}

// setPanels shows the panels p asks for from the next update on.
func (u *hud) setPanels(p Panels) {
	old := u.panels
	u.panels = p
	if p.Message != old.Message && p.Message != "" {
		setText(u.menu, p.Message)
		u.layout()
	}
	if p.Timeline != nil || old.Timeline != nil {
		_, hh := u.hint.Size()
		m := hudMargin * u.scale
		u.timeline.set(u, p.Timeline, float32(u.w), float32(u.h)-m-hh-m/2, u.scale)
		u.layoutFeed()
	}
	if p.Chat != old.Chat || p.ChatLine != old.ChatLine {
		u.feed.setChat(p.Chat, p.ChatLine)
		u.layoutFeed()
	}
}

// tick advances the HUD's clocks by dt seconds and decides whether texts are
// rebuilt this frame (every hudInterval seconds, so text rendering stays rare). A
// frame of dt 0 was not timed (a screen's first), so the frame rate leaves it out.
func (u *hud) tick(dt float64) {
	if dt > 0 {
		u.frames++
		u.frameTime += dt
	}
	u.sinceText += dt
	u.textDue = u.sinceText >= hudInterval || u.stats.Text() == ""
}

// setLegend shows the legend of overlays o (none when o is empty).
func (u *hud) setLegend(o Overlay) {
	if o == u.legendFor {
		return
	}
	u.legendFor = o
	img := legendImage(o, statsFontSize*float64(u.scale))
	if img == nil {
		if u.legend != nil {
			u.legend.SetVisible(false)
		}
		return
	}
	if u.legend == nil {
		u.legend = imagePanel(nil, img)
		u.root.Add(u.legend)
	} else {
		imagePanel(u.legend, img)
	}
	u.legend.SetVisible(true)
	u.layout()
}

// update refreshes the figures when due and the panels' visibility.
func (u *hud) update(snap *game.Snapshot, s *Scene, dt float64) {
	if u.flashLeft > 0 {
		u.flashLeft -= dt
		if u.flashLeft <= 0 {
			u.flash.SetVisible(false)
		}
	}
	u.setLegend(s.overlays)
	p := &u.panels
	message := p.Message != ""
	u.help.SetVisible(p.Help && !message)
	if p.Recording != u.rec.Visible() {
		u.rec.SetVisible(p.Recording)
	}
	u.menu.SetVisible(message)
	u.scores.setVisible(p.Scores && !message && !p.Help)
	u.feed.update(snap)
	u.layoutFeed()
	warn := snap.Net.Timeout > 0 && snap.Net.Silence >= warnAfter
	if warn != u.warn.Visible() {
		u.warn.SetVisible(warn)
	}
	if !u.textDue {
		return
	}
	if u.frameTime > 0 {
		u.fps = float64(u.frames) / u.frameTime
	}
	u.frames, u.frameTime, u.sinceText = 0, 0, 0
	setText(u.stats, statsText(snap, s.focus(snap), u.fps, s.overlays, p.Debug, u.scale < compactScale))
	if warn {
		setText(u.warn, fmt.Sprintf("Connection interrupted: no word from the host for %.0f s; giving up in %.0f s",
			math.Floor(snap.Net.Silence), math.Max(0, math.Ceil(snap.Net.Timeout-snap.Net.Silence))))
	}
	if p.Scores {
		rows, page, pages := scoresRows(snap, p.ScoresPage, boardFit(u.h, tableFontSize*float64(u.scale)))
		u.scores.set(rows)
		u.scoresPage, u.scoresPages = page, pages
	}
	u.layout()
}

// statsText formats the HUD's figures; focus is the tank the camera follows (for
// speed and heading), or nil; fps is 0 until a frame has been timed. The link's
// counters (traffic, late, malformed and refused updates, clock samples refused),
// the algorithm and the impairment are for finding faults: they show only with
// debug or an overlay on (o). compact keeps only the essentials, for small windows.
func statsText(snap *game.Snapshot, focus *game.TankView, fps float64, o Overlay, debug, compact bool) string {
	n := snap.Net
	var b strings.Builder
	speed, bearing := 0.0, 0.0
	if focus != nil {
		speed = math.Hypot(focus.Velocity[0], focus.Velocity[2]) * 3.6
		bearing = compassBearing(focus.Orientation)
	}
	rate := "-- fps" // until a frame has been timed
	if fps > 0 {
		rate = fmt.Sprintf("%.0f fps", fps)
	}
	details := debug || o != 0
	if compact {
		fmt.Fprintf(&b, "%s  %.0f ms  ±%.1f ms\n", rate, n.RTT*1000, n.ClockError*1000)
		fmt.Fprintf(&b, "%.0f km/h  %03.0f° %s", speed, bearing, compassPoint(bearing))
		if details {
			fmt.Fprintf(&b, "\nlate %d  bad %d  refused %d  clock %d", n.Dropped, n.Malformed, n.Refused, n.ClockRejected)
		}
		return b.String()
	}
	fmt.Fprintf(&b, "%s   %d tanks   t %.1f s\n", rate, len(snap.Tanks), snap.Time)
	fmt.Fprintf(&b, "speed %.0f km/h   heading %03.0f° %s\n", speed, bearing, compassPoint(bearing))
	fmt.Fprintf(&b, "round trip %.0f ms   clock sync ±%.1f ms", n.RTT*1000, n.ClockError*1000)
	if !details {
		return b.String()
	}
	fmt.Fprintf(&b, "\nin  %6.1f kB/s %5.1f upd/s\n", n.BytesIn/1000, n.UpdatesIn)
	fmt.Fprintf(&b, "out %6.1f kB/s %5.1f upd/s\n", n.BytesOut/1000, n.UpdatesOut)
	fmt.Fprintf(&b, "late or duplicate %d   malformed %d   refused %d\n", n.Dropped, n.Malformed, n.Refused)
	fmt.Fprintf(&b, "send errors %d   clock samples refused %d", n.SendErrors, n.ClockRejected)
	if n.ProxyRefused > 0 {
		fmt.Fprintf(&b, "   proxy moves refused %d", n.ProxyRefused)
	}
	fmt.Fprintf(&b, "\nalgorithm %s   clamp %s   modes %d high %d low\n", snap.Algorithm, snap.Clamp,
		snap.Modes[deadreckon.ModeHigh], snap.Modes[deadreckon.ModeLow])
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

// compassBearing returns the compass bearing of orientation q's forward axis in
// degrees, 0 to 360: 0 north (−Z), 90 east (+X).
func compassBearing(q mgl64.Quat) float64 {
	yaw := geom.Yaw(q)
	b := math.Atan2(math.Cos(yaw), math.Sin(yaw)) * 180 / math.Pi
	if b < 0 {
		b += 360
	}
	if b >= 359.5 {
		b = 0
	}
	return b
}

// compassPoint names the eight-point compass direction of bearing b (degrees).
func compassPoint(b float64) string {
	points := [...]string{"N", "NE", "E", "SE", "S", "SW", "W", "NW"}
	return points[int(math.Floor((b+22.5)/45))%8]
}

// scoresRows lists the players by team: with combat the paged scoreboard (page of
// pages, fit table lines; see scoreboardRows), otherwise a header and one row per
// tank, DIS entities last, on team "DIS", not counted as players.
func scoresRows(snap *game.Snapshot, page, fit int) (rows [][]string, shown, pages int) {
	if snap.Combat.Enabled {
		return combatScoreRows(snap, page, fit)
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
	players := 0
	for i := range snap.Tanks {
		if !snap.Tanks[i].DIS() {
			players++
		}
	}
	rows = [][]string{{fmt.Sprintf("Players (%d)", players), "team", "tank", "last update"}, {"", "", "", ""}}
	mine := -1
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
			mine = len(rows)
		}
		team := fmt.Sprint(t.Team)
		if t.DIS() {
			team = "DIS"
		}
		rows = append(rows, []string{name, team, where, age})
	}
	rows, _ = clipRows(rows, mine)
	return rows, 0, 1
}

// table is a panel of text in aligned columns: one label per column over a dark,
// opaque background.
type table struct {
	bg    *gui.Panel
	cols  []*textLabel
	texts []string
	scale float32
	fonts *fontBook // the HUD's
}

// tablePad and tableGap are the table's inner margin and column gap, pixels.
const tablePad, tableGap = 12, 18

func newTable(parent *core.Node, ncols int, fonts *fontBook) *table {
	t := &table{fonts: fonts, bg: gui.NewPanel(10, 10), texts: make([]string, ncols), scale: 1}
	t.bg.SetColor4(ptr(backdrop(1)))
	opaque(t.bg)
	parent.Add(t.bg)
	for i := 0; i < ncols; i++ {
		l := t.fonts.label("")
		setColor(l, math32.Color{R: 1, G: 1, B: 1})
		parent.Add(l)
		t.cols = append(t.cols, l)
	}
	return t
}

// setFontSize sets the columns' font size, points; the table's gaps follow it.
func (t *table) setFontSize(size float64) {
	t.scale = float32(size / tableFontSize)
	for _, l := range t.cols {
		t.fonts.setFontSize(l, size)
	}
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
			setText(l, text)
		}
	}
	t.setVisible(t.bg.Visible())
}

// layout centers the table in a w×h picture.
func (t *table) layout(w, h int) {
	// Columns with nothing in them take no room (a players list fills fewer columns
	// than the scoreboard).
	var tw, th float32
	pad, gap := tablePad*t.scale, tableGap*t.scale
	n := 0
	for i, l := range t.cols {
		if strings.TrimSpace(t.texts[i]) == "" {
			continue
		}
		lw, lh := l.Size()
		if n > 0 {
			tw += gap
		}
		n++
		tw += lw
		th = max(th, lh)
	}
	x := float32(math.Round(float64((float32(w) - tw) / 2)))
	y := float32(math.Round(float64((float32(h) - th) / 2)))
	t.bg.SetPosition(x-pad, y-pad)
	t.bg.SetSize(tw+2*pad, th+2*pad)
	for i, l := range t.cols {
		l.SetPosition(x, y)
		if strings.TrimSpace(t.texts[i]) == "" {
			continue
		}
		lw, _ := l.Size()
		x += lw + gap
	}
}

// setVisible shows or hides the table; a column with nothing in it stays hidden (an
// empty label has no texture to draw).
func (t *table) setVisible(v bool) {
	t.bg.SetVisible(v)
	for i, l := range t.cols {
		l.SetVisible(v && strings.TrimSpace(t.texts[i]) != "")
	}
}

// b2f is 1 for true and 0 for false.
func b2f(b bool) float32 {
	if b {
		return 1
	}
	return 0
}
