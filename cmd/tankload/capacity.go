package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/treadline/treadline/internal/units"
	tlnet "github.com/treadline/treadline/net"
)

// Capacity search defaults.
const (
	// DefaultCapacityP99 is the owner-to-observer relay delay the host must keep at
	// p99 to count as serving its players.
	DefaultCapacityP99 = 20 * time.Millisecond
	// minDelivered is the share of expected relays that must arrive, percent: a host
	// that keeps its delay by dropping updates does not serve its players.
	minDelivered = 99.0
	// capacityResolution is how close the search brackets the capacity, players.
	capacityResolution = 8
)

// capacityConfig is what -capacity and its flags set.
type capacityConfig struct {
	on       bool
	p99      time.Duration
	from, to int
	repeat   int // runs per player count; the one with the lowest p99 counts
}

func (c *capacityConfig) flags(fs *flag.FlagSet) {
	fs.BoolVar(&c.on, "capacity", false, "search for the most players one host serves within -p99")
	fs.DurationVar(&c.p99, "p99", DefaultCapacityP99, "with -capacity: the p99 owner-to-observer relay delay to stay under")
	fs.IntVar(&c.from, "from", 16, "with -capacity: players in the first run")
	fs.IntVar(&c.to, "max", 256, "with -capacity: the most players to try")
	fs.IntVar(&c.repeat, "repeat", 1, "with -capacity: runs per player count, the lowest p99 counting (on a shared machine, other load only ever adds delay)")
}

func (c *capacityConfig) check() error {
	switch {
	case !c.on:
		return nil
	case c.p99 <= 0:
		return fmt.Errorf("-p99 %v: must be positive", c.p99)
	case c.from < 2 || c.to < c.from:
		return fmt.Errorf("-from %d -max %d: need 2 ≤ from ≤ max", c.from, c.to)
	case c.repeat < 1:
		return fmt.Errorf("-repeat %d: need at least 1", c.repeat)
	}
	return nil
}

// figures are one run's results.
type figures struct {
	bots                   int
	relayed, accepted      float64 // per second
	cpu                    float64 // host CPU, percent of one core
	p50, p99, max          time.Duration
	delivered              float64 // percent of the expected relays
	hostDrops, clientDrops uint64
	load                   float64 // the machine's 1-minute load average at the end; NaN if unknown
}

func figuresOf(cfg config, res botResult, st, st0 tlnet.HostStats, before, after cpuMark) figures {
	wall := after.wall.Sub(before.wall).Seconds()
	f := figures{
		bots:     cfg.bots,
		relayed:  float64(st.Relayed-st0.Relayed) / wall,
		accepted: float64(st.Accepted-st0.Accepted) / wall,
		cpu:      (after.user - before.user + after.sys - before.sys).Seconds() / wall * 100,
		p50:      units.Duration(res.DelayP50),
		p99:      units.Duration(res.DelayP99),
		max:      units.Duration(res.DelayMax),
		hostDrops: st.Late - st0.Late + st.RateLimited - st0.RateLimited + st.Invalid - st0.Invalid +
			st.Overflow - st0.Overflow,
		clientDrops: res.Dropped + res.PublishEr,
		load:        loadAverage(),
	}
	if expected := float64(res.Sent) * float64(cfg.bots-1); expected > 0 {
		f.delivered = float64(res.Received) / expected * 100
	}
	return f
}

// loadAverage returns the machine's 1-minute load average, or NaN where Linux's
// /proc/loadavg is not to be had. Figures taken under load are noisy; the report says
// how loaded the machine was.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return math.NaN()
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return math.NaN()
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return math.NaN()
	}
	return v
}

// serves reports whether the host served every player of the run within p99.
func (f figures) serves(p99 time.Duration) bool {
	return f.p99 < p99 && f.delivered >= minDelivered
}

// runCapacity searches for the most players one host serves within cfg.capacity.p99
// and writes each run's report and the result to out.
func runCapacity(ctx context.Context, cfg config, out io.Writer) error {
	c := cfg.capacity
	fmt.Fprintf(out, "tankload -capacity: most players one host serves with p99 relay delay < %v and ≥ %.0f%% delivered, %.0f updates/s each, %v per run, best of %d\n\n",
		c.p99, minDelivered, cfg.hz, cfg.duration, c.repeat)
	var runs []figures
	try := func(n int) (bool, error) {
		rc := cfg
		rc.bots = n
		var best *figures
		for range c.repeat {
			var got *figures
			rc.result = func(f figures) { got = &f }
			if err := run(ctx, rc, out); err != nil {
				if ctx.Err() != nil {
					return false, ctx.Err()
				}
				fmt.Fprintf(out, "%d players: %v\n\n", n, err)
				continue
			}
			if got == nil {
				return false, errors.New("run reported no figures")
			}
			fmt.Fprintln(out)
			if best == nil || got.p99 < best.p99 {
				best = got
			}
		}
		if best == nil {
			fmt.Fprintf(out, "→ %d players: every run failed\n\n", n)
			runs = append(runs, figures{bots: n})
			return false, nil
		}
		runs = append(runs, *best)
		ok := best.serves(c.p99)
		verdict := "serves"
		if !ok {
			verdict = "fails"
		}
		fmt.Fprintf(out, "→ %d players: %s (p99 %.1f ms at best)\n\n", n, verdict, ms(best.p99))
		return ok, nil
	}
	lo, hi := 0, 0 // most players served, fewest failed (0: none known)
	for n := c.from; ; n = min(2*n, c.to) {
		ok, err := try(n)
		if err != nil {
			return err
		}
		if !ok {
			hi = n
			break
		}
		lo = n
		if n == c.to {
			break
		}
	}
	if hi == 0 {
		printRuns(out, runs, c.p99)
		fmt.Fprintf(out, "capacity: at least %d players (the most tried; raise -max)\n", lo)
		return nil
	}
	if lo == 0 {
		lo = 1 // one player alone relays nothing: served by definition
	}
	for hi-lo > capacityResolution {
		mid := (lo + hi) / 2
		ok, err := try(mid)
		if err != nil {
			return err
		}
		if ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	printRuns(out, runs, c.p99)
	fmt.Fprintf(out, "capacity: %d players per host at p99 relay delay < %v (%d failed)\n", lo, c.p99, hi)
	return nil
}

// printRuns writes the runs as a table.
func printRuns(out io.Writer, runs []figures, p99 time.Duration) {
	fmt.Fprintf(out, "| players | relayed msg/s | host CPU (of one core) | delay p50 / p99 | delivered | load (%d cores) | serves |\n", runtime.NumCPU())
	fmt.Fprintln(out, "|---:|---:|---:|---:|---:|---:|---|")
	for _, f := range runs {
		if f.relayed == 0 && f.delivered == 0 {
			fmt.Fprintf(out, "| %d | – | – | – | – | – | no (run failed) |\n", f.bots)
			continue
		}
		verdict := "yes"
		if !f.serves(p99) {
			verdict = "no"
		}
		fmt.Fprintf(out, "| %d | %.0f | %.0f%% | %.1f / %.1f ms | %.1f%% | %.1f | %s |\n", f.bots, f.relayed, f.cpu,
			ms(f.p50), ms(f.p99), f.delivered, f.load, verdict)
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
