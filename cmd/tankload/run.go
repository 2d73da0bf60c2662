package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/units"
	tlnet "github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/tank"
)

// botResult is what the bots measured; the child process prints it as JSON.
type botResult struct {
	Bots      int     `json:"bots"`
	Seconds   float64 `json:"seconds"`
	Sent      uint64  `json:"sent"`
	Received  uint64  `json:"received"`
	Dropped   uint64  `json:"dropped"`
	DelayP50  float64 `json:"delay_p50"`
	DelayP99  float64 `json:"delay_p99"`
	DelayMax  float64 `json:"delay_max"`
	PublishEr uint64  `json:"publish_errors"`
	// What each bot received, bytes per second, sampled once a second: the mean,
	// 95th percentile and largest sample over every bot.
	DownMean float64 `json:"down_mean"`
	DownP95  float64 `json:"down_p95"`
	DownMax  float64 `json:"down_max"`
	// The delay of updates about tanks within nearRange of the receiving bot's.
	NearP50 float64 `json:"near_p50"`
	NearP99 float64 `json:"near_p99"`
	NearN   int     `json:"near_n"`
	// CPU is the bots' process's CPU time over the measured window, in cores (1: one
	// core's worth); 0 when the bots run in the host's process.
	CPU float64 `json:"cpu"`
}

// nearRange is the distance within which a tank counts as near for the delay near, m.
const nearRange = 100.0

// Lines the bots print: once every bot has joined and spawned, and when they stop
// publishing.
const (
	readyLine   = "ready"
	stoppedLine = "stopped"
)

// run measures one host under cfg.bots bots and writes the report to out, or, with
// role "bots", runs only the bots and writes their result as JSON.
func run(ctx context.Context, cfg config, out io.Writer) error {
	if cfg.role == "bots" {
		// The bots' process allocates a little for every datagram each client
		// decodes, and holds few live bytes (the delays it records): a collection
		// at every 4× growth of the heap, rather than every doubling, keeps the
		// collector's share of its CPU down. Only here: the host's process keeps
		// the default, so that its CPU figure is a shipped host's.
		debug.SetGCPercent(400)
		prof, err := newProfile(cfg.botsProfile)
		if err != nil {
			return err
		}
		defer prof.close()
		var cpu0, cpu1 cpuMark
		res, err := runBots(ctx, cfg, cfg.join,
			func() { prof.start(); cpu0 = markCPU(); fmt.Fprintln(out, readyLine) },
			func() { cpu1 = markCPU(); prof.stop(); fmt.Fprintln(out, stoppedLine) })
		if err != nil {
			return err
		}
		res.CPU = (cpu1.user + cpu1.sys - cpu0.user - cpu0.sys).Seconds() / cpu1.wall.Sub(cpu0.wall).Seconds()
		return json.NewEncoder(out).Encode(res)
	}
	h, err := tlnet.Listen(ctx, tlnet.HostConfig{
		Addr:     "127.0.0.1:0",
		Coalesce: cfg.coalesce,
		Limits: tlnet.Limits{
			Downlink: cfg.downlink, ZonesAbove: cfg.zonesAbove,
			MaxPlayers: cfg.bots + 1,
			// Every bot joins from this machine's one address.
			MaxPlayersPerAddr: cfg.bots + 1, HandshakeRate: float64(cfg.bots),
			UpdateRate: 4 * cfg.hz, UpdateBurst: 4 * cfg.hz,
			Timeout: 10 * time.Second,
		},
		Thinning: thinning(cfg.thin),
		Mover:    referee.NewMover(tank.Spec{}, nil),
		Logger:   slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
	if err != nil {
		return err
	}
	defer h.Close()

	var (
		before, after cpuMark
		statsBefore   tlnet.HostStats
		res           botResult
	)
	var statsAfter tlnet.HostStats
	prof, err := newProfile(cfg.profile)
	if err != nil {
		return err
	}
	defer prof.close()
	ready := func() {
		prof.start()
		before = markCPU()
		statsBefore = h.Stats()
	}
	stopped := func() {
		after = markCPU()
		statsAfter = h.Stats()
		prof.stop()
	}
	if cfg.inprocess {
		res, err = runBots(ctx, cfg, h.JoinAddress(), ready, stopped)
	} else {
		res, err = runChild(ctx, cfg, h.JoinAddress(), ready, stopped)
	}
	if err != nil {
		return err
	}
	st := statsAfter
	report(out, cfg, res, st, statsBefore, before, after)
	if cfg.result != nil {
		cfg.result(figuresOf(cfg, res, st, statsBefore, before, after))
	}
	return nil
}

// profile is a CPU profile written over the measured window to a file; the zero
// profile (no file asked for) does nothing.
type profile struct{ f *os.File }

// newProfile creates the profile's file at path; an empty path asks for none.
func newProfile(path string) (profile, error) {
	if path == "" {
		return profile{}, nil
	}
	f, err := os.Create(path)
	if err != nil {
		return profile{}, fmt.Errorf("cpu profile: %w", err)
	}
	return profile{f: f}, nil
}

func (p *profile) start() {
	if p.f != nil {
		if err := pprof.StartCPUProfile(p.f); err != nil {
			fmt.Fprintln(os.Stderr, "tankload: cpu profile:", err)
			p.f.Close()
			p.f = nil
		}
	}
}

func (p *profile) stop() {
	if p.f != nil {
		pprof.StopCPUProfile()
	}
}

func (p *profile) close() {
	if p.f != nil {
		p.f.Close()
	}
}

func thinning(on bool) tlnet.Thinning {
	if !on {
		return tlnet.Thinning{}
	}
	return tlnet.Thinning{Near: 50, PerMeter: 4 * time.Millisecond, MaxInterval: time.Second}
}

// runChild runs the bots in a child process of this executable and reads their
// result.
func runChild(ctx context.Context, cfg config, join string, ready, stopped func()) (botResult, error) {
	exe, err := os.Executable()
	if err != nil {
		return botResult{}, fmt.Errorf("find executable: %w", err)
	}
	args := []string{"-role", "bots", "-join", join,
		"-bots", fmt.Sprint(cfg.bots), "-duration", cfg.duration.String(), "-hz", fmt.Sprint(cfg.hz),
		"-lag", cfg.lag.String(), "-jitter", cfg.jitter.String(), "-loss", fmt.Sprint(cfg.loss), "-lossburst", fmt.Sprint(cfg.lossBurst),
		"-seed", fmt.Sprint(cfg.seed), "-botsprofile", cfg.botsProfile}
	cmd := exec.CommandContext(ctx, exe, args...)
	cmd.Stderr = os.Stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return botResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return botResult{}, fmt.Errorf("start bots: %w", err)
	}
	var res botResult
	var got bool
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == readyLine:
			ready()
		case line == stoppedLine:
			stopped()
		case strings.HasPrefix(line, "{"):
			if err := json.Unmarshal([]byte(line), &res); err != nil {
				return res, fmt.Errorf("bots result: %w", err)
			}
			got = true
		}
	}
	if err := cmd.Wait(); err != nil {
		return res, fmt.Errorf("bots: %w", err)
	}
	if !got {
		return res, errors.New("bots printed no result")
	}
	return res, nil
}

// joinWait is how long a bot waits for each of the host's answers while joining: long,
// because a loaded machine (many bots joining at once, or tests under -race) can take
// seconds to get through the handshakes.
const joinWait = 15 * time.Second

// bot is one simulated player: a client driving one tank round a wide circle of its
// own, the circles spread over the whole map, so that the tanks near each bot change
// as they drive.
type bot struct {
	c        *tlnet.Client
	tank     uint32
	center   mgl64.Vec3
	radius   float64
	phase    float64
	sent     uint64
	received uint64
	pubErr   uint64
	delays   []float64
	near     []float64 // delays of updates about tanks within nearRange
	down     []float64 // bytes per second received, sampled once a second
	// nextDown is when the next downlink sample is due, on the client's clock.
	nextDown float64
}

// runBots joins cfg.bots clients to the host at join, spawns a tank for each, calls
// ready, drives for cfg.duration, calls stopped, collects the updates still in flight
// and returns what the bots measured.
func runBots(ctx context.Context, cfg config, join string, ready, stopped func()) (botResult, error) {
	addr, fp, err := tlnet.SplitJoin(join)
	if err != nil {
		return botResult{}, err
	}
	// Unimpaired bots share one socket, as a host's players share its: each keeps
	// its own connection and identity, and the process reads their datagrams in
	// batches instead of a socket and a system call a datagram each. Impaired bots
	// keep a socket each, each its own link.
	impaired := cfg.lag > 0 || cfg.jitter > 0 || cfg.loss > 0
	var sock *tlnet.Socket
	if !impaired {
		if sock, err = tlnet.OpenSocket(":0", nil); err != nil {
			return botResult{}, fmt.Errorf("bots: %w", err)
		}
		defer sock.Close() // after the clients, deferred below
	}
	bots := make([]*bot, cfg.bots)
	defer func() {
		for _, b := range bots {
			if b != nil && b.c != nil {
				b.c.Close()
			}
		}
	}()
	// Join in parallel, a few at a time.
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	errs := make([]error, cfg.bots)
	for i := range bots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			b := newBot(i)
			bots[i] = b
			ccfg := tlnet.ClientConfig{Addr: addr, Fingerprint: fp, Name: fmt.Sprintf("bot%03d", i), Timeout: 10 * time.Second,
				RequestTimeout: joinWait, Socket: sock}
			if impaired {
				link := impair.Link{Latency: cfg.lag, Jitter: cfg.jitter, Loss: cfg.loss, LossBurst: cfg.lossBurst}
				ccfg.Wrap = tlnet.Impaired(link, cfg.seed+uint64(i))
			}
			c, err := tlnet.Dial(ctx, ccfg)
			if err != nil {
				errs[i] = fmt.Errorf("bot %d: %w", i, err)
				return
			}
			b.c = c
			pos, q := b.at(c.HostNow())
			s := deadreckon.NewState(pos)
			s.Orientation = q
			if b.tank, err = c.Spawn(ccfg.Name, i%2, s); err != nil {
				errs[i] = fmt.Errorf("bot %d: %w", i, err)
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return botResult{}, err
	}
	// Let the spawns reach everyone and the clocks settle before measuring.
	time.Sleep(time.Second)
	for _, b := range bots {
		b.c.Poll(nil)
		b.delays = make([]float64, 0, int(cfg.duration.Seconds()*cfg.hz*float64(cfg.bots))+64)
	}
	ready()
	start := time.Now()
	ctx, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	driveAll(ctx, bots, cfg.hz)
	seconds := time.Since(start).Seconds()
	stopped()
	// Collect what is still in flight.
	drain := 200*time.Millisecond + 2*(cfg.lag+cfg.jitter)
	dctx, dcancel := context.WithTimeout(context.Background(), drain)
	defer dcancel()
	driveAll(dctx, bots, 0)
	res := botResult{Bots: cfg.bots, Seconds: seconds}
	var all, near, down []float64
	for _, b := range bots {
		res.Sent += b.sent
		res.Received += b.received
		res.PublishEr += b.pubErr
		res.Dropped += b.c.Stats().Dropped
		all = append(all, b.delays...)
		near = append(near, b.near...)
		down = append(down, b.down...)
	}
	slices.Sort(all)
	if n := len(all); n > 0 {
		res.DelayP50 = all[n/2]
		res.DelayP99 = all[min(n-1, n*99/100)]
		res.DelayMax = all[n-1]
	}
	slices.Sort(near)
	if n := len(near); n > 0 {
		res.NearP50, res.NearP99, res.NearN = near[n/2], near[min(n-1, n*99/100)], n
	}
	slices.Sort(down)
	if n := len(down); n > 0 {
		sum := 0.0
		for _, v := range down {
			sum += v
		}
		res.DownMean, res.DownP95, res.DownMax = sum/float64(n), down[min(n-1, n*95/100)], down[n-1]
	}
	return res, nil
}

// newBot returns bot i: its circle's centre on a spiral over the map (the golden
// angle apart, so that any number of bots covers the map evenly), its radius from
// 40 to 150 m, all within ±240 m.
func newBot(i int) *bot {
	const golden = 2.399963229728653 // radians
	r := 200 * math.Sqrt((float64(i)+0.5)/256)
	if i >= 256 {
		r = 200 * math.Sqrt(math.Mod(float64(i)*0.618034, 1))
	}
	radius := 40 + math.Mod(float64(i)*37, 110)
	c := mgl64.Vec3{r * math.Cos(float64(i)*golden), 0, r * math.Sin(float64(i)*golden)}
	for k := 0; k <= 2; k += 2 { // the circle inside ±240 m
		c[k] = math.Max(-240+radius, math.Min(240-radius, c[k]))
	}
	return &bot{center: c, radius: radius, phase: float64(i)}
}

// botSpeed is how fast the bots drive, m/s.
const botSpeed = 6.0

// rate returns the bot's turn rate, rad/s: botSpeed round its circle.
func (b *bot) rate() float64 { return botSpeed / b.radius }

// at returns the bot's tank pose at host time t, round its circle at botSpeed.
func (b *bot) at(t float64) (mgl64.Vec3, mgl64.Quat) {
	th := b.rate()*t + b.phase
	pos := b.center.Add(mgl64.Vec3{b.radius * math.Cos(th), 0, b.radius * math.Sin(th)})
	return pos, geom.YawQuat(-(th + math.Pi/2))
}

// pollEvery is how often each bot polls its client. The delays are measured to each
// update's arrival (Event.Arrival), not to the poll, so polling less often than a
// game's frame costs no accuracy, and a few pollers for all the bots, in place of a
// goroutine and a 2 ms timer each, leave the bots' process's CPU to the clients
// themselves.
const pollEvery = 10 * time.Millisecond

// driveAll drives bots until ctx ends: each publishes at hz on a goroutine of its
// own (none when hz is 0), and one poller for each processor polls a share of them.
func driveAll(ctx context.Context, bots []*bot, hz float64) {
	var wg sync.WaitGroup
	if hz > 0 {
		for _, b := range bots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				b.publish(ctx, hz)
			}()
		}
	}
	n := min(runtime.GOMAXPROCS(0), len(bots))
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []*bot
			for i := w; i < len(bots); i += n {
				mine = append(mine, bots[i])
			}
			poll(ctx, mine, hz > 0)
		}()
	}
	wg.Wait()
}

// publish publishes the bot's state at hz until ctx ends, its first publish a
// fraction of the period set by its phase, so that the bots' publishes spread over
// the period.
func (b *bot) publish(ctx context.Context, hz float64) {
	period := 1 / hz
	next := b.c.Now() + period*math.Mod(b.phase, 64)/64
	t := time.NewTimer(0)
	defer t.Stop()
	for {
		now := b.c.Now()
		if now < next {
			t.Reset(units.Duration(next - now))
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			now = b.c.Now()
		}
		if ctx.Err() != nil {
			return
		}
		next += period
		if next < now {
			next = now + period
		}
		pos, q := b.at(b.c.HostNow())
		s := deadreckon.NewState(pos)
		s.Orientation = q
		fwd := q.Rotate(mgl64.Vec3{1, 0, 0})
		s.Velocity = fwd.Mul(botSpeed)
		s.AngularVelocity = mgl64.Vec3{0, -b.rate(), 0}
		if err := b.c.Publish(b.tank, s); err != nil {
			b.pubErr++
		} else {
			b.sent++
		}
	}
}

// poll polls bots every pollEvery until ctx ends, recording the delay of every
// update received: the bot's estimate of the host clock minus the update's
// host-clock stamp. With sample, it samples each bot's downlink once a second.
func poll(ctx context.Context, bots []*bot, sample bool) {
	t := time.NewTicker(pollEvery)
	defer t.Stop()
	for _, b := range bots {
		b.nextDown = b.c.Now() + 1
	}
	var events []tlnet.Event
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		for _, b := range bots {
			events = b.poll(sample, events[:0])
		}
	}
}

// poll polls the bot's client once and, with sample, samples its downlink when a
// second has passed since the last sample. events is a buffer for the poll,
// returned for the next.
func (b *bot) poll(sample bool, events []tlnet.Event) []tlnet.Event {
	now := b.c.Now()
	hostNow := b.c.HostNow()
	events = b.c.Poll(events)
	me, _ := b.at(hostNow)
	for _, ev := range events {
		if ev.Kind == tlnet.EventState {
			// The delay to the update's arrival, not to this poll: the poll
			// interval is the bot's, not the relay's.
			b.received++
			d := ev.Arrival + (hostNow - now) - ev.State.Time
			b.delays = append(b.delays, d)
			if p := ev.State.Position; math.Hypot(p[0]-me[0], p[2]-me[2]) <= nearRange {
				b.near = append(b.near, d)
			}
		}
	}
	if sample && now >= b.nextDown {
		b.nextDown++
		b.down = append(b.down, b.c.Stats().BytesIn)
	}
	return events
}

// cpuMark is the process's CPU time and the wall clock at one instant.
type cpuMark struct {
	wall      time.Time
	user, sys time.Duration
}

func markCPU() cpuMark {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return cpuMark{
		wall: time.Now(),
		user: time.Duration(ru.Utime.Nano()),
		sys:  time.Duration(ru.Stime.Nano()),
	}
}

// report prints the figures of one run.
func report(out io.Writer, cfg config, res botResult, st, st0 tlnet.HostStats, before, after cpuMark) {
	wall := after.wall.Sub(before.wall).Seconds()
	user := (after.user - before.user).Seconds() / wall * 100
	sys := (after.sys - before.sys).Seconds() / wall * 100
	relayed := float64(st.Relayed-st0.Relayed) / wall
	accepted := float64(st.Accepted-st0.Accepted) / wall
	expected := float64(res.Sent) * float64(cfg.bots-1)
	// Relays still in flight at the stop mark are left out of the rates.
	who := "host alone"
	if cfg.inprocess {
		who = "host and bots in one process"
	}
	fmt.Fprintf(out, "tankload: %d bots × %.0f Hz for %.1f s on loopback", cfg.bots, cfg.hz, res.Seconds)
	if cfg.lag > 0 || cfg.jitter > 0 || cfg.loss > 0 {
		fmt.Fprintf(out, " (each link %v ± %v, %.0f%% loss each way", cfg.lag, cfg.jitter, cfg.loss*100)
		if cfg.lossBurst > 1 {
			fmt.Fprintf(out, " in bursts of %.1f", cfg.lossBurst)
		}
		fmt.Fprint(out, ")")
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "relayed:  %.0f msg/s (accepted %.0f updates/s from owners)\n", relayed, accepted)
	fmt.Fprintf(out, "counts:   sent %d, received %d of %.0f expected (every update to every other bot)\n",
		res.Sent, res.Received, expected)
	fmt.Fprintf(out, "host CPU: %.1f%% of one core (user %.1f%%, sys %.1f%%; %s)\n", user+sys, user, sys, who)
	if res.CPU > 0 {
		fmt.Fprintf(out, "bots CPU: %.1f%% of one core (the bots' process)\n", res.CPU*100)
	}
	fmt.Fprintf(out, "delay:    p50 %.1f ms, p99 %.1f ms, max %.1f ms (owner → host → observer)\n",
		res.DelayP50*1000, res.DelayP99*1000, res.DelayMax*1000)
	printDownlink(out, res)
	if st.Scheduled > st0.Scheduled {
		fmt.Fprintf(out, "zones:    %.0f%% of the updates to everyone sent, %d replaced by newer before they went, %.1f kB outside the budget\n",
			float64(st.Scheduled-st0.Scheduled)/math.Max(1, float64(st.Accepted-st0.Accepted)*float64(cfg.bots-1))*100,
			st.Overwritten-st0.Overwritten, float64(st.DownlinkBypass-st0.DownlinkBypass)/1000)
	}
	if b := st.Batches - st0.Batches; b > 0 {
		fmt.Fprintf(out, "datagrams: %.0f/s of records from the host, %.1f a second to each bot, %.0f B each\n",
			float64(b)/wall, float64(b)/wall/float64(cfg.bots), float64(st.BatchBytes-st0.BatchBytes)/float64(b))
	}
	delivered := 0.0
	if expected > 0 {
		delivered = float64(res.Received) / expected * 100
	}
	fmt.Fprintf(out, "drops:    host late %d, rate-limited %d, invalid %d, overflow %d, thinned %d; bots dropped %d, publish errors %d; delivered %.1f%% of %0.f expected\n",
		st.Late-st0.Late, st.RateLimited-st0.RateLimited, st.Invalid-st0.Invalid, st.Overflow-st0.Overflow,
		st.Thinned-st0.Thinned, res.Dropped, res.PublishEr, delivered, expected)
}

// printDownlink prints what each bot received and the delay of the updates about
// the tanks near it.
func printDownlink(out io.Writer, res botResult) {
	fmt.Fprintf(out, "downlink: mean %.1f kB/s, p95 %.1f kB/s, max %.1f kB/s per client\n",
		res.DownMean/1000, res.DownP95/1000, res.DownMax/1000)
	fmt.Fprintf(out, "delay near: p50 %.1f ms, p99 %.1f ms (tanks within %.0f m)\n",
		res.NearP50*1000, res.NearP99*1000, nearRange)
}
