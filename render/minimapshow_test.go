package render

import (
	"image"

	"testing"

	"github.com/treadline/treadline/game"
)

// TestMinimapShowsItsFrame: the minimap on the screen is its frame texel for texel,
// after redraws and after resizes that make its texture again at another size (the
// pixels given before a resize are of the old frame and must not be sent after it).
func TestMinimapShowsItsFrame(t *testing.T) {
	v := needViewer(t)
	s := newTestScene(t, 0)
	snap := testSnapshot(3)
	frames := func(int) *game.Snapshot { return snap }
	check := func(img *image.RGBA, when string) {
		t.Helper()
		m := s.minimap
		pos := m.img.Position()
		x0, y0 := int(pos.X), int(pos.Y)
		bad := 0
		for y := 0; y < m.size; y++ {
			for x := 0; x < m.size; x++ {
				got, want := img.RGBAAt(x0+x, y0+y), m.frame.RGBAAt(x, y)
				if got != want {
					if bad < 3 {
						t.Errorf("%s: minimap pixel (%d, %d) is %v on the screen, %v in its frame", when, x, y, got, want)
					}
					bad++
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of the minimap's %d pixels differ from its frame", when, bad, m.size*m.size)
		}
	}
	check(drawFrames(t, v, s, frames, 2), "after two frames")
	s.Resize(320, 200) // the minimap made again smaller; the next draw makes it again at the window's size
	check(drawFrames(t, v, s, frames, 1), "after a resize")
	check(drawFrames(t, v, s, frames, 1), "a frame after the resize")
}
