package lab

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/impair"

	"github.com/treadline/treadline/deadreckon"
)

// scenario builds the named scenario at the lab's default frame rate and duration.
// A path is read only by Simulate, so one serves every algorithm run on it, as in
// the lab's own runs.
func scenario(t *testing.T, name string) *Path {
	t.Helper()
	p, err := BuildScenario(name, DefaultFPS, DefaultDuration)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// run simulates one algorithm on path p with the given link, at a fixed rate.
func run(t *testing.T, p *Path, algo string, rate float64, link impair.Link, clockError float64) Result {
	t.Helper()
	a, err := ParseAlgo(algo)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(Setup{Path: p, Algo: a, Publish: PublishConfig{Rate: rate}, Network: link, Seed: 1, ClockError: clockError})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSameSeedSameBytes(t *testing.T) {
	o := Options{
		Scenarios: []string{"zigzag", "ledge"},
		Network:   impair.Link{Latency: units.Duration(0.1), Jitter: units.Duration(0.04), Loss: 0.1},
		Publish:   PublishConfig{Rate: 4},
		Duration:  20,
		Seed:      42,
	}
	out := func(o Options) string {
		var b bytes.Buffer
		if err := Run(context.Background(), &b, o); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	for _, asJSON := range []bool{false, true} {
		o.JSON = asJSON
		a, b := out(o), out(o)
		if a != b {
			t.Errorf("json=%v: two runs with seed 42 differ:\n%s\n---\n%s", asJSON, a, b)
		}
		o2 := o
		o2.Seed = 43
		if out(o2) == a {
			t.Errorf("json=%v: seeds 42 and 43 gave the same output over a lossy, jittery link", asJSON)
		}
	}
}

func TestJSONFields(t *testing.T) {
	var b bytes.Buffer
	o := Options{Scenarios: []string{"ledge"}, Algos: mustAlgos(t, "pvb,delayed"), Duration: 10, JSON: true, Network: impair.Link{Latency: units.Duration(0.05), Loss: 0.02}, Publish: PublishConfig{Rate: 3}}
	if err := Run(context.Background(), &b, o); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d JSON lines, want 2", len(lines))
	}
	for i, l := range lines {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		for _, k := range []string{"scenario", "algo", "rate_hz", "latency_s", "loss", "mean_err_m", "p95_err_m",
			"max_err_m", "max_jump_m", "updates_per_s", "bytes_per_s", "mean_heading_err_deg", "rms_jerk",
			"max_depth_m", "below_ground_share"} {
			if _, ok := m[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i+1, k, l)
			}
		}
		if m["rate_hz"] != 3.0 || m["latency_s"] != 0.05 || m["loss"] != 0.02 {
			t.Errorf("line %d: rate %v latency %v loss %v, want 3, 0.05, 0.02", i+1, m["rate_hz"], m["latency_s"], m["loss"])
		}
	}
	if !strings.Contains(lines[1], `"mean_err_past_m"`) || strings.Contains(lines[0], `"mean_err_past_m"`) {
		t.Errorf("only delayed should report the error against the past: %s", b.String())
	}
}

func mustAlgos(t *testing.T, list string) []Algo {
	t.Helper()
	a, err := ParseAlgos(list)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestTable11 checks the reproduction of Murphy's Table 1.1: PVB ahead of the cubic
// Bézier at every rate, with and without acceleration, by a few percent as in the
// paper (7.24%, 6.38%, 5.57%).
func TestTable11(t *testing.T) {
	rows, err := ReproduceTable(context.Background(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 6 {
		t.Fatalf("%d rows, want 6", len(rows))
	}
	for _, r := range rows {
		if !(r.PVB.MeanErrM < r.Bezier.MeanErrM) {
			t.Errorf("%g/s accel=%v: PVB %.4f m not below Bézier %.4f m", r.RateHz, r.Acceleration, r.PVB.MeanErrM, r.Bezier.MeanErrM)
		}
		if r.Closer < 2 || r.Closer > 12 {
			t.Errorf("%g/s accel=%v: PVB %.2f%% closer, want the paper's few-percent band (2–12%%)", r.RateHz, r.Acceleration, r.Closer)
		}
	}
	// Errors fall as the rate rises.
	for i := 1; i < 3; i++ {
		if rows[i].PVB.MeanErrM >= rows[i-1].PVB.MeanErrM {
			t.Errorf("PVB error %.4f m at %g/s not below %.4f m at %g/s", rows[i].PVB.MeanErrM, rows[i].RateHz, rows[i-1].PVB.MeanErrM, rows[i-1].RateHz)
		}
	}
	var b bytes.Buffer
	if err := Run(context.Background(), &b, Options{Mode: Table}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"radius 20 m", "10 m/s", "60 fps", "latency 0 ms", "7.24%", "swapped"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table output lacks %q:\n%s", want, b.String())
		}
	}
}

// TestLatencyCompensation: at 150 ms one-way latency and 3 updates/s, pvb-ts cuts
// PVB's mean error by at least 45% on circle and zigzag (about half: 47% on the zigzag
// with a 20 ms clock error), with perfect clocks and with a 20 ms clock error either
// way.
func TestLatencyCompensation(t *testing.T) {
	link := impair.Link{Latency: units.Duration(0.15)}
	for _, sc := range []string{"circle", "zigzag"} {
		p := scenario(t, sc)
		pvb := run(t, p, "pvb", 3, link, 0)
		for _, ce := range []float64{0, 0.02, -0.02} {
			ts := run(t, p, "pvb-ts", 3, link, ce)
			if cut := 1 - ts.MeanErrM/pvb.MeanErrM; cut < 0.45 {
				t.Errorf("%s, clock error %v s: pvb-ts %.4f m vs pvb %.4f m, a %.0f%% cut, want ≥ 45%%", sc, ce, ts.MeanErrM, pvb.MeanErrM, 100*cut)
			}
		}
	}
}

// TestSmoothingJumps: the blending algorithms never snap, so their largest per-frame
// jump stays far below the snapping ones' on every analytic scenario. (The tank
// scenario's truth comes from package physics and is left out so that this test
// checks dead reckoning, not the physics of the day.)
func TestSmoothingJumps(t *testing.T) {
	link := impair.Link{Latency: units.Duration(0.1)}
	for _, sc := range []string{"circle", "eight", "zigzag", "stopgo", "ledge"} {
		jump, p := map[string]float64{}, scenario(t, sc)
		for _, a := range []string{"static", "linear", "quadratic", "pvb", "bezier", "twopath"} {
			jump[a] = run(t, p, a, 3, link, 0).MaxJumpM
		}
		for _, smooth := range []string{"pvb", "bezier", "twopath"} {
			for _, snap := range []string{"static", "linear"} {
				if jump[smooth]*2.5 > jump[snap] {
					t.Errorf("%s: %s jumps %.4f m, not far below %s's %.4f m", sc, smooth, jump[smooth], snap, jump[snap])
				}
			}
		}
		// Quadratic, fed acceleration, predicts a circle almost exactly, so its snaps
		// there are small; elsewhere PVB and Bézier stay well below it.
		if sc != "circle" {
			for _, smooth := range []string{"pvb", "bezier"} {
				if jump[smooth]*2.5 > jump["quadratic"] {
					t.Errorf("%s: %s jumps %.4f m, not far below quadratic's %.4f m", sc, smooth, jump[smooth], jump["quadratic"])
				}
			}
		}
	}
}

func TestDelayedShowsItsDelay(t *testing.T) {
	r := run(t, scenario(t, "circle"), "delayed", 3, impair.Link{Latency: units.Duration(0.1)}, 0)
	if r.DelayS <= 0 || r.MeanErrPastM == nil {
		t.Fatalf("delayed reports no delay: %+v", r)
	}
	// On a 10 m/s path, showing the past costs about speed × delay against the present.
	if want := circleSpeed * r.DelayS; math.Abs(r.MeanErrM-want) > 0.1*want {
		t.Errorf("error against the present %.3f m, want about %.3f m (speed × delay)", r.MeanErrM, want)
	}
	if *r.MeanErrPastM > 0.05 {
		t.Errorf("error against the truth one delay ago %.4f m, want under 5 cm", *r.MeanErrPastM)
	}
}

func TestLedgeStaysAboveGround(t *testing.T) {
	ledge := scenario(t, "ledge")
	for _, a := range []string{"pvb", "bezier", "quadratic"} {
		r := run(t, ledge, a, 3, impair.Link{Latency: units.Duration(0.15)}, 0)
		if r.MaxDepthM == nil || *r.MaxDepthM > belowGroundTolerance || *r.BelowGroundShare != 0 {
			t.Errorf("%s on the ledge: depth %v m, share %v below ground; want the clamp to keep it above", a, deref(r.MaxDepthM), deref(r.BelowGroundShare))
		}
	}
}

func deref(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

func TestBudgetMeetsTarget(t *testing.T) {
	p, err := BuildScenario("circle", DefaultFPS, 30)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := ParseAlgo("pvb")
	r, err := findBudget(context.Background(), Setup{Path: p, Algo: a}, 0.25, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Met || r.P95ErrM >= 0.25 || r.Publish != "threshold" {
		t.Fatalf("budget: met %v, p95 %.4f m, publish %s; want met under 0.25 m with thresholds", r.Met, r.P95ErrM, r.Publish)
	}
	// A tighter target needs more updates.
	tight, err := findBudget(context.Background(), Setup{Path: p, Algo: a}, 0.05, 1)
	if err != nil {
		t.Fatal(err)
	}
	if tight.Met && tight.UpdatesPerS <= r.UpdatesPerS {
		t.Errorf("p95 < 5 cm costs %.2f updates/s, not more than %.2f for 25 cm", tight.UpdatesPerS, r.UpdatesPerS)
	}
	if r.BytesPerS <= 0 || r.BytesPerUpdate < float64(defaultUpdateBytes)-1 {
		t.Errorf("bytes/s %.1f, bytes/update %.1f; want the wire size", r.BytesPerS, r.BytesPerUpdate)
	}
}

func TestTraceMatchesScenario(t *testing.T) {
	// The circle recorded at 20 samples/s plays like the built-in circle.
	p, _ := BuildScenario("circle", 20, 30)
	var csv strings.Builder
	csv.WriteString("t,x,y,z\n")
	for _, pose := range p.Poses {
		fmt.Fprintf(&csv, "%.4f, %.6f, %.6f, %.6f\n", pose.Time, pose.Position.X(), pose.Position.Y(), pose.Position.Z())
	}
	name := filepath.Join(t.TempDir(), "circle.csv")
	if err := os.WriteFile(name, []byte(csv.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	var fromTrace, builtIn bytes.Buffer
	base := Options{Algos: mustAlgos(t, "pvb"), Duration: 29, JSON: true, Publish: PublishConfig{Rate: 3}}
	withTrace := base
	withTrace.Trace = name
	if err := Run(context.Background(), &fromTrace, withTrace); err != nil {
		t.Fatal(err)
	}
	base.Scenarios = []string{"circle"}
	if err := Run(context.Background(), &builtIn, base); err != nil {
		t.Fatal(err)
	}
	var a, b Result
	if err := json.Unmarshal(fromTrace.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(builtIn.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if a.Scenario != "circle" || math.Abs(a.MeanErrM-b.MeanErrM) > 0.25*b.MeanErrM+0.005 {
		t.Errorf("trace %q mean error %.4f m, built-in %.4f m; want them within 25%%", a.Scenario, a.MeanErrM, b.MeanErrM)
	}
}

func TestPlotIsAPNG(t *testing.T) {
	p, _ := BuildScenario("eight", 30, 12)
	var rs []Result
	for _, a := range mustAlgos(t, "linear,pvb") {
		r, err := Simulate(Setup{Path: p, Algo: a, Publish: PublishConfig{Rate: 2}, Record: true})
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	var b bytes.Buffer
	if err := writePlot(&b, p, rs); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&b)
	if err != nil {
		t.Fatal(err)
	}
	if sz := img.Bounds().Size(); sz.X != 8*plotDPI || sz.Y != 11*plotDPI {
		t.Errorf("plot is %v pixels, want %d×%d", sz, 8*plotDPI, 11*plotDPI)
	}
	if err := writePlot(&b, p, []Result{{Algo: "pvb"}}); err == nil {
		t.Error("plotting runs without records did not fail")
	}
}

func TestOptionsRejectNonsense(t *testing.T) {
	for _, c := range []struct {
		name string
		o    Options
		want string
	}{
		{"unknown scenario", Options{Scenarios: []string{"moon"}}, "unknown scenario"},
		{"fps", Options{FPS: -5}, "frame rate"},
		{"duration", Options{Duration: -1}, "duration"},
		{"loss", Options{Network: impair.Link{Loss: 2}}, "loss"},
		{"both", Options{Scenarios: []string{"circle"}, Trace: "x.csv"}, "not both"},
		{"rate", Options{Publish: PublishConfig{Rate: -3}}, "rate"},
		{"warm-up eats all", Options{Duration: 1, Warmup: 5}, "no frames"},
		{"missing trace", Options{Trace: filepath.Join(t.TempDir(), "none.csv")}, "read trace"},
		{"clock", Options{ClockError: math.Inf(1)}, "clock error"},
	} {
		err := Run(context.Background(), &bytes.Buffer{}, c.o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}

// TestRunStopsWhenCancelled: a run whose context is cancelled simulates nothing and
// returns the context's error. One scenario (every algorithm on it) gives the workers
// jobs to refuse; building every scenario's path, which a cancelled run still does
// first, added seconds of processor time and nothing to check.
func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Run(ctx, &bytes.Buffer{}, Options{Scenarios: []string{"circle"}}); err != context.Canceled {
		t.Errorf("cancelled run returned %v, want context.Canceled", err)
	}
}

func TestParseAlgos(t *testing.T) {
	a, err := ParseAlgos("pvb, pvb-ts,pvb")
	if err != nil || len(a) != 2 || a[0].Name != "pvb" || !a[1].CompensateLatency || a[0].CompensateLatency {
		t.Errorf("ParseAlgos(pvb, pvb-ts,pvb) = %+v, %v", a, err)
	}
	if all, err := ParseAlgos("all"); err != nil || len(all) != 19 {
		t.Errorf("ParseAlgos(all) = %d algorithms, %v; want 19 (nine DIS, path)", len(all), err)
	}
	if d, err := ParseAlgos("dis-fpw,dis-rvb"); err != nil || len(d) != 2 || d[1].Algorithm != deadreckon.DISRVB {
		t.Errorf("ParseAlgos(dis-fpw,dis-rvb) = %+v, %v", d, err)
	}
	if _, err := ParseAlgos("pvb,hermite"); err == nil || !strings.Contains(err.Error(), "hermite") {
		t.Errorf("ParseAlgos(hermite) error %v", err)
	}
	if _, err := ParseAlgos(" , "); err == nil {
		t.Error("ParseAlgos of nothing did not fail")
	}
}

func TestWireRangeIsReported(t *testing.T) {
	// A path 9 km out is beyond the wire format's ±8388 m: wire-encoded runs fail with a
	// clear error; exact runs work.
	p, _ := BuildScenario("circle", 30, 5)
	for i := range p.Poses {
		p.Poses[i].Position[0] += 9000
	}
	a, _ := ParseAlgo("pvb")
	if _, err := Simulate(Setup{Path: p, Algo: a, Publish: PublishConfig{Rate: 3}}); err == nil || !strings.Contains(err.Error(), "wire-encoded") {
		t.Errorf("wire run 9 km out: error %v, want one about wire encoding", err)
	}
	r, err := Simulate(Setup{Path: p, Algo: a, Publish: PublishConfig{Rate: 3}, Exact: true})
	if err != nil || r.MeanErrM > 0.1 || r.BytesPerUpdate != defaultUpdateBytes {
		t.Errorf("exact run 9 km out: %v, mean error %v m, %v B/update", err, r.MeanErrM, r.BytesPerUpdate)
	}
}

func TestSimulateRunsCombinesSeeds(t *testing.T) {
	p, _ := BuildScenario("eight", 30, 20)
	a, _ := ParseAlgo("pvb")
	s := Setup{Path: p, Algo: a, Publish: PublishConfig{Rate: 3}, Network: impair.Link{Latency: units.Duration(0.05), Loss: 0.2}, Seed: 5}
	var singles []Result
	for k := uint64(0); k < 3; k++ {
		one := s
		one.Seed += k
		r, err := Simulate(one)
		if err != nil {
			t.Fatal(err)
		}
		singles = append(singles, r)
	}
	all, err := simulateRuns(s, 3)
	if err != nil {
		t.Fatal(err)
	}
	mean := (singles[0].MeanErrM + singles[1].MeanErrM + singles[2].MeanErrM) / 3
	maxErr := math.Max(singles[0].MaxErrM, math.Max(singles[1].MaxErrM, singles[2].MaxErrM))
	lost := singles[0].Lost + singles[1].Lost + singles[2].Lost
	if !near(all.MeanErrM, mean, 1e-12) || all.MaxErrM != maxErr || all.Lost != lost || all.Runs != 3 {
		t.Errorf("3 runs: mean %v max %v lost %d runs %d; want %v, %v, %d, 3", all.MeanErrM, all.MaxErrM, all.Lost, all.Runs, mean, maxErr, lost)
	}
	if all.MeanErrSDM <= 0 {
		t.Errorf("20%% loss over 3 seeds gave no spread in mean error")
	}
	if one, _ := simulateRuns(s, 0); one.Runs != 1 || one.MeanErrM != singles[0].MeanErrM {
		t.Errorf("0 runs means one: %+v", one)
	}
	if _, err := simulateRuns(s, -1); err == nil {
		t.Error("-1 runs accepted")
	}
}

// TestThresholdPublishing: on a perfect link the remote view stays within about the
// position threshold of the truth, and a tighter threshold costs more updates.
func TestThresholdPublishing(t *testing.T) {
	p, _ := BuildScenario("circle", DefaultFPS, 30)
	a, _ := ParseAlgo("pvb")
	var prev Result
	for i, th := range []float64{0.5, 0.1, 0.05} {
		r, err := Simulate(Setup{Path: p, Algo: a, Publish: PublishConfig{PosThreshold: th}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Publish != "threshold" || r.PosThresholdM != th {
			t.Fatalf("threshold %v: publish %q at %v m", th, r.Publish, r.PosThresholdM)
		}
		// The owner publishes when its own reckoning drifts past the threshold; the
		// remote shows the same reckoning, so its error stays near the threshold.
		if r.P95ErrM > 1.2*th {
			t.Errorf("threshold %v m: p95 error %.4f m, want at most %.2f m", th, r.P95ErrM, 1.2*th)
		}
		if i > 0 && r.UpdatesPerS <= prev.UpdatesPerS {
			t.Errorf("threshold %v m costs %.2f updates/s, not more than %.2f at %v m", th, r.UpdatesPerS, prev.UpdatesPerS, prev.PosThresholdM)
		}
		if r.UpdatesPerS > 1/deadreckon.DefaultMinInterval+1e-9 {
			t.Errorf("threshold %v m: %.2f updates/s beyond the %v s minimum interval", th, r.UpdatesPerS, deadreckon.DefaultMinInterval)
		}
		prev = r
	}
}
