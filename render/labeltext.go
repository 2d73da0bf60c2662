package render

import (
	"image"
	imgcolor "image/color"
	"image/draw"

	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/gui/assets"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/text"
	"github.com/g3n/engine/texture"
	"github.com/golang/freetype/truetype"
	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// The HUD's and the tanks' labels draw their text themselves rather than through
// g3n's gui.Label. A g3n label measures its text before drawing it, and truetype's
// face loads a glyph's outline for every advance it measures; it then draws into a new
// image on every change. A textLabel draws with a face that remembers the advances and
// kerning it has measured (textFace; truetype's face already keeps the glyphs' masks),
// into an image it keeps, uploaded into the one texture it keeps: the same pixels as
// g3n's text.Font.DrawText draws for the same text, font, size and colour
// (TestTextLabelSamePixels), laid out as a g3n label lays its text out.

// textCacheMax bounds each of a face's caches (advances, kerning pairs): past it the
// cache is emptied and filled again. The HUD's text uses a few dozen glyphs.
const textCacheMax = 1024

// textFace is a truetype face at one size that remembers the glyph advances and the
// kerning it has measured. Glyph masks are kept by truetype's face itself (its glyph
// cache), so drawing a glyph already drawn at the same sub-pixel offset rasterises
// nothing. Use it from one goroutine.
type textFace struct {
	face    font.Face
	metrics font.Metrics
	adv     map[rune]fixed.Int26_6
	kern    map[[2]rune]fixed.Int26_6
}

// newTextFace returns ttf's face at size points with the attributes a g3n label
// draws with (attr: DPI and hinting; text.Font makes its face from them).
func newTextFace(ttf *truetype.Font, size float64, attr text.FontAttributes) *textFace {
	f := truetype.NewFace(ttf, &truetype.Options{Size: size, DPI: attr.DPI, Hinting: attr.Hinting})
	return &textFace{face: f, metrics: f.Metrics(),
		adv: make(map[rune]fixed.Int26_6), kern: make(map[[2]rune]fixed.Int26_6)}
}

// advance is r's advance, as the face's GlyphAdvance gives it (0 for a glyph it
// cannot load, as font.MeasureString counts it).
func (f *textFace) advance(r rune) fixed.Int26_6 {
	if a, ok := f.adv[r]; ok {
		return a
	}
	if len(f.adv) >= textCacheMax {
		clear(f.adv)
	}
	a, _ := f.face.GlyphAdvance(r)
	f.adv[r] = a
	return a
}

// kerning is the face's kerning between r0 and r1.
func (f *textFace) kerning(r0, r1 rune) fixed.Int26_6 {
	k, ok := f.kern[[2]rune{r0, r1}]
	if ok {
		return k
	}
	if len(f.kern) >= textCacheMax {
		clear(f.kern)
	}
	k = f.face.Kern(r0, r1)
	f.kern[[2]rune{r0, r1}] = k
	return k
}

// measure is line's width, as font.MeasureString gives it.
func (f *textFace) measure(line string) fixed.Int26_6 {
	var w fixed.Int26_6
	prev := rune(-1)
	for _, c := range line {
		if prev >= 0 {
			w += f.kerning(prev, c)
		}
		w += f.advance(c)
		prev = c
	}
	return w
}

// draw draws line onto dst in src with its baseline's start at dot, as
// font.Drawer.DrawString does.
func (f *textFace) draw(dst *image.RGBA, src image.Image, dot fixed.Point26_6, line string) {
	prev := rune(-1)
	for _, c := range line {
		if prev >= 0 {
			dot.X += f.kerning(prev, c)
		}
		dr, mask, maskp, advance, _ := f.face.Glyph(dot, c)
		if !dr.Empty() {
			draw.DrawMask(dst, dr, src, image.Point{}, mask, maskp, draw.Over)
		}
		dot.X += advance
		prev = c
	}
}

// lines calls each for every line of s (split at '\n', as strings.Split splits it),
// without allocating.
func lines(s string, each func(i int, line string)) {
	for i := 0; ; i++ {
		j := 0
		for j < len(s) && s[j] != '\n' {
			j++
		}
		each(i, s[:j])
		if j == len(s) {
			return
		}
		s = s[j+1:]
	}
}

// layout is the size, pixels, of the image text.Font.DrawText draws s in, and the
// parts of its lines' spacing: the first baseline's height, a line's height and the
// gap after each line past the second (text.Font's rule, kept to the pixel).
func (f *textFace) layout(s string, spacing float64) (w, h, ascent, lineH, gap int) {
	lineH = (f.metrics.Ascent + f.metrics.Descent).Ceil()
	gap = int((spacing - 1) * float64(lineH))
	lines(s, func(i int, line string) {
		w = max(w, f.measure(line).Ceil())
		h += lineH
		if i > 1 {
			h += gap
		}
	})
	return w, h, f.metrics.Ascent.Round(), lineH, gap
}

// drawText draws s in colour fg over fg made transparent onto img, whose pixels
// it reuses (growing them when s needs more), as text.Font.DrawText draws it onto
// a new image; src is the uniform it paints with, in c.
func (f *textFace) drawText(img *image.RGBA, src *image.Uniform, c *imgcolor.RGBA, s string, fg math32.Color4, spacing float64) {
	w, h, ascent, lineH, gap := f.layout(s, spacing)
	// Text of no width (a lone combining mark, a name of format characters) is
	// drawn on one transparent pixel: a texture is given at least one.
	w, h = max(w, 1), max(h, 1)
	n := 4 * w * h
	if cap(img.Pix) < n {
		img.Pix = make([]byte, n)
	}
	img.Pix, img.Stride, img.Rect = img.Pix[:n], 4*w, image.Rect(0, 0, w, h)
	*c = text.Color4RGBA(&fg)
	// The background, fg made transparent, in every pixel: the first set, then
	// copied onto the next as many as are set, doubling.
	if n > 0 {
		img.Pix[0], img.Pix[1], img.Pix[2], img.Pix[3] = c.R, c.G, c.B, 0
		for k := 4; k < n; k *= 2 {
			copy(img.Pix[k:n], img.Pix[:k])
		}
	}
	src.C = c // a pointer: a colour put in the interface by value is allocated
	py := ascent
	lines(s, func(i int, line string) {
		f.draw(img, src, fixed.P(0, py), line)
		py += lineH
		if i > 1 {
			py += gap
		}
	})
}

// textLabel is a panel showing a line or lines of text, laid out, padded and coloured
// as a g3n gui.Label is, and drawn only when its text, colour or size changes. Its
// texture is made once and given each new image.
type textLabel struct {
	gui.Panel
	book   *fontBook
	face   *textFace
	tex    *texture.Texture2D
	up     *pixelMaterial      // gives tex the new images, without mipmaps
	attr   text.FontAttributes // size, DPI, hinting and line spacing
	text   string
	fg, bg math32.Color4
	img    image.RGBA
	src    image.Uniform
	col    imgcolor.RGBA
	// data is img's pixels as the texture takes them, put in an interface once for
	// each allocation of the pixels (each conversion allocates): their full
	// capacity, of which GL reads the image's size.
	data  any
	base  *byte // the pixels data holds
	draws int   // how many times the text was drawn: the tests hold the setters to it
}

// newTextLabel returns a label showing msg in the GUI's default label style, drawn
// with the book's faces (its own book when book is nil).
func newTextLabel(book *fontBook, msg string) *textLabel {
	st := gui.StyleDefault().Label
	return newStyledLabel(book, msg, labelStyle{size: st.PointSize, fg: st.FgColor, bg: st.BgColor}, false)
}

// newStyledLabel returns a label showing msg as st says, drawn once. paint sets the
// panel's colour to st.bg, as gui.Label's SetBgColor4 does; a label made the plain
// way keeps the panel's own until its background is first set to another.
func newStyledLabel(book *fontBook, msg string, st labelStyle, paint bool) *textLabel {
	if book == nil {
		book = &fontBook{}
	}
	l := &textLabel{book: book, attr: gui.StyleDefault().Label.FontAttributes, text: msg, fg: st.fg, bg: st.bg}
	l.Panel.Initialize(l, 0, 0)
	l.Material().SetTransparent(true)
	l.SetPaddings(2, 0, 2, 0)
	if paint {
		l.Panel.SetColor4(&st.bg)
	}
	l.attr.PointSize = st.size
	l.face = book.face(st.size, l.attr)
	l.redraw()
	return l
}

// redraw draws the label's text into its image and gives the texture the image.
func (l *textLabel) redraw() {
	l.draws++
	s := l.text
	if s == "" {
		s = " " // a g3n label draws a space, to have a height
	}
	if l.face == nil { // the GUI's font could not be read: one transparent pixel
		l.img = image.RGBA{Pix: make([]byte, 4), Stride: 4, Rect: image.Rect(0, 0, 1, 1)}
	} else {
		l.face.drawText(&l.img, &l.src, &l.col, s, l.fg, l.attr.LineSpacing)
	}
	if p := &l.img.Pix[:1][0]; p != l.base {
		l.data, l.base = l.img.Pix[:cap(l.img.Pix)], p
	}
	w, h := l.img.Rect.Dx(), l.img.Rect.Dy()
	if l.tex == nil {
		l.tex = texture.NewTexture2DFromData(w, h, gls.RGBA, gls.UNSIGNED_BYTE, gls.RGBA8, l.data)
		l.tex.SetMagFilter(gls.NEAREST)
		l.tex.SetMinFilter(gls.NEAREST)
		l.Material().AddTexture(l.tex)
		l.up = newPixelMaterial(&l.Panel)
	} else {
		l.up.setPixels(w, h, l.data)
	}
	l.SetContentSize(float32(w), float32(h))
}

// Text returns the label's text.
func (l *textLabel) Text() string { return l.text }

// Color returns the label's text colour.
func (l *textLabel) Color() math32.Color4 { return l.fg }

// BgColor returns the label's background colour.
func (l *textLabel) BgColor() math32.Color4 { return l.bg }

// FontSize returns the label's font size, points.
func (l *textLabel) FontSize() float64 { return l.attr.PointSize }

// picture returns the label's image of its text (shared: do not keep it).
func (l *textLabel) picture() *image.RGBA { return &l.img }

// setText shows text on l, drawing it only when it differs from l's text.
func setText(l *textLabel, text string) {
	if l.text != text {
		l.text = text
		l.redraw()
	}
}

// setColor sets l's text colour to c, opaque, when it differs.
func setColor(l *textLabel, c math32.Color) {
	setColor4(l, math32.Color4{R: c.R, G: c.G, B: c.B, A: 1})
}

// setColor4 sets l's text colour to c when it differs.
func setColor4(l *textLabel, c math32.Color4) {
	if l.fg != c {
		l.fg = c
		l.redraw()
	}
}

// setBgColor4 sets l's background colour (its panel's) to c when it differs. The
// text's image does not depend on it: nothing is drawn.
func setBgColor4(l *textLabel, c math32.Color4) {
	if l.bg != c {
		l.bg = c
		l.Panel.SetColor4(&c)
	}
}

// setLook shows text on l in text colour fg over background bg, each set only when
// it differs, and draws the text at most once.
func setLook(l *textLabel, text string, fg, bg math32.Color4) {
	setBgColor4(l, bg)
	if l.text != text || l.fg != fg {
		l.text, l.fg = text, fg
		l.redraw()
	}
}

// fontBook holds the GUI's font file, parsed once, and one face per point size for
// a set of labels, so that a face (and the glyphs it has cached) is made once per
// size. The sizes follow the HUD's scale, which follows the window's size, so a
// window resized by dragging asks for new sizes without end: past fontBookMax faces
// the book forgets them all and makes them again as asked (a label keeps the face it
// draws with). Its zero value is ready; use it from the window's goroutine only.
type fontBook struct {
	faces map[float64]*textFace
	ttf   *truetype.Font
	// bad is set when the font could not be read, so that it is read once.
	bad bool
}

// face returns the face for size points, made the first time, or nil if the GUI's
// font cannot be read.
func (b *fontBook) face(size float64, attr text.FontAttributes) *textFace {
	if f, ok := b.faces[size]; ok {
		return f
	}
	if b.ttf == nil && !b.bad {
		// g3n's assets unzip the file at every read: read once.
		data, err := assets.Asset(guiFontAsset)
		if err == nil {
			b.ttf, err = truetype.Parse(data)
		}
		b.bad = err != nil
	}
	if b.ttf == nil {
		return nil
	}
	if b.faces == nil {
		b.faces = make(map[float64]*textFace)
	}
	if len(b.faces) >= fontBookMax {
		clear(b.faces)
	}
	f := newTextFace(b.ttf, size, attr)
	b.faces[size] = f
	return f
}

// fontBookMax bounds the faces a fontBook keeps, each with a glyph cache of up to
// about a megabyte: the HUD, the menus and the tanks' labels use about twenty sizes at
// one scale.
const fontBookMax = 64

// guiFontAsset is the g3n GUI's default style's text font, which every label starts
// with.
const guiFontAsset = "fonts/FreeSans.ttf"

// setFontSize sets l's font size, points, when it differs, drawing it with the
// book's face of that size.
func (b *fontBook) setFontSize(l *textLabel, size float64) {
	if l.attr.PointSize == size {
		return
	}
	if b != nil {
		l.book = b
	}
	l.attr.PointSize = size
	l.face = l.book.face(size, l.attr)
	l.redraw()
}

// labelStyle is how a label made by newLabel looks: its size, points, and colours.
type labelStyle struct {
	size   float64
	fg, bg math32.Color4
}

// newLabel returns a label showing msg as st says, drawn once.
func (b *fontBook) newLabel(msg string, st labelStyle) *textLabel {
	return newStyledLabel(b, msg, st, true)
}

// label returns a label showing msg in the GUI's default label style, drawn with
// the book's faces.
func (b *fontBook) label(msg string) *textLabel {
	return newTextLabel(b, msg)
}
