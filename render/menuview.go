package render

import (
	"fmt"
	"math"
	"slices"

	"github.com/g3n/engine/camera"
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
)

// MenuPage is one screen of a menu as it is drawn: what the menu's model (in the
// client) shows of its top screen.
type MenuPage struct {
	// Title heads the screen.
	Title string
	// Items are the rows, each a name and a value ("" for actions).
	Items [][2]string
	// Selected is the index of the highlighted row; out of range highlights none.
	Selected int
	// Hint is the line under the rows (the keys, or a note).
	Hint string
}

// MenuView draws a MenuPage centred in the window: a dimmed panel with the title, the
// items in two columns (name, value) with the selected one highlighted, and the hint
// line. It draws over a match (Scene.ShowMenu) or alone (Viewer.DrawMenu).
type MenuView struct {
	fonts       *fontBook // one font per size, for the view's labels
	root        *core.Node
	cam         *camera.Camera
	back, bar   *gui.Panel
	title, hint *textLabel
	names, vals []*textLabel
	w, h        int
	page        MenuPage
}

// NewMenuView returns a view for a w×h picture (pixels), showing an empty page. It
// makes no OpenGL calls.
func NewMenuView(w, h int) *MenuView {
	v := &MenuView{root: core.NewNode(), fonts: &fontBook{}, w: max(w, 1), h: max(h, 1)}
	v.cam = camera.NewPerspective(1, 0.1, 10, 60, camera.Vertical)
	v.back = gui.NewPanel(10, 10)
	v.back.SetColor4(&menuPanel)
	v.root.Add(v.back)
	v.bar = gui.NewPanel(10, 10) // the selected row's highlight, behind its texts
	v.bar.SetColor4(&menuSelected)
	v.root.Add(v.bar)
	v.title = v.label(30, menuText)
	v.hint = v.label(15, menuDim)
	return v
}

func (v *MenuView) label(size float64, c math32.Color) *textLabel {
	l := v.fonts.label("")
	v.fonts.setFontSize(l, size)
	setColor(l, c)
	l.SetPaddings(4, 10, 4, 10)
	v.root.Add(l)
	return l
}

// Size returns the picture size the view is laid out for, pixels.
func (v *MenuView) Size() (w, h int) { return v.w, v.h }

// Menu fonts and spacing at full size, pixels: the layout scales them all by one
// factor when the panel would not fit the window.
const (
	menuTitleFont = 30.0
	menuHintFont  = 15.0
	menuRowFont   = 21.0 // the rows' largest font
	menuRowMin    = 11.0 // the rows' smallest font before they scroll
	menuMinFont   = 1.0  // the smallest font of all, in a tiny window (unreadable, but inside it)
	menuMinWidth  = 360.0
)

// Show draws page p from now on, rebuilding the texts.
func (v *MenuView) Show(p MenuPage) {
	v.page = MenuPage{Title: p.Title, Items: slices.Clone(p.Items), Selected: p.Selected, Hint: p.Hint}
	items := v.page.Items
	setText(v.hint, p.Hint)
	for len(v.names) < len(items) {
		v.names = append(v.names, v.label(menuRowFont, menuText))
		v.vals = append(v.vals, v.label(menuRowFont, menuText))
	}
	for i := range v.names {
		on := i < len(items)
		v.names[i].SetVisible(on)
		v.vals[i].SetVisible(on)
		if !on {
			continue
		}
		setText(v.names[i], items[i][0])
		setText(v.vals[i], items[i][1])
	}
	v.fit(len(items), p.Selected)
}

// Resize lays the page out again for a w×h picture (pixels); sizes below one pixel
// are ignored (a minimised window).
func (v *MenuView) Resize(w, h int) {
	if w < 1 || h < 1 {
		return
	}
	v.w, v.h = w, h
	v.Show(v.page)
}

// menuFit is one way to lay a page out: a scale of every font and gap, and the rows
// shown (first, first+1, … first+shown-1) when not all fit.
type menuFit struct {
	scale, rowFont float64
	first, shown   int
}

// fit lays out n rows with row sel selected so that the panel fits the picture. Rows
// shrink first (to menuRowMin), then show only as many as fit around the selected
// one (the title says which), and only then does everything shrink by one scale.
func (v *MenuView) fit(n, sel int) {
	f := menuFit{scale: 1, shown: n}
	if n > 0 {
		// What is left after the title and hint, shared by the rows (a label is about
		// 1.25 font sizes tall plus its padding).
		perRow := (float64(v.h)-160)/float64(n) - 4
		f.rowFont = math.Max(menuRowMin, math.Min(menuRowFont, (perRow-8)/1.25))
	}
	for range 16 {
		v.apply(f, n)
		width, chrome, rowH := v.measure(n, f.scale)
		availW, availH := float32(v.w)-2*v.margin(), float32(v.h)-2*v.margin()
		shown := n
		if n > 0 && chrome+float32(n)*rowH > availH {
			shown = max(1, int((availH-chrome)/rowH))
		}
		if shown != f.shown { // the title says which rows show: measure it again
			f.shown = shown
			f.first = max(0, min(n-shown, sel-shown/2))
			continue
		}
		height := chrome + float32(shown)*rowH
		if width <= availW+0.5 && height <= availH+0.5 || f.scale*menuTitleFont <= menuMinFont {
			break
		}
		f.scale *= 0.97 * math.Min(1, float64(min(availW/width, availH/height)))
	}
	v.layout(n, sel, f)
}

// apply sets the fonts and paddings of f, and the title (with the rows it shows when
// they scroll).
func (v *MenuView) apply(f menuFit, n int) {
	title := v.page.Title
	if f.shown < n {
		title = fmt.Sprintf("%s (%d–%d of %d)", title, f.first+1, f.first+f.shown, n)
	}
	setText(v.title, title)
	font := func(l *textLabel, size float64) {
		size = math.Max(menuMinFont, size*f.scale)
		if l.FontSize() != size {
			v.fonts.setFontSize(l, size)
		}
		p := float32(f.scale)
		l.SetPaddings(4*p, 10*p, 4*p, 10*p)
	}
	font(v.title, menuTitleFont)
	font(v.hint, menuHintFont)
	for i := 0; i < n; i++ {
		font(v.names[i], f.rowFont)
		font(v.vals[i], f.rowFont)
	}
}

// margin is the room kept between the panel and the picture's edge, pixels.
func (v *MenuView) margin() float32 { return min(10, float32(min(v.w, v.h))/20) }

// measure returns the panel's width, its height without the rows, and a row's
// height with its gap, at scale s, pixels.
func (v *MenuView) measure(n int, s float64) (width, chrome, rowH float32) {
	var nameW, valW float32
	for i := 0; i < n; i++ {
		w, h := v.names[i].Size()
		nameW, rowH = max(nameW, w), max(rowH, h)
		w, _ = v.vals[i].Size()
		valW = max(valW, w)
	}
	k := float32(s)
	tw, th := v.title.Size()
	hw, hh := v.hint.Size()
	width = max(nameW+24*k+valW, tw, hw, min(menuMinWidth*k, float32(v.w)-2*v.margin()-40*k)) + 40*k
	chrome = th + 16*k + 16*k + hh + 40*k
	return width, chrome, rowH + 4*k
}

// layout places the labels of the rows f shows, the two item columns side by side,
// all centred, and the highlight behind row sel.
func (v *MenuView) layout(n, sel int, f menuFit) {
	width, chrome, rowH := v.measure(n, f.scale)
	k := float32(f.scale)
	var nameW float32
	for i := 0; i < n; i++ {
		w, _ := v.names[i].Size()
		nameW = max(nameW, w)
	}
	tw, th := v.title.Size()
	hw, _ := v.hint.Size()
	height := chrome + float32(f.shown)*rowH
	x0 := (float32(v.w) - width) / 2
	y0 := max(v.margin(), (float32(v.h)-height)/2)
	v.back.SetPosition(x0, y0)
	v.back.SetSize(width, height)
	y := y0 + 20*k
	v.title.SetPosition((float32(v.w)-tw)/2, y)
	y += th + 16*k
	left := x0 + 20*k
	v.bar.SetVisible(false)
	for i := 0; i < n; i++ {
		on := i >= f.first && i < f.first+f.shown
		v.names[i].SetVisible(on)
		v.vals[i].SetVisible(on)
		if !on {
			continue
		}
		v.names[i].SetPosition(left, y)
		v.vals[i].SetPosition(left+nameW+24*k, y)
		if i == sel {
			v.bar.SetVisible(true)
			v.bar.SetPosition(left-6*k, y)
			v.bar.SetSize(width-28*k, rowH-4*k)
		}
		y += rowH
	}
	v.hint.SetPosition((float32(v.w)-hw)/2, y+16*k)
}

// DrawMenu clears the framebuffer to the menu's backdrop and draws m alone into it,
// laid out for the framebuffer's size (without swapping).
func (v *Viewer) DrawMenu(m *MenuView) error {
	w, h := v.FramebufferSize()
	if w > 0 && h > 0 {
		if w != m.w || h != m.h {
			m.Resize(w, h)
		}
		v.gs.Viewport(0, 0, int32(w), int32(h)) // panels size themselves by it
	}
	v.gs.ClearColor(menuBackdrop.R, menuBackdrop.G, menuBackdrop.B, 1)
	v.gs.Clear(gls.COLOR_BUFFER_BIT | gls.DEPTH_BUFFER_BIT)
	// The sky's clear colour again, for the match that may follow in this window.
	defer v.gs.ClearColor(skyHorizon.R, skyHorizon.G, skyHorizon.B, 1)
	if err := v.rend.Render(m.root, m.cam); err != nil {
		return fmt.Errorf("render menu: %w", err)
	}
	return nil
}

// ShowMenu shows page p over the match (the pause menu), from the next Draw on.
func (s *Scene) ShowMenu(p MenuPage) {
	if s.menu == nil {
		s.menu = NewMenuView(s.cfg.Width, s.cfg.Height)
		s.root.Add(s.menu.root)
	}
	s.menu.root.SetVisible(true)
	s.menu.Show(p)
}

// HideMenu hides the menu ShowMenu showed.
func (s *Scene) HideMenu() {
	if s.menu != nil {
		s.menu.root.SetVisible(false)
	}
}
