package render

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"

	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/gui/assets"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/text"
)

// TestTextLabelSamePixels: a textLabel's image is, byte for byte, the image g3n's
// text.Font.DrawText draws for the same text in the same font, size and colour (what
// a gui.Label uploads), and the label's content size and paddings are a gui.Label's.
func TestTextLabelSamePixels(t *testing.T) {
	ttf, err := assets.Asset(guiFontAsset)
	if err != nil {
		t.Fatal(err)
	}
	white := math32.Color4{R: 1, G: 1, B: 1, A: 1}
	amber := math32.Color4{R: 1, G: 0.9, B: 0.55, A: 1}
	faded := math32.Color4{R: 1, G: 0.45, B: 0.4, A: 0.35}
	book := &fontBook{}
	for _, c := range []struct {
		text string
		size float64
		fg   math32.Color4
	}{
		{"", 14, white},
		{" ", 13, white},
		{"0123456789", 13, white},
		{"fps 17.4   ping 42 ms   tanks 64 (high 23, low 40)", 13, white},
		{"age 0.25 s  err 1.3 m\nhigh  Δ 12°", 13, amber},
		{"three\nlines\nof figures, the third's gap", 15, white},
		{"Tank 17 destroyed Tank 203 with a shell from 412 m", 16, faded},
		{"Zoë, Renée, Müller, Ångström, façade, naïve", 15, amber},
		{"heading 271° · 3.2 m/s  loading…", 20, white},
		{"● REC", 13, math32.Color4{R: 1, G: 0.3, B: 0.3, A: 1}},
		{"⊕", 28, math32.Color4{R: 0.2, G: 1, B: 0.4, A: 0.9}},
		{"AV Wa To ff fi", 24, white}, // pairs a kerning table would move
		// Players' names, which come from the network: invalid UTF-8 (each bad byte
		// a U+FFFD), right-to-left letters, combining marks, the longest name.
		{"bad\xff\xc3(name\xed\xa0\x80", 14, white},
		{"שלום עולם مرحبا", 14, white},
		{"Zo\u0308e\u0301\u0301\u0301 a\u20dd", 14, white},
		{"WWWWWWWWWWWWWWWWWWWWWWWWWWWWWWWW", 14, white},
	} {
		f, err := text.NewFontFromData(ttf)
		if err != nil {
			t.Fatal(err)
		}
		attr := gui.StyleDefault().Label.FontAttributes
		attr.PointSize = c.size
		f.SetAttributes(&attr)
		f.SetColor(&c.fg)
		s := c.text
		if s == "" {
			s = " "
		}
		want := f.DrawText(s)
		l := book.newLabel(c.text, labelStyle{size: c.size, fg: c.fg, bg: backdrop(0.5)})
		got := l.picture()
		if got.Rect != want.Rect || got.Stride != want.Stride || !bytes.Equal(got.Pix, want.Pix) {
			diff := 0
			if got.Rect == want.Rect {
				for i := range got.Pix {
					diff = max(diff, absInt(int(got.Pix[i])-int(want.Pix[i])))
				}
			}
			t.Errorf("%q at %g pt: drawn %v (stride %d), g3n draws %v (stride %d); largest channel difference %d",
				c.text, c.size, got.Rect, got.Stride, want.Rect, want.Stride, diff)
		}
		g := gui.NewLabelWithFont(c.text, f)
		g.SetFontSize(c.size)
		g.SetColor4(&c.fg)
		if l.ContentWidth() != g.ContentWidth() || l.ContentHeight() != g.ContentHeight() ||
			l.Paddings() != g.Paddings() || l.Width() != g.Width() || l.Height() != g.Height() {
			t.Errorf("%q: label %gx%g (%gx%g with %v), g3n's %gx%g (%gx%g with %v)", c.text,
				l.ContentWidth(), l.ContentHeight(), l.Width(), l.Height(), l.Paddings(),
				g.ContentWidth(), g.ContentHeight(), g.Width(), g.Height(), g.Paddings())
		}
	}
}

// TestTextLabelOfNoWidth: text that measures no pixels wide (a lone combining mark,
// format characters, as a player's name may be) makes an image of at least one pixel,
// which a texture needs, and the label still shows it and others after it.
func TestTextLabelOfNoWidth(t *testing.T) {
	book := &fontBook{}
	l := book.label("")
	for _, s := range []string{"\u0301", "\u200b\u200d", "\n", "tank-7", "\u0301"} {
		setText(l, s)
		if img := l.picture(); l.Text() != s || img.Rect.Dx() < 1 || img.Rect.Dy() < 1 || len(img.Pix) != 4*img.Rect.Dx()*img.Rect.Dy() {
			t.Errorf("%q: label shows %q on a %v image of %d bytes", s, l.Text(), img.Rect, len(img.Pix))
		}
	}
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TestLabelSettersDrawOnlyOnChange: setting a label's text, colours or size to what
// it already shows draws nothing, setting another value shows it (drawn once, or not
// at all for the background, which is the panel's colour), and redrawing a label whose
// image is already as large allocates nothing.
func TestLabelSettersDrawOnlyOnChange(t *testing.T) {
	fonts := &fontBook{}
	red := math32.Color{R: 1, G: 0.2, B: 0.1}
	for _, c := range []struct {
		name       string
		set, other func(l *textLabel)
		draws      int // draws the other value makes
		check      func(l *textLabel) bool
	}{
		{"text", func(l *textLabel) { setText(l, "age 0.25 s") }, func(l *textLabel) { setText(l, "age 0.50 s") }, 1,
			func(l *textLabel) bool { return l.Text() == "age 0.50 s" }},
		{"colour", func(l *textLabel) { setColor(l, red) }, func(l *textLabel) { setColor(l, math32.Color{R: 1, G: 1, B: 1}) }, 1,
			func(l *textLabel) bool { return l.Color() == math32.Color4{R: 1, G: 1, B: 1, A: 1} }},
		{"colour4", func(l *textLabel) { setColor4(l, math32.Color4{R: 1, A: 0.5}) }, func(l *textLabel) { setColor4(l, math32.Color4{G: 1, A: 0.25}) }, 1,
			func(l *textLabel) bool { return l.Color() == math32.Color4{G: 1, A: 0.25} }},
		{"background", func(l *textLabel) { setBgColor4(l, backdrop(0.5)) }, func(l *textLabel) { setBgColor4(l, backdrop(0.7)) }, 0,
			func(l *textLabel) bool { return l.BgColor() == backdrop(0.7) && l.Panel.Color4() == backdrop(0.7) }},
		{"size", func(l *textLabel) { fonts.setFontSize(l, 13) }, func(l *textLabel) { fonts.setFontSize(l, 20) }, 1,
			func(l *textLabel) bool { return l.FontSize() == 20 && l.face == fonts.face(20, l.attr) }},
	} {
		l := fonts.label("HIT  −25")
		c.set(l)
		before := l.draws
		if n := testing.AllocsPerRun(20, func() { c.set(l) }); n != 0 || l.draws != before {
			t.Errorf("%s: setting the same value again allocates %.0f times and draws %d times", c.name, n, l.draws-before)
		}
		c.other(l)
		if l.draws-before != c.draws {
			t.Errorf("%s: a new value drew %d times, want %d", c.name, l.draws-before, c.draws)
		}
		if !c.check(l) {
			t.Errorf("%s: the label does not show the new value", c.name)
		}
	}
	l := fonts.label("age 0.25 s")
	texts := [2]string{"age 0.50 s", "age 0.75 s"}
	i := 0
	if n := testing.AllocsPerRun(20, func() { i++; setText(l, texts[i%2]) }); n != 0 {
		t.Errorf("redrawing a label at its size allocates %.0f times", n)
	}
}

// TestFontBookKeepsFacesWarm: the book makes one face per size, and labels of two
// sizes redrawn in turn, as the HUD redraws its figures, allocate nothing once their
// glyphs have been drawn (g3n's labels sharing the default font made its face, and
// its glyph cache, again at every change of size).
func TestFontBookKeepsFacesWarm(t *testing.T) {
	book := &fontBook{}
	a, b := book.label(""), book.label("")
	book.setFontSize(a, 13)
	book.setFontSize(b, 20)
	texts := make([]string, 20)
	for i := range texts {
		texts[i] = fmt.Sprintf("age %d s, %d fps", 10+i, 10+i)
	}
	for _, s := range texts { // first sight of each glyph and offset
		setText(a, s)
		setText(b, s)
	}
	setText(a, "")
	setText(b, "")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for _, s := range texts {
		setText(a, s)
		setText(b, s)
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n != 0 {
		t.Errorf("40 redraws with warm faces allocate %d times, want 0", n)
	}
	f13 := book.face(13, a.attr)
	if again := book.face(13, a.attr); f13 == nil || again != f13 || f13 == book.face(20, a.attr) || a.face != f13 {
		t.Error("the book does not keep one face per size")
	}
}

// TestNewLabelMadeOnce: a label the book makes shows its text at its size in its
// colours, with its panel in the background colour, drawn once, and leaves the GUI's
// default style as it was.
func TestNewLabelMadeOnce(t *testing.T) {
	st := labelStyle{size: 15, fg: math32.Color4{R: 1, G: 1, B: 1, A: 0.75}, bg: math32.Color4{A: 0.3}}
	def := gui.StyleDefault().Label
	book := &fontBook{}
	l := book.newLabel("tank-7", st)
	if l.Text() != "tank-7" || l.FontSize() != st.size || l.face != book.face(st.size, l.attr) || l.Color() != st.fg ||
		l.BgColor() != st.bg || l.Panel.Color4() != st.bg || l.draws != 1 {
		t.Errorf("made %q at %g pt in %v on %v (panel %v), drawn %d times; want %q at %g pt in %v on %v, drawn once",
			l.Text(), l.FontSize(), l.Color(), l.BgColor(), l.Panel.Color4(), l.draws, "tank-7", st.size, st.fg, st.bg)
	}
	if gui.StyleDefault().Label != def {
		t.Error("the GUI's default label style changed")
	}
}

// TestSetLookDrawsOnce: setLook leaves a label as setting its colours and then its
// text one by one does, and draws the text at most once however many change.
func TestSetLookDrawsOnce(t *testing.T) {
	const long = "Tank 17 destroyed Tank 203 with a shell from 412 m"
	fg0, bg0 := math32.Color4{R: 1, G: 1, B: 1, A: 1}, backdrop(0.7)
	fg1, bg1 := math32.Color4{R: 1, G: 0.45, B: 0.4, A: 0.5}, backdrop(0.35)
	book := &fontBook{}
	for _, c := range []struct {
		name   string
		text   string
		fg, bg math32.Color4
		draws  int
	}{
		{"nothing", long, fg0, bg0, 0},
		{"text", "Tank 9 joined", fg0, bg0, 1},
		{"colour", long, fg1, bg0, 1},
		{"background", long, fg0, bg1, 0},
		{"fade", long, fg1, bg1, 1},
		{"new line", "Tank 9 joined", fg1, bg1, 1},
		{"blank", "", fg1, bg1, 1},
	} {
		plain, look := book.label(long), book.label(long)
		for _, l := range []*textLabel{plain, look} {
			setColor4(l, fg0)
			setBgColor4(l, bg0)
		}
		setColor4(plain, c.fg)
		setBgColor4(plain, c.bg)
		setText(plain, c.text)
		before := look.draws
		setLook(look, c.text, c.fg, c.bg)
		if look.Text() != plain.Text() || look.Color() != plain.Color() || look.BgColor() != plain.BgColor() ||
			look.Panel.Color4() != plain.Panel.Color4() || !bytes.Equal(look.picture().Pix, plain.picture().Pix) ||
			look.ContentWidth() != plain.ContentWidth() || look.ContentHeight() != plain.ContentHeight() {
			t.Errorf("%s: setLook shows %q %v on %v (%gx%g), the sets %q %v on %v (%gx%g)", c.name,
				look.Text(), look.Color(), look.BgColor(), look.ContentWidth(), look.ContentHeight(),
				plain.Text(), plain.Color(), plain.BgColor(), plain.ContentWidth(), plain.ContentHeight())
		}
		if n := look.draws - before; n != c.draws {
			t.Errorf("%s: setLook drew %d times, want %d", c.name, n, c.draws)
		}
	}
}

// TestFontBookBounded: a window resized by dragging asks the book for ever new sizes;
// it keeps at most fontBookMax faces, and a label made before still draws with the
// face it holds.
func TestFontBookBounded(t *testing.T) {
	book := &fontBook{}
	l := book.label("tank-7")
	for i := range 3 * fontBookMax {
		size := 13 + float64(i)/100 // the HUD's 13 pt at scales 1.00, 1.01, …
		if f := book.face(size, l.attr); f == nil {
			t.Fatalf("no face at %g pt", size)
		}
		if len(book.faces) > fontBookMax {
			t.Fatalf("%d sizes asked, the book keeps %d faces, more than %d", i+1, len(book.faces), fontBookMax)
		}
	}
	setText(l, "tank-8")
	if img := l.picture(); l.face == nil || img.Rect.Dx() < 10 {
		t.Errorf("a label made before the book forgot its face draws %q %v wide", l.Text(), img.Rect)
	}
}
