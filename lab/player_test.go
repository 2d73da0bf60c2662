package lab

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// stopAndGo returns a truth along +X: 1 s at speed, 1 s at rest at x = speed, then
// on at speed; n frames.
func stopAndGo(n int) []mgl64.Vec3 {
	out := make([]mgl64.Vec3, n)
	for i := range out {
		t := float64(i) * dt
		x := speed * math.Min(t, 1)
		if t > 2 {
			x += speed * (t - 2)
		}
		out[i] = mgl64.Vec3{x, 0, 0}
	}
	return out
}

// playerRun feeds a truth, a display and the stale flags to a fresh accumulator.
func playerRun(truth, shown []mgl64.Vec3, stale func(i int) bool) playerSummary {
	var m playerMetrics
	m.Reset(dt)
	for i := range truth {
		m.Add(float64(i)*dt, truth[i], shown[i], stale != nil && stale(i))
	}
	return m.summary()
}

func TestPlayerMetricsKnownAnswers(t *testing.T) {
	const n = 240 // 4 s: stop at 1 s, go at 2 s
	truth := stopAndGo(n)
	for _, c := range []struct {
		name   string
		shown  func(i int) mgl64.Vec3
		stale  func(i int) bool
		over   float64 // m
		delay  float64 // s
		rev    float64 // per minute
		perMin float64 // stale, per minute
	}{
		{
			// The display is the truth: no overshoot, a start shown at once (the
			// frame after the truth leaves rest moves as fast), nothing else.
			name:  "exact",
			shown: func(i int) mgl64.Vec3 { return truth[i] },
		},
		{
			// The display runs on 0.3 m past the stop (at speed, 3 frames), comes
			// back over 0.3 s, and starts 0.25 s late: one reversal in 4 s.
			name: "overshoot and late start",
			shown: func(i int) mgl64.Vec3 {
				tt := float64(i) * dt
				switch {
				case tt <= 1.05:
					return mgl64.Vec3{speed * tt, 0, 0}
				case tt <= 1.35:
					return mgl64.Vec3{speed*1.05 - (tt-1.05)*1, 0, 0}
				case tt <= 2.25:
					return mgl64.Vec3{speed, 0, 0}
				}
				return mgl64.Vec3{speed + speed*(tt-2.25), 0, 0}
			},
			over: 0.3, delay: 0.25, rev: 15,
		},
		{
			// Stale from 0.5 s to 1 s and again from 3 s: two times in 4 s.
			name:   "stale twice",
			shown:  func(i int) mgl64.Vec3 { return truth[i] },
			stale:  func(i int) bool { return (i >= 30 && i < 60) || i >= 180 },
			perMin: 30,
		},
	} {
		shown := make([]mgl64.Vec3, n)
		for i := range shown {
			shown[i] = c.shown(i)
		}
		s := playerRun(truth, shown, c.stale)
		if !near(s.MaxOvershoot, c.over, 1e-9) {
			t.Errorf("%s: overshoot %.4f m, want %.4f m", c.name, s.MaxOvershoot, c.over)
		}
		if c.delay == 0 && s.StartDelayP95 > dt+1e-9 || c.delay > 0 && !near(s.StartDelayP95, c.delay, dt/2) {
			t.Errorf("%s: start delay %.4f s, want %.4f s", c.name, s.StartDelayP95, c.delay)
		}
		if !near(s.ReversalsPerMin, c.rev, 1e-9) {
			t.Errorf("%s: %.2f reversals per minute, want %.2f", c.name, s.ReversalsPerMin, c.rev)
		}
		if !near(s.StalePerMin, c.perMin, 1e-9) {
			t.Errorf("%s: stale %.2f times per minute, want %.2f", c.name, s.StalePerMin, c.perMin)
		}
		if s.Stops != 1 || s.Starts != 1 {
			t.Errorf("%s: %d stops and %d starts, want one of each", c.name, s.Stops, s.Starts)
		}
	}
}

// TestPlayerMetricsIgnoreTurnsAndJumps: a truth that turns round through one frame of
// rest neither stops nor starts, a display that follows it late does not reverse, and
// a teleport is no motion at all.
func TestPlayerMetricsIgnoreTurnsAndJumps(t *testing.T) {
	const n = 180
	truth := make([]mgl64.Vec3, n)
	shown := make([]mgl64.Vec3, n)
	for i := range truth {
		tt := float64(i) * dt
		// Out along +X for 1 s, back along −X, teleported 100 m at 2 s.
		x := speed * (1 - math.Abs(tt-1))
		if tt >= 2 {
			x += 100
		}
		truth[i] = mgl64.Vec3{x, 0, 0}
		lag := math.Max(0, tt-0.2) // 0.2 s late
		sx := speed * (1 - math.Abs(lag-1))
		if lag >= 2 {
			sx += 100
		}
		shown[i] = mgl64.Vec3{sx, 0, 0}
	}
	s := playerRun(truth, shown, nil)
	if s.Stops != 0 || s.Starts != 0 || s.ReversalsPerMin != 0 || s.MaxOvershoot != 0 {
		t.Errorf("turn round and teleport: %+v, want no stop, start, reversal or overshoot", s)
	}
}

// TestPlayerMetricsStartNeverShown: a truth that creeps off faster than restSpeed for
// 0.2 s and comes to rest again, a display that never moves its way, and a start
// the other way 1 s later that the display shows 0.1 s late. The creep is a start
// shown not at all, as late as the truth moved (0.2 s); the next start is measured
// from its own beginning, not the creep's.
func TestPlayerMetricsStartNeverShown(t *testing.T) {
	truth, shown := sampled(240, func(tt float64) (mgl64.Vec3, mgl64.Vec3) { // 4 s
		// At rest, then +X at 0.5 m/s from 1 s to 1.2 s, at rest, then −Z at speed
		// from 2.2 s; the display shows the second start from 2.3 s.
		x := 0.5 * math.Max(0, math.Min(tt, 1.2)-1)
		return mgl64.Vec3{x, 0, -speed * math.Max(0, tt-2.2)}, mgl64.Vec3{0, 0, -speed * math.Max(0, tt-2.3)}
	})
	var m playerMetrics
	m.Reset(dt)
	for i := range truth {
		m.Add(float64(i)*dt, truth[i], shown[i], false)
	}
	if len(m.delays) != 2 || !near(m.delays[0], 0.2, dt+1e-9) || !near(m.delays[1], 0.1, dt+1e-9) {
		t.Errorf("start delays %.3f s, want [0.2 0.1]", m.delays)
	}
}

// TestPlayerMetricsStartOutOfATurn: a truth that leaves rest along +X at 0.3 m/s and
// after 0.1 s drives off along −Z (a tank pulling away out of a turn in place), and a
// display that never moves along +X but drives off along −Z 0.2 s after the truth
// left rest. The display has shown the start: 0.2 s late, not still waiting.
func TestPlayerMetricsStartOutOfATurn(t *testing.T) {
	truth, shown := sampled(180, func(tt float64) (mgl64.Vec3, mgl64.Vec3) { // 3 s
		x := 0.3 * math.Max(0, math.Min(tt, 1.1)-1)
		return mgl64.Vec3{x, 0, -2 * math.Max(0, tt-1.1)}, mgl64.Vec3{0, 0, -2 * math.Max(0, tt-1.2)}
	})
	s := playerRun(truth, shown, nil)
	if s.Starts != 1 || !near(s.StartDelayP95, 0.2, dt+1e-9) {
		t.Errorf("%d starts, start delay %.3f s, want one, 0.2 s", s.Starts, s.StartDelayP95)
	}
}

// sampled returns n frames of a truth and a display, f giving both at time tt, s.
func sampled(n int, f func(tt float64) (truth, shown mgl64.Vec3)) ([]mgl64.Vec3, []mgl64.Vec3) {
	truth, shown := make([]mgl64.Vec3, n), make([]mgl64.Vec3, n)
	for i := range truth {
		truth[i], shown[i] = f(float64(i) * dt)
	}
	return truth, shown
}
