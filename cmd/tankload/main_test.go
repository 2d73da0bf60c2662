package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/treadline/treadline/cmd/internal/cli"
	tlnet "github.com/treadline/treadline/net"
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
	// 2 s: each bot samples its downlink once a second, so a run of 1 s may end
	// before the first sample.
	cfg, err := parseFlags([]string{"-bots", "3", "-duration", "2s", "-hz", "10", "-inprocess"})
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
	// The report's downlink and near-delay lines (a 2 s run has one or two
	// downlink samples per bot; the near delay may have none).
	if down := num(`downlink: mean ([0-9.]+) kB/s, p95 [0-9.]+ kB/s, max [0-9.]+ kB/s per client`); down <= 0 {
		t.Errorf("downlink %v kB/s", down)
	}
	num(`delay near: p50 ([0-9.]+) ms, p99 [0-9.]+ ms \(tanks within 100 m\)`)
	if n := num(`late ([0-9]+), rate-limited`) + num(`rate-limited ([0-9]+),`) + num(`invalid ([0-9]+),`) + num(`overflow ([0-9]+),`); n != 0 {
		t.Errorf("host dropped %v updates", n)
	}
	if c := num(`host CPU: ([0-9.]+)%`); c <= 0 {
		t.Errorf("host CPU %v%%", c)
	}
}

func TestCapacityFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		ok   bool
	}{
		{[]string{"-capacity"}, true},
		{[]string{"-capacity", "-p99", "10ms", "-from", "8", "-max", "64"}, true},
		{[]string{"-capacity", "-p99", "0s"}, false},
		{[]string{"-capacity", "-from", "1"}, false},
		{[]string{"-capacity", "-from", "64", "-max", "32"}, false},
		{[]string{"-capacity", "-repeat", "0"}, false},
		{[]string{"-from", "64", "-max", "32"}, true}, // ignored without -capacity
	} {
		if _, err := parseFlags(tc.args); (err == nil) != tc.ok {
			t.Errorf("parseFlags(%q): %v, want ok=%v", tc.args, err, tc.ok)
		}
	}
}

// TestFiguresServe: a run serves its players when p99 stays under the target and
// (nearly) every relay arrives.
func TestFiguresServe(t *testing.T) {
	for _, tc := range []struct {
		f    figures
		want bool
	}{
		{figures{p99: 5 * time.Millisecond, delivered: 100}, true},
		{figures{p99: 19 * time.Millisecond, delivered: 99}, true},
		{figures{p99: 20 * time.Millisecond, delivered: 100}, false},
		{figures{p99: 5 * time.Millisecond, delivered: 98.9}, false},
	} {
		if got := tc.f.serves(20 * time.Millisecond); got != tc.want {
			t.Errorf("%+v serves: %v, want %v", tc.f, got, tc.want)
		}
	}
}

// TestCapacitySearch runs the search for real on a tiny range with a target every
// run meets: it doubles from -from to -max and reports the most tried.
func TestCapacitySearch(t *testing.T) {
	cfg, err := parseFlags([]string{"-capacity", "-inprocess", "-from", "2", "-max", "4", "-repeat", "2", "-duration", "500ms", "-p99", "10s"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := runCapacity(ctx, cfg, &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	if n := bytes.Count(out.Bytes(), []byte("tankload: 4 bots")); n != 2 {
		t.Errorf("%d runs of 4 bots, want 2 (-repeat 2)", n)
	}
	for _, want := range []string{"tankload: 2 bots", "tankload: 4 bots", "| 2 | ", "| 4 | ", "→ 4 players: serves", "capacity: at least 4 players"} {
		if !bytes.Contains(out.Bytes(), []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
}

// TestRunExternal drives a running host through -join and reads its process figures
// from a /metrics endpoint (a stand-in here, whose CPU counter advances by half a
// second between the two reads).
func TestRunExternal(t *testing.T) {
	h, err := tlnet.Listen(context.Background(), tlnet.HostConfig{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	var mu sync.Mutex
	cpu := 1.0
	metrics := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(w, "# TYPE process_cpu_seconds_total counter\nprocess_cpu_seconds_total %g\nprocess_resident_memory_bytes 3.0408704e+07\n", cpu)
		cpu += 0.5
	}))
	defer metrics.Close()
	cfg, err := parseFlags([]string{"-join", h.JoinAddress(), "-host-metrics", strings.TrimPrefix(metrics.URL, "http://"),
		"-bots", "3", "-duration", "500ms"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	if err := runExternal(ctx, cfg, &out); err != nil {
		t.Fatal(err)
	}
	t.Log("\n" + out.String())
	for _, want := range []string{"3 bots × 10 Hz", "host CPU:", "29 MiB resident", "p99"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if m := regexp.MustCompile(`received: (\d+) updates, (\d+) sent`).FindStringSubmatch(out.String()); m == nil || m[1] == "0" || m[2] == "0" {
		t.Errorf("no updates went round: %v", m)
	}
	if st := h.Stats(); st.Joined != 3 {
		t.Errorf("host admitted %d bots, want 3", st.Joined)
	}
}

// TestBotsShareSocket: unimpaired bots join from one socket (the host sees one
// address for all), each its own player; impaired bots keep a socket, so a link,
// each. Both publish at -hz.
func TestBotsShareSocket(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		addrs int // distinct addresses the host sees, 0: one a bot
	}{
		{[]string{"-bots", "3", "-duration", "1s"}, 1},
		{[]string{"-bots", "3", "-duration", "1s", "-lag", "1ms"}, 0},
	} {
		cfg, err := parseFlags(tc.args)
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var log bytes.Buffer
		h, err := tlnet.Listen(context.Background(), tlnet.HostConfig{Addr: "127.0.0.1:0",
			Logger: slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
				mu.Lock()
				defer mu.Unlock()
				return log.Write(b)
			}), nil))})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		res, err := runBots(ctx, cfg, h.JoinAddress(), func() {}, func() {})
		cancel()
		h.Close()
		if err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		joined := regexp.MustCompile(`msg="player joined" .*remote=(\S+)`).FindAllStringSubmatch(log.String(), -1)
		mu.Unlock()
		addrs := map[string]bool{}
		for _, m := range joined {
			addrs[m[1]] = true
		}
		want := tc.addrs
		if want == 0 {
			want = cfg.bots
		}
		if len(joined) != cfg.bots || len(addrs) != want {
			t.Errorf("%q: %d joins from %d addresses, want %d from %d", tc.args, len(joined), len(addrs), cfg.bots, want)
		}
		// Each bot publishes at -hz for the run's length (its first within a period).
		// The floor is 0.6 of it: a bot's ticker drops the ticks its goroutine misses
		// on a starved machine (0.73 seen at load 16–18 on two cores), and a bot
		// publishing at half the rate still falls below it.
		if lo, hi := 0.6*float64(cfg.bots)*cfg.hz*res.Seconds, 1.1*float64(cfg.bots)*cfg.hz*res.Seconds+float64(cfg.bots); float64(res.Sent) < lo || float64(res.Sent) > hi {
			t.Errorf("%q: %d updates sent in %.2f s, want %.0f to %.0f", tc.args, res.Sent, res.Seconds, lo, hi)
		}
		if res.Received != 2*res.Sent {
			t.Errorf("%q: received %d of %d updates", tc.args, res.Received, 2*res.Sent)
		}
	}
}

// writerFunc is an io.Writer made of a function.
type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }
