package lab

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// writeJSON writes each result as one JSON object on its own line.
func writeJSON(w io.Writer, results []Result) error {
	enc := json.NewEncoder(w)
	for i := range results {
		if err := enc.Encode(&results[i]); err != nil {
			return fmt.Errorf("write json: %w", err)
		}
	}
	return nil
}

// writeJSONValues writes each value as one JSON object on its own line.
func writeJSONValues(w io.Writer, vs []any) error {
	enc := json.NewEncoder(w)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return fmt.Errorf("write json: %w", err)
		}
	}
	return nil
}

// writeResults writes results as an aligned text table, one row per result. Columns
// that no result uses (delay, ground depth) are left out.
func writeResults(w io.Writer, results []Result) error {
	hasPast, hasGround, hasRuns := false, false, false
	for _, r := range results {
		hasPast = hasPast || r.MeanErrPastM != nil
		hasGround = hasGround || r.MaxDepthM != nil
		hasRuns = hasRuns || r.Runs > 1
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := []string{"scenario", "algo", "mean m"}
	if hasRuns {
		head = append(head, "± sd m")
	}
	head = append(head, "p95 m", "max m", "head °", "jump m", "pop m", "dv m/s", "jerk m/s³")
	if hasPast {
		head = append(head, "delay s", "past mean m", "past p95 m")
	}
	if hasGround {
		head = append(head, "depth m", "below %", "under truth m")
	}
	head = append(head, "over m", "start s", "turn over °", "turn stop s", "stale/min", "rev/min", "upd/s", "B/s")
	fmt.Fprintln(tw, strings.Join(head, "\t")+"\t")
	for _, r := range results {
		row := []string{r.Scenario, r.Algo, f4(r.MeanErrM)}
		if hasRuns {
			row = append(row, f4(r.MeanErrSDM))
		}
		row = append(row, f4(r.P95ErrM), f4(r.MaxErrM), f2(r.MeanHeadingDeg), f4(r.MaxJumpM), f4(r.MaxPopM), f2(r.MaxDVMPS), f1(r.RMSJerk))
		if hasPast {
			if r.MeanErrPastM != nil {
				row = append(row, f3(r.DelayS), f4(*r.MeanErrPastM), f4(*r.P95ErrPastM))
			} else {
				row = append(row, "-", "-", "-")
			}
		}
		if hasGround {
			if r.MaxDepthM != nil {
				row = append(row, f3(max(0, *r.MaxDepthM)), f1(100**r.BelowGroundShare), f3(*r.MaxUnderTruthM))
			} else {
				row = append(row, "-", "-", "-")
			}
		}
		row = append(row, orDash(r.Stops > 0, f3(r.MaxOvershootM)), orDash(r.Starts > 0, f3(r.StartDelayP95S)),
			orDash(r.Turns > 0, f2(r.MaxHeadingOvershootDeg)), orDash(r.Turns > 0, f3(r.TurnStopDelayP95S)),
			f2(r.StalePerMin), f2(r.ReversalCount), f2(r.UpdatesPerS), fmt.Sprintf("%.0f", r.BytesPerS))
		fmt.Fprintln(tw, strings.Join(row, "\t")+"\t")
	}
	if err := tw.Flush(); err != nil {
		return fmt.Errorf("write table: %w", err)
	}
	return nil
}

// orDash returns s, or "-" when there is nothing it measures.
func orDash(has bool, s string) string {
	if has {
		return s
	}
	return "-"
}

func f1(v float64) string { return fmt.Sprintf("%.1f", v) }
func f2(v float64) string { return fmt.Sprintf("%.2f", v) }
func f3(v float64) string { return fmt.Sprintf("%.3f", v) }
func f4(v float64) string { return fmt.Sprintf("%.4f", v) }
