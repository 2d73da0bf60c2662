package net

import (
	"flag"
	"fmt"
	"io"
	"runtime/debug"
	"testing"
	"time"
)

func TestDefenceFlags(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	parse := func(args ...string) *DefenceFlags {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var d DefenceFlags
		d.Register(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		return &d
	}
	// The defaults the flags show are the defaults a zero Limits stands for.
	if got, want := parse().Limits().withDefaults(), (Limits{}).withDefaults(); got != want {
		t.Errorf("flag defaults\n%+v\nzero Limits\n%+v", got, want)
	}
	d := parse("-max-handshakes-per-prefix", "4", "-retry-above", "-1", "-join-timeout", "1.5s",
		"-idle-kick", "30s", "-guess-interval", "10s", "-flood-for", "5s", "-mem-limit", "256", "-timeout", "2s")
	l := d.Limits()
	if l.MaxHandshakesPerPrefix != 4 || l.RetryAbove != -1 || l.JoinTimeout != 1500*time.Millisecond || l.IdleKick != 30*time.Second ||
		l.GuessInterval != 10*time.Second || l.FloodFor != 5*time.Second || l.Timeout != 2*time.Second {
		t.Errorf("limits from flags: %+v", l)
	}
	if l := parse("-downlink", "0").Limits(); l.Downlink != -1 {
		t.Errorf("-downlink 0: Downlink %d, want -1 (no budget)", l.Downlink)
	}
	if l := parse("-downlink", "1MB", "-zones-above", "-1").Limits(); l.Downlink != 1000000 || l.ZonesAbove != -1 {
		t.Errorf("-downlink 1MB -zones-above -1: %d, %d", l.Downlink, l.ZonesAbove)
	}
	noEnv := func(string) string { return "" }
	if got := d.ApplyMemoryLimit(noEnv); got != 256<<20 {
		t.Errorf("-mem-limit 256 set %d bytes", got)
	}
	if got := parse().ApplyMemoryLimit(noEnv); got != DefaultMemoryLimit {
		t.Errorf("default memory limit %d, want %d", got, DefaultMemoryLimit)
	}
	debug.SetMemoryLimit(300 << 20) // as GOMEMLIMIT=300MiB would
	if got := parse().ApplyMemoryLimit(func(string) string { return "300MiB" }); got != 300<<20 {
		t.Errorf("GOMEMLIMIT overridden by the default: %d", got)
	}
	if got := parse("-mem-limit", "0").ApplyMemoryLimit(noEnv); got != 1<<63-1 {
		t.Errorf("-mem-limit 0 left %d", got)
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	(&DefenceFlags{}).Register(fs)
	if err := fs.Parse([]string{"-mem-limit", "lots"}); err == nil {
		t.Error("-mem-limit lots accepted")
	}
}

// A command registers the defence flags beside its own, parses, and hands the limits
// to the host.
func ExampleDefenceFlags() {
	fs := flag.NewFlagSet("tankhost", flag.ContinueOnError)
	var d DefenceFlags
	d.Register(fs)
	if err := fs.Parse([]string{"-max-players-per-addr", "8", "-idle-kick", "5m"}); err != nil {
		fmt.Println(err)
		return
	}
	// A command would now call d.ApplyMemoryLimit(os.Getenv) and
	// Listen(ctx, HostConfig{Limits: l, …}).
	l := d.Limits()
	fmt.Println(l.MaxPlayersPerAddr, l.IdleKick, l.RetryAbove, l.JoinTimeout)
	// Output: 8 5m0s 8 2s
}

func TestParseByteRate(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"32kB", 32000, true}, {"1MB", 1000000, true}, {"64KiB", 65536, true}, {"500B", 500, true},
		{"0", 0, true}, {"1.5kB/s", 1500, true}, {"32", 0, false}, {"-1kB", 0, false}, {"kB", 0, false},
		{"NaNkB", 0, false}, {"9GB", 0, false},
	} {
		got, err := ParseByteRate(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseByteRate(%q) = %d, %v; want %d, ok %v", c.in, got, err, c.want, c.ok)
		}
		if c.ok {
			if back, _ := ParseByteRate(FormatByteRate(got)); back != got {
				t.Errorf("FormatByteRate(%d) = %q reads back as %d", got, FormatByteRate(got), back)
			}
		}
	}
}
