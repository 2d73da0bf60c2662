package net

// The measuring rig of the attack tests and benchmarks: a host (in this process, or
// in a child process so that its resident memory is its own), a pair of honest
// players joined before the attack whose update delay is measured, and a sampler of
// the host's memory and goroutines.

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	stdnet "net"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// hostSample is one reading of a host's footprint.
type hostSample struct {
	at         time.Time
	heap, rss  int64 // bytes in use by the Go heap, resident set
	goroutines int
}

// footprint samples a host's footprint every 50 ms until stopped.
type footprint struct {
	mu      sync.Mutex
	samples []hostSample
}

func (f *footprint) add(s hostSample) {
	f.mu.Lock()
	f.samples = append(f.samples, s)
	f.mu.Unlock()
}

// peak returns the largest heap, RSS and goroutine count sampled in [from, to).
func (f *footprint) peak(from, to time.Time) hostSample {
	f.mu.Lock()
	defer f.mu.Unlock()
	var p hostSample
	for _, s := range f.samples {
		if s.at.Before(from) || !s.at.Before(to) {
			continue
		}
		p.heap, p.rss, p.goroutines = max(p.heap, s.heap), max(p.rss, s.rss), max(p.goroutines, s.goroutines)
	}
	return p
}

// last returns the latest sample.
func (f *footprint) last() hostSample {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.samples) == 0 {
		return hostSample{}
	}
	return f.samples[len(f.samples)-1]
}

// selfSample reads this process's footprint.
func selfSample() hostSample {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return hostSample{at: time.Now(), heap: int64(ms.HeapInuse), rss: procRSS("self"),
		goroutines: runtime.NumGoroutine()}
}

// procRSS returns the resident set of a process ("self" or a pid) from /proc, in
// bytes, or 0 where there is no /proc.
func procRSS(pid string) int64 {
	b, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// attackHostEnv makes the test binary a host child process (see TestAttackHostChild).
const attackHostEnv = "TREADLINE_ATTACK_HOST"

// TestAttackHostChild is not a test: run by the attack benchmarks in a child process
// (with attackHostEnv set to the passphrase, or "-" for none), it hosts a match with
// the shipped defaults on loopback, prints its address and fingerprint, then its
// footprint every 50 ms, until its standard input closes.
func TestAttackHostChild(t *testing.T) {
	pass := os.Getenv(attackHostEnv)
	if pass == "" {
		t.Skip("only run as the attack benchmarks' host process")
	}
	if pass == "-" {
		pass = ""
	}
	h, err := Listen(context.Background(), HostConfig{Addr: "127.0.0.1:0", Passphrase: pass})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	fmt.Printf("host %s %s\n", h.Addr(), h.Fingerprint())
	done := make(chan struct{})
	go func() { io.Copy(io.Discard, os.Stdin); close(done) }()
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-done:
			return
		case <-tick.C:
			s := selfSample()
			fmt.Printf("sample %d %d %d\n", s.heap, s.rss, s.goroutines)
		}
	}
}

// rigHost is the host under attack.
type rigHost struct {
	addr stdnet.Addr
	fp   string
	h    *Host // in process; nil for a child process
	pid  int   // the child process; 0 in process
	fp0  *footprint
	stop func()
}

// inProcessHost samples a host running in this process.
func inProcessHost(t testing.TB, h *Host) *rigHost {
	r := &rigHost{addr: h.Addr(), fp: h.Fingerprint(), h: h, fp0: &footprint{}}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			r.fp0.add(selfSample())
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	r.stop = func() { cancel(); <-done }
	t.Cleanup(r.stop)
	return r
}

// childHost starts a host in a child process and follows its footprint.
func childHost(t testing.TB, pass string) *rigHost {
	t.Helper()
	if pass == "" {
		pass = "-"
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestAttackHostChild$", "-test.v=false")
	cmd.Env = append(os.Environ(), attackHostEnv+"="+pass)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := &rigHost{fp0: &footprint{}, pid: cmd.Process.Pid}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		var a string
		if _, err := fmt.Sscanf(sc.Text(), "host %s %s", &a, &r.fp); err == nil {
			ua, err := stdnet.ResolveUDPAddr("udp", a)
			if err != nil {
				t.Fatal(err)
			}
			r.addr = ua
			break
		}
	}
	if r.addr == nil {
		cmd.Process.Kill()
		t.Fatal("host child printed no address")
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for sc.Scan() {
			var s hostSample
			if _, err := fmt.Sscanf(sc.Text(), "sample %d %d %d", &s.heap, &s.rss, &s.goroutines); err == nil {
				s.at = time.Now()
				r.fp0.add(s)
			}
		}
	}()
	r.stop = func() { stdin.Close(); cmd.Wait(); <-done }
	t.Cleanup(r.stop)
	return r
}

// dial joins the rig's host from local with name.
func (r *rigHost) dial(ctx context.Context, local, name, pass string) (*Client, error) {
	return Dial(ctx, ClientConfig{Addr: r.addr.String(), Fingerprint: r.fp, Name: name, Passphrase: pass,
		Wrap: fromAddr(local)})
}

// honestPair is a publisher and an observer joined before an attack: the publisher
// moves its tank 1 mm per update at 50 Hz, so the observer can tell which update it
// received and how long it took.
type honestPair struct {
	pub, obs *Client
	tank     uint32
	mu       sync.Mutex
	sent     []time.Time
	delays   []delaySample
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

type delaySample struct {
	at    time.Time
	delay time.Duration
}

func startHonest(t testing.TB, r *rigHost, local, pass string) *honestPair {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	pub, err := r.dial(ctx, local, "honest-pub", pass)
	if err != nil {
		t.Fatal(err)
	}
	obs, err := r.dial(ctx, local, "honest-obs", pass)
	if err != nil {
		pub.Close()
		t.Fatal(err)
	}
	tank, err := pub.Spawn("honest", 1, rigState(0))
	if err != nil {
		t.Fatal(err)
	}
	hp := &honestPair{pub: pub, obs: obs, tank: tank}
	run, stop := context.WithCancel(context.Background())
	hp.cancel = stop
	hp.wg.Add(2)
	go hp.publish(run)
	go hp.observe(run)
	t.Cleanup(func() { hp.stop(); pub.Close(); obs.Close() })
	return hp
}

// rigState is the honest tank's state at update i: 1 mm further along x each time.
func rigState(i int) deadreckon.State {
	return deadreckon.NewState(mgl64.Vec3{float64(i) * 0.001, 0, 0})
}

func (hp *honestPair) publish(ctx context.Context) {
	defer hp.wg.Done()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
		hp.mu.Lock()
		hp.sent = append(hp.sent, time.Now())
		hp.mu.Unlock()
		if hp.pub.Publish(hp.tank, rigState(i)) != nil {
			return
		}
	}
}

func (hp *honestPair) observe(ctx context.Context) {
	defer hp.wg.Done()
	var evs []Event
	for ctx.Err() == nil {
		evs = hp.obs.Poll(evs[:0])
		now := time.Now()
		for _, ev := range evs {
			if ev.Kind != EventState || ev.Actor != hp.tank {
				continue
			}
			i := int(math.Round(ev.State.Position[0] / 0.001))
			hp.mu.Lock()
			if i >= 1 && i <= len(hp.sent) {
				hp.delays = append(hp.delays, delaySample{at: now, delay: now.Sub(hp.sent[i-1])})
			}
			hp.mu.Unlock()
		}
		time.Sleep(500 * time.Microsecond)
	}
}

func (hp *honestPair) stop() { hp.cancel(); hp.wg.Wait() }

// delays returns the p99 of the delays observed in [from, to), how many there were
// and how many were published in that time.
func (hp *honestPair) p99(from, to time.Time) (p99 time.Duration, got, sent int) {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	var ds []time.Duration
	for _, d := range hp.delays {
		if !d.at.Before(from) && d.at.Before(to) {
			ds = append(ds, d.delay)
		}
	}
	for _, s := range hp.sent {
		if !s.Before(from) && s.Before(to) {
			sent++
		}
	}
	if len(ds) == 0 {
		return 0, 0, sent
	}
	slices.Sort(ds)
	return ds[min(len(ds)-1, len(ds)*99/100)], len(ds), sent
}

// mb formats bytes as MB.
func mb(b int64) float64 { return float64(b) / (1 << 20) }

// loadAverage returns the one-minute load average, for reports.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}
