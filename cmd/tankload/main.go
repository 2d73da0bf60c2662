// Command tankload measures what one Treadline host sustains: it starts a host on
// loopback and drives N bot clients against it for a while, then prints the relayed
// messages per second, the host's CPU use, the owner-to-observer relay delay and the
// drops.
//
// Usage:
//
//	tankload [-bots 32] [-duration 10s] [-hz 10] [-coalesce 2ms] [-thin]
//	         [-lag 0 -jitter 0 -loss 0 -lossburst 0] [-inprocess] [-cpuprofile host.prof]
//
// By default the bots run in a child process, so that the CPU figure is the host's
// alone; -inprocess keeps them in the same process (CPU then counts both).
package main

import (
	"context"
	"io"
	"math"
	"os"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
)

// config is what the flags set.
type config struct {
	bots      int
	duration  time.Duration
	hz        float64
	coalesce  time.Duration
	lag       time.Duration
	jitter    time.Duration
	loss      float64
	lossBurst float64
	inprocess bool
	thin      bool
	seed      uint64
	profile   string // host CPU profile file, written over the measured window
	// role "bots" runs only the bots against join (the child process).
	role string
	join string
}

func parseFlags(args []string) (config, error) {
	var c config
	fs := cli.NewFlagSet("tankload", os.Stderr)
	fs.IntVar(&c.bots, "bots", 32, "number of bot clients")
	fs.DurationVar(&c.duration, "duration", 10*time.Second, "how long the bots drive")
	fs.Float64Var(&c.hz, "hz", 10, "updates per second each bot publishes")
	fs.DurationVar(&c.coalesce, "coalesce", 0, "host relay coalescing window (0: the default; negative: none)")
	fs.DurationVar(&c.lag, "lag", 0, "one-way latency added to each bot's link, both ways")
	fs.DurationVar(&c.jitter, "jitter", 0, "latency jitter on each bot's link")
	fs.Float64Var(&c.loss, "loss", 0, "packet loss probability on each bot's link, each way")
	fs.Float64Var(&c.lossBurst, "lossburst", 0, "mean length in packets of a loss burst (0: independent losses)")
	fs.BoolVar(&c.inprocess, "inprocess", false, "run the bots in the host's process")
	fs.BoolVar(&c.thin, "thin", false, "thin far updates per observer by distance")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed for the impairment")
	fs.StringVar(&c.profile, "cpuprofile", "", "write the host's CPU profile over the measured window to this file")
	fs.StringVar(&c.role, "role", "", "internal: \"bots\" runs only the bots")
	fs.StringVar(&c.join, "join", "", "internal: host:port#fingerprint for -role bots")
	if err := cli.Parse(fs, args); err != nil {
		return c, err
	}
	switch {
	case c.bots < 2:
		return c, cli.Usagef("bots", "%d: give at least 2 bot clients", c.bots)
	case c.duration <= 0:
		return c, cli.Usagef("duration", "%v: give a duration above 0", c.duration)
	case !(c.hz > 0 && c.hz <= 120):
		return c, cli.Usagef("hz", "%v: give a rate above 0 and at most 120 updates per second", c.hz)
	case !(c.loss >= 0 && c.loss < 1):
		return c, cli.Usagef("loss", "%v: give a fraction from 0 to below 1", c.loss)
	case !(c.lossBurst >= 0) || math.IsInf(c.lossBurst, 0):
		return c, cli.Usagef("lossburst", "%v: give a mean burst length of 0 or more packets", c.lossBurst)
	}
	return c, cli.Link("lag", "jitter", c.lag, c.jitter)
}

func main() {
	cli.Main("tankload", func(ctx context.Context, args []string, stdout, _ io.Writer) error {
		cfg, err := parseFlags(args)
		if err != nil {
			return err
		}
		return run(ctx, cfg, stdout)
	})
}
