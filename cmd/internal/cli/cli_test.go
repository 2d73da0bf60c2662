package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func TestCodeAndLine(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
		line string
	}{
		{nil, ExitOK, ""},
		{flag.ErrHelp, ExitOK, ""},
		{fmt.Errorf("play: %w", context.Canceled), ExitOK, ""},
		{Usagef("bots", "%d: give 0 to 511 bots", 999), ExitUsage, "x: -bots 999: give 0 to 511 bots"},
		{fmt.Errorf("wrapped: %w", &UsageError{Msg: "stray"}), ExitUsage, "x: wrapped: stray"},
		{errors.New("host lost"), ExitFailure, "x: host lost"},
	} {
		if code, line := Code(c.err), Line("x", c.err); code != c.code || line != c.line {
			t.Errorf("%v: code %d line %q, want %d %q", c.err, code, line, c.code, c.line)
		}
	}
}

func TestParse(t *testing.T) {
	fs := NewFlagSet("x", io.Discard)
	n := fs.Int("n", 0, "")
	if err := Parse(fs, []string{"-n", "3"}); err != nil || *n != 3 {
		t.Errorf("-n 3: %v, n=%d", err, *n)
	}
	for _, args := range [][]string{{"-n", "x"}, {"-m"}, {"stray"}} {
		fs := NewFlagSet("x", io.Discard)
		fs.Int("n", 0, "")
		if err := Parse(fs, args); Code(err) != ExitUsage {
			t.Errorf("%q: %v, want a usage error", args, err)
		}
	}
	fs = NewFlagSet("x", io.Discard)
	if err := Parse(fs, []string{"-h"}); !errors.Is(err, flag.ErrHelp) || Code(err) != ExitOK {
		t.Errorf("-h: %v", err)
	}
}

func TestLink(t *testing.T) {
	ms := time.Millisecond
	for _, c := range []struct {
		lag, jitter time.Duration
		ok          bool
	}{
		{0, 0, true}, {100 * ms, 20 * ms, true}, {50 * ms, 50 * ms, true}, {480 * ms, 20 * ms, true},
		{10 * ms, 500 * ms, false}, {0, ms, false}, {-ms, 0, false}, {ms, -ms, false},
		{490 * ms, 20 * ms, false}, {time.Hour, 0, false},
	} {
		if err := Link("lag", "jitter", c.lag, c.jitter); (err == nil) != c.ok {
			t.Errorf("lag %v jitter %v: %v, want ok=%v", c.lag, c.jitter, err, c.ok)
		}
	}
}

func TestLossBurst(t *testing.T) {
	for _, c := range []struct {
		burst, loss float64
		ok          bool
	}{
		{0, 0, true}, {1, 1, true}, {3, 0.3, true}, {3, 1, false}, {-1, 0.1, false},
		{math.NaN(), 0.1, false}, {math.Inf(1), 0.1, false},
	} {
		if err := LossBurst("loss-burst", c.burst, c.loss); (err == nil) != c.ok {
			t.Errorf("burst %v loss %v: %v, want ok=%v", c.burst, c.loss, err, c.ok)
		}
	}
}

func TestListenError(t *testing.T) {
	inUse := fmt.Errorf("serve: listen: %w", &os.SyscallError{Syscall: "bind", Err: syscall.EADDRINUSE})
	if err := ListenError("listen", ":7777", inUse); Line("x", err) != "x: -listen :7777: that UDP port is already in use (is another host running? pick another port)" {
		t.Errorf("in use: %q", Line("x", err))
	}
	other := errors.New("boom")
	if err := ListenError("listen", ":7777", other); err != other {
		t.Errorf("other error changed to %v", err)
	}
}

func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	if err := OutputFile("o", filepath.Join(dir, "a.png"), ".png"); err != nil {
		t.Errorf("writable: %v", err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("the check left %d files behind", len(entries))
	}
	for _, p := range []string{"", filepath.Join(dir, "missing", "a.png"), dir, filepath.Join(dir, "a.jpg")} {
		if err := OutputFile("o", p, ".png"); Code(err) != ExitUsage {
			t.Errorf("%q: %v, want a usage error", p, err)
		}
	}
}
