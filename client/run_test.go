package client

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/render"
)

// stepMatch is a fakeMatch that serves a fixed snapshot and can fail.
type stepMatch struct {
	fakeMatch
	snap  *game.Snapshot
	steps int
	fail  error
	times []float64
	then  func() // if set, runs after every Step
}

func (s *stepMatch) Step(now float64, in physics.Input) error {
	s.steps++
	s.times = append(s.times, now)
	if s.then != nil {
		s.then()
	}
	return s.fail
}
func (s *stepMatch) Snapshot(dst *game.Snapshot) { *dst = *s.snap }

// TestLoop runs a match in the test window: a screenshot run, a benchmark run, a
// closed window, a cancelled context and a failing match each end it the way Run
// documents; every frame steps the match once, after telling it where the
// camera stands.
func TestLoop(t *testing.T) {
	v := needViewer(t)
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	bg := context.Background()
	mp := testMap(t)
	overlays := render.OverlayAll
	run := func(ctx context.Context, cfg RunConfig, sess Match, before func()) error {
		t.Helper()
		s, err := render.NewScene(render.TerrainFromMap(mp, 0), render.SceneConfig{Width: testW, Height: testH,
			Overlays: overlays})
		if err != nil {
			t.Fatal(err)
		}
		gl.Do(func() {
			if before != nil {
				before()
			}
			err = newMatchScreen(cfg, sess, s, v, logger).run(ctx)
			v.Window().SetShouldClose(false)
		})
		return err
	}
	snap := tanksOn(mp, 4)

	shot := filepath.Join(t.TempDir(), "shot.png")
	sess := &stepMatch{snap: snap}
	if err := run(bg, RunConfig{Display: Display{Screenshot: shot, Duration: 500 * time.Millisecond, FixedStep: 100 * time.Millisecond}}, sess, nil); err != nil {
		t.Fatalf("screenshot run: %v", err)
	}
	if sess.steps != 5 || math.Abs(sess.times[4]-sess.times[0]-0.4) > 1e-9 {
		t.Errorf("0.5 s at a fixed 0.1 s step took %d steps at %v", sess.steps, sess.times)
	}
	if _, err := os.Stat(shot); err != nil {
		t.Errorf("screenshot not written: %v", err)
	}
	if sess.camera.Len() == 0 {
		t.Errorf("the match was never told where the camera is")
	}
	if sess.details != sess.steps || sess.detail != (game.ViewDetail{}) {
		t.Errorf("with every overlay on the match was told %d times for %d steps, last %+v; want every view field each step",
			sess.details, sess.steps, sess.detail)
	}

	var out strings.Builder
	benchSnap := *snap
	benchSnap.Modes = [deadreckon.NumModes]int{3, 1}
	sess = &stepMatch{snap: &benchSnap}
	if err := run(bg, RunConfig{Display: Display{BenchFrames: 4, BenchOut: &out}}, sess, nil); err != nil {
		t.Fatalf("bench run: %v", err)
	}
	if sess.steps != 4 || !strings.Contains(out.String(), "frame-time split: 4 frames, 4 tanks") ||
		!strings.Contains(out.String(), "remote tanks per frame: 3 in high mode, 1 in low") {
		t.Errorf("bench run: %d steps, report:\n%s", sess.steps, out.String())
	}

	// With the ghosts alone on, the match fills the projection the ghosts read and
	// leaves out the trails.
	overlays = render.OverlayGhost
	sess = &stepMatch{snap: snap}
	if err := run(bg, RunConfig{Display: Display{BenchFrames: 2, BenchOut: io.Discard}}, sess, nil); err != nil {
		t.Fatalf("bench run with ghosts: %v", err)
	}
	if want := (game.ViewDetail{NoTrails: true}); sess.details != sess.steps || sess.detail != want {
		t.Errorf("with the ghosts on the match was told %d times for %d steps, last %+v; want %+v",
			sess.details, sess.steps, sess.detail, want)
	}
	overlays = render.OverlayAll

	sess = &stepMatch{snap: snap}
	if err := run(bg, RunConfig{}, sess, func() { v.SetShouldClose() }); err != nil || sess.steps != 0 {
		t.Errorf("closed window: err %v after %d steps, want nil after 0", err, sess.steps)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := run(ctx, RunConfig{}, &stepMatch{snap: snap}, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: err %v", err)
	}

	lost := errors.New("host stopped responding")
	err := run(bg, RunConfig{Display: Display{BenchFrames: 10, BenchOut: io.Discard}}, &stepMatch{snap: snap, fail: lost}, nil)
	if !errors.Is(err, lost) || !strings.Contains(err.Error(), "match: host stopped responding") {
		t.Errorf("failing match: err %v", err)
	}

	// Outside a screenshot or benchmark run a failing match hands the window over
	// to the panel saying how it ended, which returns the match's error however it
	// ends (here the context ends while it shows).
	ctx, cancel = context.WithCancel(bg)
	err = run(ctx, RunConfig{}, &stepMatch{snap: snap, fail: lost, then: cancel}, nil)
	if !errors.Is(err, lost) {
		t.Errorf("failing match, then the context ends on the panel: err %v, want the match's", err)
	}
}

// run plays the match screen l alone in its window, as Run does after building it.
func (l *matchScreen) run(ctx context.Context) error {
	return runWindow(ctx, l.v, l, l.cfg.window())
}
