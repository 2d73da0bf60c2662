package main

import (
	"context"
	"fmt"
	"io"
	stdnet "net"
	stdhttp "net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
	"github.com/treadline/treadline/cmd/tankhost/internal/agones/agonestest"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/memnet"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/session"
	"github.com/treadline/treadline/terrain"
)

// wait bounds every poll in these tests; each ends as soon as its condition holds.
const wait = 20 * time.Second

// host is a tankhost started by startHost.
type host struct {
	addr, fp string
	metrics  string
	logs     *syncBuffer
	errc     chan error
	cancel   context.CancelFunc
	lan      *memnet.Network // the in-memory network it is on, or nil for a UDP socket
}

// startHost runs tankhost with args (and a loopback listen address and a test map)
// until the test ends, and waits for it to listen.
func startHost(t *testing.T, args []string, tick func(session.ServeStatus)) *host {
	t.Helper()
	return launch(t, nil, args, tick, nil)
}

// startHostOn is startHost on the in-memory network lan, for a test in a synctest
// bubble, with -lan off: the LAN announcement's multicast socket would keep the
// bubble's clock from moving.
func startHostOn(t *testing.T, lan *memnet.Network, args []string, tick func(session.ServeStatus)) *host {
	t.Helper()
	return launch(t, lan, append([]string{"-lan", "off"}, args...), tick, nil)
}

// startAgonesHost is startHost with the sidecar's port in tankhost's environment
// (its own, so that tests run in parallel).
func startAgonesHost(t *testing.T, side agonestest.Server, args []string, tick func(session.ServeStatus)) *host {
	t.Helper()
	return launch(t, nil, args, tick, func(k string) string {
		if k == agones.PortEnv {
			return side.Port()
		}
		return os.Getenv(k)
	})
}

// launch is startHost on lan (nil: a UDP socket) with getenv standing in for the
// environment (nil: the real one).
func launch(t *testing.T, lan *memnet.Network, args []string, tick func(session.ServeStatus), getenv func(string) string) *host {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	h := &host{logs: &syncBuffer{}, errc: make(chan error, 1), cancel: cancel, lan: lan}
	var wrap net.WrapConn
	if lan != nil {
		wrap = lan.Wrap
	}
	readyc := make(chan [2]string, 1)
	metricsc := make(chan string, 1)
	args = append([]string{"-listen", "127.0.0.1:0", "-map", testMap(t), "-stats", "-1s"}, args...)
	go func() {
		h.errc <- run(ctx, args, h.logs, runOptions{
			ready:   func(addr, fp string) { readyc <- [2]string{addr, fp} },
			metrics: func(addr string) { metricsc <- addr },
			tick:    tick,
			getenv:  getenv,
			wrap:    wrap,
		})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-h.errc:
		case <-time.After(wait):
			t.Errorf("tankhost did not stop within %v", wait)
		}
	})
	select {
	case r := <-readyc:
		h.addr, h.fp = r[0], r[1]
	case err := <-h.errc:
		h.errc <- err
		t.Fatalf("tankhost ended before listening: %v\n%s", err, h.logs.String())
	case <-time.After(wait):
		t.Fatalf("tankhost not listening after %v\n%s", wait, h.logs.String())
	}
	select {
	case h.metrics = <-metricsc:
	default:
	}
	return h
}

// waitExit waits for run to return nil.
func (h *host) waitExit(t *testing.T, when string) {
	t.Helper()
	select {
	case err := <-h.errc:
		h.errc <- err // for the cleanup
		if err != nil {
			t.Fatalf("run: %v", err)
		}
	case <-time.After(wait):
		t.Fatalf("tankhost did not stop %s\n%s", when, h.logs.String())
	}
}

// outlives waits until d has passed since from, then fails if tankhost has ended.
func (h *host) outlives(t *testing.T, from time.Time, d time.Duration, when string) {
	t.Helper()
	poll(t, fmt.Sprintf("%v %s", d, when), func() bool { return time.Since(from) >= d })
	select {
	case err := <-h.errc:
		h.errc <- err // for the cleanup
		t.Fatalf("tankhost ended within %v, %s: %v\n%s", d, when, err, h.logs.String())
	default:
	}
}

// join connects a player named name to h.
func (h *host) join(t *testing.T, name, pass string) (*net.Client, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), wait)
	defer cancel()
	cfg := net.ClientConfig{Addr: h.addr, Fingerprint: h.fp, KnownHosts: "-", Name: name, Passphrase: pass,
		RequestTimeout: wait}
	if h.lan != nil {
		cfg.Wrap = h.lan.Wrap
	}
	return net.Dial(ctx, cfg)
}

// scrape fetches /metrics and returns every sample by its series, name{label="v"}.
func (h *host) scrape(t *testing.T) map[string]float64 {
	t.Helper()
	resp, err := stdhttp.Get("http://" + h.metrics + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != stdhttp.StatusOK {
		t.Fatalf("GET /metrics: %s", resp.Status)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("parse /metrics: %v", err)
	}
	out := map[string]float64{}
	for name, fam := range fams {
		if !strings.HasPrefix(name, metricPrefix) && !strings.HasPrefix(name, "go_") && !strings.HasPrefix(name, "process_") {
			t.Errorf("metric %s: neither %s nor the standard go_ or process_", name, metricPrefix)
		}
		for _, m := range fam.GetMetric() {
			key := name + labelString(m.GetLabel())
			switch {
			case m.Counter != nil:
				out[key] = m.GetCounter().GetValue()
			case m.Gauge != nil:
				out[key] = m.GetGauge().GetValue()
			case m.Histogram != nil:
				out[name+"_count"+labelString(m.GetLabel())] = float64(m.GetHistogram().GetSampleCount())
				out[name+"_sum"+labelString(m.GetLabel())] = m.GetHistogram().GetSampleSum()
			default:
				out[key] = m.GetUntyped().GetValue()
			}
		}
	}
	return out
}

func labelString(ls []*dto.LabelPair) string {
	if len(ls) == 0 {
		return ""
	}
	var parts []string
	for _, l := range ls {
		parts = append(parts, fmt.Sprintf("%s=%q", l.GetName(), l.GetValue()))
	}
	return "{" + strings.Join(parts, ",") + "}"
}

func (h *host) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := stdhttp.Get("http://" + h.metrics + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// poll waits until cond holds.
func poll(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(wait)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within %v", what, wait)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestMetricsAfterMatch plays a short loopback match against a host with -metrics
// and checks the treadline_ series against what happened: two players joined, one
// was refused for a wrong passphrase, one published updates the other received.
func TestMetricsAfterMatch(t *testing.T) {
	// A long join timeout: deriving the passphrase key under -race on a loaded machine is slow.
	h := startHost(t, []string{"-bots", "0", "-pass", "tiger", "-metrics", "127.0.0.1:0", "-join-timeout", "20s"}, nil)
	if code, body := h.get(t, "/healthz"); code != stdhttp.StatusOK || !strings.HasPrefix(body, "ok: waiting, 0 players") {
		// The loop may not have stepped yet: wait for it.
		poll(t, "healthz ok", func() bool {
			code, body = h.get(t, "/healthz")
			return code == stdhttp.StatusOK && strings.HasPrefix(body, "ok: waiting, 0 players")
		})
	}
	ann, err := h.join(t, "ann", "tiger")
	if err != nil {
		t.Fatal(err)
	}
	defer ann.Close()
	bob, err := h.join(t, "bob", "tiger")
	if err != nil {
		t.Fatal(err)
	}
	defer bob.Close()
	if c, err := h.join(t, "eve", "lion"); err == nil {
		c.Close()
		t.Fatal("wrong passphrase admitted")
	}
	mp := testGround(t)
	tank, err := ann.Spawn("ann", 1, tankState(mp, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	const updates = 6
	got := 0
	var evs []net.Event
	for i := range updates {
		if err := ann.Publish(tank, tankState(mp, 0.5+0.2*float64(i+1))); err != nil {
			t.Fatal(err)
		}
		poll(t, "bob receives the update", func() bool {
			for _, ev := range bob.Poll(evs[:0]) {
				if ev.Kind == net.EventState && ev.Actor == tank {
					got++
				}
			}
			return got == i+1
		})
	}
	// Each update goes to bob and to the host's own peer (its bots' match).
	var m map[string]float64
	poll(t, "relays counted", func() bool {
		m = h.scrape(t)
		return m["treadline_updates_relayed_total"] >= 2*updates
	})
	for series, want := range map[string]float64{
		`treadline_players`:     2,
		`treadline_actors`:      1,
		`treadline_joins_total`: 2,
		`treadline_joins_refused_total{reason="passphrase"}`: 1,
		`treadline_joins_refused_total{reason="full"}`:       0,
		`treadline_handshakes_in_flight`:                     0,
		`treadline_joins_in_progress`:                        0,
		`treadline_joins_refused_total{reason="handshake"}`:  0,
		`treadline_players_kicked_total{reason="idle"}`:      0,
		`treadline_updates_accepted_total`:                   updates,
		`treadline_updates_relayed_total`:                    2 * updates,
		`treadline_drops_total{reason="late"}`:               0,
		`treadline_drops_total{reason="invalid"}`:            0,
		`treadline_drops_total{reason="unauthorized"}`:       0,
		`treadline_updates_refused_total{reason="speed"}`:    0,
		`treadline_updates_refused_total{reason="height"}`:   0,
		`treadline_match_state{state="playing"}`:             1,
		`treadline_match_state{state="waiting"}`:             0,
	} {
		if v, ok := m[series]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, want)
		}
	}
	// One age per relayed copy: each update's two copies, either in the histogram or,
	// stamped ahead of the host clock, counted apart.
	n, ahead := m["treadline_relay_delay_seconds_count"], m["treadline_relay_delay_negative_total"]
	if n+ahead != 2*updates {
		t.Errorf("relay delay observed %v times and %v negative, want %d in all", n, ahead, 2*updates)
	}
	if d := m["treadline_relay_delay_seconds_sum"] / n; n > 0 && !(d >= 0 && d < 2) {
		t.Errorf("mean relay delay %v s on loopback", d)
	}
	// tankload -host-metrics reads the process figures by these names.
	for _, name := range []string{"go_goroutines", "process_resident_memory_bytes", "process_cpu_seconds_total"} {
		if _, ok := m[name]; !ok {
			t.Errorf("no %s: the standard runtime and process metrics are missing", name)
		}
	}
	// Round trips are sampled once a second: wait for both players' first samples.
	poll(t, "round trips sampled", func() bool { return h.scrape(t)["treadline_rtt_seconds_count"] >= 2 })
	if m := h.scrape(t); m["treadline_rtt_seconds_sum"]/m["treadline_rtt_seconds_count"] > 0.5 {
		t.Errorf("mean loopback round trip %v s", m["treadline_rtt_seconds_sum"]/m["treadline_rtt_seconds_count"])
	}
	if code, body := h.get(t, "/healthz"); code != stdhttp.StatusOK || !strings.HasPrefix(body, "ok: playing, 2 players") {
		t.Errorf("healthz %d %q", code, body)
	}
	if code, _ := h.get(t, "/nothing"); code != stdhttp.StatusNotFound {
		t.Errorf("GET /nothing: %d", code)
	}
}

// tankState is a tank at rest at x along the X axis.
// testGround returns the map testMap hosts, for the height of its ground.
func testGround(t *testing.T) *terrain.Map {
	t.Helper()
	mp, err := terrain.Generate(testMapConfig)
	if err != nil {
		t.Fatal(err)
	}
	return mp
}

// tankState is a tank x metres east of mp's first spawn pad, on its ground (the host
// holds tanks to its ground, and a first spawn to the spawn area).
func tankState(mp *terrain.Map, x float64) deadreckon.State {
	pad := combat.SpawnPads(mp)[0]
	y, _ := mp.SurfaceAt(pad[0]+x, pad[1])
	s := deadreckon.NewState(mgl64.Vec3{pad[0] + x, y, pad[1]})
	s.NumArticulations = 2
	return s
}

// startSidecar starts Agones' sdk-server where it is installed, the fake elsewhere
// (agonestest.Start).
func startSidecar(t *testing.T) agonestest.Server {
	t.Helper()
	return agonestest.Start(t, "198.51.100.7", PortName, 7402)
}

// fakeSidecar starts the fake, for the failures the real server cannot produce.
func fakeSidecar(t *testing.T) *agonestest.Sidecar {
	t.Helper()
	return agonestest.New(t, "198.51.100.7", PortName, 7402)
}

// checkStates checks the GameServer's history, RequestReady aside.
func checkStates(t *testing.T, side agonestest.Server, want ...string) {
	t.Helper()
	if st := agonestest.Lifecycle(side.States()); !slices.Equal(st, want) {
		t.Errorf("states %v, want %v", st, want)
	}
}

// TestAgonesFleet runs tankhost -agones -self-allocate through a whole match against
// the sidecar (Agones' own where installed): Ready once it listens, annotated with
// the fingerprint and labelled with the map and the player count; health pings at
// the configured cadence; Allocated on the first join; the players label following
// joins and leaves; Shutdown when the match has been idle.
func TestAgonesFleet(t *testing.T) {
	t.Parallel()
	side := startSidecar(t)
	const period = 40 * time.Millisecond
	started := time.Now()
	h := startAgonesHost(t, side, []string{"-bots", "1", "-agones", "-self-allocate", "-agones-health", period.String(),
		"-idle", "300ms", "-metrics", "127.0.0.1:0"}, nil)
	side.Wait(t, wait, "Ready", func() bool { return side.GameServer().Status.State == agones.StateReady })
	gs := side.GameServer()
	if got := gs.ObjectMeta.Annotations[agones.LabelPrefix+"fingerprint"]; got != h.fp {
		t.Errorf("fingerprint annotation %q, want %q", got, h.fp)
	}
	if l := gs.ObjectMeta.Labels; l[agones.LabelPrefix+"map"] != "test" || l[agones.LabelPrefix+"players"] != "0" {
		t.Errorf("labels %v, want map test and 0 players", l)
	}
	// Metadata first, so that no allocation finds a server that cannot say what it is.
	if acc := side.Accepted(); slices.Index(acc, "/ready") < slices.Index(acc, "/metadata/annotation") ||
		slices.Index(acc, "/ready") < slices.Index(acc, "/metadata/label") {
		t.Errorf("calls %v: Ready before the metadata", acc)
	}
	poll(t, "public join line logged", func() bool {
		return strings.Contains(h.logs.String(), "join=\"tanks -join 198.51.100.7:7402#"+h.fp+"\"")
	})
	if !strings.Contains(h.logs.String(), "msg=identity file=none") {
		t.Errorf("a game server kept an identity file:\n%s", h.logs.String())
	}

	// Health at the cadence, never faster: the k-th ping follows the k-th tick of the
	// period, counted from before tankhost started.
	side.Wait(t, wait, "health pings", func() bool { return side.Count("/health") >= 5 })
	for k, at := range side.HealthTimes() {
		if early := time.Duration(k+1) * period; at.Sub(started) < early {
			t.Errorf("health ping %d came %v after the start, before %v", k+1, at.Sub(started), early)
		}
	}

	// Joins and leaves move the label; the first join allocates.
	ann, err := h.join(t, "ann", "")
	if err != nil {
		t.Fatal(err)
	}
	label := func(want string) func() bool {
		return func() bool { return side.GameServer().ObjectMeta.Labels[agones.LabelPrefix+"players"] == want }
	}
	side.Wait(t, wait, "players=1", label("1"))
	side.Wait(t, wait, "Allocated", func() bool { return side.GameServer().Status.State == agones.StateAllocated })
	bob, err := h.join(t, "bob", "")
	if err != nil {
		t.Fatal(err)
	}
	side.Wait(t, wait, "players=2", label("2"))
	bob.Close()
	side.Wait(t, wait, "players=1 after a leave", label("1"))
	ann.Close()
	side.Wait(t, wait, "players=0", label("0"))

	// Idle for -idle: the match ends, Shutdown goes out and tankhost returns.
	h.waitExit(t, "after the idle time")
	side.Wait(t, wait, "Shutdown", func() bool { return side.Count("/shutdown") >= 1 })
	checkStates(t, side, agones.StateScheduled, agones.StateReady, agones.StateAllocated, agones.StateShutdown)
	if !strings.Contains(h.logs.String(), "match over") {
		t.Errorf("no 'match over' line:\n%s", h.logs.String())
	}
	if n := side.Count("/allocate"); n != 1 {
		t.Errorf("%d Allocate calls, want 1", n)
	}
}

// TestAgonesReadyAfterListening: Ready reaches the sidecar only once the game port is
// taken by the host (the fake checks it as the call arrives).
func TestAgonesReadyAfterListening(t *testing.T) {
	t.Parallel()
	side := fakeSidecar(t)
	port := freeUDPPort(t)
	var readyChecked, readyBeforeListen atomic.Bool
	side.SetHook(func(c agonestest.Call) int {
		if c.Path == "/ready" && !readyChecked.Swap(true) {
			if pc, err := stdnet.ListenPacket("udp", port); err == nil {
				pc.Close()
				readyBeforeListen.Store(true)
			}
		}
		return 0
	})
	startAgonesHost(t, side, []string{"-listen", port, "-bots", "0", "-agones"}, nil)
	side.Wait(t, wait, "Ready", func() bool { return side.GameServer().Status.State == agones.StateReady })
	if !readyChecked.Load() || readyBeforeListen.Load() {
		t.Errorf("Ready reached the sidecar before the host listened on %s", port)
	}
}

// TestAgonesStalledLoop: a stalled match loop stops the health pings (the withheld
// ones show on /metrics) and /healthz reports it; the pings resume with the loop.
func TestAgonesStalledLoop(t *testing.T) {
	t.Parallel()
	side := fakeSidecar(t)
	var stalled atomic.Bool
	release := make(chan struct{})
	var once sync.Once
	defer once.Do(func() { close(release) })
	h := startAgonesHost(t, side, []string{"-bots", "1", "-agones", "-agones-health", "40ms", "-metrics", "127.0.0.1:0"},
		func(st session.ServeStatus) {
			if stalled.Load() {
				<-release
			}
		})
	side.Wait(t, wait, "health pings", func() bool { return side.Count("/health") >= 3 })
	withheld := func() float64 { return h.scrape(t)["treadline_agones_health_withheld_total"] }
	w0 := withheld() // a loaded machine may have skipped a beat before the stall
	stalled.Store(true)
	poll(t, "pings withheld", func() bool { return withheld() >= w0+3 })
	n := side.Count("/health")
	poll(t, "more pings withheld", func() bool { return withheld() >= w0+6 })
	if m := side.Count("/health"); m > n+1 {
		t.Errorf("%d pings while the loop was stalled", m-n)
	}
	poll(t, "healthz reports the stall", func() bool {
		code, body := h.get(t, "/healthz")
		return code == stdhttp.StatusServiceUnavailable && strings.Contains(body, "stalled")
	})
	stalled.Store(false)
	once.Do(func() { close(release) })
	side.Wait(t, wait, "pings after the stall", func() bool { return side.Count("/health") >= n+3 })
}

// freeUDPPort returns a loopback UDP address nobody listens on right now.
func freeUDPPort(t *testing.T) string {
	t.Helper()
	pc, err := stdnet.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	return pc.LocalAddr().String()
}

// playing joins a player and waits until it sees the host's bot move.
func playing(t *testing.T, h *host, name string) *net.Client {
	t.Helper()
	c, err := h.join(t, name, "")
	if err != nil {
		t.Fatalf("join: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	poll(t, name+" sees the bot", func() bool {
		for _, ev := range c.Poll(nil) {
			if ev.Kind == net.EventState {
				return true
			}
		}
		return false
	})
	return c
}

// TestAgonesSidecarTrouble: a sidecar answering 500, then gone, never stops the
// match: players join and play, and the calls go through once it is back.
func TestAgonesSidecarTrouble(t *testing.T) {
	t.Parallel()
	side := fakeSidecar(t)
	var failing atomic.Bool
	failing.Store(true)
	side.SetHook(func(c agonestest.Call) int {
		if failing.Load() {
			return stdhttp.StatusInternalServerError
		}
		return 0
	})
	h := startAgonesHost(t, side, []string{"-bots", "1", "-agones", "-agones-health", "30ms"}, nil)
	poll(t, "failures retried", func() bool { return len(side.Calls()) >= 4 })
	side.Stop()
	playing(t, h, "ann")
	failing.Store(false)
	side.Start()
	side.Wait(t, wait, "Ready once the sidecar is back", func() bool { return side.GameServer().Status.State == agones.StateReady })
	side.Wait(t, wait, "players label", func() bool {
		return side.GameServer().ObjectMeta.Labels[agones.LabelPrefix+"players"] == "1"
	})
	side.Wait(t, wait, "health pings", func() bool { return side.Count("/health") >= 2 })
	// An allocator hands the server out; without -self-allocate tankhost never does.
	if !side.Allocate() {
		t.Errorf("allocator could not allocate a %s server", side.GameServer().Status.State)
	}
	if n := side.Count("/allocate"); n != 0 {
		t.Errorf("%d Allocate calls without -self-allocate", n)
	}
	if !strings.Contains(h.logs.String(), "retrying") {
		t.Errorf("failures not logged:\n%s", h.logs.String())
	}
	// Stopping tankhost shuts the game server down.
	h.cancel()
	h.waitExit(t, "after cancellation")
	checkStates(t, side, agones.StateScheduled, agones.StateReady, agones.StateAllocated, agones.StateShutdown)
}

// TestAgonesSidecarHangs: a sidecar that takes calls and never answers stalls
// neither the match nor its health: players join and play, /healthz stays ok, and
// the calls go through once it answers again.
func TestAgonesSidecarHangs(t *testing.T) {
	t.Parallel()
	side := fakeSidecar(t)
	hung := make(chan struct{})
	var once sync.Once
	unhang := func() { once.Do(func() { close(hung) }) }
	defer unhang()
	var held atomic.Int32
	side.SetHook(func(agonestest.Call) int {
		held.Add(1)
		<-hung
		return 0
	})
	h := startAgonesHost(t, side, []string{"-bots", "1", "-agones", "-agones-health", "30ms", "-metrics", "127.0.0.1:0"}, nil)
	poll(t, "calls held by the sidecar", func() bool { return held.Load() >= 2 })
	playing(t, h, "ann")
	if code, body := h.get(t, "/healthz"); code != stdhttp.StatusOK {
		t.Errorf("healthz %d %q while the sidecar hangs", code, body)
	}
	if st := side.GameServer().Status.State; st != agones.StateScheduled {
		t.Errorf("state %s while every call hangs", st)
	}
	unhang()
	side.Wait(t, wait, "Ready once the sidecar answers", func() bool { return side.GameServer().Status.State == agones.StateReady })
	side.Wait(t, wait, "players label", func() bool {
		return side.GameServer().ObjectMeta.Labels[agones.LabelPrefix+"players"] == "1"
	})
}

// TestAgonesAllocatedNobodyCame: a server an allocator hands out whose players never
// join ends after the idle time, as one they left does, and shuts down.
func TestAgonesAllocatedNobodyCame(t *testing.T) {
	t.Parallel()
	side := startSidecar(t)
	h := startAgonesHost(t, side, []string{"-bots", "1", "-agones", "-agones-health", "30ms", "-idle", "200ms"}, nil)
	side.Wait(t, wait, "Ready", func() bool { return side.GameServer().Status.State == agones.StateReady })
	side.Wait(t, wait, "labels", func() bool { return side.Count("/metadata/label") >= 2 })
	if !side.Allocate() {
		t.Fatal("allocator could not allocate")
	}
	h.waitExit(t, "after an allocation nobody joined")
	side.Wait(t, wait, "Shutdown", func() bool { return side.GameServer().Status.State == agones.StateShutdown })
	if !strings.Contains(h.logs.String(), "no player came") {
		t.Errorf("no 'no player came' line:\n%s", h.logs.String())
	}
}

// TestAgonesReadyServerOutlivesRounds: a Ready server nobody allocates or joins
// never ends by the round clock, however many round lengths it waits (here -round-time
// is shortened to 100 ms and it waits ten).
func TestAgonesReadyServerOutlivesRounds(t *testing.T) {
	t.Parallel()
	side := startSidecar(t)
	const round = 100 * time.Millisecond
	h := startAgonesHost(t, side, []string{"-bots", "2", "-agones", "-agones-health", "30ms", "-idle", "100ms",
		"-round-time", round.String()}, nil)
	side.Wait(t, wait, "Ready", func() bool { return side.GameServer().Status.State == agones.StateReady })
	h.outlives(t, time.Now(), 10*round, "Ready, unallocated and empty")
	if st := side.GameServer().Status.State; st != agones.StateReady || side.Count("/shutdown") != 0 {
		t.Errorf("state %s, %d Shutdown calls; want Ready and none", st, side.Count("/shutdown"))
	}
	if logs := h.logs.String(); strings.Contains(logs, "match over") || strings.Contains(logs, "round started") {
		t.Errorf("the round clock ran on an unallocated server:\n%s", logs)
	}
}

// TestAgonesLateAllocation: a server allocated long after it became Ready starts its
// round at the allocation and keeps its players for the whole round (-round-time
// shortened to 1 s; it waits three round lengths before the allocation), then ends
// with its round and shuts down.
func TestAgonesLateAllocation(t *testing.T) {
	t.Parallel()
	side := startSidecar(t)
	const round = time.Second
	h := startAgonesHost(t, side, []string{"-bots", "1", "-agones", "-agones-health", "30ms", "-idle", "10s",
		"-round-time", round.String()}, nil)
	side.Wait(t, wait, "Ready", func() bool { return side.GameServer().Status.State == agones.StateReady })
	side.Wait(t, wait, "labels", func() bool { return side.Count("/metadata/label") >= 2 })
	ready := time.Now()
	h.outlives(t, ready, 3*round, "Ready, unallocated")
	allocated := time.Now()
	if !side.Allocate() {
		t.Fatalf("allocator could not allocate a %s server", side.GameServer().Status.State)
	}
	// The allocation starts the round, before anyone joins.
	poll(t, "round started by the allocation", func() bool {
		return strings.Contains(h.logs.String(), `msg="round started" players=0`)
	})
	ann := playing(t, h, "ann")
	h.waitExit(t, "at the end of the round")
	ended := time.Since(allocated)
	if ended < round {
		t.Errorf("the match ended %v after the allocation, before its %v round was over", ended, round)
	}
	var closed net.Event
	poll(t, "the player's session closed", func() bool {
		for _, ev := range ann.Poll(nil) {
			if ev.Kind == net.EventClosed {
				closed = ev
			}
		}
		return closed.Kind == net.EventClosed
	})
	if !strings.Contains(closed.Text, "host closed the match") {
		t.Errorf("the player's session ended with %q, want the host closing the match", closed.Text)
	}
	if logs := h.logs.String(); !strings.Contains(logs, "1 of 1 rounds played") {
		t.Errorf("the match did not end with its round:\n%s", logs)
	}
	side.Wait(t, wait, "Shutdown", func() bool { return side.Count("/shutdown") >= 1 })
	checkStates(t, side, agones.StateScheduled, agones.StateReady, agones.StateAllocated, agones.StateShutdown)
	t.Logf("round of %v: ended %v after the allocation, %v after Ready", round, ended.Round(time.Millisecond),
		time.Since(ready).Round(time.Millisecond))
}

// TestRoundStartsAtFirstJoin: without Agones the round clock waits for the first
// player: a host nobody joins for three round lengths plays its one round
// (-rounds 1, -round-time 500 ms) from the join on. Host and player are on an
// in-memory network in a synctest bubble: the round lengths are the bubble's.
func TestRoundStartsAtFirstJoin(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		const round = 500 * time.Millisecond
		h := startHostOn(t, memnet.New(), []string{"-bots", "1", "-rounds", "1", "-round-time", round.String()}, nil)
		h.outlives(t, time.Now(), 3*round, "started, before anyone joined")
		joined := time.Now()
		playing(t, h, "ann")
		h.waitExit(t, "at the end of the round")
		if d := time.Since(joined); d < round {
			t.Errorf("the match ended %v after the first join, before its %v round was over", d, round)
		}
		if logs := h.logs.String(); !strings.Contains(logs, "round started") || !strings.Contains(logs, "1 of 1 rounds played") {
			t.Errorf("no round started at the join and ended:\n%s", logs)
		}
	})
}
