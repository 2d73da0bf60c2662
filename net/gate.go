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
//
// A handshake counts as in flight from its first Initial until it completes (the
// accept loop calls accepted) or fails. Safe for concurrent use.
type handshakeGate struct {
	retryAbove int // handshakes in flight from which a Retry is required; 0: always

	mu       sync.Mutex
	inFlight prefixCaps
	stats    gateStats
}

// gateStats are the gate's counters.
type gateStats struct {
	inFlight      int
	retries       uint64 // Retry packets asked for
	refusedTotal  uint64 // handshakes refused by the global cap
	refusedPrefix uint64 // handshakes refused by the per-prefix cap
}

func newHandshakeGate(retryAbove, maxTotal, maxPer int) *handshakeGate {
	return &handshakeGate{retryAbove: max(0, retryAbove), inFlight: newPrefixCaps(maxTotal, maxPer)}
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
	errHandshakesPrefix = errors.New("too many handshakes in flight from this address prefix")
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
	hit := g.inFlight.acquire(p)
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

// snapshot returns the counters.
func (g *handshakeGate) snapshot() gateStats {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.stats
}
