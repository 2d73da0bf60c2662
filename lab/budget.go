package lab

import (
	"context"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// Budget search range: position thresholds from budgetMin to budgetMax meters in
// budgetSteps geometric steps.
const (
	budgetMin   = 0.01
	budgetMax   = 8.0
	budgetSteps = 31
)

// budgetResult is the cheapest threshold publishing found for one scenario and
// algorithm that keeps the p95 error under the target.
type budgetResult struct {
	// Result is the run at the chosen position threshold (PosThresholdM).
	Result
	// TargetP95M is the p95 error aimed under, m.
	TargetP95M float64 `json:"target_p95_m"`
	// Met reports whether any threshold met the target; when none did, Result is the
	// run with the smallest p95 error.
	Met bool `json:"met"`
}

// findBudget tries position thresholds from 1 cm to 8 m (geometric steps) with the
// other publishing settings of s.Publish and returns the run that keeps the p95 error
// under target with the fewest updates per second (the larger threshold on a tie).
// Each threshold is judged on the combined figures of runs seeds (see simulateRuns).
func findBudget(ctx context.Context, s Setup, target float64, runs int) (budgetResult, error) {
	var sc scratch
	return sc.findBudget(ctx, s, target, runs)
}

func (sc *scratch) findBudget(ctx context.Context, s Setup, target float64, runs int) (budgetResult, error) {
	var best, closest Result
	found, have := false, false
	for k := 0; k < budgetSteps; k++ {
		if err := ctx.Err(); err != nil {
			return budgetResult{}, err
		}
		th := budgetMin * math.Pow(budgetMax/budgetMin, float64(k)/(budgetSteps-1))
		run := s
		run.Publish.Rate = 0
		run.Publish.PosThreshold = th
		r, err := sc.simulateRuns(run, runs)
		if err != nil {
			return budgetResult{}, err
		}
		if !have || r.P95ErrM < closest.P95ErrM {
			closest, have = r, true
		}
		if r.P95ErrM < target && (!found || r.UpdatesPerS <= best.UpdatesPerS) {
			best, found = r, true
		}
	}
	if !found {
		return budgetResult{Result: closest, TargetP95M: target}, nil
	}
	return budgetResult{Result: best, TargetP95M: target, Met: true}, nil
}

func runBudget(ctx context.Context, w io.Writer, o Options) error {
	paths, err := o.paths()
	if err != nil {
		return err
	}
	na := len(o.Algos)
	out := make([]budgetResult, len(paths)*na)
	err = forEach(ctx, len(out), func(sc *scratch, i int) error {
		r, err := sc.findBudget(ctx, o.setup(paths[i/na], o.Algos[i%na]), o.BudgetP95, o.Runs)
		out[i] = r
		return err
	})
	if err != nil {
		return err
	}
	if o.JSON {
		rs := make([]any, len(out))
		for i := range out {
			rs[i] = &out[i]
		}
		return writeJSONValues(w, rs)
	}
	pub, _ := o.Publish.withDefaults()
	var b strings.Builder
	fmt.Fprintf(&b, "Threshold publishing: the cheapest position threshold keeping p95 error under %g m\n", o.BudgetP95)
	fmt.Fprintf(&b, "(thresholds %g–%g m tried in %d geometric steps; rotation threshold %g°, at most every %s, heartbeat %g s;\n",
		budgetMin, budgetMax, budgetSteps, math.Round(rad2deg(pub.RotThreshold)*100)/100, ms(pub.MinInterval), pub.Heartbeat)
	fmt.Fprintf(&b, "link: %s; %.0f fps; %s)\n\n", describeLink(o.Network), o.FPS, o.encoding())
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "scenario\talgo\tthreshold m\tupd/s\tB/s\tp95 m\tmean m\tmax m\tmet\t")
	for _, r := range out {
		met := "yes"
		if !r.Met {
			met = "no"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.2f\t%.0f\t%.4f\t%.4f\t%.4f\t%s\t\n",
			r.Scenario, r.Algo, r.PosThresholdM, r.UpdatesPerS, r.BytesPerS, r.P95ErrM, r.MeanErrM, r.MaxErrM, met)
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write budget: %w", err)
	}
	_, err = io.WriteString(w, b.String())
	return err
}

func rad2deg(r float64) float64 { return r * 180 / math.Pi }
