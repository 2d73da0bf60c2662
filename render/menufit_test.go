package render

import (
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
			x, y := v.vals[i].Position().X, v.vals[i].Position().Y
			w, h := v.vals[i].Size()
			if x < bp.X || y < bp.Y || x+w > bp.X+bw+0.5 || y+h > bp.Y+bh+0.5 {
				t.Errorf("%dx%d: value %q at (%.0f, %.0f) %.0f×%.0f overflows the panel (%.0f, %.0f) %.0f×%.0f",
					size[0], size[1], page.Items[i][1], x, y, w, h, bp.X, bp.Y, bw, bh)
			}
		}
	}
}
