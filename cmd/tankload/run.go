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
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
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
}

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
		res, err := runBots(ctx, cfg, cfg.join,
			func() { fmt.Fprintln(out, readyLine) }, func() { fmt.Fprintln(out, stoppedLine) })
		if err != nil {
			return err
		}
		return json.NewEncoder(out).Encode(res)
	}
	h, err := tlnet.Listen(ctx, tlnet.HostConfig{
		Addr:     "127.0.0.1:0",
		Coalesce: cfg.coalesce,
		Limits: tlnet.Limits{
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
	var prof *os.File
	if cfg.profile != "" {
		if prof, err = os.Create(cfg.profile); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer prof.Close()
	}
	ready := func() {
		if prof != nil {
			if err := pprof.StartCPUProfile(prof); err != nil {
				fmt.Fprintln(os.Stderr, "tankload: cpu profile:", err)
				prof = nil
			}
		}
		before = markCPU()
		statsBefore = h.Stats()
	}
	stopped := func() {
		after = markCPU()
		statsAfter = h.Stats()
		if prof != nil {
			pprof.StopCPUProfile()
		}
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
		"-seed", fmt.Sprint(cfg.seed)}
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

// bot is one simulated player: a client driving one tank in a circle.
type bot struct {
	c        *tlnet.Client
	tank     uint32
	center   mgl64.Vec3
	phase    float64
	sent     uint64
	received uint64
	pubErr   uint64
	delays   []float64
}

// runBots joins cfg.bots clients to the host at join, spawns a tank for each, calls
// ready, drives for cfg.duration, calls stopped, collects the updates still in flight
// and returns what the bots measured.
func runBots(ctx context.Context, cfg config, join string, ready, stopped func()) (botResult, error) {
	addr, fp, err := tlnet.SplitJoin(join)
	if err != nil {
		return botResult{}, err
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
			b := &bot{
				center: mgl64.Vec3{float64(i%8)*60 - 210, 0, float64(i/8%8)*60 - 210},
				phase:  float64(i),
			}
			bots[i] = b
			ccfg := tlnet.ClientConfig{Addr: addr, Fingerprint: fp, Name: fmt.Sprintf("bot%03d", i), Timeout: 10 * time.Second, RequestTimeout: joinWait}
			if cfg.lag > 0 || cfg.jitter > 0 || cfg.loss > 0 {
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
	for _, b := range bots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b.drive(ctx, cfg.hz)
		}()
	}
	wg.Wait()
	seconds := time.Since(start).Seconds()
	stopped()
	// Collect what is still in flight.
	drain := 200*time.Millisecond + 2*(cfg.lag+cfg.jitter)
	for _, b := range bots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dctx, cancel := context.WithTimeout(context.Background(), drain)
			defer cancel()
			b.drive(dctx, 0)
		}()
	}
	wg.Wait()
	res := botResult{Bots: cfg.bots, Seconds: seconds}
	var all []float64
	for _, b := range bots {
		res.Sent += b.sent
		res.Received += b.received
		res.PublishEr += b.pubErr
		res.Dropped += b.c.Stats().Dropped
		all = append(all, b.delays...)
	}
	slices.Sort(all)
	if n := len(all); n > 0 {
		res.DelayP50 = all[n/2]
		res.DelayP99 = all[min(n-1, n*99/100)]
		res.DelayMax = all[n-1]
	}
	return res, nil
}

// at returns the bot's tank pose at host time t: a 25 m circle at 5 m/s.
func (b *bot) at(t float64) (mgl64.Vec3, mgl64.Quat) {
	const radius, rate = 25.0, 0.2
	th := rate*t + b.phase
	pos := b.center.Add(mgl64.Vec3{radius * math.Cos(th), 0, radius * math.Sin(th)})
	return pos, geom.YawQuat(-(th + math.Pi/2))
}

// drive publishes at hz (none when hz is 0) and polls every few milliseconds until
// ctx ends, recording the delay of every update received: the bot's estimate of the
// host clock minus the update's host-clock stamp.
func (b *bot) drive(ctx context.Context, hz float64) {
	const poll = 2 * time.Millisecond
	t := time.NewTicker(poll)
	defer t.Stop()
	period := math.Inf(1)
	if hz > 0 {
		period = 1 / hz
	}
	next := b.c.Now() + period*b.phase/64
	var events []tlnet.Event
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		now := b.c.Now()
		hostNow := b.c.HostNow()
		events = b.c.Poll(events[:0])
		for _, ev := range events {
			if ev.Kind == tlnet.EventState {
				// The delay to the update's arrival, not to this poll: the poll
				// interval is the bot's, not the relay's.
				b.received++
				b.delays = append(b.delays, ev.Arrival+(hostNow-now)-ev.State.Time)
			}
		}
		if hz > 0 && now >= next {
			next += period
			if next < now {
				next = now + period
			}
			pos, q := b.at(hostNow)
			s := deadreckon.NewState(pos)
			s.Orientation = q
			const speed = 25.0 * 0.2
			fwd := q.Rotate(mgl64.Vec3{1, 0, 0})
			s.Velocity = fwd.Mul(speed)
			s.AngularVelocity = mgl64.Vec3{0, -0.2, 0}
			if err := b.c.Publish(b.tank, s); err != nil {
				b.pubErr++
			} else {
				b.sent++
			}
		}
	}
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
	fmt.Fprintf(out, "delay:    p50 %.1f ms, p99 %.1f ms, max %.1f ms (owner → host → observer)\n",
		res.DelayP50*1000, res.DelayP99*1000, res.DelayMax*1000)
	delivered := 0.0
	if expected > 0 {
		delivered = float64(res.Received) / expected * 100
	}
	fmt.Fprintf(out, "drops:    host late %d, rate-limited %d, invalid %d, overflow %d, thinned %d; bots dropped %d, publish errors %d; delivered %.1f%% of %0.f expected\n",
		st.Late-st0.Late, st.RateLimited-st0.RateLimited, st.Invalid-st0.Invalid, st.Overflow-st0.Overflow,
		st.Thinned-st0.Thinned, res.Dropped, res.PublishEr, delivered, expected)
}
