package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/treadline/treadline/internal/units"
)

// externalConfig is what drives a running host instead of tankload's own.
type externalConfig struct {
	metrics string // the host's -metrics address, to read its CPU time and memory
}

func (c *externalConfig) flags(fs *flag.FlagSet) {
	fs.StringVar(&c.metrics, "host-metrics", "", "with -join: the host's -metrics `address`, to report its CPU and memory (tankhost -metrics)")
}

// hostSample is a running host's process figures, read from its /metrics.
type hostSample struct {
	cpu time.Duration // CPU time since the host started
	rss float64       // resident memory, bytes
	at  time.Time
}

// sampleHost reads process_cpu_seconds_total and process_resident_memory_bytes, the
// standard process collector's names, from the host's /metrics.
func sampleHost(ctx context.Context, addr string) (hostSample, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return hostSample{}, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return hostSample{}, fmt.Errorf("host metrics: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return hostSample{}, fmt.Errorf("host metrics: %s", resp.Status)
	}
	s := hostSample{at: time.Now()}
	var cpu, rss bool
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 8<<20))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		switch name {
		case "process_cpu_seconds_total":
			v, err := strconv.ParseFloat(value, 64)
			s.cpu, cpu = units.Duration(v), err == nil
		case "process_resident_memory_bytes":
			v, err := strconv.ParseFloat(value, 64)
			s.rss, rss = v, err == nil
		}
	}
	if !cpu || !rss {
		return s, errors.New("host metrics: no process_cpu_seconds_total or process_resident_memory_bytes")
	}
	return s, sc.Err()
}

// runExternal drives cfg.bots bots against the host at cfg.join and reports what they
// measured and, with -host-metrics, the host's CPU and memory over the same window.
func runExternal(ctx context.Context, cfg config, out io.Writer) error {
	var before, after hostSample
	var sampleErr error
	sample := func(s *hostSample) func() {
		return func() {
			if cfg.external.metrics != "" && sampleErr == nil {
				*s, sampleErr = sampleHost(ctx, cfg.external.metrics)
			}
		}
	}
	res, err := runBots(ctx, cfg, cfg.join, sample(&before), sample(&after))
	if err != nil {
		return err
	}
	if sampleErr != nil {
		return sampleErr
	}
	fmt.Fprintf(out, "tankload: %d bots × %.0f Hz for %.1f s against %s\n", cfg.bots, cfg.hz, res.Seconds, cfg.join)
	if cfg.external.metrics != "" {
		wall := after.at.Sub(before.at).Seconds()
		fmt.Fprintf(out, "host CPU: %.1f%% of one core, %.0f MiB resident (from its /metrics)\n",
			(after.cpu-before.cpu).Seconds()/wall*100, after.rss/(1<<20))
	}
	fmt.Fprintf(out, "delay:    p50 %.1f ms, p99 %.1f ms, max %.1f ms (owner → host → observer)\n",
		res.DelayP50*1000, res.DelayP99*1000, res.DelayMax*1000)
	printDownlink(out, res)
	fmt.Fprintf(out, "received: %d updates, %d sent; bots dropped %d, publish errors %d\n",
		res.Received, res.Sent, res.Dropped, res.PublishEr)
	return nil
}
