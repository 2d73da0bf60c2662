package admission

import (
	"context"
	"errors"
	stdnet "net"
	"testing"
	"time"

	"testing/synctest"

	"github.com/quic-go/quic-go"
)

// attempt is one connection attempt as quic-go shows it to the gate: first the
// Retry question (for an attempt without a token), then the admission. It returns
// the connection's context, cancelled to end the handshake, and whether a Retry was
// asked for; err is the refusal.
func attempt(t *testing.T, g *Gate, ip string, verified bool) (ctx context.Context, cancel func(), retry bool, err error) {
	t.Helper()
	addr := &stdnet.UDPAddr{IP: stdnet.ParseIP(ip), Port: 4000}
	if !verified && g.verifySourceAddress(addr) {
		return nil, func() {}, true, nil
	}
	base, cancel := context.WithCancel(context.Background())
	ctx, err = g.connContext(base, &quic.ClientInfo{RemoteAddr: addr, AddrVerified: verified})
	if err != nil {
		cancel()
		return nil, func() {}, false, err
	}
	t.Cleanup(cancel)
	return ctx, cancel, false, nil
}

func TestGateRetryAndCaps(t *testing.T) {
	for _, tc := range []struct {
		name                   string
		retryAbove, total, per int
		attempts               int
		other                  int // attempts from another prefix after them
		wantInFlight           int
		wantRetries            uint64
		wantFull, wantPrefix   uint64
	}{
		{"below the Retry threshold every attempt starts", 100, 100, 100, 3, 0, 3, 0, 0, 0},
		{"past the threshold the rest get a Retry", 2, 100, 100, 5, 0, 2, 3, 0, 0},
		{"Retry always", 0, 100, 100, 3, 0, 0, 3, 0, 0},
		{"per-prefix share, nothing more free", 100, 4, 2, 5, 1, 3, 0, 0, 3},
		{"a prefix takes up to twice its share while as many are free", 100, 10, 2, 5, 1, 5, 0, 0, 1},
		{"global cap, nothing it may evict", 100, 3, 100, 5, 1, 3, 0, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGate(GateLimits{RetryAbove: tc.retryAbove, MaxTotal: tc.total, MaxPer: tc.per, Rate: 1000, Burst: 1000},
				func() float64 { return 0 }, func(*quic.Conn) {})
			for i := range tc.attempts + tc.other {
				ip := "10.0.0.9"
				if i >= tc.attempts {
					ip = "10.0.1.9"
				}
				_, _, _, err := attempt(t, g, ip, false)
				if err != nil && !errors.Is(err, errHandshakesFull) && !errors.Is(err, errHandshakesPrefix) {
					t.Fatalf("attempt %d: %v", i, err)
				}
			}
			want := GateStats{InFlight: tc.wantInFlight, Retries: tc.wantRetries, RefusedTotal: tc.wantFull,
				RefusedPrefix: tc.wantPrefix}
			if got := g.Snapshot(); got != want {
				t.Errorf("gate %+v, want %+v", got, want)
			}
		})
	}
}

// TestGateReleases: a handshake's place is released once, when it completes
// (Accepted) or when its connection ends, whichever comes first. It runs in a
// synctest bubble, so the release's goroutine is waited for, not polled.
func TestGateReleases(t *testing.T) { synctest.Test(t, testGateReleases) }

func testGateReleases(t *testing.T) {
	g := NewGate(GateLimits{RetryAbove: 100, MaxTotal: 100, MaxPer: 100, Rate: 1000, Burst: 1000},
		func() float64 { return 0 }, func(*quic.Conn) {})
	var ctxs []context.Context
	var cancels []func()
	for range 5 {
		ctx, cancel, _, err := attempt(t, g, "10.0.0.9", true)
		if err != nil {
			t.Fatal(err)
		}
		ctxs, cancels = append(ctxs, ctx), append(cancels, cancel)
	}
	inFlight := func() int { return g.Snapshot().InFlight }
	if inFlight() != 5 {
		t.Fatalf("%d in flight, want 5", inFlight())
	}
	g.Accepted(ctxs[0])
	g.Accepted(ctxs[0])
	cancels[0]() // the accepted connection closes later: not released twice
	if inFlight() != 4 {
		t.Errorf("after one accepted (twice) and then closed: %d in flight, want 4", inFlight())
	}
	for _, cancel := range cancels[1:] {
		cancel() // the handshakes fail: their contexts end
	}
	// context.AfterFunc runs the release on its own goroutine, done once the bubble's
	// goroutines are all blocked.
	synctest.Wait()
	if inFlight() != 0 {
		t.Fatalf("%d in flight once the ended handshakes' goroutines ran, want 0", inFlight())
	}
	g.Accepted(context.Background()) // not a gated connection: nothing to release
	if inFlight() != 0 {
		t.Errorf("%d in flight", inFlight())
	}
}

// TestGateRate: each prefix starts at most rate handshakes a second, in bursts, on
// the gate's clock.
func TestGateRate(t *testing.T) {
	now := 0.0
	g := NewGate(GateLimits{RetryAbove: 100, MaxTotal: 100, MaxPer: 100, Rate: 2, Burst: 4},
		func() float64 { return now }, func(*quic.Conn) {})
	started := func(ip string, n int) (ok int) {
		for range n {
			if _, _, _, err := attempt(t, g, ip, true); err == nil {
				ok++
			} else if !errors.Is(err, errHandshakesPrefix) {
				t.Fatal(err)
			}
		}
		return ok
	}
	for _, step := range []struct {
		name    string
		advance float64
		ip      string
		n, want int
	}{
		{"6 at once: the burst", 0, "10.0.0.9", 6, 4},
		{"a second later, 3 more: two earned", 1, "10.0.0.9", 3, 2},
		{"another prefix: its own budget", 0, "10.0.1.9", 2, 2},
	} {
		now += step.advance
		if got := started(step.ip, step.n); got != step.want {
			t.Errorf("%s: %d started, want %d", step.name, got, step.want)
		}
	}
	if st := g.Snapshot(); st.InFlight != 8 || st.RefusedPrefix != 3 {
		t.Errorf("gate %+v, want 8 in flight and 3 refused", st)
	}
}

// started marks the handshake of ctx as answered by the host, with conn standing for
// its connection (Started reads the connection's context, which a bare Conn has not).
func started(g *Gate, ctx context.Context, conn *quic.Conn) {
	t, _ := ticketOf(ctx)
	g.mu.Lock()
	t.conn = conn
	g.mu.Unlock()
}

// TestGateEvicts: a full gate makes room for a newcomer, evicting stalled handshakes
// (no ClientHello a while after their first Initial: shed, up to the cap on those),
// then answered ones (closed), then those just arrived, the oldest first. It runs in
// a synctest bubble, so the release's goroutine is waited for, not polled.
func TestGateEvicts(t *testing.T) { synctest.Test(t, testGateEvicts) }

func testGateEvicts(t *testing.T) {
	var closed []*quic.Conn
	now := 0.0
	g := NewGate(GateLimits{RetryAbove: 100, MaxTotal: 3, MaxPer: 100, MaxShed: 1, Rate: 1000, Burst: 1000},
		func() float64 { return now }, func(c *quic.Conn) { closed = append(closed, c) })
	state := func(ctx context.Context) ticketState {
		tk, _ := ticketOf(ctx)
		g.mu.Lock()
		defer g.mu.Unlock()
		return tk.state
	}
	admit := func(ip string) (context.Context, func()) {
		t.Helper()
		ctx, cancel, _, err := attempt(t, g, ip, true)
		if err != nil {
			t.Fatalf("newcomer from %s: %v", ip, err)
		}
		return ctx, cancel
	}
	connA, connC := new(quic.Conn), new(quic.Conn)
	a, _ := admit("10.0.0.1")
	started(g, a, connA)
	b, cancelB := admit("10.0.1.1") // stalled
	c, _ := admit("10.0.1.2")
	started(g, c, connC)
	now += 2 * stallGrace
	d, _ := admit("10.0.2.1") // b is shed: stalled goes first
	if state(b) != ticketShed || len(closed) != 0 {
		t.Fatalf("after d: b %v, closed %v; want b shed, none closed", state(b), closed)
	}
	admit("10.0.3.1") // the shed cap is reached: the oldest answered one, a, is closed, not d, just arrived
	if state(a) != ticketGone || len(closed) != 1 || closed[0] != connA {
		t.Fatalf("after e: a %v, closed %v; want a closed", state(a), closed)
	}
	admit("10.0.4.1") // c, the only answered one left
	if state(c) != ticketGone || len(closed) != 2 || closed[1] != connC {
		t.Fatalf("after f: c %v, closed %v; want c closed", state(c), closed)
	}
	if _, _, _, err := attempt(t, g, "10.0.5.1", true); !errors.Is(err, errHandshakesFull) {
		t.Fatalf("all stalled and the shed cap reached: %v, want refused", err)
	}
	cancelB() // the shed handshake times out: room to shed again
	synctest.Wait()
	if n := g.Snapshot().Shed; n != 0 {
		t.Fatalf("%d shed once the ended handshake's goroutine ran, want 0", n)
	}
	admit("10.0.5.1")
	if state(d) != ticketShed {
		t.Errorf("d %v, want shed: the oldest stalled one", state(d))
	}
	if st := g.Snapshot(); st.InFlight != 3 || st.Shed != 1 || st.Evicted != 4 || st.RefusedTotal != 1 {
		t.Errorf("gate %+v, want 3 in flight, 1 shed, 4 evicted, 1 refused", st)
	}
}

// TestGateEvictsFairly: within a class, the crowded prefix's handshakes go before an
// older one from a prefix holding one, and a proven address's go last.
func TestGateEvictsFairly(t *testing.T) {
	g := NewGate(GateLimits{RetryAbove: 100, MaxTotal: 3, MaxPer: 100, MaxShed: 100, Rate: 1000, Burst: 1000},
		func() float64 { return 0 }, func(*quic.Conn) {})
	ctxs := map[string]context.Context{}
	for _, ip := range []string{"10.0.0.1", "10.0.1.1", "10.0.1.2", "10.0.2.1"} {
		ctx, _, _, err := attempt(t, g, ip, true)
		if err != nil {
			t.Fatal(err)
		}
		ctxs[ip] = ctx
	}
	shed := func(ip string) bool {
		tk, _ := ticketOf(ctxs[ip])
		g.mu.Lock()
		defer g.mu.Unlock()
		return tk.state == ticketShed
	}
	if !shed("10.0.1.1") || shed("10.0.0.1") {
		t.Error("the newcomer shed another than the crowded prefix's oldest")
	}
	// 10.0.3.1 completes a handshake: its next one is proven.
	ctx, _, _, err := attempt(t, g, "10.0.3.1", true) // sheds 10.0.0.1, the oldest
	if err != nil {
		t.Fatal(err)
	}
	g.Accepted(ctx)
	if ctxs["10.0.3.1"], _, _, err = attempt(t, g, "10.0.3.1", true); err != nil {
		t.Fatal(err)
	}
	for _, ip := range []string{"10.0.4.1", "10.0.5.1"} {
		if _, _, _, err := attempt(t, g, ip, true); err != nil {
			t.Fatal(err)
		}
	}
	if shed("10.0.3.1") {
		t.Error("a proven address's handshake was shed before unproven ones")
	}
}

// TestGateConfigFor: handshakes that start while the gate is full get the shorter
// idle timeout, the others the listener's own configuration.
func TestGateConfigFor(t *testing.T) {
	g := NewGate(GateLimits{RetryAbove: 100, MaxTotal: 1, MaxPer: 100, MaxShed: 1, Rate: 1000, Burst: 1000},
		func() float64 { return 0 }, func(*quic.Conn) {})
	base := &quic.Config{HandshakeIdleTimeout: 3 * time.Second}
	hook := g.ConfigFor(base, time.Second)
	idle := func() time.Duration {
		c, err := hook(&quic.ClientInfo{})
		if err != nil {
			t.Fatal(err)
		}
		if c.GetConfigForClient != nil {
			t.Error("the configuration handed out has the hook in turn")
		}
		return c.HandshakeIdleTimeout
	}
	if got := idle(); got != 3*time.Second {
		t.Errorf("room in the gate: idle timeout %v, want 3s", got)
	}
	if _, _, _, err := attempt(t, g, "10.0.0.1", true); err != nil {
		t.Fatal(err)
	}
	if got := idle(); got != time.Second {
		t.Errorf("gate full: idle timeout %v, want 1s", got)
	}
	if got := g.ConfigFor(&quic.Config{HandshakeIdleTimeout: 500 * time.Millisecond}, time.Second); got == nil {
		t.Fatal("no hook")
	} else if c, _ := got(&quic.ClientInfo{}); c.HandshakeIdleTimeout != 500*time.Millisecond {
		t.Errorf("a base timeout shorter than the pressed one: %v, want it kept", c.HandshakeIdleTimeout)
	}
}
