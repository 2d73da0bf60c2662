package main

import (
	"context"
	"flag"
	"github.com/treadline/treadline/net/impair"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/lab"
)

func parse(args ...string) (lab.Options, error) {
	fs := flag.NewFlagSet("drlab", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return parseFlags(fs, args)
}

func TestNoFlagsReproducesTheTable(t *testing.T) {
	o, err := parse()
	if err != nil {
		t.Fatal(err)
	}
	if o.Mode != lab.Table || o.Algos != nil {
		t.Errorf("no flags: mode %v, algos %v; want Table with its own algorithms", o.Mode, o.Algos)
	}
	if o, _ := parse("-table", "-fps", "30"); o.Mode != lab.Table || o.FPS != 30 {
		t.Errorf("-table -fps 30: mode %v fps %v", o.Mode, o.FPS)
	}
}

func TestFlagsBecomeOptions(t *testing.T) {
	plot := filepath.Join(t.TempDir(), "x.png")
	o, err := parse("-scenario", "circle,zigzag", "-algos", "pvb,pvb-ts", "-latency", "150ms", "-jitter", "20ms",
		"-loss", "0.05", "-clock-error", "-20ms", "-fps", "120", "-duration", "30s", "-warmup", "1.5s", "-seed", "9",
		"-rate", "5", "-json", "-plot", plot, "-runs", "4")
	if err != nil {
		t.Fatal(err)
	}
	want := impair.Link{Latency: 150 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.05}
	if o.Mode != lab.Compare || o.Network != want || o.ClockError != -0.02 || o.FPS != 120 || o.Duration != 30 ||
		o.Warmup != 1.5 || o.Seed != 9 || o.Publish.Rate != 5 || !o.JSON || o.Plot != plot || o.Runs != 4 {
		t.Errorf("options %+v", o)
	}
	if len(o.Algos) != 2 || !o.Algos[1].CompensateLatency || strings.Join(o.Scenarios, ",") != "circle,zigzag" {
		t.Errorf("algos %+v, scenarios %v", o.Algos, o.Scenarios)
	}
}

func TestThresholdFlagsSelectThresholdPublishing(t *testing.T) {
	o, err := parse("-scenario", "eight", "-pos-threshold", "0.1", "-rot-threshold", "3", "-min-interval", "100ms", "-heartbeat", "4s")
	if err != nil {
		t.Fatal(err)
	}
	p := o.Publish
	if p.Rate != 0 || p.PosThreshold != 0.1 || math.Abs(p.RotThreshold-3*math.Pi/180) > 1e-15 || p.MinInterval != 0.1 || p.Heartbeat != 4 {
		t.Errorf("publish %+v, want thresholds 0.1 m, 3°, 100 ms, 4 s and no fixed rate", p)
	}
	if o, _ := parse("-scenario", "eight"); o.Publish.Rate != lab.DefaultRate {
		t.Errorf("default rate %v, want %v", o.Publish.Rate, lab.DefaultRate)
	}
	if o, _ := parse("-rate", "0"); o.Publish.Rate != 0 {
		t.Errorf("-rate 0 kept rate %v", o.Publish.Rate)
	}
}

func TestBudgetFlags(t *testing.T) {
	o, err := parse("-budget", "-scenario", "all", "-target", "0.1")
	if err != nil {
		t.Fatal(err)
	}
	if o.Mode != lab.Budget || o.BudgetP95 != 0.1 || o.Algos != nil {
		t.Errorf("-budget: mode %v target %v algos %v", o.Mode, o.BudgetP95, o.Algos)
	}
	if o, _ := parse("-budget", "-algos", "bezier"); len(o.Algos) != 1 || o.Algos[0].Name != "bezier" {
		t.Errorf("-budget -algos bezier: %+v", o.Algos)
	}
}

func TestFlagConflicts(t *testing.T) {
	for _, args := range [][]string{
		{"-rate", "3", "-pos-threshold", "0.2"},
		{"-table", "-budget"},
		{"-budget", "-plot", "x.png"},
		{"-algos", "pvb,spline"},
		{"stray"},
		{"-latency", "fast"},
		{"-table", "-algos", "linear"},
		{"-table", "-scenario", "eight"},
	} {
		if _, err := parse(args...); err == nil {
			t.Errorf("%v was accepted", args)
		}
	}
}

func TestTraceReplacesDefaultScenario(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "drive.csv")
	if err := os.WriteFile(trace, []byte("0,0,0,0\n1,1,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	o, err := parse("-trace", trace)
	if err != nil {
		t.Fatal(err)
	}
	if o.Trace != trace || len(o.Scenarios) != 0 || o.Duration != 0 {
		t.Errorf("-trace: trace %q scenarios %v duration %v; want the whole trace alone", o.Trace, o.Scenarios, o.Duration)
	}
	if o, _ := parse("-trace", trace, "-duration", "10s"); o.Duration != 10 {
		t.Errorf("-trace -duration 10s: duration %v, want 10", o.Duration)
	}
}

// TestBadInput: bad values are usage errors naming the flag.
func TestBadInput(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-loss", "NaN"}, "drlab: -loss NaN: give a fraction from 0 to 1"},
		{[]string{"-latency", "-5ms"}, "drlab: -latency -5ms: give a delay of 0 or more"},
		{[]string{"-runs", "0"}, "drlab: -runs 0: give 1 or more"},
		{[]string{"-fps", "NaN"}, "drlab: -fps NaN: give a frame rate above 0"},
		{[]string{"-trace", "/nonexistent.csv"}, "drlab: -trace /nonexistent.csv: no such file"},
		{[]string{"-replay", "/nonexistent.tread"}, "drlab: -replay /nonexistent.tread: no such file"},
		{[]string{"-export-trace", "/tmp/x"}, "drlab: -export-trace needs -replay"},
		{[]string{"-plot", "/nonexistent/p.png"}, "drlab: -plot /nonexistent/p.png: directory /nonexistent does not exist"},
		{[]string{"-algos", "pvb,spline"}, `drlab: -algos "pvb,spline"`},
		{[]string{"-table", "-budget"}, "drlab: -table and -budget: give one, not both"},
		{[]string{"stray"}, `drlab: unexpected argument "stray"`},
		{[]string{"-crowd", "1"}, "drlab: -crowd 1: give 2 to 512 tanks"},
		{[]string{"-crowd", "513"}, "drlab: -crowd 513: give 2 to 512 tanks"},
	} {
		err := run(context.Background(), c.args, io.Discard, io.Discard)
		if line := cli.Line("drlab", err); cli.Code(err) != cli.ExitUsage || !strings.HasPrefix(line, c.want) {
			t.Errorf("drlab %q: code %d, line %q; want %d and %q…", c.args, cli.Code(err), line, cli.ExitUsage, c.want)
		}
	}
}
