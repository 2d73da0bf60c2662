package client

import (
	"context"
	"io"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/cputime"
	"github.com/treadline/treadline/render"
)

// screen is one thing the window shows: the main menu, a match, how a match ended, a
// replay. runWindow drives every screen the same way, as Ebitengine's RunGame drives
// a Game: Layout when the framebuffer's size changes, then Update and Draw once a
// frame, then the swap. A screen hands the window over to the next one by returning
// it from Update.
type screen interface {
	// Layout sizes the screen's pictures for a w×h framebuffer, pixels. runWindow
	// calls it before the screen's first frame and whenever the size changes.
	Layout(w, h int)
	// Update advances the screen by one frame. It returns the screen to show from
	// the next frame on: itself to stay, another to hand over to (this frame is
	// then not drawn), or nil to end runWindow with err.
	Update(f *frame) (next screen, err error)
	// Draw draws the frame into the framebuffer, without swapping.
	Draw(v *render.Viewer, f *frame) error
}

// A gauged screen is one a screenshot or a benchmark can end: a match or a replay.
type gauged interface {
	// played reports whether d of play has passed since the screen's first frame.
	played(d time.Duration) bool
	// shot logs what the picture written to file at frame n shows.
	shot(file string, n int)
	// tanks is how many tanks the last frame showed.
	tanks() int
	// modes is how many remote tanks the last frame reckoned in each priority mode.
	modes() [deadreckon.NumModes]int
}

// A threaded screen's match does part of its work on worker threads of its own (a
// large match's reckoning): workerCPU is their CPU time so far, and whether there
// are any, for the benchmark's report.
type threaded interface {
	workerCPU() (time.Duration, bool)
}

// A stepTimed screen's match times the parts of its steps (game.Match.TimeSteps),
// for the benchmark's split of the simulation: stepTimes starts the timing, if it
// has not started, and returns the sums so far, and whether there are any.
type stepTimed interface {
	stepTimes() (game.StepTimes, bool)
}

// A paced screen rests between frames: it needs fewer frames than the window can
// draw (a menu, a still message).
type paced interface {
	rest() time.Duration
}

// A waiting screen is shown while a match starts: a screenshot is taken of it only
// after Duration of wall time (never after Frames, which count a match's frames),
// and a benchmark does not count it.
type waiting interface {
	waiting()
}

// A releaser holds what it lets go of when runWindow returns while it shows, however
// the loop ends (a screen lets go of its own before it hands over).
type releaser interface {
	release()
}

// An ender says what runWindow returns when the window is closed (cause nil) or the
// context ends (cause its error) while it shows. Without one, runWindow returns
// cause.
type ender interface {
	end(cause error) error
}

// frame is what runWindow tells a screen about the frame it runs.
type frame struct {
	// n counts the screen's frames, from 1.
	n int
	// dt is the time since the screen's last frame, seconds: the wall clock's (0
	// for its first frame, which none precedes), or windowConfig.FixedStep when
	// fixed.
	dt    float64
	fixed bool
	// t holds when each phase of the frame began, and when the last ended, for
	// -bench-frames; Draw marks the end of its scene update with mark.
	t [numPhases + 1]time.Time
	// cpu holds the main thread's CPU time at the same instants (cputime.Thread): the
	// client's own work, which other programs on the machine do not stretch.
	cpu [numPhases + 1]time.Duration
	// workers is the screen's worker threads' CPU time at the frame's start, and
	// hasWorkers whether it has any (threaded).
	workers    time.Duration
	hasWorkers bool
	// steps is the screen's step parts' times at the frame's start, and hasSteps
	// whether it times them (stepTimed).
	steps    game.StepTimes
	hasSteps bool
}

// mark records that phase p begins now.
func (f *frame) mark(p int) {
	c, _ := cputime.Thread() // 0 where it cannot be read: the report then leaves its CPU lines out
	f.t[p], f.cpu[p] = time.Now(), c
}

// windowConfig is what runWindow does for every screen: frame pacing, screenshots
// and benchmarks. The zero value draws frames as fast as the window swaps until a
// screen ends.
type windowConfig struct {
	// FixedStep, when positive, is every frame's dt, whatever the wall clock says.
	FixedStep time.Duration
	// Screenshot, when set, is a PNG file written from the last frame of a gauged
	// screen, after which runWindow returns nil: after Frames frames, or after
	// Duration of play when Frames is zero.
	Screenshot string
	Frames     int
	Duration   time.Duration
	// BenchFrames, when positive, makes runWindow draw that many frames of a
	// gauged screen, write the split of frame time to BenchOut and return nil.
	BenchFrames int
	BenchOut    io.Writer
}

// runWindow shows sc, and the screens it hands over to, in v until a screen ends,
// the window is closed (nil, or what the screen's end says), ctx ends (its error,
// or what end says), or a screenshot or benchmark is done (nil). It is the
// client's one window loop, and must be called from the main goroutine.
func runWindow(ctx context.Context, v *render.Viewer, sc screen, cfg windowConfig) error {
	var b *bench
	if cfg.BenchFrames > 0 {
		b = newBench(cfg.BenchFrames)
	}
	defer func() {
		if r, ok := sc.(releaser); ok {
			r.release()
		}
	}()
	step := cfg.FixedStep.Seconds()
	f := frame{}
	lastW, lastH := -1, -1
	last := time.Now()
	for {
		if err := ctx.Err(); err != nil {
			return endWith(sc, err)
		}
		if v.ShouldClose() {
			return endWith(sc, nil)
		}
		if w, h := v.FramebufferSize(); w != lastW || h != lastH {
			sc.Layout(w, h)
			lastW, lastH = w, h
		}
		now := time.Now()
		f.tick(now.Sub(last).Seconds(), step)
		if th, ok := sc.(threaded); ok && b != nil {
			f.workers, f.hasWorkers = th.workerCPU()
		}
		if st, ok := sc.(stepTimed); ok && b != nil {
			f.steps, f.hasSteps = st.stepTimes()
		}
		last = now
		next, err := sc.Update(&f)
		if next == nil || err != nil {
			return err
		}
		if next != sc {
			sc, f, lastW, lastH, last = next, frame{}, -1, -1, time.Now()
			continue
		}
		f.mark(phaseScene)
		if err := sc.Draw(v, &f); err != nil {
			return err
		}
		if f.t[phaseRender].IsZero() {
			f.t[phaseRender], f.cpu[phaseRender] = f.t[phaseScene], f.cpu[phaseScene]
		}
		f.mark(phaseSwap)
		if done, err := present(v, sc, &f, cfg, b); done || err != nil {
			return err
		}
		if p, ok := sc.(paced); ok {
			time.Sleep(p.rest())
		}
	}
}

// tick starts the next frame of a screen, elapsed seconds after the last: its number,
// and its time step, the fixed step when there is one and none on a screen's first
// frame, which has no frame before it to time it from.
func (f *frame) tick(elapsed, step float64) {
	f.n++
	f.dt, f.fixed = elapsed, step > 0
	switch {
	case f.fixed:
		f.dt = step
	case f.n == 1:
		f.dt = 0
	}
	f.t = [numPhases + 1]time.Time{}
	f.mark(0)
}

// present shows the frame sc drew: it saves the screenshot instead when one is due,
// and times the frame for the benchmark. It reports whether the run is done (a
// screenshot taken or the benchmark's frames counted).
func present(v *render.Viewer, sc screen, f *frame, cfg windowConfig, b *bench) (bool, error) {
	m, isGauged := sc.(gauged)
	_, isWaiting := sc.(waiting)
	if isGauged && cfg.Screenshot != "" && shotDue(cfg, m, f.n, isWaiting) {
		if err := writePNG(cfg.Screenshot, v.Capture()); err != nil {
			return true, err
		}
		m.shot(cfg.Screenshot, f.n)
		return true, nil
	}
	v.Swap()
	f.mark(numPhases)
	if isGauged && !isWaiting && b != nil {
		b.add(f.t, f.cpu, v.DrawCalls())
		b.addModes(m.modes())
		if th, ok := sc.(threaded); ok && f.hasWorkers {
			if c, ok := th.workerCPU(); ok {
				b.addWorkers(c - f.workers)
			}
		}
		if st, ok := sc.(stepTimed); ok && f.hasSteps {
			if s, ok := st.stepTimes(); ok {
				b.addSteps(s.Sub(f.steps))
			}
		}
		if f.n >= cfg.BenchFrames {
			w, h := v.FramebufferSize()
			b.report(cfg.BenchOut, m.tanks(), w, h)
			return true, nil
		}
	}
	return false, nil
}

// shotDue reports whether the screenshot is taken at frame n of m; a waiting m only
// counts its Duration.
func shotDue(cfg windowConfig, m gauged, n int, waiting bool) bool {
	if cfg.Frames > 0 {
		return !waiting && n >= cfg.Frames
	}
	return m.played(cfg.Duration)
}

// endWith is what runWindow returns when sc ends for cause.
func endWith(sc screen, cause error) error {
	if e, ok := sc.(ender); ok {
		return e.end(cause)
	}
	return cause
}
