package client

import (
	"context"
	"image"
	"image/png"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/record/recordtest"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/replay"
)

// TestReplayViewer plays a recorded practice match in the test window, re-reckoned
// with static, with the A/B ghost and the truth, and looks at the picture: the
// timeline's played part, the white ghost and the magenta truth are there.
func TestReplayViewer(t *testing.T) {
	v := needViewer(t)
	mp := testMap(t)
	live, err := recordtest.Practice(recordtest.Config{Map: mp, Bots: 3, Seconds: 12, Seed: 2, Dir: t.TempDir(),
		Camera: mgl64.Vec3{0, 40, 0}, Link: impair.Link{Latency: 150 * time.Millisecond, Loss: 0.05}})
	if err != nil {
		t.Fatal(err)
	}
	rec, err := replay.Load(live.Path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: mp})
	if err != nil {
		t.Fatal(err)
	}
	// Static reckoning shows each tank where its last update put it: the truth and the
	// A/B ghost (projective velocity blending) stand apart from it, and are drawn.
	if err := p.SetAlgorithm(deadreckon.Static); err != nil {
		t.Fatal(err)
	}
	shot := filepath.Join(t.TempDir(), "replay.png")
	pvb := deadreckon.ProjectiveVelocityBlend
	cfg := ReplayConfig{Display: Display{Terrain: render.TerrainFromMap(mp, 0), Ground: mp.HeightAt, Viewer: v,
		Orbit: math.Pi / 2, FixedStep: time.Second / 30, Screenshot: shot, Frames: 20,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, Seek: 6 * time.Second, Alt: &pvb}
	gl.Do(func() {
		err = RunReplay(context.Background(), cfg, p)
		v.Window().SetShouldClose(false)
	})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Time(), rec.Start+6+19.0/30; got < want-0.05 || got > want+0.05 {
		t.Errorf("replay at %.3f s after 20 frames from 6 s, want %.3f s", got, want)
	}
	img := readPNG(t, shot)
	// The timeline's bar spans the middle 60% near the bottom; half of the recording is
	// played, so its left part is filled and its right part not.
	filled, empty := timelinePixels(img)
	if filled < 50 || empty < 50 {
		t.Errorf("timeline: %d filled and %d empty pixels", filled, empty)
	}
	// The ghosts are drawn unlit: white (A/B) and magenta (truth) pixels in the world.
	white, magenta := 0, 0
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	for y := h / 6; y < h*3/4; y++ {
		for x := w / 4; x < w*3/4; x++ {
			switch c := rgb(img, x, y); {
			case near(c, [3]int{255, 255, 255}, 8):
				white++
			case near(c, [3]int{255, 77, 230}, 30):
				magenta++
			}
		}
	}
	t.Logf("timeline %d/%d, white %d, magenta %d", filled, empty, white, magenta)
	if white < 20 || magenta < 20 {
		t.Errorf("%d white (A/B ghost) and %d magenta (truth) pixels in the middle of the picture", white, magenta)
	}
}

// timelinePixels counts the pixels of the timeline's played (filled) and unplayed
// (empty) bar in the middle 60% of the bottom quarter of img.
func timelinePixels(img image.Image) (filled, empty int) {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	for y := h * 3 / 4; y < h; y++ {
		for x := w / 5; x < w*4/5; x++ {
			switch c := rgb(img, x, y); {
			case near(c, [3]int{217, 140, 38}, 12):
				filled++
			case near(c, [3]int{26, 28, 33}, 12):
				empty++
			}
		}
	}
	return filled, empty
}

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatal(err)
	}
	return img
}

// rgb returns the 8-bit colour of img at (x, y).
func rgb(img image.Image, x, y int) [3]int {
	r, g, b, _ := img.At(x, y).RGBA()
	return [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
}

// near reports whether colours a and b differ by at most tol in every channel.
func near(a, b [3]int, tol int) bool {
	for i := range a {
		if d := a[i] - b[i]; d > tol || d < -tol {
			return false
		}
	}
	return true
}
