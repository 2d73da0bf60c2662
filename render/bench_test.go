package render

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/cputime"
)

// benchSnapshot is 32 tanks around the player with every overlay's data filled in.
func benchSnapshot() *game.Snapshot {
	snap := testSnapshot(32)
	for i := range snap.Tanks {
		tv := &snap.Tanks[i]
		x, z := float64(i%8)*20-60, float64(i/8)*20-30
		tv.Position = mgl64.Vec3{x, testGround(x, z), z}
		for len(tv.Trail) < 96 {
			tv.Trail = append(tv.Trail, tv.Position)
		}
	}
	return snap
}

// BenchmarkSceneUpdate measures turning a 32-tank snapshot into the scene graph with
// every overlay on (no drawing; runs without a display).
func BenchmarkSceneUpdate(b *testing.B) {
	s, err := NewScene(synthTerrain(256, 2, 32, 4), SceneConfig{Overlays: OverlayAll})
	if err != nil {
		b.Fatal(err)
	}
	snap := benchSnapshot()
	s.Update(snap, 1.0/60) // create the models
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		snap.Time += 1.0 / 60
		s.Update(snap, 1.0/60)
	}
	b.ReportMetric(float64(len(snap.Tanks)), "tanks")
}

// BenchmarkDrawFrame measures drawing and swapping one 32-tank frame with every
// overlay on at the test window's size (software rendering under Xvfb).
func BenchmarkDrawFrame(b *testing.B) {
	if testViewer == nil {
		b.Skipf("no window: %v", gl.NoWindow())
	}
	s, err := NewScene(synthTerrain(256, 2, 32, 4), SceneConfig{Width: testW, Height: testH, Overlays: OverlayAll})
	if err != nil {
		b.Fatal(err)
	}
	snap := benchSnapshot()
	var drawErr error
	onMain(func() {
		s.Update(snap, 1.0/60)
		b.ResetTimer()
		for i := 0; i < b.N && drawErr == nil; i++ {
			s.Update(snap, 1.0/60)
			drawErr = testViewer.Draw(s)
			testViewer.Swap()
		}
	})
	if drawErr != nil {
		b.Fatal(drawErr)
	}
	b.ReportMetric(float64(b.Elapsed().Milliseconds())/float64(b.N), "ms/frame")
}

// benchHelp is a help list the size of the client's: 31 keys, each with a line
// saying what it does.
func benchHelp() []HelpLine {
	lines := make([]HelpLine, 31)
	for i := range lines {
		lines[i] = HelpLine{Key: fmt.Sprintf("Key %d", i), What: fmt.Sprintf("what key %d does, in about forty letters", i)}
	}
	return lines
}

// BenchmarkHelpPanel draws a 32-tank frame at 1280×720 alternately with the F1 help
// hidden and shown, in one scene, and reports the process CPU time of each kind of
// frame and their difference (help-cpu-ms), what showing the help costs. Run it with
// LP_NUM_THREADS=0 so the software renderer draws on the benchmark's own thread and
// CPU time counts all of the drawing; wall time on a shared machine says little:
//
//	LP_NUM_THREADS=0 xvfb-run -a go test -run '^$' -bench HelpPanel -benchtime 40x ./render
func BenchmarkHelpPanel(b *testing.B) {
	if testViewer == nil {
		b.Skipf("no window: %v", gl.NoWindow())
	}
	s, err := NewScene(synthTerrain(256, 2, 32, 4), SceneConfig{Width: DefaultWidth, Height: DefaultHeight, Help: benchHelp()})
	if err != nil {
		b.Fatal(err)
	}
	snap := benchSnapshot()
	var drawErr error
	var cpu [2]time.Duration // hidden, shown
	onMain(func() {
		testViewer.Window().SetSize(DefaultWidth, DefaultHeight)
		testViewer.Swap()
		for _, help := range []bool{false, true} { // warm up both
			s.SetPanels(Panels{Help: help})
			s.Update(snap, 1.0/60)
			drawErr = testViewer.Draw(s)
			testViewer.Capture()
		}
		b.ResetTimer()
		for i := 0; i < b.N && drawErr == nil; i++ {
			for k, help := range []bool{false, true} {
				s.SetPanels(Panels{Help: help})
				c := cputime.Process()
				s.Update(snap, 1.0/60)
				drawErr = testViewer.Draw(s)
				testViewer.Capture() // waits for the frame to be drawn
				cpu[k] += cputime.Process() - c
			}
		}
		b.StopTimer()
		testViewer.Window().SetSize(testW, testH)
		testViewer.Swap()
	})
	if drawErr != nil {
		b.Fatal(drawErr)
	}
	ms := func(d time.Duration) float64 { return float64(d) / 1e6 / float64(b.N) }
	b.ReportMetric(ms(cpu[0]), "hidden-cpu-ms/frame")
	b.ReportMetric(ms(cpu[1]), "shown-cpu-ms/frame")
	b.ReportMetric(ms(cpu[1]-cpu[0]), "help-cpu-ms")
}

// BenchmarkSceneUpdateCrowd measures turning a 512-tank snapshot into the scene
// graph, every overlay on, from the player's chase camera in the middle of the
// battle (no drawing; runs without a display): the client's per-frame scene work in
// a full match.
func BenchmarkSceneUpdateCrowd(b *testing.B) {
	for _, n := range []int{64, 512} {
		b.Run(fmt.Sprintf("tanks=%d", n), func(b *testing.B) {
			s, err := NewScene(synthTerrain(256, 2, 32, 4), SceneConfig{Overlays: OverlayAll})
			if err != nil {
				b.Fatal(err)
			}
			snap := crowdSnapshot(n)
			snap.Self = n / 2
			snap.Tanks[n/2].Local = true
			for i := range snap.Tanks {
				tv := &snap.Tanks[i]
				for len(tv.Trail) < 96 {
					tv.Trail = append(tv.Trail, tv.Position)
				}
			}
			s.Update(snap, 1.0/60) // create the models
			s.Update(snap, 1.0/60)
			b.ReportAllocs()
			b.ResetTimer()
			cpu0 := cputime.Process()
			for b.Loop() {
				snap.Time += 1.0 / 60
				s.Update(snap, 1.0/60)
			}
			full, low, markers := s.CrowdCounts()
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
			// CPU time: on a shared machine wall time includes waiting for a core.
			b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e6, "cpu-ms/frame")
			b.ReportMetric(float64(full), "full")
			b.ReportMetric(float64(low), "low")
			b.ReportMetric(float64(markers), "markers")
		})
	}
}

// BenchmarkScenePlay measures the scene update of a practice as the client plays
// it: no overlay, combat on (the clock, the scores, the team line), at 16 frames a
// second (llvmpipe's rate at 64 tanks, so the minimap is redrawn every frame and the
// HUD's text every fourth), from the player's chase camera in the middle of the
// battle. ",cold" passes coldBytes through the caches before each frame, outside
// the timer, as software GL does between the client's scene updates when it
// rasterises a 1280×720 frame on the same cores: the figure tanks -bench-frames
// reads there.
func BenchmarkScenePlay(b *testing.B) {
	for _, c := range []struct {
		n    int
		fps  float64
		cold bool
	}{{64, 16, false}, {512, 16, false}, {512, 5, false}, {64, 16, true}, {512, 5, true}} {
		n, dt := c.n, 1/c.fps
		name := fmt.Sprintf("tanks=%d", n)
		if c.fps != 16 {
			name += fmt.Sprintf(",fps=%g", c.fps)
		}
		if c.cold {
			name += ",cold"
		}
		b.Run(name, func(b *testing.B) {
			// The client hides labels behind hills with the map's exact ray
			// (terrain.Map.Raycast), which costs little; without one the scene
			// marches rays over the heights, which would dominate here.
			clear := func(mgl64.Vec3, mgl64.Vec3, float64) (mgl64.Vec3, bool) { return mgl64.Vec3{}, false }
			s, err := NewScene(synthTerrain(256, 2, 32, 4), SceneConfig{Raycast: clear})
			if err != nil {
				b.Fatal(err)
			}
			snap := crowdSnapshot(n)
			snap.Self = n / 2
			snap.Tanks[n/2].Local = true
			cv := &snap.Combat
			cv.Enabled, cv.Remaining, cv.Health, cv.MaxHealth, cv.Loaded = true, 600, 100, 100, 1
			for i := range snap.Tanks {
				tv := &snap.Tanks[i]
				tv.Team = 1 + i%2
				cv.Scores = append(cv.Scores, combat.Score{Owner: tv.ID, Name: tv.Name, Team: tv.Team, Kills: i % 3})
			}
			s.Update(snap, dt) // create the models
			s.Update(snap, dt)
			b.ReportAllocs()
			b.ResetTimer()
			var evict []byte
			if c.cold {
				evict = make([]byte, coldBytes)
			}
			var cpu time.Duration
			for b.Loop() {
				if c.cold {
					b.StopTimer()
					passThrough(evict)
					b.StartTimer()
				}
				c0 := cputime.Process()
				snap.Time += dt
				cv.Remaining -= dt
				s.Update(snap, dt)
				cpu += cputime.Process() - c0
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1e6, "ms/frame")
			// CPU time: on a shared machine wall time includes waiting for a core.
			b.ReportMetric(float64(cpu)/float64(b.N)/1e6, "cpu-ms/frame")
		})
	}
}

// coldBytes is how much memory BenchmarkScenePlay's cold cases pass through the
// caches between frames: about what llvmpipe touches drawing a 1280×720 frame (its
// colour and depth buffers, 7.4 MB, and the textures and vertices it reads),
// enough to push the scene's working set out of this machine's L2 and most of the
// shared L3.
const coldBytes = 24 << 20

// passThrough writes one byte of every 64 of buf, so that its cache lines take the
// caches' place.
func passThrough(buf []byte) {
	for i := 0; i < len(buf); i += 64 {
		buf[i]++
	}
}
