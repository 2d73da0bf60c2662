package client

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
)

// phases of one frame, for -bench-frames.
const (
	phaseSim = iota
	phaseScene
	phaseRender
	phaseSwap
	numPhases
)

var phaseNames = [numPhases]string{"simulation", "scene update", "render", "swap"}

// bench records the time each phase of each frame took, and the draw calls.
type bench struct {
	phases    [numPhases][]time.Duration
	cpu       [numPhases]time.Duration // the main thread's CPU time per phase, summed
	drawCalls int
	modes     [deadreckon.NumModes]int // remote tanks in each priority mode, summed over the frames
	// workers is the CPU time of the match's worker threads (a large match's
	// reckoning) over the frames that had them, and workerFrames how many did.
	workers      time.Duration
	workerFrames int
	// steps is the main thread's CPU time in each part of the match's steps over
	// the frames that timed them (game.StepTimes), and stepFrames how many did.
	steps      game.StepTimes
	stepFrames int
}

func newBench(frames int) *bench {
	b := &bench{}
	for p := range b.phases {
		b.phases[p] = make([]time.Duration, 0, frames)
	}
	return b
}

// add records one frame: t holds the times at which each phase began, and at which
// the last ended; drawCalls is what the frame drew.
// cpu holds the main thread's CPU time at the same instants.
func (b *bench) add(t [numPhases + 1]time.Time, cpu [numPhases + 1]time.Duration, drawCalls int) {
	b.drawCalls += drawCalls
	for p := range b.phases {
		b.phases[p] = append(b.phases[p], t[p+1].Sub(t[p]))
		b.cpu[p] += cpu[p+1] - cpu[p]
	}
}

// addModes records how many remote tanks one frame reckoned in each priority mode.
func (b *bench) addModes(m [deadreckon.NumModes]int) {
	for i, k := range m {
		b.modes[i] += k
	}
}

// addWorkers records the CPU time the match's worker threads used in one frame.
func (b *bench) addWorkers(d time.Duration) {
	b.workers += d
	b.workerFrames++
}

// addSteps records the CPU time each part of one frame's match step took.
func (b *bench) addSteps(s game.StepTimes) {
	for i, d := range s {
		b.steps[i] += d
	}
	b.stepFrames++
}

// report writes the frame-time split of a w×h picture of tanks tanks to out.
func (b *bench) report(out io.Writer, tanks, w, h int) {
	n := len(b.phases[0])
	total := make([]time.Duration, n)
	for p := range b.phases {
		for i, x := range b.phases[p] {
			total[i] += x
		}
	}
	mean := func(xs []time.Duration) float64 {
		var s time.Duration
		for _, x := range xs {
			s += x
		}
		return float64(s) / float64(max(1, len(xs))) / 1e6
	}
	pct := func(xs []time.Duration, q float64) float64 {
		ys := slices.Clone(xs)
		slices.Sort(ys)
		if len(ys) == 0 {
			return 0
		}
		return float64(ys[min(len(ys)-1, int(q*float64(len(ys))))]) / 1e6
	}
	tm := mean(total)
	fmt.Fprintf(out, "frame-time split: %d frames, %d tanks, %dx%d\n", n, tanks, w, h)
	fmt.Fprintf(out, "%-13s %9s %9s %9s %7s\n", "phase", "mean ms", "p50 ms", "p95 ms", "share")
	for p := range b.phases {
		m := mean(b.phases[p])
		fmt.Fprintf(out, "%-13s %9.2f %9.2f %9.2f %6.1f%%\n", phaseNames[p], m, pct(b.phases[p], 0.5), pct(b.phases[p], 0.95), 100*m/math.Max(tm, 1e-9))
	}
	fmt.Fprintf(out, "%-13s %9.2f %9.2f %9.2f  (%.1f fps)\n", "total", tm, pct(total, 0.5), pct(total, 0.95), 1000/math.Max(tm, 1e-9))
	fmt.Fprintf(out, "draw calls per frame: %.0f (meshes and HUD panels)\n", float64(b.drawCalls)/float64(max(1, n)))
	if b.modes[deadreckon.ModeHigh]+b.modes[deadreckon.ModeLow] > 0 {
		fmt.Fprintf(out, "remote tanks per frame: %.0f in high mode, %.0f in low\n",
			float64(b.modes[deadreckon.ModeHigh])/float64(max(1, n)), float64(b.modes[deadreckon.ModeLow])/float64(max(1, n)))
	}
	perFrame := func(d time.Duration) float64 { return float64(d) / float64(max(1, n)) / 1e6 }
	if own := b.cpu[phaseSim] + b.cpu[phaseScene]; own > 0 {
		// Thread CPU time: what the client's own work costs, however busy the
		// machine is (wall time above includes waiting for a core).
		fmt.Fprintf(out, "client's own CPU: %.2f ms per frame (simulation %.2f + scene update %.2f, main thread CPU time)\n",
			perFrame(own), perFrame(b.cpu[phaseSim]), perFrame(b.cpu[phaseScene]))
	}
	if b.stepFrames > 0 {
		// Where the simulation's CPU goes: the match's step and snapshot by part,
		// and the rest of the simulation phase, the screen's own: input, aim,
		// camera and, after a death, the kill camera's replay.
		fmt.Fprint(out, "simulation's CPU by part, ms per frame:")
		rest := b.cpu[phaseSim]
		for p, d := range b.steps {
			fmt.Fprintf(out, " %s %.2f", game.StepPart(p), float64(d)/float64(b.stepFrames)/1e6)
			rest -= d
		}
		if b.stepFrames == n {
			fmt.Fprintf(out, " other %.2f (input, aim, camera, kill camera)", perFrame(rest))
		}
		fmt.Fprintln(out)
	}
	if b.workerFrames > 0 {
		// The reckoning's share that its worker threads took: the client's work,
		// moved off the main thread, not saved.
		fmt.Fprintf(out, "reckoning workers' CPU: %.2f ms per frame (worker threads' CPU time, not in the line above)\n",
			float64(b.workers)/float64(b.workerFrames)/1e6)
	}
	if gl := b.cpu[phaseRender] + b.cpu[phaseSwap]; gl > 0 {
		// With LP_NUM_THREADS=0 Mesa's software renderer rasterises on the
		// main thread, so this is all of the drawing's CPU, however busy the
		// machine; with its worker threads it is only the part issued here.
		fmt.Fprintf(out, "drawing's CPU: %.2f ms per frame (render %.2f + swap %.2f, main thread CPU time; all of it with LP_NUM_THREADS=0)\n",
			perFrame(gl), perFrame(b.cpu[phaseRender]), perFrame(b.cpu[phaseSwap]))
	}
}
