// Command tankload measures what one Treadline host sustains: it starts a host on
// loopback and drives N bot clients against it for a while, then prints the relayed
// messages per second, the host's CPU use, the owner-to-observer relay delay, what
// each client received per second, the delay of the updates about the tanks within
// 100 m of each bot, and the drops. The bots drive wide circles spread over the whole
// map, so that the tanks near each change as they drive; -downlink and -zones-above
// set the host's budget per client (docs/network.md).
//
// Usage:
//
//	tankload [-bots 32] [-duration 10s] [-hz 10] [-coalesce 2ms] [-thin] [-downlink 32kB] [-zones-above 64]
//	         [-lag 0 -jitter 0 -loss 0 -lossburst 0] [-inprocess] [-cpuprofile host.prof] [-botsprofile bots.prof]
//	tankload -capacity [-p99 20ms] [-from 16] [-max 256] [-repeat 1] [-duration 5s] [-hz 10]
//	tankload -join host:port#fingerprint [-host-metrics 127.0.0.1:9100] [-bots 16]
//
// -join drives a running host (tankhost) instead of starting one; with -host-metrics,
// the address of its -metrics listener, it reports that host's CPU and memory too: what
// one match costs in the program that ships.
//
// -capacity searches for how many players one host serves with the owner-to-observer
// p99 relay delay under -p99 and ≥ 99% of the relays delivered: it doubles the bots
// from -from until a count misses the target, then bisects to within 8 players, one
// fresh host per run. With -repeat N each count runs N times and the run with the
// lowest p99 counts: on a shared machine other load only ever adds delay.
//
// By default the bots run in a child process, so that the CPU figure is the host's
// alone; -inprocess keeps them in the same process (CPU then counts both). Each bot is
// a client of its own (its own QUIC connection and player); unimpaired, they share
// one UDP socket, which the process reads in batches (docs/network.md).
package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
	tlnet "github.com/treadline/treadline/net"
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
	// downlink and zonesAbove are the host's Limits.Downlink and ZonesAbove.
	downlink, zonesAbove int
	seed                 uint64
	profile              string // host CPU profile file, written over the measured window
	botsProfile          string // the bots' process's CPU profile file, likewise
	// role "bots" runs only the bots against join (the child process).
	role string
	join string
	// capacity searches for the most bots the host serves within p99; result, if
	// set, receives each run's figures.
	capacity capacityConfig
	result   func(figures)
	// external drives the running host at join instead of starting one.
	external externalConfig
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
	fs.Func("downlink", fmt.Sprintf("each bot's budget of state updates from the host, bytes per second with a unit (32kB, 1MB; 0: none, every update to every bot; default %s)",
		tlnet.FormatByteRate(tlnet.DefaultDownlink)), func(v string) error {
		n, err := tlnet.ParseByteRate(v)
		if c.downlink = n; n == 0 {
			c.downlink = -1
		}
		return err
	})
	fs.IntVar(&c.zonesAbove, "zones-above", tlnet.DefaultZonesAbove, "tanks above which the host schedules within -downlink (negative: always)")
	fs.Uint64Var(&c.seed, "seed", 1, "random seed for the impairment")
	fs.StringVar(&c.profile, "cpuprofile", "", "write the host's CPU profile over the measured window to this file")
	fs.StringVar(&c.botsProfile, "botsprofile", "", "write the bots' process's CPU profile over the measured window to this file (not with -inprocess)")
	fs.StringVar(&c.role, "role", "", "internal: \"bots\" runs only the bots")
	fs.StringVar(&c.join, "join", "", "drive the running host at `host:port#fingerprint` (a tankhost) instead of starting one")
	c.capacity.flags(fs)
	c.external.flags(fs)
	if err := cli.Parse(fs, args); err != nil {
		return c, err
	}
	if err := c.capacity.check(); err != nil {
		return c, &cli.UsageError{Msg: err.Error()}
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
		do := run
		switch {
		case cfg.capacity.on:
			do = runCapacity
		case cfg.join != "" && cfg.role == "":
			do = runExternal
		}
		return do(ctx, cfg, stdout)
	})
}
