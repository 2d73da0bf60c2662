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

// TestRunInProcess drives three bots for a second and checks that the report holds
// plausible figures: every update relayed to both other bots, none dropped.
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
	// 3 bots × 10 Hz, each update relayed to 2 observers: about 60 msg/s.
	if r := num(`relayed: +([0-9.]+) msg/s`); r < 40 || r > 80 {
		t.Errorf("relayed %v msg/s, want about 60", r)
	}
	if d := num(`p99 ([0-9.]+) ms`); d <= 0 || d > 500 {
		t.Errorf("p99 delay %v ms", d)
	}
	if p := num(`delivered ([0-9.]+)%`); p < 95 {
		t.Errorf("delivered %v%% of the expected relays", p)
	}
	if c := num(`host CPU: ([0-9.]+)%`); c <= 0 {
		t.Errorf("host CPU %v%%", c)
	}
}
