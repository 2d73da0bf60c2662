package render

import (
	"fmt"
	"image"
	"math"
	"strings"
	"testing"
)

// TestMenuRowsFitThePanel lays a menu page out with a long value at several picture
// sizes: every value lies inside the panel, and the panel is no wider than the
// picture.
func TestMenuRowsFitThePanel(t *testing.T) {
	page := MenuPage{Title: "Keys", Selected: 4, Hint: "↑↓ choose · Enter rebind · Esc back",
		Items: [][2]string{{"throttle ahead", "W"}, {"throttle reverse", "S"}, {"steer left", "A"}, {"steer right", "D"},
			{"turret left", "press a key… (Esc keeps Q)"}, {"turret right", "E"}, {"gun up", "R"}, {"gun down", "F"},
			{"Defaults", ""}, {"Back", ""}}}
	for _, size := range [][2]int{{1280, 720}, {640, 360}, {400, 300}} {
		v := NewMenuView(size[0], size[1])
		v.Show(page)
		bp := v.back.Position()
		bw, bh := v.back.Size()
		if bp.X < 0 || bp.X+bw > float32(size[0])+0.5 {
			t.Errorf("%dx%d: panel at (%.0f, %.0f) %.0f×%.0f is wider than the picture", size[0], size[1], bp.X, bp.Y, bw, bh)
		}
		for i := range page.Items {
			if !v.vals[i].Visible() {
				continue // scrolled away
			}
			x, y := v.vals[i].Position().X, v.vals[i].Position().Y
			w, h := v.vals[i].Size()
			if x < bp.X || y < bp.Y || x+w > bp.X+bw+0.5 || y+h > bp.Y+bh+0.5 {
				t.Errorf("%dx%d: value %q at (%.0f, %.0f) %.0f×%.0f overflows the panel (%.0f, %.0f) %.0f×%.0f",
					size[0], size[1], page.Items[i][1], x, y, w, h, bp.X, bp.Y, bw, bh)
			}
		}
	}
}

// TestMenuFitsAnyWindow lays the longest pages out at every window shape the client
// allows (64 to 16384 pixels a side): the panel lies inside the picture, every row
// shown lies inside the panel, the selected row shows, and the title says which rows
// show when not all do.
func TestMenuFitsAnyWindow(t *testing.T) {
	settings := longSettingsPage()
	keys := MenuPage{Title: "Keys", Hint: "Enter, then the new key · Esc back"}
	for _, r := range []string{"throttle ahead", "throttle reverse", "steer left", "steer right", "turret left",
		"turret right", "gun up", "gun down", "fire", "scores", "chat", "Defaults"} {
		keys.Items = append(keys.Items, [2]string{r, "press a key… (Esc keeps Q)"})
	}
	for _, size := range [][2]int{{1280, 720}, {640, 360}, {400, 300}, {320, 200}, {64, 64}, {64, 900}, {2000, 64}, {16384, 16384}} {
		for _, page := range []MenuPage{settings, keys} {
			for _, sel := range []int{0, len(page.Items) - 1} {
				page.Selected = sel
				v := NewMenuView(size[0], size[1])
				v.Show(page)
				checkMenuFits(t, v, page, size)
			}
		}
	}
}

// checkMenuFits checks the layout of page in v, a size[0]×size[1] picture.
func checkMenuFits(t *testing.T, v *MenuView, page MenuPage, size [2]int) {
	t.Helper()
	const slack = 0.5
	bp := v.back.Position()
	bw, bh := v.back.Size()
	if bp.X < -slack || bp.Y < -slack || bp.X+bw > float32(size[0])+slack || bp.Y+bh > float32(size[1])+slack {
		t.Errorf("%dx%d %s: panel at (%.0f, %.0f) %.0f×%.0f leaves the picture", size[0], size[1], page.Title, bp.X, bp.Y, bw, bh)
	}
	inside := func(what string, x, y, w, h float32) {
		if x < bp.X-slack || y < bp.Y-slack || x+w > bp.X+bw+slack || y+h > bp.Y+bh+slack {
			t.Errorf("%dx%d %s: %s at (%.0f, %.0f) %.0f×%.0f overflows the panel (%.0f, %.0f) %.0f×%.0f",
				size[0], size[1], page.Title, what, x, y, w, h, bp.X, bp.Y, bw, bh)
		}
	}
	w, h := v.title.Size()
	inside("the title", v.title.Position().X, v.title.Position().Y, w, h)
	w, h = v.hint.Size()
	inside("the hint", v.hint.Position().X, v.hint.Position().Y, w, h)
	shown := 0
	for i := range page.Items {
		if !v.names[i].Visible() {
			continue
		}
		shown++
		for _, l := range []*textLabel{v.names[i], v.vals[i]} {
			w, h := l.Size()
			inside(fmt.Sprintf("row %d %q", i, l.Text()), l.Position().X, l.Position().Y, w, h)
		}
	}
	if !v.names[page.Selected].Visible() || !v.bar.Visible() {
		t.Errorf("%dx%d %s: the selected row %d is hidden", size[0], size[1], page.Title, page.Selected)
	}
	if scrolled := strings.Contains(v.title.Text(), " of "); scrolled != (shown < len(page.Items)) {
		t.Errorf("%dx%d %s: %d of %d rows shown, title %q", size[0], size[1], page.Title, shown, len(page.Items), v.title.Text())
	}
}

// TestMenuDrawnInsideTheWindow draws the longest settings page alone in the 640×360
// test window: the panel leaves a strip of the backdrop above and below it, and the
// hint under the rows is drawn inside the window.
func TestMenuDrawnInsideTheWindow(t *testing.T) {
	v := needViewer(t)
	page := longSettingsPage()
	page.Selected = len(page.Items) - 1
	m := NewMenuView(testW, testH)
	m.Show(page)
	var img *image.RGBA
	var err error
	onMain(func() {
		if err = v.DrawMenu(m); err == nil {
			img = v.Capture()
			v.Swap()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	savePNG(t, img, "menu-640x360.png")
	backdrop := func(r, g, b float64) bool {
		return math.Abs(r-float64(menuBackdrop.R)) < 0.03 && math.Abs(g-float64(menuBackdrop.G)) < 0.03 &&
			math.Abs(b-float64(menuBackdrop.B)) < 0.03
	}
	for _, y := range []int{0, 2, testH - 3, testH - 1} {
		for x := 0; x < testW; x++ {
			if r, g, b := rgb(img, x, y); !backdrop(r, g, b) {
				t.Fatalf("pixel (%d, %d) is %.2f %.2f %.2f, not the backdrop: the panel reaches the window's edge", x, y, r, g, b)
			}
		}
	}
	hp := m.hint.Position()
	hw, hh := m.hint.Size()
	if hp.Y+hh > testH {
		t.Fatalf("the hint at y %.0f–%.0f is below the window", hp.Y, hp.Y+hh)
	}
	text := 0
	for y := int(hp.Y); y < int(hp.Y+hh); y++ {
		for x := int(hp.X); x < int(hp.X+hw); x++ {
			if r, g, b := rgb(img, x, y); r > 0.45 && g > 0.5 && b > 0.55 {
				text++
			}
		}
	}
	if text < 40 {
		t.Errorf("the hint at (%.0f, %.0f) %.0f×%.0f: %d text pixels, want 40", hp.X, hp.Y, hw, hh, text)
	}
}

// longSettingsPage is the client's settings page, the longest menu page.
func longSettingsPage() MenuPage {
	return MenuPage{Title: "Settings", Hint: "↑↓ choose · ←→ change · Enter edit · Esc back (saved as you go)",
		Items: [][2]string{{"Name", "player"}, {"Team colour", "blue"}, {"Mouse sensitivity", "1.0×"},
			{"Invert mouse", "off"}, {"Field of view", "70°"}, {"Graphics quality", "high"}, {"Volume", "80%"},
			{"Sound", "on"}, {"Record matches", "off"}, {"Keys…", ""}, {"Back", ""}}}
}
