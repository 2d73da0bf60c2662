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
	root        *core.Node
	cam         *camera.Camera
	back, bar   *gui.Panel
	title, hint *gui.Label
	names, vals []*gui.Label
	w, h        int
	page        MenuPage
}

// NewMenuView returns a view for a w×h picture (pixels), showing an empty page. It
// makes no OpenGL calls.
func NewMenuView(w, h int) *MenuView {
	v := &MenuView{root: core.NewNode(), w: max(w, 1), h: max(h, 1)}
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

func (v *MenuView) label(size float64, c math32.Color) *gui.Label {
	l := gui.NewLabel("")
	l.SetFontSize(size)
	l.SetColor(&c)
	l.SetPaddings(4, 10, 4, 10)
	v.root.Add(l)
	return l
}

// Size returns the picture size the view is laid out for, pixels.
func (v *MenuView) Size() (w, h int) { return v.w, v.h }

// Show draws page p from now on, rebuilding the texts.
func (v *MenuView) Show(p MenuPage) {
	v.page = MenuPage{Title: p.Title, Items: slices.Clone(p.Items), Selected: p.Selected, Hint: p.Hint}
	items := v.page.Items
	v.title.SetText(p.Title)
	v.hint.SetText(p.Hint)
	for len(v.names) < len(items) {
		v.names = append(v.names, v.label(21, menuText))
		v.vals = append(v.vals, v.label(21, menuText))
	}
	// Rows shrink to fit a small window: what is left after the title and hint,
	// shared by the rows (a label is about 1.25 font sizes tall plus its padding).
	if n := len(items); n > 0 {
		perRow := (float64(v.h)-160)/float64(n) - 4
		size := math.Max(11, math.Min(21, (perRow-8)/1.25))
		for i := range v.names {
			if v.names[i].FontSize() != size {
				v.names[i].SetFontSize(size)
				v.vals[i].SetFontSize(size)
			}
		}
	}
	for i := range v.names {
		on := i < len(items)
		v.names[i].SetVisible(on)
		v.vals[i].SetVisible(on)
		if !on {
			continue
		}
		v.names[i].SetText(items[i][0])
		v.vals[i].SetText(items[i][1])
	}
	v.layout(len(items), p.Selected)
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

// layout places the labels, the two item columns side by side, all centred, and the
// highlight behind row sel.
func (v *MenuView) layout(n, sel int) {
	var nameW, valW, rowH float32
	for i := 0; i < n; i++ {
		w, h := v.names[i].Size()
		nameW, rowH = max(nameW, w), max(rowH, h)
		w, _ = v.vals[i].Size()
		valW = max(valW, w)
	}
	tw, th := v.title.Size()
	hw, hh := v.hint.Size()
	width := max(nameW+24+valW, tw, hw, 360) + 40
	height := th + 16 + float32(n)*(rowH+4) + 16 + hh + 40
	x0 := (float32(v.w) - width) / 2
	y0 := max(10, (float32(v.h)-height)/2)
	v.back.SetPosition(x0, y0)
	v.back.SetSize(width, height)
	y := y0 + 20
	v.title.SetPosition((float32(v.w)-tw)/2, y)
	y += th + 16
	left := x0 + 20
	v.bar.SetVisible(sel >= 0 && sel < n)
	for i := 0; i < n; i++ {
		v.names[i].SetPosition(left, y)
		v.vals[i].SetPosition(left+nameW+24, y)
		if i == sel {
			v.bar.SetPosition(left-6, y)
			v.bar.SetSize(width-28, rowH)
		}
		y += rowH + 4
	}
	v.hint.SetPosition((float32(v.w)-hw)/2, y+16)
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
