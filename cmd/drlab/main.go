package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/lab"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/session"
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
	if f.noviceOptions != nil {
		return lab.RunNovice(ctx, stdout, *f.noviceOptions)
	}
	if f.crowdOptions != nil {
		return lab.RunCrowd(ctx, stdout, *f.crowdOptions)
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
	duelOptions   *lab.DuelOptions   // set by -duel
	noviceOptions *lab.NoviceOptions // set by -novice
	crowdOptions  *lab.CrowdOptions  // set by -crowd
}

// parseLabFlags parses the command line.
func parseLabFlags(fs *flag.FlagSet, args []string) (labFlags, error) {
	var (
		duel       = fs.Bool("duel", false, "measure who-hit-whom: a bot fires at another over the impaired link (-latency -jitter -loss each hop; -seed -runs -json -shots -difficulty)")
		shots      = fs.Int("shots", lab.DefaultDuelShots, "-duel: shots fired per run at least")
		difficulty = fs.String("difficulty", "normal", "-duel, -novice: the bots' skill: easy, normal or hard")
		novice     = fs.Bool("novice", false, "measure a newcomer's practice match: a scripted novice (0.4 s reactions, a few degrees off, poor lead, turret at key speed) plays the practice headless in simulated time (-difficulty -bots -duration, 30m unless given, -seed -runs -json)")
		bots       = fs.Int("bots", 0, fmt.Sprintf("-novice: bots in the practice (0: %d)", session.DefaultPracticeBots))
		crowd      = fs.Int("crowd", 0, fmt.Sprintf("measure a large match: N tanks (2..%d) driven by bots through the real host's zones and downlink scheduler, the views of 32 players over the map measured (-latency -jitter -loss -loss-burst each way; -duration, 60s unless given, -seed -runs -json)", lab.MaxCrowd))
		hosted     = fs.Bool("hosted", false, "-novice: a hosted match instead of the practice: the novice joins mid-round asking for no team, as a player joining a tankhost does")
	)
	o, err := parseLabOptions(fs, args)
	lf := labFlags{Options: o}
	if err == nil && cli.Set(fs)["crowd"] {
		if *crowd < 2 || *crowd > lab.MaxCrowd {
			return lf, cli.Usagef("crowd", "%d: give 2 to %d tanks", *crowd, lab.MaxCrowd)
		}
		co := lab.CrowdOptions{Tanks: *crowd, Network: o.Network, Seed: o.Seed, Runs: o.Runs, FPS: o.FPS, JSON: o.JSON}
		if cli.Set(fs)["duration"] {
			co.Duration = o.Duration
		}
		lf.crowdOptions = &co
		return lf, nil
	}
	if err != nil || !*duel && !*novice {
		return lf, err
	}
	d, err := bot.ParseDifficulty(*difficulty)
	if err != nil {
		return lf, cli.Usagef("difficulty", "%q: give easy, normal or hard", *difficulty)
	}
	if *novice {
		if *bots < 0 || *bots > game.MaxBots {
			return lf, cli.Usagef("bots", "%d: give 0 to %d", *bots, game.MaxBots)
		}
		no := lab.NoviceOptions{Difficulty: d, Bots: *bots, Seed: o.Seed, Runs: o.Runs, JSON: o.JSON, Hosted: *hosted}
		if cli.Set(fs)["duration"] {
			no.Duration = units.Duration(o.Duration)
		}
		lf.noviceOptions = &no
		return lf, nil
	}
	lf.duelOptions = &lab.DuelOptions{Network: o.Network, Seed: o.Seed, Runs: o.Runs, Shots: *shots,
		FPS: o.FPS, Difficulty: d, JSON: o.JSON}
	return lf, nil
}

// labArgs are the lab's flags as given on the command line.
type labArgs struct {
	scenario, trace, algos, plotFile    string
	replay, exportTrace, maps           string
	rate, posThresh, rotThresh          float64
	minIntv, heartbeat                  time.Duration
	noAccel                             bool
	latency, jitter                     time.Duration
	loss, lossBurst, reorder, duplicate float64
	clockErr                            time.Duration
	fps                                 float64
	duration, warmup                    time.Duration
	seed                                uint64
	runs, bytes                         int
	exact, jsonOut, table, budget       bool
	target                              float64
}

// register defines the lab's flags on fs, each writing into a.
func (a *labArgs) register(fs *flag.FlagSet) {
	fs.StringVar(&a.scenario, "scenario", "circle", "built-in scenarios, comma-separated: "+strings.Join(lab.ScenarioNames(), ", ")+", or all;\n"+lab.WanderPrefix+"SEED is a wander drive with that seed, "+lab.PatrolPrefix+"SEED a patrol on that seed's route,\n"+lab.GentlePrefix+"SEED stop and go with gentle starts")
	fs.StringVar(&a.trace, "trace", "", "play a CSV trajectory instead: rows t,x,y,z or t,x,y,z,qw,qx,qy,qz (s, m, Y up)")
	fs.StringVar(&a.replay, "replay", "", "measure every tank whose truth the match recording `FILE` holds, per tank and summed,\nover the recorded link (or the modelled one when -latency, -jitter, -loss… are given)")
	fs.StringVar(&a.exportTrace, "export-trace", "", "with -replay: write each recorded truth into `DIR` as the CSV that -trace reads")
	fs.StringVar(&a.maps, "maps", "", "with -replay over the recorded link: a `DIR` searched for the recording's map before the built-in maps,\nto clamp every tank to the ground as the game does")
	fs.StringVar(&a.algos, "algos", lab.DefaultAlgos, "algorithms, comma-separated: "+strings.Join(lab.AlgoNames(), ", ")+", or all\n(-table: bezier,pvb; -budget: pvb)")
	fs.Float64Var(&a.rate, "rate", lab.DefaultRate, "fixed publish rate, updates/s; 0 publishes on thresholds instead")
	fs.Float64Var(&a.posThresh, "pos-threshold", 0, "threshold publishing: position error that triggers an update, m (0: 0.25)")
	fs.Float64Var(&a.rotThresh, "rot-threshold", 0, "threshold publishing: orientation error that triggers an update, degrees (0: 2)")
	fs.DurationVar(&a.minIntv, "min-interval", 0, "threshold publishing: shortest time between updates (0: 200ms)")
	fs.DurationVar(&a.heartbeat, "heartbeat", 0, "threshold publishing: longest time between updates (0: 5s)")
	fs.BoolVar(&a.noAccel, "no-accel", false, "publish zero acceleration")
	fs.DurationVar(&a.latency, "latency", 0, "one-way network latency")
	fs.DurationVar(&a.jitter, "jitter", 0, "latency jitter: each delay uniform in latency ± jitter (never reordering)")
	fs.Float64Var(&a.loss, "loss", 0, "share of updates lost, 0..1")
	fs.Float64Var(&a.lossBurst, "loss-burst", 0, "mean length of a run of lost updates (0 or 1: independent losses)")
	fs.Float64Var(&a.reorder, "reorder", 0, "share of updates held back 20ms so that later ones overtake them, 0..1")
	fs.Float64Var(&a.duplicate, "duplicate", 0, "share of updates delivered twice, 0..1")
	fs.DurationVar(&a.clockErr, "clock-error", 0, "error of the clock offset given to pvb-ts and delayed")
	fs.Float64Var(&a.fps, "fps", lab.DefaultFPS, "frame rate of owner and remote, frames/s")
	fs.DurationVar(&a.duration, "duration", units.Duration(lab.DefaultDuration), "length of each run")
	fs.DurationVar(&a.warmup, "warmup", units.Duration(lab.DefaultWarmup), "unmeasured start of each run")
	fs.Uint64Var(&a.seed, "seed", 1, "seed of every random draw; the same seed gives the same output")
	fs.IntVar(&a.runs, "runs", 1, "average every figure over this many seeds (seed, seed+1, …)")
	fs.IntVar(&a.bytes, "bytes", 0, "bytes counted per update (0: the size of its wire encoding)")
	fs.BoolVar(&a.exact, "exact", false, "send states unquantized instead of through the wire encoding")
	fs.BoolVar(&a.jsonOut, "json", false, "print one JSON object per scenario and algorithm, one per line")
	fs.StringVar(&a.plotFile, "plot", "", "draw the first scenario's paths and errors to this PNG file")
	fs.BoolVar(&a.table, "table", false, "reproduce Table 1.1 (the default when no flag is given)")
	fs.BoolVar(&a.budget, "budget", false, "find the cheapest threshold publishing that keeps p95 error under -target")
	fs.Float64Var(&a.target, "target", lab.DefaultBudgetP95, "p95 error target of -budget, m")
}

// parseLabOptions turns the command line into lab options.
func parseLabOptions(fs *flag.FlagSet, args []string) (lab.Options, error) {
	var a labArgs
	a.register(fs)
	if err := cli.Parse(fs, args); err != nil {
		return lab.Options{}, err
	}
	set := cli.Set(fs)
	if err := a.checkNetwork(); err != nil {
		return lab.Options{}, err
	}
	if err := a.checkRun(); err != nil {
		return lab.Options{}, err
	}
	if err := a.checkFiles(set); err != nil {
		return lab.Options{}, err
	}
	o := a.options(set)
	if err := a.setAlgos(&o, set); err != nil {
		return o, err
	}
	if err := a.setPublishRate(&o, set); err != nil {
		return o, err
	}
	if err := a.setMode(&o, set); err != nil {
		return o, err
	}
	return o, nil
}

// checkNetwork rejects a link that cannot be modelled.
func (a *labArgs) checkNetwork() error {
	for name, v := range map[string]float64{"loss": a.loss, "reorder": a.reorder, "duplicate": a.duplicate} {
		if err := cli.Fraction(name, v); err != nil {
			return err
		}
	}
	switch {
	case a.latency < 0:
		return cli.Usagef("latency", "%v: give a delay of 0 or more", a.latency)
	case a.jitter < 0:
		return cli.Usagef("jitter", "%v: give a deviation of 0 or more", a.jitter)
	case !(a.lossBurst >= 0) || math.IsInf(a.lossBurst, 0):
		return cli.Usagef("loss-burst", "%v: give a mean run length of 0 or more updates", a.lossBurst)
	}
	return nil
}

// checkRun rejects runs that cannot be played.
func (a *labArgs) checkRun() error {
	switch {
	case a.runs < 1:
		return cli.Usagef("runs", "%d: give 1 or more", a.runs)
	case !(a.fps > 0) || math.IsInf(a.fps, 0):
		return cli.Usagef("fps", "%v: give a frame rate above 0", a.fps)
	case a.duration < 0:
		return cli.Usagef("duration", "%v: give 0 or more", a.duration)
	}
	return nil
}

// checkFiles rejects a trace that cannot be read and a plot that cannot be written,
// when given (set).
func (a *labArgs) checkFiles(set map[string]bool) error {
	if set["trace"] {
		if err := cli.InputFile("trace", a.trace); err != nil {
			return err
		}
	}
	if set["replay"] {
		if err := cli.InputFile("replay", a.replay); err != nil {
			return err
		}
	}
	if set["export-trace"] && !set["replay"] {
		return cli.Usagef("export-trace", "needs -replay: it writes the truths a recording holds")
	}
	if set["plot"] {
		return cli.OutputFile("plot", a.plotFile, ".png")
	}
	return nil
}

// options are the lab options the flags give directly; set says which were given.
func (a *labArgs) options(set map[string]bool) lab.Options {
	o := lab.Options{
		Trace:       a.trace,
		FPS:         a.fps,
		Duration:    units.Seconds(a.duration),
		Warmup:      units.Seconds(a.warmup),
		Seed:        a.seed,
		Runs:        a.runs,
		UpdateBytes: a.bytes,
		Exact:       a.exact,
		BudgetP95:   a.target,
		JSON:        a.jsonOut,
		Plot:        a.plotFile,
		ClockError:  units.Seconds(a.clockErr),
		Network: impair.Link{Latency: a.latency, Jitter: a.jitter, Loss: a.loss, LossBurst: a.lossBurst,
			Reorder: a.reorder, Duplicate: a.duplicate},
		Publish: lab.PublishConfig{
			PosThreshold:   a.posThresh,
			RotThreshold:   a.rotThresh * math.Pi / 180,
			MinInterval:    units.Seconds(a.minIntv),
			Heartbeat:      units.Seconds(a.heartbeat),
			NoAcceleration: a.noAccel,
		},
	}
	if (a.trace != "" || a.replay != "") && !set["duration"] {
		o.Duration = 0 // the whole trace
	}
	o.Replay, o.ExportTrace, o.MapDir = a.replay, a.exportTrace, a.maps
	o.ReplayModelled = set["latency"] || set["jitter"] || set["loss"] || set["loss-burst"] || set["reorder"] || set["duplicate"]
	if a.warmup == 0 {
		o.Warmup = lab.Off // an explicit zero means no warm-up
	}
	if (a.trace == "" && a.replay == "") || set["scenario"] {
		o.Scenarios = strings.Split(a.scenario, ",")
	}
	return o
}

// setAlgos sets the algorithms given by -algos; without it each mode uses its own list.
func (a *labArgs) setAlgos(o *lab.Options, set map[string]bool) error {
	if !set["algos"] {
		return nil
	}
	algos, err := lab.ParseAlgos(a.algos)
	if err != nil {
		return cli.Usagef("algos", "%q: %v", a.algos, err)
	}
	o.Algos = algos
	return nil
}

// setPublishRate chooses between a fixed publish rate and threshold publishing.
func (a *labArgs) setPublishRate(o *lab.Options, set map[string]bool) error {
	threshold := set["pos-threshold"] || set["rot-threshold"] || set["min-interval"] || set["heartbeat"]
	switch {
	case set["rate"] && a.rate > 0 && threshold:
		return cli.Usagef("rate", "with threshold flags (-pos-threshold, -rot-threshold, -min-interval, -heartbeat): give one way of publishing, not both")
	case threshold || a.rate == 0:
		o.Publish.Rate = 0
	default:
		o.Publish.Rate = a.rate
	}
	return nil
}

// setMode chooses comparison, Table 1.1 or the budget search, and rejects flags the
// mode cannot use.
func (a *labArgs) setMode(o *lab.Options, set map[string]bool) error {
	switch {
	case a.table && a.budget:
		return cli.Usagef("table", "and -budget: give one, not both")
	case a.table || len(set) == 0:
		o.Mode = lab.Table
	case a.budget:
		o.Mode = lab.Budget
	}
	if o.Mode == lab.Table && (set["algos"] || set["scenario"] || set["trace"]) {
		return cli.Usagef("table", "always compares bezier and pvb on the circle (Table 1.1); drop -algos, -scenario and -trace")
	}
	if a.plotFile != "" && o.Mode != lab.Compare {
		return cli.Usagef("plot", "draws a comparison run; drop -table or -budget")
	}
	return nil
}
