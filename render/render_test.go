package render

import (
	"errors"
	"image"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/tank"
)

// drawFrames updates s with snaps(i) and draws it frames times on the main thread, and
// returns the last picture.
func drawFrames(t *testing.T, v *Viewer, s *Scene, snaps func(i int) *game.Snapshot, frames int) *image.RGBA {
	t.Helper()
	var img *image.RGBA
	var err error
	onMain(func() {
		for i := 0; i < frames && err == nil; i++ {
			s.Update(snaps(i), 1.0/60)
			err = v.Draw(s)
			if i == frames-1 {
				img = v.Capture()
			}
			v.Swap()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// savePNG keeps a test picture in $TREADLINE_SHOTS when set, for people to look at.
func savePNG(t *testing.T, img image.Image, name string) {
	t.Helper()
	dir := os.Getenv("TREADLINE_SHOTS")
	if dir == "" {
		return
	}
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(png.Encode(f, img), f.Close()); err != nil {
		t.Fatal(err)
	}
}

// rgb returns the pixel at (x, y) as floats in [0, 1].
func rgb(img *image.RGBA, x, y int) (r, g, b float64) {
	c := img.RGBAAt(x, y)
	return float64(c.R) / 255, float64(c.G) / 255, float64(c.B) / 255
}

func newTestScene(t *testing.T, o Overlay) *Scene {
	t.Helper()
	s, err := NewScene(synthTerrain(256, 2, 32, 4), SceneConfig{Width: testW, Height: testH, Overlays: o})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSkyAboveTerrainBelow checks that with the camera looking level over the map the
// top of the picture is sky (blue dominant, bright) and the bottom is ground (green
// or brown: red and green above blue).
func TestSkyAboveTerrainBelow(t *testing.T) {
	v := needViewer(t)
	s := newTestScene(t, 0)
	snap := testSnapshot(1)
	s.chase.Pitch = 0.05 // nearly level, so the horizon is in the middle of the picture
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 2)
	savePNG(t, img, "sky-terrain.png")
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	var skyRows, groundRows int
	panels := s.hud.appendPanelRects(nil)
	underPanel := func(x, y int) bool {
		for _, r := range panels {
			if r.overlaps(rect{float32(x), float32(y), 1, 1}) {
				return true
			}
		}
		return false
	}
	for _, y := range []int{2, h / 10, h / 6} {
		sky, samples := 0, 0
		// The HUD covers the corners; sample the sky between its panels.
		for x := w / 4; x < w; x += 4 {
			if underPanel(x, y) {
				continue
			}
			samples++
			r, g, b := rgb(img, x, y)
			if b > r+0.1 && b > g && b > 0.6 {
				sky++
			}
		}
		if samples > 20 && sky*10 >= samples*9 {
			skyRows++
		} else {
			t.Errorf("row %d: only %d of %d samples are sky-coloured", y, sky, samples)
		}
	}
	for _, y := range []int{h - 3, h - h/10} {
		ground := 0
		for x := 0; x < w; x += 8 {
			r, g, b := rgb(img, x, y)
			if g > b+0.05 && r > b {
				ground++
			}
		}
		if ground*8 >= w*6/10 {
			groundRows++
		} else {
			t.Errorf("row %d: only %d of %d samples are ground-coloured", y, ground, w/8)
		}
	}
	if skyRows != 3 || groundRows != 2 {
		t.Errorf("sky rows %d of 3, ground rows %d of 2", skyRows, groundRows)
	}
}

// TestTanksWhereTheWorldSaysTheyAre projects each tank's hull center with the scene's
// camera and checks the pixel there has the tank's team colour.
func TestTanksWhereTheWorldSaysTheyAre(t *testing.T) {
	v := needViewer(t)
	s := newTestScene(t, 0)
	snap := &game.Snapshot{Self: 0}
	place := func(id uint32, team int, x, z, yaw float64) {
		snap.Tanks = append(snap.Tanks, game.TankView{ID: id, Name: "", Team: team, Local: id == 1,
			Position: mgl64.Vec3{x, testGround(x, z), z}, Orientation: geom.YawQuat(yaw)})
	}
	place(1, 0, -40, 0, 0)    // the player, red, camera behind it
	place(2, 1, -10, -8, 1.2) // blue, ahead left
	place(3, 0, -5, 10, -0.7) // red, ahead right
	place(4, 1, 15, 3, 2.5)   // blue, further
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 3)
	savePNG(t, img, "tanks.png")
	view := s.View()
	for _, tv := range snap.Tanks {
		// The turret: team-coloured. The point is the turret's middle, half way up:
		// a far camera looks along the roof and sees its edge at the roof's height.
		sh := defaultShape()
		roof := tv.Position.Add(tv.Orientation.Rotate(sh.roof().Sub(mgl64.Vec3{0, sh.turretHeight / 2, 0})))
		x, y, ok := view.Project(roof)
		if !ok {
			t.Errorf("tank %d at %v is not in view", tv.ID, tv.Position)
			continue
		}
		px, py := int(x), int(y)
		if px < 0 || py < 0 || px >= testW || py >= testH {
			t.Errorf("tank %d projects off the picture at (%d, %d)", tv.ID, px, py)
			continue
		}
		r, g, b := meanRGB(img, px, py, 1)
		switch tv.Team {
		case 0: // red
			if !(r > g+0.15 && r > b+0.15) {
				t.Errorf("tank %d (red) at pixel (%d, %d): colour %.2f %.2f %.2f is not red", tv.ID, px, py, r, g, b)
			}
		case 1: // blue
			if !(b > r+0.15 && b > g+0.1) {
				t.Errorf("tank %d (blue) at pixel (%d, %d): colour %.2f %.2f %.2f is not blue", tv.ID, px, py, r, g, b)
			}
		}
	}
	// A spot of open ground between the tanks is not a team colour.
	x, y, _ := view.Project(mgl64.Vec3{-25, testGround(-25, 20), 20})
	if r, g, b := rgb(img, int(x), int(y)); r > g+0.15 || b > r+0.15 {
		t.Errorf("open ground at (%d, %d) has a team colour %.2f %.2f %.2f", int(x), int(y), r, g, b)
	}
}

// TestOverlayToggles draws the same snapshot with each overlay off, on and off again:
// the overlay's pixels must appear when on and vanish exactly when off.
func TestOverlayToggles(t *testing.T) {
	v := needViewer(t)
	snap := testSnapshot(4)
	for _, o := range []Overlay{OverlayGhost, OverlayTrail, OverlayClamp, OverlayMotion, OverlayLabels} {
		t.Run(o.String(), func(t *testing.T) {
			s := newTestScene(t, 0)
			frame := func(int) *game.Snapshot { return snap }
			off := drawFrames(t, v, s, frame, 2)
			s.SetOverlays(o)
			on := drawFrames(t, v, s, frame, 2)
			s.SetOverlays(0)
			offAgain := drawFrames(t, v, s, frame, 2)
			savePNG(t, on, "overlay-"+o.String()+".png")
			changed := diffPixels(off, on)
			if changed < 50 {
				t.Errorf("overlay %s changed only %d pixels", o, changed)
			}
			if back := diffPixels(off, offAgain); back != 0 {
				t.Errorf("overlay %s left %d pixels changed after it was turned off", o, back)
			}
		})
	}
}

// diffPixels counts pixels whose colour differs by more than 8 levels in any channel.
func diffPixels(a, b *image.RGBA) int {
	n := 0
	for y := 0; y < a.Bounds().Dy(); y++ {
		for x := 0; x < a.Bounds().Dx(); x++ {
			p, q := a.RGBAAt(x, y), b.RGBAAt(x, y)
			if absDiff(p.R, q.R) > 8 || absDiff(p.G, q.G) > 8 || absDiff(p.B, q.B) > 8 {
				n++
			}
		}
	}
	return n
}

func absDiff(a, b uint8) int { return int(math.Abs(float64(a) - float64(b))) }

// TestResizeAndCorruptPoses checks that a resized picture still draws, and that tanks
// with NaN poses are skipped rather than crashing or spoiling the others.
func TestResizeAndCorruptPoses(t *testing.T) {
	v := needViewer(t)
	s := newTestScene(t, OverlayAll)
	snap := testSnapshot(3)
	bad := snap.Tanks[2]
	bad.ID = 99
	bad.Position[0] = math.NaN()
	bad.Trail = []mgl64.Vec3{{math.Inf(1), 0, 0}, {0, 0, 0}}
	snap.Tanks = append(snap.Tanks, bad)
	snap.Known[1].LastKnownProjected.Position[1] = math.NaN()
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 2)
	if _, ok := s.tanks[99]; ok {
		t.Errorf("a tank with a NaN position got a model")
	}
	if len(s.tanks) != 3 {
		t.Errorf("scene has %d tanks, want 3", len(s.tanks))
	}
	s.Resize(320, 200)
	if w, h := s.Size(); w != 320 || h != 200 {
		t.Errorf("Size after Resize = %dx%d", w, h)
	}
	s.Resize(0, 0) // a minimised window changes nothing
	if w, h := s.Size(); w != 320 || h != 200 {
		t.Errorf("Size after Resize(0, 0) = %dx%d", w, h)
	}
	// Tanks leave: their models go.
	snap.Tanks = snap.Tanks[:1]
	drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 1)
	if len(s.tanks) != 1 {
		t.Errorf("after two tanks left the scene has %d tanks, want 1", len(s.tanks))
	}
	if img.Bounds().Dx() != testW {
		t.Errorf("picture width %d, want %d", img.Bounds().Dx(), testW)
	}
}

// meanRGB averages the (2k+1)² pixels around (x, y).
func meanRGB(img *image.RGBA, x, y, k int) (r, g, b float64) {
	n := 0.0
	for dy := -k; dy <= k; dy++ {
		for dx := -k; dx <= k; dx++ {
			pr, pg, pb := rgb(img, x+dx, y+dy)
			r, g, b, n = r+pr, g+pg, b+pb, n+1
		}
	}
	return r / n, g / n, b / n
}

// TestWindowResize resizes the real window: the next frame fills the new size and the
// scene's camera takes the new aspect.
func TestWindowResize(t *testing.T) {
	v := needViewer(t)
	s := newTestScene(t, 0)
	snap := testSnapshot(2)
	for _, size := range [][2]int{{400, 300}, {testW, testH}} {
		var img *image.RGBA
		var err error
		onMain(func() {
			v.Window().SetSize(size[0], size[1])
			for i := 0; i < 3 && err == nil; i++ {
				v.Swap() // delivers the resize
				s.Update(snap, 1.0/60)
				err = v.Draw(s)
			}
			img = v.Capture()
		})
		if err != nil {
			t.Fatal(err)
		}
		if b := img.Bounds(); b.Dx() != size[0] || b.Dy() != size[1] {
			t.Errorf("after resizing to %dx%d the frame is %dx%d", size[0], size[1], b.Dx(), b.Dy())
		}
		if w, h := s.Size(); w != size[0] || h != size[1] {
			t.Errorf("after resizing to %dx%d the scene is %dx%d", size[0], size[1], w, h)
		}
		// The player's tank is still where the camera projects it, at the new size: the
		// middle of the hull's rear plate, which the chase camera looks at.
		x, y, ok := s.View().Project(snap.Tanks[0].Position.Add(mgl64.Vec3{-tank.DefaultLength / 2, defaultShape().hull.center[1], 0}))
		if !ok {
			t.Fatalf("player's tank out of view at %dx%d", size[0], size[1])
		}
		if r, g, b := meanRGB(img, int(x), int(y), 1); !(r > g+0.15 && r > b+0.15) {
			t.Errorf("at %dx%d the player's tank pixel (%.0f, %.0f) is %.2f %.2f %.2f, not red", size[0], size[1], x, y, r, g, b)
		}
	}
}

// TestFrustumCulling looks into the map from a corner: chunks outside the view are
// not drawn.
func TestFrustumCulling(t *testing.T) {
	v := needViewer(t)
	tt := synthTerrain(256, 2, 32, 4)
	s, err := NewScene(tt, SceneConfig{Width: testW, Height: testH})
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(1)
	x, z := -240.0, -240.0
	snap.Tanks[0].Position = mgl64.Vec3{x, testGround(x, z), z}
	drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 1)
	var drawn int
	onMain(func() { drawn = v.rend.Stats().GraphicMats })
	// Without culling every chunk (64) plus sky, border, rock, tank and lines would
	// be drawn; looking along +X from the corner about a third of the map is in view.
	if drawn >= len(tt.Chunks) {
		t.Errorf("%d meshes drawn with %d terrain chunks in the scene: no culling", drawn, len(tt.Chunks))
	}
	t.Logf("%d meshes drawn of %d chunks and 8 other meshes", drawn, len(tt.Chunks))
}
