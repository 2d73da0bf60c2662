package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/net/impair"
)

// Defaults for Options.
const (
	// DefaultFPS is the frame rate of the owner and the remote view, frames per second.
	DefaultFPS = 60.0
	// DefaultDuration is how long each scenario runs, s.
	DefaultDuration = 60.0
	// DefaultRate is the fixed publish rate when no threshold is asked for, Hz.
	DefaultRate = 3.0
	// DefaultAlgos is the algorithm list when none is given.
	DefaultAlgos = "static,linear,quadratic,pvb,bezier,twopath,pvb-ts,delayed,game"
	// DefaultBudgetP95 is the p95 error the budget search aims under, m.
	DefaultBudgetP95 = 0.25
)

// Mode selects what Run reports.
type Mode uint8

const (
	// Compare runs every algorithm on every chosen scenario and reports them side by
	// side.
	Compare Mode = iota
	// Table reproduces Table 1.1 of Murphy's "Believable Dead Reckoning for Networked
	// Games": cubic Bézier against projective velocity blending on a circle at 1, 3 and
	// 5 updates per second, with and without published acceleration.
	Table
	// Budget searches, for each scenario and algorithm, the threshold publisher's
	// position threshold that keeps the p95 error under a target at the fewest updates.
	Budget
)

// Options is one drlab invocation. The zero value plus a Mode is usable: every zero
// field takes its default.
type Options struct {
	// Mode selects the report.
	Mode Mode
	// Scenarios names the built-in scenarios to run; "all" runs every one. If empty
	// and Trace is empty, "circle". Table always runs the circle.
	Scenarios []string
	// Trace is a CSV trace file to play instead of the built-in scenarios.
	Trace string
	// Algos are the algorithms compared; if empty, DefaultAlgos (Compare) or pvb
	// (Budget). Table always compares bezier and pvb.
	Algos []Algo
	// Publish is how the owner publishes (Compare); its zero value is threshold
	// publishing with deadreckon's defaults. Table sets fixed rates; Budget searches
	// the position threshold.
	Publish PublishConfig
	// Network is the modelled link, impaired as package net/impair impairs real ones.
	Network impair.Link
	// ClockError is the error of the clock offset given to pvb-ts and delayed, s.
	ClockError float64
	// FPS is the frame rate; if zero, DefaultFPS.
	FPS float64
	// Duration is how long each scenario runs, s; if zero, DefaultDuration. A trace
	// runs to its end, or for Duration if that is shorter and not zero.
	Duration float64
	// Warmup is the unmeasured start of each run, s; if zero, DefaultWarmup; Off (or
	// any negative) means none.
	Warmup float64
	// Seed drives every random draw; the same seed gives the same output.
	Seed uint64
	// Runs is how many seeds (Seed, Seed+1, …) each Compare and Budget figure
	// averages over; if zero, one.
	Runs int
	// Exact sends states unquantized instead of through the wire encoding (Compare and
	// Budget; Table is always exact).
	Exact bool
	// UpdateBytes, if positive, is the size counted per update, bytes; if zero, the
	// size of the update's wire encoding.
	UpdateBytes int
	// BudgetP95 is the p95 error target of Budget mode, m; if zero, DefaultBudgetP95.
	BudgetP95 float64
	// JSON writes one JSON object per result line instead of tables.
	JSON bool
	// Plot, if set, is a PNG file to draw the first scenario's run into (Compare).
	Plot string
	// Replay is a match recording (package record) to measure instead of scenarios:
	// every tank whose truth it holds, per tank and summed (drlab -replay). A zero
	// Duration runs each truth to its end.
	Replay string
	// ReplayModelled publishes each recorded truth again over Network, as a trace
	// is, instead of replaying the recorded updates at their recorded arrival times.
	ReplayModelled bool
	// ExportTrace, if set, is a directory to write each recorded truth into as the
	// CSV trace that Trace reads (with Replay).
	ExportTrace string
	// MapDir, if set, is searched for the recording's map (NAME.json) before the
	// maps built into the program (package assets/maps). Over the recorded link,
	// every tank is clamped to the ground of the map found as the game clamps it,
	// and its depth below the ground measured.
	MapDir string
}

// Run does what opts says and writes the report to w. It stops early with ctx's error
// when ctx is cancelled.
func Run(ctx context.Context, w io.Writer, opts Options) error {
	o, err := opts.withDefaults()
	if err != nil {
		return err
	}
	switch {
	case o.Replay != "" && o.Mode == Compare:
		return runReplay(ctx, w, o)
	case o.Replay != "":
		return errors.New("a replay is measured by comparison, not by -table or -budget")
	}
	switch o.Mode {
	case Table:
		return runTable(ctx, w, o)
	case Budget:
		return runBudget(ctx, w, o)
	default:
		return runCompare(ctx, w, o)
	}
}

// withDefaults fills in every zero field and checks the options, step by step: the
// run's timing and link, its counts, the algorithms, and the scenarios.
func (o Options) withDefaults() (Options, error) {
	if err := o.defaultTiming(); err != nil {
		return o, err
	}
	if err := o.defaultCounts(); err != nil {
		return o, err
	}
	if len(o.Algos) == 0 {
		a, err := ParseAlgos(defaultAlgos(o.Mode))
		if err != nil {
			return o, err
		}
		o.Algos = a
	}
	names, err := o.scenarioNames()
	if err != nil {
		return o, err
	}
	o.Scenarios = names
	if _, err := o.Publish.withDefaults(); err != nil {
		return o, err
	}
	return o, nil
}

// defaultTiming fills in the zero frame rate and duration, and checks them, the
// warm-up, the clock error and the link.
func (o *Options) defaultTiming() error {
	if o.FPS == 0 {
		o.FPS = DefaultFPS
	}
	if !(o.FPS >= 1 && o.FPS <= 10000) {
		return fmt.Errorf("frame rate %v fps is outside 1..10000", o.FPS)
	}
	whole := o.Trace != "" || o.Replay != "" // runs to the end of its truth
	if o.Duration == 0 && (!whole || o.Mode == Table) {
		o.Duration = DefaultDuration
	}
	if !(o.Duration > 0 && o.Duration <= 24*3600) && !(o.Duration == 0 && whole) {
		return fmt.Errorf("duration %v s is outside (0, 24 h]", o.Duration)
	}
	if math.IsNaN(o.Warmup) || math.IsInf(o.Warmup, 0) {
		return fmt.Errorf("warm-up %v s is not finite", o.Warmup)
	}
	if math.IsNaN(o.ClockError) || math.IsInf(o.ClockError, 0) {
		return fmt.Errorf("clock error %v s is not finite", o.ClockError)
	}
	if _, err := impair.NewPath(o.Network, 0); err != nil {
		return fmt.Errorf("network: %w", err)
	}
	return nil
}

// defaultCounts fills in the zero budget target, and checks it, the number of runs
// and the update size.
func (o *Options) defaultCounts() error {
	if o.BudgetP95 == 0 {
		o.BudgetP95 = DefaultBudgetP95
	}
	if !(o.BudgetP95 > 0) || math.IsInf(o.BudgetP95, 0) {
		return fmt.Errorf("budget p95 target %v m is not positive", o.BudgetP95)
	}
	if o.Runs < 0 || o.Runs > maxRuns {
		return fmt.Errorf("%d runs is outside 0..%d", o.Runs, maxRuns)
	}
	if o.UpdateBytes < 0 {
		return fmt.Errorf("update size %d bytes is negative", o.UpdateBytes)
	}
	return nil
}

// defaultAlgos is the algorithm list a mode compares when none is given.
func defaultAlgos(m Mode) string {
	switch m {
	case Table:
		return "bezier,pvb"
	case Budget:
		return "pvb"
	}
	return DefaultAlgos
}

// scenarioNames expands "all" in the options' scenarios and checks every name: the
// circle when neither scenarios nor a trace is given, and never both.
func (o Options) scenarioNames() ([]string, error) {
	var names []string
	for _, s := range o.Scenarios {
		if s == "all" {
			names = append(names, ScenarioNames()...)
			continue
		}
		if describeScenario(s) == "" {
			return nil, fmt.Errorf("unknown scenario %q (have %s, %sSEED, all)", s, strings.Join(ScenarioNames(), ", "), WanderPrefix)
		}
		names = append(names, s)
	}
	if len(names) == 0 && o.Trace == "" && o.Replay == "" {
		names = []string{"circle"}
	}
	if o.Trace != "" && len(o.Scenarios) > 0 {
		return nil, errors.New("give either scenarios or a trace, not both")
	}
	if o.Replay != "" && (o.Trace != "" || len(o.Scenarios) > 0) {
		return nil, errors.New("give either a replay or scenarios and traces, not both")
	}
	return names, nil
}

// paths builds the truth of every scenario (or the trace) the options name.
func (o Options) paths() ([]*Path, error) {
	if o.Trace != "" {
		tr, err := readTraceFile(o.Trace)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(o.Trace), filepath.Ext(o.Trace))
		p, err := tr.Path(name, o.FPS, o.Duration)
		if err != nil {
			return nil, err
		}
		return []*Path{p}, nil
	}
	var out []*Path
	for _, name := range o.Scenarios {
		p, err := BuildScenario(name, o.FPS, o.Duration)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}

// setup returns the run of algorithm a on path p as the options say.
func (o Options) setup(p *Path, a Algo) Setup {
	return Setup{
		Path:        p,
		Algo:        a,
		Publish:     o.Publish,
		Network:     o.Network,
		Seed:        o.Seed,
		ClockError:  o.ClockError,
		Warmup:      o.Warmup,
		Exact:       o.Exact,
		UpdateBytes: o.UpdateBytes,
	}
}

func runCompare(ctx context.Context, w io.Writer, o Options) error {
	paths, err := o.paths()
	if err != nil {
		return err
	}
	na := len(o.Algos)
	all := make([]Result, len(paths)*na)
	err = forEach(ctx, len(all), func(sc *scratch, i int) error {
		k := i / na
		s := o.setup(paths[k], o.Algos[i%na])
		s.Record = o.Plot != "" && k == 0
		r, err := sc.simulateRuns(s, o.Runs)
		all[i] = r
		return err
	})
	if err != nil {
		return err
	}
	if o.Plot != "" {
		if err := savePlot(o.Plot, paths[0], all[:na]); err != nil {
			return err
		}
	}
	if o.JSON {
		return writeJSON(w, all)
	}
	if err := writeCompareHeader(w, o, paths); err != nil {
		return err
	}
	if err := writeResults(w, all); err != nil {
		return err
	}
	return writeCompareNotes(w, all)
}

// writeCompareNotes explains the columns under a comparison table.
func writeCompareNotes(w io.Writer, rs []Result) error {
	var b strings.Builder
	b.WriteString("\nmean/p95/max: |displayed − true| at the same instant; head: mean heading error;\n")
	b.WriteString("jump: largest |displayed step − true step| between frames (snaps, stalls, and steady lag on turns);\n")
	b.WriteString("pop: largest per-frame step off the displayed path's own course beyond the truth's (not lag);\n")
	b.WriteString("dv: largest per-frame change of displayed velocity beyond the truth's own change;\n")
	b.WriteString("over: furthest past the truth's stopping point, along its travel, over every stop (- without stops);\n")
	b.WriteString("start: p95 over starts of the time from the truth leaving rest to the display moving the same way;\n")
	b.WriteString("stale/min: times per minute the display is newly marked stale while its owner publishes;\n")
	b.WriteString("rev/min: times per minute the displayed path turns back against the truth's direction of travel;\n")
	b.WriteString("jerk: RMS jerk of the displayed path (the truth's:")
	seen := map[string]bool{}
	for _, r := range rs {
		if !seen[r.Scenario] {
			seen[r.Scenario] = true
			fmt.Fprintf(&b, " %s %.1f", r.Scenario, r.TrueRMSJerk)
		}
	}
	b.WriteString(").\n")
	for _, r := range rs {
		if r.MeanErrPastM != nil {
			b.WriteString("delayed shows the actor its delay in the past by design: its error against the present\n")
			b.WriteString("includes speed × delay; the past columns measure it against the truth one delay ago.\n")
			break
		}
	}
	seen = map[string]bool{}
	for _, r := range rs {
		if r.MaxDepthM == nil || seen[r.Scenario] {
			continue
		}
		if len(seen) == 0 {
			fmt.Fprintf(&b, "depth: deepest point below the ground; below: share of frames more than %g m under it\n", belowGroundTolerance)
			b.WriteString("(the truth's own:")
		}
		seen[r.Scenario] = true
		fmt.Fprintf(&b, " %s %.3f m %.1f%%", r.Scenario, max(0, *r.TrueMaxDepthM), 100**r.TrueBelowGroundShare)
	}
	if len(seen) > 0 {
		b.WriteString(").\n")
	}
	for _, r := range rs {
		if r.EncodeErrors > 0 {
			fmt.Fprintf(&b, "%s/%s: %d updates were outside the wire format's range and not sent (try -exact).\n",
				r.Scenario, r.Algo, r.EncodeErrors)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func writeCompareHeader(w io.Writer, o Options, paths []*Path) error {
	pub, _ := o.Publish.withDefaults()
	var b strings.Builder
	for _, p := range paths {
		if d := describeScenario(p.Name); d != "" && o.Trace == "" {
			fmt.Fprintf(&b, "%s: %s\n", p.Name, d)
		} else {
			fmt.Fprintf(&b, "%s: trace %s, %.1f s\n", p.Name, o.Trace, p.Duration())
		}
	}
	games, others := 0, 0
	for _, a := range o.Algos {
		if a.Game {
			games++
		} else {
			others++
		}
	}
	if others > 0 {
		fmt.Fprintf(&b, "publish: %s\n", pub.describe())
	}
	if games > 0 {
		fmt.Fprintf(&b, "game: %s\n", describeGame(game.DeadReckoning()))
	}
	fmt.Fprintf(&b, "link: %s; clock error %s\n", describeLink(o.Network), ms(o.ClockError))
	fmt.Fprintf(&b, "%.0f fps; %.0f s measured after %.1f s warm-up; %s; %s\n\n",
		o.FPS, paths[0].Duration()-warmupOf(o.Warmup), warmupOf(o.Warmup), o.seeds(), o.encoding())
	_, err := io.WriteString(w, b.String())
	return err
}

func ms(s float64) string { return fmt.Sprintf("%g ms", math.Round(s*1e6)/1e3) }

func warmupOf(w float64) float64 {
	switch {
	case w == 0:
		return DefaultWarmup
	case w < 0:
		return 0
	}
	return w
}

// seeds says which seeds the figures come from.
func (o Options) seeds() string {
	if o.Runs > 1 {
		return fmt.Sprintf("means over seeds %d…%d", o.Seed, o.Seed+uint64(o.Runs)-1)
	}
	return fmt.Sprintf("seed %d", o.Seed)
}

// encoding says how updates travel and how their bytes are counted.
func (o Options) encoding() string {
	enc := "states wire-encoded (net/wire, quantized)"
	if o.Exact {
		enc = "states sent unquantized"
	}
	switch {
	case o.UpdateBytes > 0:
		return fmt.Sprintf("%s; %d B counted per update", enc, o.UpdateBytes)
	case o.Exact:
		return fmt.Sprintf("%s; %d B counted per update (wire size)", enc, defaultUpdateBytes)
	}
	return enc + "; bytes = StateBatch payload per update"
}
