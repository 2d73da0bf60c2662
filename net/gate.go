package net

import (
	"context"
	"errors"
	stdnet "net"
	"net/netip"
	"sync"

	"github.com/quic-go/quic-go"
)

// handshakeGate is the host's defence before and during the QUIC handshake, built
// on quic-go's own hooks (Transport.VerifySourceAddress and Transport.ConnContext):
//
//   - Address validation: once retryAbove or more handshakes are in flight, every
//     new connection attempt without a token gets a stateless Retry. The host keeps
//     nothing for it, and only a client that receives at its source address can come
//     back, so forged Initials stop costing memory and a Retry (about a tenth of the
//     Initial that asked for it) is all they reflect.
//   - Handshake caps: at most maxTotal handshakes in flight, and at most maxPer from
//     one address prefix (/24 or /64); past either, quic-go answers
//     CONNECTION_REFUSED at once.
//   - A handshake rate per prefix (a token bucket of rate per second, 2·rate deep),
//     so that one network cannot make the host sign handshakes as fast as it can
//     open and drop them. Buckets are kept for at most maxRatePrefixes prefixes;
//     full ones are forgotten first, and when every one is busy a new prefix waits.
//
// A handshake counts as in flight from its first Initial until it completes (the
// accept loop calls accepted) or fails. Safe for concurrent use.
type handshakeGate struct {
	retryAbove int // handshakes in flight from which a Retry is required; 0: always
	rate       float64
	now        func() float64 // real time, s: handshakes run in real time

	mu       sync.Mutex
	inFlight prefixCaps
	starts   map[netip.Prefix]tokenBucket // new handshakes per prefix
	stats    gateStats
}

// maxRatePrefixes bounds the prefixes whose handshake rate the gate tracks.
const maxRatePrefixes = 4096

// gateStats are the gate's counters.
type gateStats struct {
	inFlight      int
	retries       uint64 // Retry packets asked for
	refusedTotal  uint64 // handshakes refused by the global cap
	refusedPrefix uint64 // handshakes refused by the per-prefix cap or rate
}

// newHandshakeGate returns a gate requiring Retry from retryAbove handshakes in
// flight (0 or less: always), capping them at maxTotal and maxPer per prefix, and
// letting each prefix start rate handshakes per second; now reads real time in
// seconds.
func newHandshakeGate(retryAbove, maxTotal, maxPer int, rate float64, now func() float64) *handshakeGate {
	return &handshakeGate{retryAbove: max(0, retryAbove), rate: rate, now: now,
		inFlight: newPrefixCaps(maxTotal, maxPer), starts: map[netip.Prefix]tokenBucket{}}
}

// mayStart spends one of p's handshake starts, if it has one; g.mu held.
func (g *handshakeGate) mayStart(p netip.Prefix) bool {
	now := g.now()
	b, ok := g.starts[p]
	if !ok {
		if len(g.starts) >= maxRatePrefixes {
			for q, qb := range g.starts {
				if qb.refill(now); qb.tokens >= qb.burst {
					delete(g.starts, q) // a full bucket is as good as none
				}
			}
			if len(g.starts) >= maxRatePrefixes {
				return false
			}
		}
		b = newTokenBucket(g.rate, 2*g.rate, now)
	}
	ok = b.take(now)
	g.starts[p] = b
	return ok
}

// install hooks the gate into a server transport.
func (g *handshakeGate) install(tr *quic.Transport) {
	tr.VerifySourceAddress = g.verifySourceAddress
	tr.ConnContext = g.connContext
}

// verifySourceAddress reports whether a connection attempt from a, which came
// without an address validation token, must first prove its address with a Retry.
func (g *handshakeGate) verifySourceAddress(stdnet.Addr) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	retry := g.inFlight.total >= g.retryAbove
	if retry {
		g.stats.retries++
	}
	return retry
}

// Errors the gate refuses handshakes with; quic-go turns them into CONNECTION_REFUSED.
var (
	errHandshakesFull   = errors.New("too many handshakes in flight")
	errHandshakesPrefix = errors.New("too many handshakes from this address prefix")
)

// inFlightKey keys the handshake's ticket in its connection's context.
type inFlightKey struct{}

// ticket releases one handshake's place exactly once.
type ticket struct {
	once   sync.Once
	g      *handshakeGate
	prefix netip.Prefix
}

func (t *ticket) release() {
	t.once.Do(func() {
		t.g.mu.Lock()
		t.g.inFlight.release(t.prefix)
		t.g.stats.inFlight = t.g.inFlight.total
		t.g.mu.Unlock()
	})
}

// connContext admits a new handshake under the caps, or refuses it.
func (g *handshakeGate) connContext(ctx context.Context, info *quic.ClientInfo) (context.Context, error) {
	p := addrPrefix(info.RemoteAddr)
	g.mu.Lock()
	hit := capPrefix
	if g.mayStart(p) {
		hit = g.inFlight.acquire(p)
	}
	switch hit {
	case capTotal:
		g.stats.refusedTotal++
	case capPrefix:
		g.stats.refusedPrefix++
	}
	g.stats.inFlight = g.inFlight.total
	g.mu.Unlock()
	switch hit {
	case capTotal:
		return nil, errHandshakesFull
	case capPrefix:
		return nil, errHandshakesPrefix
	}
	t := &ticket{g: g, prefix: p}
	// The context ends when the handshake fails or the connection closes.
	context.AfterFunc(ctx, t.release)
	return context.WithValue(ctx, inFlightKey{}, t), nil
}

// accepted ends conn's handshake: it no longer counts as in flight.
func (g *handshakeGate) accepted(conn *quic.Conn) {
	if t, ok := conn.Context().Value(inFlightKey{}).(*ticket); ok {
		t.release()
	}
}

// snapshot returns the counters; a nil gate (a host without a socket, in tests) has
// none.
func (g *handshakeGate) snapshot() gateStats {
	if g == nil {
		return gateStats{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}
