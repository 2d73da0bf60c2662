package client

import (
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/game"
)

// TestBenchReportCPU: the report gives the main thread's CPU per frame for the
// client's own work and for the drawing, each split into its phases, and leaves a
// line out when its phases took no CPU time.
func TestBenchReportCPU(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name      string
		cpu       [numPhases]time.Duration // per frame
		workers   []time.Duration          // the worker threads' CPU of the frames that had them
		steps     []game.StepTimes         // the step parts' CPU of the frames that timed them
		want, not []string
	}{
		{"all", [numPhases]time.Duration{ms, 2 * ms, 30 * ms, 10 * ms}, nil, nil,
			[]string{"client's own CPU: 3.00 ms per frame (simulation 1.00 + scene update 2.00",
				"drawing's CPU: 40.00 ms per frame (render 30.00 + swap 10.00"}, []string{"workers' CPU", "by part"}},
		{"no drawing", [numPhases]time.Duration{ms, 2 * ms, 0, 0}, nil, nil,
			[]string{"client's own CPU: 3.00 ms"}, []string{"drawing's CPU"}},
		{"none", [numPhases]time.Duration{}, nil, nil,
			nil, []string{"client's own CPU", "drawing's CPU", "workers' CPU"}},
		{"workers", [numPhases]time.Duration{ms, 2 * ms, 30 * ms, 10 * ms}, []time.Duration{ms, 2 * ms, 3 * ms}, nil,
			[]string{"client's own CPU: 3.00 ms per frame", "reckoning workers' CPU: 2.00 ms per frame"}, nil},
		{"step parts", [numPhases]time.Duration{ms, 2 * ms, 30 * ms, 10 * ms}, nil,
			[]game.StepTimes{{game.StepReckon: ms, game.StepSnapshot: ms / 2}, {game.StepReckon: 3 * ms, game.StepPhysics: ms}},
			[]string{"simulation's CPU by part, ms per frame: receive 0.00 behave 0.00 reckon 2.00 physics 0.50 publish 0.00 views 0.00 combat 0.00 snapshot 0.25\n"}, []string{"other"}},
		{"step parts of every frame", [numPhases]time.Duration{4 * ms, 2 * ms, 30 * ms, 10 * ms}, nil,
			[]game.StepTimes{{game.StepReckon: ms}, {game.StepReckon: 3 * ms}, {game.StepReckon: ms}, {game.StepReckon: 3 * ms, game.StepPhysics: 2 * ms}},
			[]string{"reckon 2.00 physics 0.50 publish 0.00 views 0.00 combat 0.00 snapshot 0.00 other 1.50 (input, aim, camera, kill camera)"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBench(4)
			t0 := time.Unix(0, 0)
			for f := 0; f < 4; f++ {
				var at [numPhases + 1]time.Time
				var cpu [numPhases + 1]time.Duration
				at[0] = t0
				for p := range numPhases {
					at[p+1] = at[p].Add(tc.cpu[p] + ms)
					cpu[p+1] = cpu[p] + tc.cpu[p]
				}
				b.add(at, cpu, 10)
			}
			for _, w := range tc.workers {
				b.addWorkers(w)
			}
			for _, st := range tc.steps {
				b.addSteps(st)
			}
			var out strings.Builder
			b.report(&out, 4, 320, 200)
			for _, w := range tc.want {
				if !strings.Contains(out.String(), w) {
					t.Errorf("report lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tc.not {
				if strings.Contains(out.String(), w) {
					t.Errorf("report has %q:\n%s", w, out.String())
				}
			}
		})
	}
}
