package admission

import (
	"container/list"
	"context"
	"errors"
	stdnet "net"
	"net/netip"
	"sync"
	"time"

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
//   - A handshake rate per prefix (a token bucket), so that one network cannot make
//     the host sign handshakes as fast as it can open and drop them. Buckets are
//     kept for at most maxRatePrefixes prefixes; full ones are forgotten first, and
//     when every one is busy a new prefix waits.
//   - A fair share per prefix: a prefix may hold maxPer handshakes in flight, and up
//     to twice that while at least as many places are free (the share grows with
//     free capacity, so that a LAN party behind one prefix joins at once on a quiet
//     host); past that, quic-go answers CONNECTION_REFUSED at once.
//   - At most maxTotal handshakes in flight. A newcomer to a full gate is never
//     refused for an older handshake: it takes the place of one (Evicted), chosen
//     in this order: from an address that has not completed a handshake before
//     (proven addresses are kept longest, but not for ever: an attacker who proves
//     addresses cannot lock the gate with them); by class, first one still waiting
//     for its ClientHello stallGrace after its first Initial (stalled: an honest
//     client sends it whole in its first flight), then one the host has answered,
//     and last one just arrived; from the prefix holding the most; the oldest. A flood
//     spread over thousands of prefixes thus only shortens how long a stalled
//     handshake is held, to maxTotal over its rate, and an honest handshake, which
//     completes in a round trip or two, still gets through. A handshake the host
//     has answered is closed when evicted; one still waiting for its ClientHello
//     has no connection to close yet, so it is shed: no longer counted in flight,
//     it ends at its handshake idle timeout, and at most maxShed of them may be
//     alive at once (past that, only answered handshakes are evicted, or the
//     newcomer is refused), which bounds the memory they hold. While the gate is
//     full, new handshakes get a shorter handshake idle timeout (ConfigFor), so
//     that those shed end sooner.
//   - Proven addresses: an address whose handshake completed is remembered (at most
//     maxProven, the least recent forgotten first). Its next handshake is marked
//     proven, which spends the proof until that handshake completes too, so an
//     attacker gets one preferred handshake per completed one.
//
// A handshake counts as in flight from its first Initial until it completes
// (Accepted), fails or is evicted. Safe for concurrent use.
type Gate struct {
	retryAbove       int // handshakes in flight from which a Retry is required; 0: always
	maxTotal, maxPer int
	maxShed          int
	rate, burst      float64
	now              func() float64   // real time, s: handshakes run in real time
	evict            func(*quic.Conn) // closes an evicted handshake, outside the lock

	mu     sync.Mutex
	live   map[*ticket]struct{}         // handshakes in flight
	per    map[netip.Prefix]int         // handshakes in flight per prefix
	seq    uint64                       // arrival order
	shed   int                          // evicted while waiting for a ClientHello, still alive
	starts map[netip.Prefix]rate.Bucket // new handshakes per prefix
	proven provenSet
	stats  GateStats
}

// Sizes of the gate's memory: the prefixes whose handshake rate it tracks and the
// addresses it remembers as proven.
const (
	maxRatePrefixes = 4096
	maxProven       = 4096
)

// GateStats are a Gate's counters.
type GateStats struct {
	// InFlight is the number of handshakes under way now.
	InFlight int
	// Shed is the number of handshakes evicted before their ClientHello arrived that
	// are still alive (until their handshake idle timeout).
	Shed int
	// Retries counts the Retry packets the gate asked for.
	Retries uint64
	// RefusedTotal counts handshakes refused because the gate was full of handshakes
	// it could not evict.
	RefusedTotal uint64
	// RefusedPrefix counts handshakes refused by the cap or the rate per prefix.
	RefusedPrefix uint64
	// Evicted counts handshakes evicted for a newcomer.
	Evicted uint64
}

// GateLimits are a Gate's sizes.
type GateLimits struct {
	// RetryAbove is the number of handshakes in flight from which a new attempt must
	// prove its address with a Retry; 0 or less: always.
	RetryAbove int
	// MaxTotal caps the handshakes in flight (at least 1).
	MaxTotal int
	// MaxPer is a prefix's fair share of them, up to twice that while as many are
	// free (at least 1).
	MaxPer int
	// MaxShed caps the handshakes evicted before their ClientHello that are still
	// alive; 0: none, so that only handshakes the host has answered are evicted.
	MaxShed int
	// Rate is how many handshakes a second one prefix may start, in bursts of Burst.
	Rate, Burst float64
}

// NewGate returns a gate of lim; now reads real time in seconds, and evict closes an
// evicted handshake's connection.
func NewGate(lim GateLimits, now func() float64, evict func(*quic.Conn)) *Gate {
	return &Gate{retryAbove: max(0, lim.RetryAbove), maxTotal: max(1, lim.MaxTotal), maxPer: max(1, lim.MaxPer),
		maxShed: max(0, lim.MaxShed), rate: lim.Rate, burst: lim.Burst, now: now, evict: evict,
		live: map[*ticket]struct{}{}, per: map[netip.Prefix]int{}, starts: map[netip.Prefix]rate.Bucket{},
		proven: newProvenSet(maxProven)}
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
		b = rate.NewBucket(g.rate, g.burst, now)
	}
	ok = b.Take(now)
	g.starts[p] = b
	return ok
}

// ConfigFor returns quic-go's Config.GetConfigForClient hook for a listener whose
// configuration is base: a new handshake gets base while the gate has room, and base
// with its HandshakeIdleTimeout cut to pressedIdle (if that is shorter) while the gate
// is full or handshakes it shed are alive, so that the stalled handshakes it cannot
// close end sooner and hold less memory.
func (g *Gate) ConfigFor(base *quic.Config, pressedIdle time.Duration) func(*quic.ClientInfo) (*quic.Config, error) {
	pressed := base.Clone()
	pressed.GetConfigForClient = nil
	pressed.HandshakeIdleTimeout = min(pressedIdle, base.HandshakeIdleTimeout)
	return func(*quic.ClientInfo) (*quic.Config, error) {
		g.mu.Lock()
		full := len(g.live) >= g.maxTotal || g.shed > 0
		g.mu.Unlock()
		if full {
			return pressed, nil
		}
		return base, nil
	}
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
	retry := len(g.live) >= g.retryAbove
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

// ticketState is where a handshake stands with the gate.
type ticketState uint8

const (
	ticketLive ticketState = iota // in flight
	ticketShed                    // evicted before the host had its connection; alive
	ticketGone                    // completed, failed, or evicted and closed
)

// ticket is one handshake's place in the gate.
type ticket struct {
	prefix netip.Prefix
	addr   netip.Addr
	seq    uint64
	start  float64    // when it was admitted, s
	proven bool       // from an address that completed a handshake before
	conn   *quic.Conn // once the host has it (Started); nil while the ClientHello is pending
	state  ticketState
}

// end releases t's place, if it still holds one; completed says whether its
// handshake completed (which proves its address) rather than failed; g.mu held.
func (g *Gate) end(t *ticket, completed bool) {
	switch t.state {
	case ticketLive:
		g.drop(t)
	case ticketShed:
		g.shed--
	case ticketGone:
		return
	}
	t.state = ticketGone
	if completed {
		g.proven.add(t.addr)
	} else {
		g.proven.remove(t.addr)
	}
	g.stats.InFlight, g.stats.Shed = len(g.live), g.shed
}

// drop takes t out of the handshakes in flight; g.mu held.
func (g *Gate) drop(t *ticket) {
	delete(g.live, t)
	if n := g.per[t.prefix]; n <= 1 {
		delete(g.per, t.prefix)
	} else {
		g.per[t.prefix] = n - 1
	}
}

// connContext admits a new handshake, possibly in the place of an evicted one, or
// refuses it. The handshake's place is released when ctx ends (the handshake failed
// or the connection closed) or, earlier, by Accepted.
func (g *Gate) connContext(ctx context.Context, info *quic.ClientInfo) (context.Context, error) {
	p := Prefix(info.RemoteAddr)
	ip := addrIP(info.RemoteAddr)
	g.mu.Lock()
	t, victim, err := g.admit(p, ip)
	g.stats.InFlight, g.stats.Shed = len(g.live), g.shed
	g.mu.Unlock()
	if victim != nil {
		g.evict(victim)
	}
	if err != nil {
		return nil, err
	}
	context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.end(t, false)
		g.mu.Unlock()
	})
	return context.WithValue(ctx, inFlightKey{}, t), nil
}

// admit decides on a handshake from ip in prefix p: its ticket, the connection of
// the handshake it evicted (if that one had a connection), or the refusal; g.mu held.
func (g *Gate) admit(p netip.Prefix, ip netip.Addr) (*ticket, *quic.Conn, error) {
	n := g.per[p]
	if !g.mayStart(p) || n >= g.maxPer && (n >= 2*g.maxPer || n >= g.maxTotal-len(g.live)) {
		g.stats.RefusedPrefix++
		return nil, nil, errHandshakesPrefix
	}
	proven := g.proven.spend(ip)
	var victim *quic.Conn
	if len(g.live) >= g.maxTotal {
		v := g.victim()
		if v == nil {
			if proven {
				g.proven.add(ip) // unspent
			}
			g.stats.RefusedTotal++
			return nil, nil, errHandshakesFull
		}
		g.drop(v)
		if victim = v.conn; victim != nil {
			v.state = ticketGone // closed by evict; its context's end finds it gone
		} else {
			v.state = ticketShed
			g.shed++
		}
		g.stats.Evicted++
	}
	g.seq++
	t := &ticket{prefix: p, addr: ip, seq: g.seq, start: g.now(), proven: proven}
	g.live[t] = struct{}{}
	g.per[p]++
	return t, victim, nil
}

// victim returns the handshake a newcomer takes the place of, or nil if none may go:
// see Gate for the order. A handshake without a connection may go only while fewer
// than maxShed are shed. The gate holds at most maxTotal (hundreds of) handshakes, so
// a scan per eviction is cheaper than keeping them ordered; g.mu held.
func (g *Gate) victim() *ticket {
	var best *ticket
	now := g.now()
	for t := range g.live {
		if t.conn == nil && g.shed >= g.maxShed {
			continue
		}
		if best == nil || g.evictsBefore(t, best, now) {
			best = t
		}
	}
	return best
}

// stallGrace is how long after its first Initial a handshake may still be waiting
// for the rest of its ClientHello without counting as stalled, s: the time the host
// takes to read a ClientHello that came whole, with room for a busy machine.
const stallGrace = 0.1

// Classes of handshakes in flight, in the order they are evicted.
const (
	classStalled  = iota // no ClientHello stallGrace after its first Initial
	classAnswered        // the host has read its ClientHello and answered it
	classNew             // its ClientHello may still be on its way
)

// class returns t's class at now.
func (t *ticket) class(now float64) int {
	switch {
	case t.conn != nil:
		return classAnswered
	case now-t.start >= stallGrace:
		return classStalled
	}
	return classNew
}

// evictsBefore reports whether a goes before b at now: unproven, then by class,
// then from the larger prefix, then older; g.mu held.
func (g *Gate) evictsBefore(a, b *ticket, now float64) bool {
	ca, cb := a.class(now), b.class(now)
	switch {
	case a.proven != b.proven:
		return !a.proven
	case ca != cb:
		return ca < cb
	case g.per[a.prefix] != g.per[b.prefix]:
		return g.per[a.prefix] > g.per[b.prefix]
	}
	return a.seq < b.seq
}

// ticketOf returns the ticket in a gated connection's context.
func ticketOf(ctx context.Context) (*ticket, bool) {
	t, ok := ctx.Value(inFlightKey{}).(*ticket)
	return t, ok
}

// Started tells the gate that the host has conn, whose ClientHello it has read: an
// eviction can close it from now on. A handshake shed before it got this far is
// closed at once.
func (g *Gate) Started(conn *quic.Conn) {
	t, ok := ticketOf(conn.Context())
	if !ok {
		return
	}
	g.mu.Lock()
	shed := t.state == ticketShed
	if shed {
		g.shed--
		t.state = ticketGone
		g.stats.Shed = g.shed
	} else {
		t.conn = conn
	}
	g.mu.Unlock()
	if shed {
		g.evict(conn)
	}
}

// Accepted ends the handshake of the connection whose context is ctx
// (quic.Conn.Context): it completed, so it no longer counts as in flight and its
// address is proven.
func (g *Gate) Accepted(ctx context.Context) {
	if t, ok := ticketOf(ctx); ok {
		g.mu.Lock()
		g.end(t, true)
		g.mu.Unlock()
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

// provenSet remembers the addresses whose handshake completed, at most capacity of
// them, the least recently proven forgotten first. Not safe for concurrent use.
type provenSet struct {
	capacity int
	entries  map[netip.Addr]*list.Element
	lru      list.List // of netip.Addr, most recently proven first
}

func newProvenSet(capacity int) provenSet {
	return provenSet{capacity: max(1, capacity), entries: map[netip.Addr]*list.Element{}}
}

// add remembers a as proven.
func (s *provenSet) add(a netip.Addr) {
	if el := s.entries[a]; el != nil {
		s.lru.MoveToFront(el)
		return
	}
	if s.lru.Len() >= s.capacity {
		s.remove(s.lru.Back().Value.(netip.Addr))
	}
	s.entries[a] = s.lru.PushFront(a)
}

// remove forgets a.
func (s *provenSet) remove(a netip.Addr) {
	if el := s.entries[a]; el != nil {
		s.lru.Remove(el)
		delete(s.entries, a)
	}
}

// spend reports whether a is proven, and forgets it if so.
func (s *provenSet) spend(a netip.Addr) bool {
	if s.entries[a] == nil {
		return false
	}
	s.remove(a)
	return true
}
