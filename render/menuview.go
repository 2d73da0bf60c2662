package render

import (
	"math"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
)

// menuView draws a menu's top screen centred in the window: a dimmed panel with the
// title, the items in two columns (name, value) with the selected one highlighted, and
// the hint line.
type menuView struct {
	root        *core.Node
	back, bar   *gui.Panel
	title, hint *gui.Label
	names, vals []*gui.Label
	w, h        int
}

func newMenuView(w, h int) *menuView {
	v := &menuView{root: core.NewNode(), w: w, h: h}
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

func (v *menuView) label(size float64, c math32.Color) *gui.Label {
	l := gui.NewLabel("")
	l.SetFontSize(size)
	l.SetColor(&c)
	l.SetPaddings(4, 10, 4, 10)
	v.root.Add(l)
	return l
}

// show draws m's top screen; it rebuilds the texts only when m changed.
func (v *menuView) show(m *menu) {
	if !m.changed {
		return
	}
	m.changed = false
	title, items, sel, hint := m.lines()
	v.title.SetText(title)
	v.hint.SetText(hint)
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
	v.layout(len(items), sel)
}

// resize places the view for a new window size.
func (v *menuView) resize(w, h int, m *menu) {
	v.w, v.h = w, h
	m.changed = true
	v.show(m)
}

// layout places the labels, the two item columns side by side, all centred, and the
// highlight behind row sel.
func (v *menuView) layout(n, sel int) {
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
