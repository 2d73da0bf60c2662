package lab

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// turnInPlace returns a true yaw, rad, at time t: at rest until 1 s, turning at
// 1 rad/s until 2 s, then at rest at 1 rad.
func turnInPlace(t float64) float64 { return math.Max(0, math.Min(t, 2)-1) }

// turnRun feeds a true and a shown yaw, both functions of time, to a fresh
// accumulator for n frames.
func turnRun(n int, truth, shown func(t float64) float64) turnSummary {
	var m turnMetrics
	m.Reset(dt)
	for i := 0; i < n; i++ {
		t := float64(i) * dt
		m.Add(t, truth(t), shown(t))
	}
	return m.summary()
}

func TestTurnMetricsKnownAnswers(t *testing.T) {
	const n = 240 // 4 s: the turn ends at 2 s
	overDeg := 3.0
	over := mgl64.DegToRad(overDeg)
	for _, c := range []struct {
		name  string
		shown func(t float64) float64
		over  float64 // degrees
		delay float64 // s
		turns int
	}{
		{name: "exact", shown: turnInPlace, over: 0, delay: 0, turns: 1},
		{
			// Shown 0.2 s late: it stops turning 0.2 s after the truth, short of
			// nothing.
			name:  "late",
			shown: func(t float64) float64 { return turnInPlace(t - 0.2) },
			over:  0, delay: 0.2, turns: 1,
		},
		{
			// Turning on 3° past the rest, then back over 0.5 s: a 3° overshoot,
			// and the heading moves until 2.55 s (the last frame it moves on).
			name: "overshoot",
			shown: func(t float64) float64 {
				switch {
				case t < 2+over:
					return turnInPlace(t) + math.Max(0, t-2) // on at 1 rad/s
				case t < 2+over+0.5:
					return 1 + over*(1-(t-2-over)/0.5)
				}
				return 1
			},
			over: overDeg, delay: over + 0.5, turns: 1,
		},
		{
			// A display a half turn off is behind, not past.
			name:  "half a turn behind",
			shown: func(t float64) float64 { return turnInPlace(t) - 0.9*math.Pi },
			over:  0, delay: 0, turns: 1,
		},
	} {
		// Frames sample the swing: within a frame's turn (1 rad/s: 0.95°) and a
		// frame or two of time.
		s := turnRun(n, turnInPlace, c.shown)
		if s.Turns != c.turns || math.Abs(s.MaxOvershoot-c.over) > mgl64.RadToDeg(dt) || math.Abs(s.StopDelayP95-c.delay) > 2*dt {
			t.Errorf("%s: %d turns, overshoot %.3f°, stop delay %.3f s; want %d, %.3f°, %.3f s",
				c.name, s.Turns, s.MaxOvershoot, s.StopDelayP95, c.turns, c.over, c.delay)
		}
	}
}

// TestTurnMetricsIgnoreWobbles: a turn of under 5°, or one that never went faster
// than 5°/s, or a rest shorter than 0.25 s, counts no turn's end.
func TestTurnMetricsIgnoreWobbles(t *testing.T) {
	for _, c := range []struct {
		name  string
		truth func(t float64) float64
	}{
		{"small", func(t float64) float64 { return 0.05 * turnInPlace(t) }},                    // 3°
		{"slow", func(t float64) float64 { return 0.06 * math.Max(0, math.Min(t, 3.5)-0.5) }},  // 3.4°/s
		{"short rest", func(t float64) float64 { return turnInPlace(t) + math.Max(0, t-2.2) }}, // rests 0.2 s
		{"never rests", func(t float64) float64 { return 0.5 * t }},                            // a circle
	} {
		if s := turnRun(240, c.truth, c.truth); s.Turns != 0 {
			t.Errorf("%s: %d turns counted, want none", c.name, s.Turns)
		}
	}
}
