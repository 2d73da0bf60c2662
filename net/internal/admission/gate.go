package admission

import (
	"context"
	"errors"
	stdnet "net"
	"net/netip"
	"sync"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/net/internal/rate"
)

// Gate is the host's defence before and during the QUIC handshake, built on
// quic-go's own hooks (Transport.VerifySourceAddress and Transport.ConnContext):
//
//   - Address validation: once retryAbove or more handshakes are in flight, every
//     new connection attempt without a token gets a stateless Retry. The host keeps
//     nothing for it, and only a client that receives at its source address can come
//     back, so forged Initials stop costing memory and a Retry (about a tenth of the
//     Initial that asked for it) is all they reflect.
//   - Handshake caps: at most maxTotal handshakes in flight, and at most maxPer from
//     one address prefix; past either, quic-go answers CONNECTION_REFUSED at once.
//   - A handshake rate per prefix (a token bucket of rate per second, 2·rate deep),
//     so that one network cannot make the host sign handshakes as fast as it can
//     open and drop them. Buckets are kept for at most maxRatePrefixes prefixes;
//     full ones are forgotten first, and when every one is busy a new prefix waits.
//
// A handshake counts as in flight from its first Initial until it completes
// (Accepted) or fails. Safe for concurrent use.
type Gate struct {
	retryAbove int // handshakes in flight from which a Retry is required; 0: always
	rate       float64
	now        func() float64 // real time, s: handshakes run in real time

	mu       sync.Mutex
	inFlight Caps
	starts   map[netip.Prefix]rate.Bucket // new handshakes per prefix
	stats    GateStats
}

// maxRatePrefixes bounds the prefixes whose handshake rate the gate tracks.
const maxRatePrefixes = 4096

// GateStats are a Gate's counters.
type GateStats struct {
	// InFlight is the number of handshakes under way now.
	InFlight int
	// Retries counts the Retry packets the gate asked for.
	Retries uint64
	// RefusedTotal counts handshakes refused by the cap in all.
	RefusedTotal uint64
	// RefusedPrefix counts handshakes refused by the cap or the rate per prefix.
	RefusedPrefix uint64
}

// NewGate returns a gate requiring Retry from retryAbove handshakes in flight (0 or
// less: always), capping them at maxTotal and maxPer per prefix, and letting each
// prefix start perSecond handshakes per second; now reads real time in seconds.
func NewGate(retryAbove, maxTotal, maxPer int, perSecond float64, now func() float64) *Gate {
	return &Gate{retryAbove: max(0, retryAbove), rate: perSecond, now: now,
		inFlight: NewCaps(maxTotal, maxPer), starts: map[netip.Prefix]rate.Bucket{}}
}

// mayStart spends one of p's handshake starts, if it has one; g.mu held.
func (g *Gate) mayStart(p netip.Prefix) bool {
	now := g.now()
	b, ok := g.starts[p]
	if !ok {
		if len(g.starts) >= maxRatePrefixes {
			for q, qb := range g.starts {
				if qb.Full(now) {
					delete(g.starts, q) // a full bucket is as good as none
				}
			}
			if len(g.starts) >= maxRatePrefixes {
				return false
			}
		}
		b = rate.NewBucket(g.rate, 2*g.rate, now)
	}
	ok = b.Take(now)
	g.starts[p] = b
	return ok
}

// Install hooks the gate into a server transport, before it listens.
func (g *Gate) Install(tr *quic.Transport) {
	tr.VerifySourceAddress = g.verifySourceAddress
	tr.ConnContext = g.connContext
}

// verifySourceAddress reports whether a connection attempt from a, which came
// without an address validation token, must first prove its address with a Retry.
func (g *Gate) verifySourceAddress(stdnet.Addr) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	retry := g.inFlight.Total() >= g.retryAbove
	if retry {
		g.stats.Retries++
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
	g      *Gate
	prefix netip.Prefix
}

func (t *ticket) release() {
	t.once.Do(func() {
		t.g.mu.Lock()
		t.g.inFlight.Release(t.prefix)
		t.g.stats.InFlight = t.g.inFlight.Total()
		t.g.mu.Unlock()
	})
}

// connContext admits a new handshake under the caps, or refuses it. The handshake's
// place is released when ctx ends (the handshake failed or the connection closed)
// or, earlier, by Accepted.
func (g *Gate) connContext(ctx context.Context, info *quic.ClientInfo) (context.Context, error) {
	p := Prefix(info.RemoteAddr)
	g.mu.Lock()
	hit := HitPrefix
	if g.mayStart(p) {
		hit = g.inFlight.Acquire(p)
	}
	switch hit {
	case HitTotal:
		g.stats.RefusedTotal++
	case HitPrefix:
		g.stats.RefusedPrefix++
	}
	g.stats.InFlight = g.inFlight.Total()
	g.mu.Unlock()
	switch hit {
	case HitTotal:
		return nil, errHandshakesFull
	case HitPrefix:
		return nil, errHandshakesPrefix
	}
	t := &ticket{g: g, prefix: p}
	context.AfterFunc(ctx, t.release)
	return context.WithValue(ctx, inFlightKey{}, t), nil
}

// Accepted ends the handshake of the connection whose context is ctx
// (quic.Conn.Context): it no longer counts as in flight.
func (g *Gate) Accepted(ctx context.Context) {
	if t, ok := ctx.Value(inFlightKey{}).(*ticket); ok {
		t.release()
	}
}

// Snapshot returns the counters; a nil Gate (a host without a socket, in tests) has
// none.
func (g *Gate) Snapshot() GateStats {
	if g == nil {
		return GateStats{}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}
