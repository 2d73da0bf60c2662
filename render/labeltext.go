package render

import (
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/gui/assets"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/text"
)

// A g3n label draws its whole text into a new image, and the renderer uploads it as
// a texture, on every SetText, SetColor, SetColor4, SetBgColor4 and SetFontSize, even
// when nothing changed. These set a label's text, colours or size only when they
// differ from what it shows, so that a HUD placed every frame costs no text drawing
// until something in it changes.

// setText shows text on l, drawing it only when it differs from l's text.
func setText(l *gui.Label, text string) {
	if l.Text() != text {
		l.SetText(text)
	}
}

// setColor sets l's text colour to c, opaque, when it differs.
func setColor(l *gui.Label, c math32.Color) {
	setColor4(l, math32.Color4{R: c.R, G: c.G, B: c.B, A: 1})
}

// setColor4 sets l's text colour to c when it differs.
func setColor4(l *gui.Label, c math32.Color4) {
	if l.Color() != c {
		l.SetColor4(&c)
	}
}

// setBgColor4 sets l's background colour to c when it differs.
func setBgColor4(l *gui.Label, c math32.Color4) {
	if l.BgColor() != c {
		l.SetBgColor4(&c)
	}
}

// setLook shows text on l in text colour fg over background bg, each set only when
// it differs, and draws the text once however many of them change: every set draws
// the whole text again, so a line that fades (both colours) or is reused for another
// notice (text and colours) drew it two or three times. When two or more change,
// the text is blanked first, so that the colour sets draw a single space, and the
// text is drawn last from the same style: the same image as the three sets give.
func setLook(l *gui.Label, text string, fg, bg math32.Color4) {
	draws := 0
	for _, differs := range [...]bool{l.Text() != text, l.Color() != fg, l.BgColor() != bg} {
		if differs {
			draws++
		}
	}
	if draws >= 2 && text != "" {
		l.SetText("")
	}
	setColor4(l, fg)
	setBgColor4(l, bg)
	setText(l, text)
}

// fontBook holds one font per point size for a set of labels. Every g3n label draws
// with the GUI's one default font, whose glyph face (and its glyph cache, an image of
// hundreds of kilobytes) is made again whenever a label of another size than the last
// one drawn is drawn: a HUD with labels of six sizes made several faces a frame. With
// a font per size, a face is made once. Its zero value is ready; use it from the
// window's goroutine only.
type fontBook struct {
	fonts map[float64]*text.Font
	// ttf is the GUI's font file, read once: g3n's assets unzip it at every read (a
	// quarter of a scene's making, six times over under the race detector).
	ttf []byte
}

// font returns the font for size points, made the first time, or nil if the GUI's
// font cannot be read (the label then keeps the default font).
func (b *fontBook) font(size float64) *text.Font {
	if f, ok := b.fonts[size]; ok {
		return f
	}
	if b.ttf == nil {
		b.ttf, _ = assets.Asset(guiFontAsset) // nil when unreadable: NewFontFromData fails
	}
	f, err := text.NewFontFromData(b.ttf)
	if err != nil {
		f = nil
	}
	if b.fonts == nil {
		b.fonts = make(map[float64]*text.Font)
	}
	b.fonts[size] = f
	return f
}

// guiFontAsset is the g3n GUI's default style's text font, which every label starts
// with.
const guiFontAsset = "fonts/FreeSans.ttf"

// setFontSize sets l's font size, points, and gives it the font of that size, when
// either differs. A nil book sets the size alone. The size is set first, with the
// label's old font: a book's font is only ever drawn at its own size, so its face
// (and the glyphs it has cached) is never made again.
func (b *fontBook) setFontSize(l *gui.Label, size float64) {
	if l.FontSize() != size {
		l.SetFontSize(size)
	}
	if b != nil {
		if f := b.font(size); f != nil && l.Font() != f {
			l.SetFont(f)
		}
	}
}

// labelStyle is how a label made by newLabel looks: its size, points, and colours.
type labelStyle struct {
	size   float64
	fg, bg math32.Color4
}

// newLabel returns a label showing msg as st says, with the book's font for its size,
// drawn once. A g3n label copies the GUI's default style when it is made and draws its
// text then, and again at every change of size, font or colour: made with the default
// and then set up, a tank's label drew five times and made its fonts' glyph faces
// (hundreds of kilobytes each) over twice, at each tank that came into reach. So the
// default style is st for the making and is restored at once: the label draws at its
// own size with its own font, whose face is made already. A nil book (or a font that
// cannot be read) makes the label the plain way.
func (b *fontBook) newLabel(msg string, st labelStyle) *gui.Label {
	var f *text.Font
	if b != nil {
		f = b.font(st.size)
	}
	if f == nil {
		l := gui.NewLabel(msg)
		b.setFontSize(l, st.size)
		setColor4(l, st.fg)
		setBgColor4(l, st.bg)
		return l
	}
	def := gui.StyleDefault()
	saved := def.Label
	def.Label.PointSize, def.Label.FgColor, def.Label.BgColor = st.size, st.fg, st.bg
	l := gui.NewLabelWithFont(msg, f)
	def.Label = saved
	l.Panel.SetColor4(&st.bg) // what SetBgColor4 gives the panel, without drawing again
	return l
}
