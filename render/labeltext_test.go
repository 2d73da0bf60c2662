package render

import (
	"fmt"
	"runtime"
	"testing"

	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
)

// TestLabelSettersDrawOnlyOnChange: setting a label's text, colours or size to what
// it already shows draws nothing (no allocation: g3n draws a new image on every set),
// and setting another value shows it.
func TestLabelSettersDrawOnlyOnChange(t *testing.T) {
	fonts := &fontBook{}
	red := math32.Color{R: 1, G: 0.2, B: 0.1}
	for _, c := range []struct {
		name       string
		set, other func(l *gui.Label)
		check      func(l *gui.Label) bool
	}{
		{"text", func(l *gui.Label) { setText(l, "age 0.25 s") }, func(l *gui.Label) { setText(l, "age 0.50 s") },
			func(l *gui.Label) bool { return l.Text() == "age 0.50 s" }},
		{"colour", func(l *gui.Label) { setColor(l, red) }, func(l *gui.Label) { setColor(l, math32.Color{R: 1, G: 1, B: 1}) },
			func(l *gui.Label) bool { return l.Color() == math32.Color4{R: 1, G: 1, B: 1, A: 1} }},
		{"colour4", func(l *gui.Label) { setColor4(l, math32.Color4{R: 1, A: 0.5}) }, func(l *gui.Label) { setColor4(l, math32.Color4{G: 1, A: 0.25}) },
			func(l *gui.Label) bool { return l.Color() == math32.Color4{G: 1, A: 0.25} }},
		{"background", func(l *gui.Label) { setBgColor4(l, backdrop(0.5)) }, func(l *gui.Label) { setBgColor4(l, backdrop(0.7)) },
			func(l *gui.Label) bool { return l.BgColor() == backdrop(0.7) }},
		{"size", func(l *gui.Label) { fonts.setFontSize(l, 13) }, func(l *gui.Label) { fonts.setFontSize(l, 20) },
			func(l *gui.Label) bool { return l.FontSize() == 20 && l.Font() == fonts.font(20) }},
	} {
		l := gui.NewLabel("HIT  −25")
		c.set(l)
		if n := testing.AllocsPerRun(20, func() { c.set(l) }); n != 0 {
			t.Errorf("%s: setting the same value again allocates %.0f times: the label is drawn again", c.name, n)
		}
		if n := mallocs(func() { c.other(l) }); n == 0 {
			t.Errorf("%s: a new value drew nothing", c.name)
		}
		if !c.check(l) {
			t.Errorf("%s: the label does not show the new value", c.name)
		}
	}
}

// TestFontBookKeepsFacesWarm: labels of two sizes drawn in turn, as the HUD draws its
// figures, each with its size's font from the book, allocate a small part of what they
// do sharing g3n's one default font, whose glyph face (and cache) is made again at
// every change of size.
func TestFontBookKeepsFacesWarm(t *testing.T) {
	redraws := func(book *fontBook) uint64 {
		a, b := gui.NewLabel(""), gui.NewLabel("")
		if book != nil {
			book.setFontSize(a, 13)
			book.setFontSize(b, 20)
		} else {
			a.SetFontSize(13)
			b.SetFontSize(20)
		}
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range 20 {
			a.SetText(fmt.Sprintf("age %d s", i))
			b.SetText(fmt.Sprintf("%d fps", i))
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	shared, booked := redraws(nil), redraws(&fontBook{})
	t.Logf("40 redraws: %d bytes sharing the default font, %d with a font per size", shared, booked)
	if booked*4 > shared {
		t.Errorf("a font per size allocates %d bytes in 40 redraws, sharing one font %d: want under a quarter", booked, shared)
	}
	book := &fontBook{}
	f13 := book.font(13)
	if again := book.font(13); f13 == nil || again != f13 || f13 == book.font(20) {
		t.Error("the book does not keep one font per size")
	}
}

// mallocs is how many allocations f makes, run once.
func mallocs(f func()) uint64 {
	n, _ := allocated(f)
	return n
}

// allocated returns how many allocations f makes, and how many bytes.
func allocated(f func()) (mallocs, bytes uint64) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.Mallocs - before.Mallocs, after.TotalAlloc - before.TotalAlloc
}

// TestNewLabelMadeOnce: a label the book makes shows its text at its size with the
// book's font and in its colours, leaves the GUI's default style as it was, and costs
// a small part of what making a label the plain way and then setting its size and
// colours costs (which draws it five times and makes glyph faces of two fonts).
func TestNewLabelMadeOnce(t *testing.T) {
	st := labelStyle{size: 15, fg: math32.Color4{R: 1, G: 1, B: 1, A: 0.75}, bg: math32.Color4{A: 0.3}}
	def := gui.StyleDefault().Label
	book := &fontBook{}
	l := book.newLabel("tank-7", st)
	if l.Text() != "tank-7" || l.FontSize() != st.size || l.Font() != book.font(st.size) || l.Color() != st.fg || l.BgColor() != st.bg {
		t.Errorf("made %q at %g pt (book's font: %v) in %v on %v, want %q at %g pt in %v on %v",
			l.Text(), l.FontSize(), l.Font() == book.font(st.size), l.Color(), l.BgColor(), "tank-7", st.size, st.fg, st.bg)
	}
	if gui.StyleDefault().Label != def {
		t.Error("the GUI's default label style changed")
	}
	bytes := func(make func(i int)) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		for i := range 10 {
			make(i)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	plain := bytes(func(i int) {
		l := gui.NewLabel(fmt.Sprintf("tank-%d", i))
		book.setFontSize(l, st.size)
		setColor4(l, st.fg)
		setBgColor4(l, st.bg)
	})
	once := bytes(func(i int) { book.newLabel(fmt.Sprintf("tank-%d", i), st) })
	t.Logf("10 labels: %d bytes made the plain way, %d made by the book", plain, once)
	if once*4 > plain {
		t.Errorf("10 labels made by the book allocate %d bytes, the plain way %d: want under a quarter", once, plain)
	}
}

// TestSetLookDrawsOnce: setLook leaves a label as setting its colours and then its
// text one by one does (text, colours, size), and when two or three of them change
// it allocates less than the one-by-one sets, which draw the whole text for each.
func TestSetLookDrawsOnce(t *testing.T) {
	const long = "Tank 17 destroyed Tank 203 with a shell from 412 m"
	fg0, bg0 := math32.Color4{R: 1, G: 1, B: 1, A: 1}, backdrop(0.7)
	fg1, bg1 := math32.Color4{R: 1, G: 0.45, B: 0.4, A: 0.5}, backdrop(0.35)
	for _, c := range []struct {
		name   string
		text   string
		fg, bg math32.Color4
		fewer  bool // two or more change: setLook draws the text once
	}{
		{"nothing", long, fg0, bg0, false},
		{"text", "Tank 9 joined", fg0, bg0, false},
		{"colour", long, fg1, bg0, false},
		{"fade", long, fg1, bg1, true},
		{"new line", "Tank 9 joined", fg1, bg1, true},
		{"text and background", "Tank 9 joined", fg0, bg1, true},
		{"blank", "", fg1, bg1, false},
	} {
		plain, look := gui.NewLabel(long), gui.NewLabel(long)
		for _, l := range []*gui.Label{plain, look} {
			setColor4(l, fg0)
			setBgColor4(l, bg0)
		}
		_, byOne := allocated(func() {
			setColor4(plain, c.fg)
			setBgColor4(plain, c.bg)
			setText(plain, c.text)
		})
		_, once := allocated(func() { setLook(look, c.text, c.fg, c.bg) })
		if look.Text() != plain.Text() || look.Color() != plain.Color() || look.BgColor() != plain.BgColor() ||
			look.ContentWidth() != plain.ContentWidth() || look.ContentHeight() != plain.ContentHeight() {
			t.Errorf("%s: setLook shows %q %v on %v (%gx%g), the sets %q %v on %v (%gx%g)", c.name,
				look.Text(), look.Color(), look.BgColor(), look.ContentWidth(), look.ContentHeight(),
				plain.Text(), plain.Color(), plain.BgColor(), plain.ContentWidth(), plain.ContentHeight())
		}
		if c.fewer && 4*once > 3*byOne {
			t.Errorf("%s: setLook allocates %d B, the sets one by one %d: the text is drawn more than once", c.name, once, byOne)
		}
	}
}
