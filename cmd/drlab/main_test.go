package main

import (
	"flag"
	"github.com/treadline/treadline/net/impair"
	"io"
	"math"
	"strings"
	"testing"
	"time"

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
	o, err := parse("-scenario", "circle,zigzag", "-algos", "pvb,pvb-ts", "-latency", "150ms", "-jitter", "20ms",
		"-loss", "0.05", "-clock-error", "-20ms", "-fps", "120", "-duration", "30s", "-warmup", "1.5s", "-seed", "9",
		"-rate", "5", "-json", "-plot", "x.png", "-runs", "4")
	if err != nil {
		t.Fatal(err)
	}
	want := impair.Link{Latency: 150 * time.Millisecond, Jitter: 20 * time.Millisecond, Loss: 0.05}
	if o.Mode != lab.Compare || o.Network != want || o.ClockError != -0.02 || o.FPS != 120 || o.Duration != 30 ||
		o.Warmup != 1.5 || o.Seed != 9 || o.Publish.Rate != 5 || !o.JSON || o.Plot != "x.png" || o.Runs != 4 {
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
	o, err := parse("-trace", "drive.csv")
	if err != nil {
		t.Fatal(err)
	}
	if o.Trace != "drive.csv" || len(o.Scenarios) != 0 || o.Duration != 0 {
		t.Errorf("-trace: trace %q scenarios %v duration %v; want the whole trace alone", o.Trace, o.Scenarios, o.Duration)
	}
	if o, _ := parse("-trace", "drive.csv", "-duration", "10s"); o.Duration != 10 {
		t.Errorf("-trace -duration 10s: duration %v, want 10", o.Duration)
	}
}
