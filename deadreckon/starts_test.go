package deadreckon

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// startsBase is the publisher the start tests drive: the game's thresholds, no
// heartbeat in the way, no late copy.
var startsBase = PublisherConfig{Heartbeat: 1000, HeartbeatJitter: Off, PositionThreshold: 0.03, MinInterval: 0.16,
	UrgentChange: 3, RepeatChange: Off, BrakeOnset: 2, VelocityFrames: 2}

// frameRun returns the times (s) of the updates published from time from on, with
// the states they carry, for a tank on the x axis at x(t) m, sampled at 60 Hz for
// dur seconds; full says at which frames to ask for a full update.
func frameRun(t *testing.T, c PublisherConfig, x func(float64) float64, from, dur float64, full func(int) bool) ([]float64, []State, *Publisher) {
	t.Helper()
	p := NewPublisher(c, 1)
	var times []float64
	var states []State
	for f := 0; float64(f)*frame <= dur+1e-9; f++ {
		tm := float64(f) * frame
		d, st := p.Update(Sample{Time: tm, Position: mgl64.Vec3{x(tm), 0, 0}, Orientation: mgl64.QuatIdent(), Full: full(f)})
		if d != NoUpdate && tm >= from-1e-9 {
			times, states = append(times, tm), append(states, st)
		}
	}
	return times, states, p
}

// inARow returns how many of times, from the first, follow each other a frame apart.
func inARow(times []float64) int {
	if len(times) == 0 {
		return 0
	}
	n := 1
	for n < len(times) && times[n]-times[n-1] < startFollowUp+frame/2 {
		n++
	}
	return n
}

// TestSeenStart: a tank creeping at 0.17 m/s, which remotes show so, eases up at
// 0.2 m/s² from 2 s. It is no start from rest (it moves faster than StartSpeed) nor
// a pull-away (it speeds up by less than 0.3 m/s²): without SeenSpeed its position
// error reaches the threshold (0.03 m) 0.55 s later, and remotes show a creep while a
// watcher's eye would see it drive off. With SeenSpeed (0.2 m/s), the update goes
// within two frames of its passing 0.2 m/s, copied as a start; a creep that stays
// below SeenSpeed, or one already shown faster, sends nothing.
func TestSeenStart(t *testing.T) {
	const ease = 0.2 // m/s²
	creepAt := func(creep float64) func(float64) float64 {
		return func(t float64) float64 { return creep*t + 0.5*ease*math.Pow(math.Max(0, t-2), 2) }
	}
	seen := func(c PublisherConfig) PublisherConfig { c.SeenSpeed = 0.2; return c }
	for _, tc := range []struct {
		name   string
		creep  float64 // m/s before 2 s
		dur    float64 // s
		cfg    func(PublisherConfig) PublisherConfig
		within float64 // s after passing 0.2 m/s to the first update; negative: not before -within
		copies int     // updates a frame apart after the first
	}{
		{"seen speed", 0.17, 2.6, seen, 2 * frame, startFollowUps},
		{"off", 0.17, 2.6, func(c PublisherConfig) PublisherConfig { c.SeenSpeed = Off; return c }, -0.3, 0},
		{"zero: the default, off", 0.17, 2.6, func(c PublisherConfig) PublisherConfig { return c }, -0.3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			x := creepAt(tc.creep)
			passed := 2 + (0.2-tc.creep)/ease // s
			times, _, _ := frameRun(t, tc.cfg(startsBase), x, 2, tc.dur, func(int) bool { return false })
			if len(times) == 0 {
				if tc.within > 0 {
					t.Fatalf("nothing published after 2 s; the tank passes 0.2 m/s at %.3f s", passed)
				}
				return
			}
			late := times[0] - passed
			if tc.within > 0 && late > tc.within+1e-6 || tc.within < 0 && late < -tc.within {
				t.Errorf("first update %.3f s after the tank passed 0.2 m/s at %.3f s (%v), want within %v s (negative: not before)",
					late, passed, times, tc.within)
			}
			if tc.within > 0 {
				if n := inARow(times); n != 1+tc.copies {
					t.Errorf("%d updates a frame apart from %.3f s (%v), want %d: the start and its copies", n, times[0], times, 1+tc.copies)
				}
			}
		})
	}

	// Below SeenSpeed throughout, or already shown above it: no start. (Heartbeats
	// every second: remotes stop a tank they have not heard of for MaxExtrapolation,
	// and its next update is a start from rest.)
	for _, tc := range []struct {
		name string
		x    func(float64) float64
	}{
		{"a creep that stays below", func(t float64) float64 { return 0.12*t + 0.5*0.05*math.Pow(math.Max(0, t-2), 2) }},
		{"a cruise shown faster", func(t float64) float64 { return 0.5*t + 0.5*ease*math.Pow(math.Max(0, t-2), 2) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := seen(startsBase)
			c.Heartbeat = 1
			times, _, _ := frameRun(t, c, tc.x, 2, 3, func(int) bool { return false })
			if n := inARow(times); n > 1 {
				t.Errorf("%d updates a frame apart from %.3f s (%v), want no start", n, times[0], times)
			}
		})
	}
}

// TestStartDebt: a tank whose budget is spent (one update a second, the last token
// drawn by a full update 0.1 s before) sets off at 1 m/s². With StartDebt its start
// and three copies go out at once, into debt; without, the start waits for a token
// (0.4 s) and its copies find none.
func TestStartDebt(t *testing.T) {
	x := func(t float64) float64 { return 0.5 * math.Pow(math.Max(0, t-0.6), 2) }
	passed := 0.6 + DefaultStartSpeed // s: the tank passes StartSpeed
	for _, tc := range []struct {
		name   string
		debt   float64
		within float64 // s after passing StartSpeed to the start; negative: not before -within
		row    int     // updates a frame apart from the start
	}{
		{"debt", 5, 3 * frame, 1 + startFollowUps},
		{"off", Off, -0.2, 1},
		{"zero: the default, off", 0, -0.2, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startsBase
			c.Budget, c.StartDebt = 1, tc.debt
			times, _, p := frameRun(t, c, x, 0.55, 1.5, func(f int) bool { return f == 30 })
			if len(times) == 0 {
				t.Fatal("nothing published after 0.55 s")
			}
			late := times[0] - passed
			if tc.within > 0 && late > tc.within+1e-6 || tc.within < 0 && late < -tc.within {
				t.Errorf("the start went %.3f s after the tank passed StartSpeed (%v), want within %v s (negative: not before)",
					late, times, tc.within)
			}
			if n := inARow(times); n != tc.row {
				t.Errorf("%d updates a frame apart from %.3f s (%v), want %d", n, times[0], times, tc.row)
			}
			if floor := -math.Max(0, tc.debt); p.budget.tokens < floor-1e-9 {
				t.Errorf("the budget holds %.2f tokens, below %v", p.budget.tokens, floor)
			}
		})
	}
}
