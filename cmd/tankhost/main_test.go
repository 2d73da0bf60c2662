package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	stdnet "net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
	"github.com/treadline/treadline/internal/memnet"
	"github.com/treadline/treadline/internal/progtest"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/terrain"
)

// syncBuffer is a bytes.Buffer safe for the logger's and the test's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// testMap writes a small generated map and returns its sidecar path.
// testMapConfig generates the map the tests host (testMap).
var testMapConfig = terrain.GenerateConfig{Seed: 3, Size: 256, Samples: 129, Name: "test"}

func testMap(t *testing.T) string {
	t.Helper()
	m, err := terrain.Generate(testMapConfig)
	if err != nil {
		t.Fatal(err)
	}
	base := filepath.Join(t.TempDir(), "test")
	if err := m.Save(base); err != nil {
		t.Fatal(err)
	}
	return base + ".json"
}

// ready is where a started host listens.
type ready struct{ addr, fp string }

// startRun runs tankhost with args until ctx ends and waits until it listens. It
// returns the host's log, where it listens and the channel run's result arrives on.
func startRun(t *testing.T, ctx context.Context, args ...string) (*syncBuffer, ready, chan error) {
	t.Helper()
	return startRunOn(t, ctx, nil, args...)
}

// startRunOn is startRun with the host's socket on lan (nil: a UDP socket). A
// test in a synctest bubble puts the host on an in-memory network and gives it
// -lan off: the LAN announcement's multicast socket would keep the bubble's
// clock from moving.
func startRunOn(t *testing.T, ctx context.Context, lan *memnet.Network, args ...string) (*syncBuffer, ready, chan error) {
	t.Helper()
	logs := &syncBuffer{}
	readyc := make(chan ready, 1)
	errc := make(chan error, 1)
	opt := runOptions{ready: func(addr, fp string) { readyc <- ready{addr, fp} }}
	if lan != nil {
		opt.wrap = lan.Wrap
	}
	go func() {
		errc <- run(ctx, args, logs, opt)
	}()
	select {
	case r := <-readyc:
		return logs, r, errc
	case err := <-errc:
		t.Fatalf("run ended before listening: %v\n%s", err, logs.String())
	case <-time.After(30 * time.Second):
		t.Fatalf("host not ready after 30 s\n%s", logs.String())
	}
	return nil, ready{}, nil
}

// TestRunServesAndStops: the host listens, a player joining sees its bots move, and
// canceling the context stops it cleanly.
func TestRunServesAndStops(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		logs, r, errc := startRunOn(t, ctx, lan, "-listen", "127.0.0.1:0", "-lan", "off", "-bots", "2", "-map", testMap(t), "-stats", "200ms")

		client, err := net.Dial(ctx, net.ClientConfig{Addr: r.addr, Fingerprint: r.fp, KnownHosts: "-", Name: "probe", Wrap: lan.Wrap})
		if err != nil {
			t.Fatalf("join: %v\n%s", err, logs.String())
		}
		defer client.Close()
		spawns := map[uint32]bool{}
		updates := map[uint32]int{}
		var evs []net.Event
		deadline := time.Now().Add(20 * time.Second)
		for time.Now().Before(deadline) && (len(spawns) < 2 || len(updates) < 2 || fewest(updates) < 3) {
			time.Sleep(20 * time.Millisecond)
			for _, ev := range client.Poll(evs[:0]) {
				switch ev.Kind {
				case net.EventSpawn:
					spawns[ev.Actor] = true
				case net.EventState:
					updates[ev.Actor]++
				case net.EventClosed:
					t.Fatalf("session closed: %s", ev.Text)
				}
			}
		}
		if len(spawns) != 2 || len(updates) != 2 || fewest(updates) < 3 {
			t.Fatalf("joined player saw spawns %v and updates %v, want 2 bots updating", spawns, updates)
		}

		cancel()
		select {
		case err := <-errc:
			if err != nil {
				t.Fatalf("run: %v", err)
			}
		case <-time.After(10 * time.Second):
			t.Fatal("host did not stop within 10 s of cancellation")
		}
		out := logs.String()
		for _, want := range []string{"msg=listening", "msg=host", "msg=stopping", "msg=stopped"} {
			if !strings.Contains(out, want) {
				t.Errorf("log lacks %q:\n%s", want, out)
			}
		}
	})
}

func fewest(m map[uint32]int) int {
	lo := -1
	for _, v := range m {
		if lo < 0 || v < lo {
			lo = v
		}
	}
	return lo
}

// TestBadInput: every bad command line is refused before anything starts, with one
// line naming the flag and what it allows, and the usage exit code; a port already in
// use is told plainly.
func TestBadInput(t *testing.T) {
	busy, err := stdnet.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	mapPath := testMap(t)
	for _, c := range []struct {
		args []string
		want string // the line "tankhost: …" starts with this
	}{
		{[]string{"-bots", "100000"}, "tankhost: -bots 100000: give 0 to 511 bots"},
		{[]string{"-bots", "-1"}, "tankhost: -bots -1: give 0 to 511 bots"},
		{[]string{"-patrol", "1.5"}, "tankhost: -patrol 1.5: give a share of the bots from 0 to 1"},
		{[]string{"-patrol", "NaN"}, "tankhost: -patrol NaN: give a share of the bots from 0 to 1"},
		{[]string{"-tick", "0"}, "tankhost: -tick 0: give a rate above 0 and at most 240"},
		{[]string{"-tick", "NaN"}, "tankhost: -tick NaN: give a rate above 0 and at most 240"},
		{[]string{"-map", "/nonexistent.json"}, "tankhost: -map /nonexistent.json: no such file"},
		{[]string{"-map", t.TempDir()}, "tankhost: -map " + os.TempDir()},
		{[]string{"-listen", "7777"}, `tankhost: -listen "7777": give [HOST]:PORT`},
		{[]string{"-listen", busy.LocalAddr().String(), "-map", mapPath, "-bots", "0"},
			"tankhost: -listen " + busy.LocalAddr().String() + ": that UDP port is already in use"},
		{[]string{"-log-level", "loud"}, `tankhost: invalid value "loud" for flag -log-level`},
		{[]string{"-self-allocate"}, "tankhost: -self-allocate needs -agones"},
		{[]string{"-name", strings.Repeat("n", 33)}, `tankhost: -name "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn": give up to 32 bytes of printable text`},
		{[]string{"-rounds", "-1"}, "tankhost: -rounds -1: give 0 (play on) or more"},
		{[]string{"-round-time", "-1s"}, "tankhost: -round-time -1s: give 0 (the default) or a positive duration"},
		{[]string{"-metrics", "9100"}, `tankhost: -metrics "9100": give [HOST]:PORT`},
		{[]string{"-dis", "3000"}, `tankhost: -dis "3000": give ADDR:PORT`},
		{[]string{"-dis", "239.1.2.3:3000", "-dis-origin", "95,0"}, `tankhost: -dis-origin "95,0": latitude`},
		{[]string{"-dis", "239.1.2.3:3000", "-dis-origin", "north"}, `tankhost: -dis-origin "north": give LAT,LON[,ALT]`},
		{[]string{"-dis-exercise", "0"}, "tankhost: -dis-exercise 0: give 1 to 255"},
		{[]string{"-dis-site", "65535"}, "tankhost: -dis-site 65535: give 1 to 65534"},
		{[]string{"-nonsense"}, "tankhost: flag provided but not defined: -nonsense"},
		{[]string{"extra"}, `tankhost: unexpected argument "extra"`},
	} {
		var logs syncBuffer
		err := run(context.Background(), c.args, &logs, runOptions{})
		line := cli.Line("tankhost", err)
		if code := cli.Code(err); code != cli.ExitUsage {
			t.Errorf("tankhost %q: exit code %d (%v), want %d", c.args, code, err, cli.ExitUsage)
		}
		if !strings.HasPrefix(line, c.want) || strings.Contains(line, "\n") {
			t.Errorf("tankhost %q:\n got %q\nwant %q…", c.args, line, c.want)
		}
	}
}

// TestHeadless: the host links no display code: not package render, not g3n, not
// GLFW, so it builds without cgo and runs on a machine without a display.
func TestHeadless(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go list; skipped with -short")
	}
	list := exec.Command("go", "list", "-deps", ".")
	list.Env = append(os.Environ(), "CGO_ENABLED=0")
	out, err := list.CombinedOutput()
	if err != nil {
		t.Fatalf("CGO_ENABLED=0 go list: %v\n%s", err, out)
	}
	for _, dep := range strings.Fields(string(out)) {
		if strings.HasSuffix(dep, "/render") || strings.Contains(dep, "g3n") || strings.Contains(dep, "glfw") ||
			strings.Contains(dep, "go-gl/gl") || dep == "runtime/cgo" || dep == "C" {
			t.Errorf("tankhost depends on %s", dep)
		}
	}
}

// TestSignalStops builds the binary, starts it, and checks that SIGINT and SIGTERM
// each stop it cleanly with exit status 0.
func TestSignalStops(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary; skipped with -short")
	}
	bin := filepath.Join(t.TempDir(), "tankhost")
	if err := progtest.Build(".", bin); err != nil {
		t.Fatal(err)
	}
	mapPath := testMap(t)
	t.Run("bad flag", func(t *testing.T) {
		var stderr syncBuffer
		cmd := exec.Command(bin, "-bots", "100000")
		cmd.Stderr = &stderr
		err := cmd.Run()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("tankhost -bots 100000: %v, want exit status 2", err)
		}
		if want := "tankhost: -bots 100000: give 0 to 511 bots (a match holds at most 512 tanks)\n"; stderr.String() != want {
			t.Errorf("stderr %q, want %q", stderr.String(), want)
		}
	})
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			var logs syncBuffer
			cmd := exec.Command(bin, "-listen", "127.0.0.1:0", "-bots", "1", "-map", mapPath)
			cmd.Stderr = &logs
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(20 * time.Second)
			for !strings.Contains(logs.String(), "msg=listening") {
				if time.Now().After(deadline) {
					cmd.Process.Kill()
					cmd.Wait()
					t.Fatalf("no 'listening' line after 20 s:\n%s", logs.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Fatalf("exit after %v: %v\n%s", sig, err, logs.String())
				}
			case <-time.After(10 * time.Second):
				cmd.Process.Kill()
				<-done
				t.Fatalf("still running 10 s after %v", sig)
			}
			if !strings.Contains(logs.String(), "msg=stopped") {
				t.Errorf("no 'stopped' line:\n%s", logs.String())
			}
		})
	}
}

// TestRestartKeepsFingerprint: a restarted host presents the same fingerprint, read
// from its identity file, until -new-identity replaces it.
func TestRestartKeepsFingerprint(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		mapPath := testMap(t)
		idFile := filepath.Join(t.TempDir(), "keys", "host.pem")
		serve := func(extra ...string) string {
			t.Helper()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			fps := make(chan string, 1)
			errc := make(chan error, 1)
			var logs syncBuffer
			args := append([]string{"-listen", "127.0.0.1:0", "-lan", "off", "-bots", "0", "-map", mapPath, "-identity", idFile}, extra...)
			go func() {
				errc <- run(ctx, args, &logs, runOptions{ready: func(_, fp string) { fps <- fp }, wrap: lan.Wrap})
			}()
			var fp string
			select {
			case fp = <-fps:
			case err := <-errc:
				t.Fatalf("tankhost %q: %v\n%s", args, err, logs.String())
			case <-time.After(30 * time.Second):
				t.Fatalf("tankhost %q not listening after 30 s", args)
			}
			cancel()
			if err := <-errc; err != nil {
				t.Fatalf("tankhost %q: %v", args, err)
			}
			return fp
		}
		first := serve()
		st, err := os.Stat(idFile)
		if err != nil {
			t.Fatalf("no identity file after the first start: %v", err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("identity file mode %v, want 0600", st.Mode().Perm())
		}
		if again := serve(); again != first {
			t.Errorf("restart changed the fingerprint from %s to %s", first, again)
		}
		rotated := serve("-new-identity")
		if rotated == first {
			t.Errorf("-new-identity kept the fingerprint %s", first)
		}
		if after := serve(); after != rotated {
			t.Errorf("the restart after -new-identity presents %s, want the new %s", after, rotated)
		}
		if err := os.WriteFile(idFile, []byte("not a key"), 0o600); err != nil {
			t.Fatal(err)
		}
		err = run(context.Background(), []string{"-listen", "127.0.0.1:0", "-map", mapPath, "-identity", idFile}, io.Discard, runOptions{})
		if line := cli.Line("tankhost", err); cli.Code(err) != cli.ExitUsage || !strings.HasPrefix(line, "tankhost: -identity "+idFile+": identity ") {
			t.Errorf("a damaged identity file: code %d, %q; want a usage error naming -identity", cli.Code(err), line)
		}
	})
}

// TestDefenceFlags: the defence flags reach the host, and -mem-limit the runtime.
func TestDefenceFlags(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		_, r, errc := startRunOn(t, ctx, lan, "-listen", "127.0.0.1:0", "-lan", "off", "-bots", "0", "-map", testMap(t),
			"-max-players-per-addr", "1", "-mem-limit", "300")
		first, err := net.Dial(ctx, net.ClientConfig{Addr: r.addr, Fingerprint: r.fp, Name: "first", Wrap: lan.Wrap})
		if err != nil {
			t.Fatal(err)
		}
		defer first.Close()
		if second, err := net.Dial(ctx, net.ClientConfig{Addr: r.addr, Fingerprint: r.fp, Name: "second", Wrap: lan.Wrap}); err == nil {
			second.Close()
			t.Error("a second player from one address joined with -max-players-per-addr 1")
		} else if !errors.Is(err, net.ErrRefused) {
			t.Errorf("second player: %v, want a refusal", err)
		}
		if got := debug.SetMemoryLimit(-1); got != 300<<20 {
			t.Errorf("memory limit %d, want 300 MiB", got)
		}
		cancel()
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	})
}
