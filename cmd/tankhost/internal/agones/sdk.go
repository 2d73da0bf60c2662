// Package agones speaks to the Agones SDK server, the sidecar beside a game server in
// its Kubernetes pod, over its REST API with net/http: Ready, Health, Allocate,
// Shutdown, labels, annotations and the GameServer record.
//
// The sidecar may start after the game server, fail, or go away; none of that may stop
// a match. So the lifecycle calls do not block: Ready, Allocate, Shutdown, SetLabel
// and SetAnnotation record what the sidecar should be told, and one goroutine tells it,
// in a fixed order (annotations, labels, Ready, Allocate, Shutdown, so that a server is
// never Ready or Allocated before its labels say what it is), retrying with
// exponential backoff until each call succeeds. Health pings go out from KeepHealthy
// on each tick of its ticker, only while the match loop keeps calling Beat, so a
// stuck loop stops the pings and Agones marks the server Unhealthy.
//
//	addr, err := agones.AddrFromEnv(os.Getenv)
//	// …
//	sdk := agones.New(agones.Config{Addr: addr, Logger: log})
//	defer sdk.Close()
//	sdk.SetAnnotation("fingerprint", fp)
//	sdk.Ready()
//	go sdk.KeepHealthy(ctx, time.NewTicker(2*time.Second).C)
//	// in the match loop, every tick: sdk.Beat()
//	// when the match ends: sdk.Shutdown(); sdk.Flush(ctx)
package agones

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Defaults for Config.
const (
	// PortEnv names the environment variable in which Agones gives the game server
	// the SDK server's REST port.
	PortEnv = "AGONES_SDK_HTTP_PORT"
	// DefaultPort is the SDK server's REST port when PortEnv is unset.
	DefaultPort = 9358
	// Host is where the SDK server listens: the pod's loopback, by address, so that no
	// name lookup stands between a game server and its sidecar (a bare container may
	// have no /etc/hosts to say what localhost is).
	Host = "127.0.0.1"
	// DefaultRequestTimeout bounds one call to the sidecar.
	DefaultRequestTimeout = 3 * time.Second
	// DefaultMinBackoff is the first wait before a failed call is retried; each
	// further failure doubles it.
	DefaultMinBackoff = 250 * time.Millisecond
	// DefaultMaxBackoff caps the wait between retries.
	DefaultMaxBackoff = 8 * time.Second
)

// LabelPrefix is what Agones puts before the keys the SDK sets, in the GameServer's
// labels and annotations: SetLabel("players", …) becomes "agones.dev/sdk-players".
const LabelPrefix = "agones.dev/sdk-"

// AddrFromEnv returns the SDK server's address, Host and the port from PortEnv
// as getenv reports it (DefaultPort when unset). A malformed port is an error.
func AddrFromEnv(getenv func(string) string) (string, error) {
	p := getenv(PortEnv)
	if p == "" {
		return net.JoinHostPort(Host, strconv.Itoa(DefaultPort)), nil
	}
	n, err := strconv.Atoi(p)
	if err != nil || n < 1 || n > 65535 {
		return "", fmt.Errorf("agones: %s=%q is not a port", PortEnv, p)
	}
	return net.JoinHostPort(Host, p), nil
}

// Config sets up an SDK client. The zero value talks to Host:DefaultPort.
type Config struct {
	// Addr is the SDK server's host:port. If empty, Host:DefaultPort.
	Addr string
	// RequestTimeout bounds each call. If zero, defaults to DefaultRequestTimeout.
	RequestTimeout time.Duration
	// MinBackoff and MaxBackoff bound the wait between retries of a failed call. If
	// zero, they default to DefaultMinBackoff and DefaultMaxBackoff.
	MinBackoff, MaxBackoff time.Duration
	// Logger receives failures and recoveries. If nil, nothing is logged.
	Logger *slog.Logger
}

// Stats are an SDK client's counters.
type Stats struct {
	// Calls counts lifecycle and metadata calls the sidecar accepted.
	Calls uint64
	// Failures counts calls that failed (and were retried, or dropped when the
	// sidecar refused them as malformed).
	Failures uint64
	// Health counts health pings the sidecar accepted.
	Health uint64
	// HealthFailures counts health pings that failed.
	HealthFailures uint64
	// Withheld counts ticks of KeepHealthy on which no ping went out because the
	// match loop had not beaten since the last one.
	Withheld uint64
	// Pending is the number of calls waiting to reach the sidecar.
	Pending int
}

// SDK is a client of the Agones SDK server. Its methods are safe for concurrent use.
type SDK struct {
	cfg  Config
	http *http.Client
	base string
	log  *slog.Logger

	beats atomic.Uint64

	mu          sync.Mutex
	labels      map[string]string // to send; the latest value per key wins
	annotations map[string]string
	ready       bool // Ready to send
	allocate    bool
	shutdown    bool
	shutdownHit bool // Shutdown reached the sidecar: nothing more is sent
	stats       Stats
	flushed     chan struct{} // closed and replaced whenever nothing is pending

	wake   chan struct{}
	cancel context.CancelFunc
	done   chan struct{}
}

// New returns a client and starts its sender. Close stops it.
func New(cfg Config) *SDK {
	if cfg.Addr == "" {
		cfg.Addr = net.JoinHostPort(Host, strconv.Itoa(DefaultPort))
	}
	if cfg.RequestTimeout <= 0 {
		cfg.RequestTimeout = DefaultRequestTimeout
	}
	if cfg.MinBackoff <= 0 {
		cfg.MinBackoff = DefaultMinBackoff
	}
	if cfg.MaxBackoff <= 0 {
		cfg.MaxBackoff = DefaultMaxBackoff
	}
	cfg.MaxBackoff = max(cfg.MaxBackoff, cfg.MinBackoff)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &SDK{
		cfg: cfg,
		// The sidecar is on the loopback: no proxy, no keep-alive surprises across a
		// sidecar restart beyond one failed call.
		http:        &http.Client{Transport: &http.Transport{Proxy: nil, MaxIdleConns: 2, IdleConnTimeout: 30 * time.Second}},
		base:        "http://" + cfg.Addr,
		log:         log.With("component", "agones"),
		labels:      map[string]string{},
		annotations: map[string]string{},
		flushed:     make(chan struct{}),
		wake:        make(chan struct{}, 1),
		cancel:      cancel,
		done:        make(chan struct{}),
	}
	close(s.flushed)
	go s.run(ctx)
	return s
}

// Close stops the sender; calls not yet delivered are abandoned (Flush first to wait
// for them). It is safe to call more than once.
func (s *SDK) Close() {
	s.cancel()
	<-s.done
	s.http.CloseIdleConnections()
}

// Ready asks for the GameServer to be marked Ready: open for allocation.
func (s *SDK) Ready() { s.request(func() { s.ready = true }) }

// Allocate asks for the GameServer to be marked Allocated, for servers that no
// allocator hands out.
func (s *SDK) Allocate() { s.request(func() { s.allocate = true }) }

// Shutdown asks Agones to shut the GameServer down. Nothing is sent after it.
func (s *SDK) Shutdown() { s.request(func() { s.shutdown = true }) }

// SetLabel asks for label LabelPrefix+key to be set to value on the GameServer.
// Both must be valid Kubernetes label parts (see LabelValue).
func (s *SDK) SetLabel(key, value string) { s.request(func() { s.labels[key] = value }) }

// SetAnnotation asks for annotation LabelPrefix+key to be set to value.
func (s *SDK) SetAnnotation(key, value string) {
	s.request(func() { s.annotations[key] = value })
}

func (s *SDK) request(set func()) {
	s.mu.Lock()
	if s.shutdown {
		s.mu.Unlock()
		return
	}
	set()
	s.notePendingLocked()
	s.mu.Unlock()
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// notePendingLocked keeps flushed open while anything waits; s.mu held.
func (s *SDK) notePendingLocked() {
	n := len(s.labels) + len(s.annotations)
	for _, b := range []bool{s.ready, s.allocate, s.shutdown && !s.shutdownHit} {
		if b {
			n++
		}
	}
	was := s.stats.Pending
	s.stats.Pending = n
	switch {
	case n > 0 && was == 0:
		s.flushed = make(chan struct{})
	case n == 0 && was > 0:
		close(s.flushed)
	}
}

// Flush waits until every call asked for so far has reached the sidecar, or ctx
// ends (then it returns ctx's error).
func (s *SDK) Flush(ctx context.Context) error {
	s.mu.Lock()
	ch := s.flushed
	s.mu.Unlock()
	select {
	case <-ch:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("agones: %d calls not delivered: %w", s.Stats().Pending, ctx.Err())
	}
}

// Stats returns the client's counters.
func (s *SDK) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stats
}

// Beat tells KeepHealthy that the match loop is alive. Call it from the loop, every
// step; it never blocks.
func (s *SDK) Beat() { s.beats.Add(1) }

// KeepHealthy sends a health ping on each tick of ticks, provided Beat was called
// since the previous ping, until ctx ends. A failed ping is logged and counted; the
// next tick is its retry. Run it in its own goroutine.
func (s *SDK) KeepHealthy(ctx context.Context, ticks <-chan time.Time) {
	var seen uint64
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-ticks:
		}
		b := s.beats.Load()
		if b == seen {
			s.mu.Lock()
			s.stats.Withheld++
			n := s.stats.Withheld
			s.mu.Unlock()
			if n == 1 || n%10 == 0 {
				s.log.Warn("match loop stalled: withholding health pings", "withheld", n)
			}
			continue
		}
		seen = b
		err := s.call(ctx, http.MethodPost, "/health", struct{}{}, nil)
		s.mu.Lock()
		if err != nil {
			s.stats.HealthFailures++
		} else {
			s.stats.Health++
		}
		s.mu.Unlock()
		switch {
		case err != nil && !failing && ctx.Err() == nil:
			s.log.Warn("health ping failed", "err", err)
			failing = true
		case err == nil && failing:
			s.log.Info("health pings reach the sidecar again")
			failing = false
		}
	}
}

// GameServer returns the GameServer record as the sidecar has it.
func (s *SDK) GameServer(ctx context.Context) (GameServer, error) {
	var gs GameServer
	err := s.call(ctx, http.MethodGet, "/gameserver", nil, &gs)
	return gs, err
}

// WaitPublic waits until every call asked for so far (Ready among them) has reached
// the sidecar and the GameServer has a public address, and returns the GameServer.
// It polls with backoff; it fails only when ctx ends.
func (s *SDK) WaitPublic(ctx context.Context) (GameServer, error) {
	if err := s.Flush(ctx); err != nil {
		return GameServer{}, err
	}
	for backoff := s.cfg.MinBackoff; ; backoff = min(2*backoff, s.cfg.MaxBackoff) {
		gs, err := s.GameServer(ctx)
		if err == nil && gs.Status.Address != "" {
			return gs, nil
		}
		if !sleep(ctx, backoff) {
			return GameServer{}, fmt.Errorf("agones: no public address: %w", ctx.Err())
		}
	}
}

// step is one call the sender makes.
type step struct {
	what      string // for the log
	method    string
	path      string
	body      any
	delivered func() // clears the request; s.mu held
}

// next returns the first call waiting, in delivery order; s.mu held.
func (s *SDK) next() (step, bool) {
	kv := func(what, path string, m map[string]string) (step, bool) {
		for k, v := range m { // one at a time; order among keys does not matter
			return step{what: what + " " + k + "=" + v, method: http.MethodPut, path: path,
				body: keyValue{Key: k, Value: v},
				delivered: func() {
					if m[k] == v {
						delete(m, k)
					}
				}}, true
		}
		return step{}, false
	}
	if st, ok := kv("annotation", "/metadata/annotation", s.annotations); ok {
		return st, true
	}
	if st, ok := kv("label", "/metadata/label", s.labels); ok {
		return st, true
	}
	post := func(what string, delivered func()) step {
		return step{what: what, method: http.MethodPost, path: "/" + what, body: struct{}{}, delivered: delivered}
	}
	switch {
	case s.ready:
		return post("ready", func() { s.ready = false }), true
	case s.allocate:
		return post("allocate", func() { s.allocate = false }), true
	case s.shutdown && !s.shutdownHit:
		return post("shutdown", func() { s.shutdownHit = true }), true
	}
	return step{}, false
}

type keyValue struct {
	Key   string `json:"key"`
	Value string `json:"value"`
}

// run delivers the requested calls in order, backing off after failures.
func (s *SDK) run(ctx context.Context) {
	defer close(s.done)
	backoff := time.Duration(0)
	failures := 0
	for {
		s.mu.Lock()
		st, ok := s.next()
		s.mu.Unlock()
		if !ok {
			select {
			case <-ctx.Done():
				return
			case <-s.wake:
				continue
			}
		}
		err := s.call(ctx, st.method, st.path, st.body, nil)
		if ctx.Err() != nil {
			return
		}
		var permanent *refusedError
		s.mu.Lock()
		switch {
		case err == nil:
			s.stats.Calls++
			st.delivered()
		case errors.As(err, &permanent):
			// The sidecar will never take this one (a malformed label, say): drop it
			// rather than hold everything behind it.
			s.stats.Failures++
			st.delivered()
		default:
			s.stats.Failures++
		}
		s.notePendingLocked()
		s.mu.Unlock()
		switch {
		case err == nil:
			if failures > 0 {
				s.log.Info("sidecar reachable again", "call", st.what, "after_failures", failures)
			}
			s.log.Debug("sidecar call", "call", st.what)
			backoff, failures = 0, 0
			continue
		case permanent != nil:
			s.log.Error("sidecar refused a call; dropped", "call", st.what, "err", err)
			continue
		}
		failures++
		backoff = min(max(2*backoff, s.cfg.MinBackoff), s.cfg.MaxBackoff)
		if failures == 1 || failures%10 == 0 {
			s.log.Warn("sidecar call failed; retrying", "call", st.what, "err", err, "failures", failures, "retry_in", backoff)
		}
		if !sleep(ctx, backoff) {
			return
		}
	}
}

// sleep waits for d and reports true, or false as soon as ctx ends.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// refusedError is a 4xx answer other than 408 and 429: retrying cannot help.
type refusedError struct {
	status int
	text   string
}

func (e *refusedError) Error() string {
	return fmt.Sprintf("sidecar answered %d: %s", e.status, e.text)
}

// call makes one request with a JSON body (nil: none) and decodes a JSON answer
// into out (nil: discarded).
func (s *SDK) call(ctx context.Context, method, path string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, s.cfg.RequestTimeout)
	defer cancel()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return fmt.Errorf("agones: %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, s.base+path, rd)
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return fmt.Errorf("agones: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	const maxAnswer = 1 << 20
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("agones: %s %s: read answer: %w", method, path, err)
	}
	if resp.StatusCode != http.StatusOK {
		text := string(bytes.TrimSpace(data[:min(len(data), 200)]))
		if resp.StatusCode >= 400 && resp.StatusCode < 500 &&
			resp.StatusCode != http.StatusRequestTimeout && resp.StatusCode != http.StatusTooManyRequests {
			return fmt.Errorf("agones: %s %s: %w", method, path, &refusedError{resp.StatusCode, text})
		}
		return fmt.Errorf("agones: %s %s: status %d: %s", method, path, resp.StatusCode, text)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("agones: %s %s: decode answer: %w", method, path, err)
		}
	}
	return nil
}
