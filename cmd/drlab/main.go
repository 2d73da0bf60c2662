package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/lab"
	"github.com/treadline/treadline/net/impair"
)

func main() { cli.Main("drlab", run) }

// run parses args and runs the lab (or the duel), writing its report to stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := cli.NewFlagSet("drlab", stderr)
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "Usage: drlab [flags]\n\n"+
			"Measures dead reckoning: plays a trajectory, publishes it over a modelled link and\n"+
			"reports how far and how smoothly each algorithm's remote view follows the truth.\n"+
			"With no flags, reproduces Table 1.1 of Murphy's \"Believable Dead Reckoning\".\n\nFlags:\n")
		fs.PrintDefaults()
	}
	f, err := parseLabFlags(fs, args)
	if err != nil {
		return err
	}
	if f.duelOptions != nil {
		return lab.RunDuel(ctx, stdout, *f.duelOptions)
	}
	return lab.Run(ctx, stdout, f.Options)
}

// parseFlags turns the command line into lab options (the duel's are ignored).
func parseFlags(fs *flag.FlagSet, args []string) (lab.Options, error) {
	o, err := parseLabFlags(fs, args)
	return o.Options, err
}

// labFlags are the parsed flags: lab options, and the duel's when -duel is given.
type labFlags struct {
	lab.Options
	duelOptions *lab.DuelOptions // set by -duel
}

// parseLabFlags parses the command line.
func parseLabFlags(fs *flag.FlagSet, args []string) (labFlags, error) {
	var (
		duel       = fs.Bool("duel", false, "measure who-hit-whom: a bot fires at another over the impaired link (-latency -jitter -loss each hop; -seed -runs -json -shots -difficulty)")
		shots      = fs.Int("shots", lab.DefaultDuelShots, "-duel: shots fired per run at least")
		difficulty = fs.String("difficulty", "normal", "-duel: the shooting bot's skill: easy, normal or hard")
	)
	o, err := parseLabOptions(fs, args)
	lf := labFlags{Options: o}
	if err != nil || !*duel {
		return lf, err
	}
	d, err := game.ParseDifficulty(*difficulty)
	if err != nil {
		return lf, cli.Usagef("difficulty", "%q: give easy, normal or hard", *difficulty)
	}
	lf.duelOptions = &lab.DuelOptions{Network: o.Network, Seed: o.Seed, Runs: o.Runs, Shots: *shots,
		FPS: o.FPS, Difficulty: d, JSON: o.JSON}
	return lf, nil
}

// parseLabOptions turns the command line into lab options.
func parseLabOptions(fs *flag.FlagSet, args []string) (lab.Options, error) {
	var (
		scenario  = fs.String("scenario", "circle", "built-in scenarios, comma-separated: "+strings.Join(lab.ScenarioNames(), ", ")+", or all")
		trace     = fs.String("trace", "", "play a CSV trajectory instead: rows t,x,y,z or t,x,y,z,qw,qx,qy,qz (s, m, Y up)")
		algos     = fs.String("algos", lab.DefaultAlgos, "algorithms, comma-separated: "+strings.Join(lab.AlgoNames(), ", ")+", or all\n(-table: bezier,pvb; -budget: pvb)")
		rate      = fs.Float64("rate", lab.DefaultRate, "fixed publish rate, updates/s; 0 publishes on thresholds instead")
		posThresh = fs.Float64("pos-threshold", 0, "threshold publishing: position error that triggers an update, m (0: 0.25)")
		rotThresh = fs.Float64("rot-threshold", 0, "threshold publishing: orientation error that triggers an update, degrees (0: 2)")
		minIntv   = fs.Duration("min-interval", 0, "threshold publishing: shortest time between updates (0: 200ms)")
		heartbeat = fs.Duration("heartbeat", 0, "threshold publishing: longest time between updates (0: 5s)")
		noAccel   = fs.Bool("no-accel", false, "publish zero acceleration")
		latency   = fs.Duration("latency", 0, "one-way network latency")
		jitter    = fs.Duration("jitter", 0, "latency jitter: each delay uniform in latency ± jitter (never reordering)")
		loss      = fs.Float64("loss", 0, "share of updates lost, 0..1")
		lossBurst = fs.Float64("loss-burst", 0, "mean length of a run of lost updates (0 or 1: independent losses)")
		reorder   = fs.Float64("reorder", 0, "share of updates held back 20ms so that later ones overtake them, 0..1")
		duplicate = fs.Float64("duplicate", 0, "share of updates delivered twice, 0..1")
		clockErr  = fs.Duration("clock-error", 0, "error of the clock offset given to pvb-ts and delayed")
		fps       = fs.Float64("fps", lab.DefaultFPS, "frame rate of owner and remote, frames/s")
		duration  = fs.Duration("duration", time.Duration(lab.DefaultDuration*float64(time.Second)), "length of each run")
		warmup    = fs.Duration("warmup", time.Duration(lab.DefaultWarmup*float64(time.Second)), "unmeasured start of each run")
		seed      = fs.Uint64("seed", 1, "seed of every random draw; the same seed gives the same output")
		runs      = fs.Int("runs", 1, "average every figure over this many seeds (seed, seed+1, …)")
		bytes     = fs.Int("bytes", 0, "bytes counted per update (0: the size of its wire encoding)")
		exact     = fs.Bool("exact", false, "send states unquantized instead of through the wire encoding")
		jsonOut   = fs.Bool("json", false, "print one JSON object per scenario and algorithm, one per line")
		plotFile  = fs.String("plot", "", "draw the first scenario's paths and errors to this PNG file")
		table     = fs.Bool("table", false, "reproduce Table 1.1 (the default when no flag is given)")
		budget    = fs.Bool("budget", false, "find the cheapest threshold publishing that keeps p95 error under -target")
		target    = fs.Float64("target", lab.DefaultBudgetP95, "p95 error target of -budget, m")
	)
	if err := cli.Parse(fs, args); err != nil {
		return lab.Options{}, err
	}
	set := cli.Set(fs)
	for name, v := range map[string]float64{"loss": *loss, "reorder": *reorder, "duplicate": *duplicate} {
		if err := cli.Fraction(name, v); err != nil {
			return lab.Options{}, err
		}
	}
	switch {
	case *latency < 0:
		return lab.Options{}, cli.Usagef("latency", "%v: give a delay of 0 or more", *latency)
	case *jitter < 0:
		return lab.Options{}, cli.Usagef("jitter", "%v: give a deviation of 0 or more", *jitter)
	case !(*lossBurst >= 0) || math.IsInf(*lossBurst, 0):
		return lab.Options{}, cli.Usagef("loss-burst", "%v: give a mean run length of 0 or more updates", *lossBurst)
	case *runs < 1:
		return lab.Options{}, cli.Usagef("runs", "%d: give 1 or more", *runs)
	case !(*fps > 0) || math.IsInf(*fps, 0):
		return lab.Options{}, cli.Usagef("fps", "%v: give a frame rate above 0", *fps)
	case *duration < 0:
		return lab.Options{}, cli.Usagef("duration", "%v: give 0 or more", *duration)
	}
	if set["trace"] {
		if err := cli.InputFile("trace", *trace); err != nil {
			return lab.Options{}, err
		}
	}
	if set["plot"] {
		if err := cli.OutputFile("plot", *plotFile, ".png"); err != nil {
			return lab.Options{}, err
		}
	}

	o := lab.Options{
		Trace:       *trace,
		FPS:         *fps,
		Duration:    seconds(*duration),
		Warmup:      seconds(*warmup),
		Seed:        *seed,
		Runs:        *runs,
		UpdateBytes: *bytes,
		Exact:       *exact,
		BudgetP95:   *target,
		JSON:        *jsonOut,
		Plot:        *plotFile,
		ClockError:  seconds(*clockErr),
		Network: impair.Link{Latency: *latency, Jitter: *jitter, Loss: *loss, LossBurst: *lossBurst,
			Reorder: *reorder, Duplicate: *duplicate},
		Publish: lab.PublishConfig{
			PosThreshold:   *posThresh,
			RotThreshold:   *rotThresh * math.Pi / 180,
			MinInterval:    seconds(*minIntv),
			Heartbeat:      seconds(*heartbeat),
			NoAcceleration: *noAccel,
		},
	}
	if *trace != "" && !set["duration"] {
		o.Duration = 0 // the whole trace
	}
	if *warmup == 0 {
		o.Warmup = -1 // an explicit zero means no warm-up
	}
	if *trace == "" || set["scenario"] {
		o.Scenarios = strings.Split(*scenario, ",")
	}
	if set["algos"] { // otherwise each mode's own list
		a, err := lab.ParseAlgos(*algos)
		if err != nil {
			return o, cli.Usagef("algos", "%q: %v", *algos, err)
		}
		o.Algos = a
	}

	threshold := set["pos-threshold"] || set["rot-threshold"] || set["min-interval"] || set["heartbeat"]
	switch {
	case set["rate"] && *rate > 0 && threshold:
		return o, cli.Usagef("rate", "with threshold flags (-pos-threshold, -rot-threshold, -min-interval, -heartbeat): give one way of publishing, not both")
	case threshold || *rate == 0:
		o.Publish.Rate = 0
	default:
		o.Publish.Rate = *rate
	}

	switch {
	case *table && *budget:
		return o, cli.Usagef("table", "and -budget: give one, not both")
	case *table || len(set) == 0:
		o.Mode = lab.Table
	case *budget:
		o.Mode = lab.Budget
	}
	if o.Mode == lab.Table && (set["algos"] || set["scenario"] || set["trace"]) {
		return o, cli.Usagef("table", "always compares bezier and pvb on the circle (Table 1.1); drop -algos, -scenario and -trace")
	}
	if *plotFile != "" && o.Mode != lab.Compare {
		return o, cli.Usagef("plot", "draws a comparison run; drop -table or -budget")
	}
	return o, nil
}

// seconds converts a flag duration to seconds.
func seconds(d time.Duration) float64 { return d.Seconds() }
