package admission

import (
	"context"
	"errors"
	stdnet "net"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/internal/poll"
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
		{"per-prefix cap", 100, 100, 2, 5, 1, 3, 0, 0, 3},
		{"global cap", 100, 3, 100, 5, 1, 3, 0, 3, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := NewGate(tc.retryAbove, tc.total, tc.per, 1000, func() float64 { return 0 })
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
// (Accepted) or when its connection ends, whichever comes first.
func TestGateReleases(t *testing.T) {
	g := NewGate(100, 100, 100, 1000, func() float64 { return 0 })
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
	// context.AfterFunc runs the release on its own goroutine.
	poll.Until(t, 5*time.Second, "every ended handshake released", func() bool { return inFlight() == 0 })
	g.Accepted(context.Background()) // not a gated connection: nothing to release
	if inFlight() != 0 {
		t.Errorf("%d in flight", inFlight())
	}
}

// TestGateRate: each prefix starts at most rate handshakes a second, in bursts of
// twice that, on the gate's clock.
func TestGateRate(t *testing.T) {
	now := 0.0
	g := NewGate(100, 100, 100, 2, func() float64 { return now }) // 2 per second, 4 deep
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
