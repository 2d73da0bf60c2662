package main

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
)

func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{nil, true},
		{[]string{"-bots", "4", "-duration", "2s", "-hz", "20"}, true},
		{[]string{"-bots", "1"}, false},
		{[]string{"-duration", "0s"}, false},
		{[]string{"-hz", "0"}, false},
		{[]string{"-loss", "1"}, false},
		{[]string{"-nonsense"}, false},
		{[]string{"-loss", "NaN"}, false},
		{[]string{"-lossburst", "NaN"}, false},
		{[]string{"-jitter", "500ms", "-lag", "10ms"}, false},
		{[]string{"-lag", "1h"}, false},
	} {
		_, err := parseFlags(tc.args)
		if (err == nil) != tc.ok || !tc.ok && cli.Code(err) != cli.ExitUsage {
			t.Errorf("parseFlags(%q): %v (exit code %d), want ok=%v", tc.args, err, cli.Code(err), tc.ok)
		}
	}
}

// TestRunInProcess drives three bots for a second and checks the report's counts:
// every update the bots sent reached both other bots, and nothing was dropped.
func TestRunInProcess(t *testing.T) {
	cfg, err := parseFlags([]string{"-bots", "3", "-duration", "1s", "-hz", "10", "-inprocess"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := run(ctx, cfg, &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	num := func(pattern string) float64 {
		m := regexp.MustCompile(pattern).FindStringSubmatch(out.String())
		if m == nil {
			t.Fatalf("report lacks %q", pattern)
		}
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	sent, received := num(`sent ([0-9]+),`), num(`received ([0-9]+) of`)
	if sent < 3 || received != 2*sent {
		t.Errorf("bots sent %v updates and received %v, want twice as many (each to both others)", sent, received)
	}
	if d := num(`p99 ([0-9.]+) ms`); d <= 0 {
		t.Errorf("p99 delay %v ms", d)
	}
	if n := num(`late ([0-9]+), rate-limited`) + num(`rate-limited ([0-9]+),`) + num(`invalid ([0-9]+),`) + num(`overflow ([0-9]+),`); n != 0 {
		t.Errorf("host dropped %v updates", n)
	}
	if c := num(`host CPU: ([0-9.]+)%`); c <= 0 {
		t.Errorf("host CPU %v%%", c)
	}
}
