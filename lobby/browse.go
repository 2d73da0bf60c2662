package lobby

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"log/slog"
	stdnet "net"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/ipv4"
)

// Browsing defaults.
const (
	// DefaultQueryEvery is how often a browser asks the network for matches.
	DefaultQueryEvery = time.Second
	// DefaultMaxAge is how long a browser keeps a match that stopped answering.
	DefaultMaxAge = 5 * time.Second
	// DefaultMaxEntries is how many matches a browser keeps at most.
	DefaultMaxEntries = 256
	// DefaultSourceRate is how many answers per second a browser reads from one
	// source address, in bursts of twice that: a host answers once per query and
	// interface, and a machine may run a few hosts.
	DefaultSourceRate = 50.0
	// MaxPerSource is how many matches a browser keeps from one source address.
	MaxPerSource = 16
	// DefaultTotalRate is how many answers per second a browser reads in all.
	DefaultTotalRate = 1000.0
	// maxSources bounds the sources whose answer rate a browser tracks.
	maxSources = 1024
)

// mdnsGroup is where mDNS queries go (RFC 6762).
var mdnsGroup = &stdnet.UDPAddr{IP: stdnet.IPv4(224, 0, 0, 251), Port: 5353}

// BrowseConfig sets up a Browser. The zero value browses every interface with the
// defaults.
type BrowseConfig struct {
	// Interfaces are the network interfaces to query on. If empty, defaults to
	// Interfaces("all").
	Interfaces []*stdnet.Interface
	// Every is how often to query. If zero, defaults to DefaultQueryEvery.
	Every time.Duration
	// MaxAge drops a match not heard from for this long. If zero, defaults to
	// DefaultMaxAge.
	MaxAge time.Duration
	// MaxEntries caps the matches kept. If zero, defaults to DefaultMaxEntries.
	MaxEntries int
	// SourceRate and TotalRate cap the answers read per second from one source
	// address and in all. If zero, default to DefaultSourceRate and
	// DefaultTotalRate.
	SourceRate, TotalRate float64
	// Now tells the time for ages, pings and rates. If nil, time.Now.
	Now func() time.Time
	// Logger receives what the browser drops. If nil, nothing is logged.
	Logger *slog.Logger
}

// BrowseStats are a browser's counters: what it read, and what it dropped and why.
type BrowseStats struct {
	// Answers counts the answers read.
	Answers uint64
	// Malformed counts messages that were not mDNS answers, and announcements in
	// answers that did not decode or broke an Entry's rules.
	Malformed uint64
	// Oversized counts messages over the mDNS size limit (9000 bytes).
	Oversized uint64
	// RateLimited counts messages dropped past the per-source or total rate.
	RateLimited uint64
	// Conflicts counts new announcements of a fingerprint already announced from
	// another address, or of an address already announced with another
	// fingerprint: spoofs, or a host seen on two networks. Every one is kept and
	// flagged (Entry.Conflict).
	Conflicts uint64
	// Full counts new matches dropped because MaxEntries were kept, or
	// MaxPerSource from their source address.
	Full uint64
}

// Browser finds the matches hosts announce on the local network: it queries for
// them every Every, on each interface, asking for answers by unicast to its own
// socket, and keeps what the answers announce, within its limits, until Close.
// Its methods are safe for concurrent use.
type Browser struct {
	cfg   BrowseConfig
	log   *slog.Logger
	conns []*stdnet.UDPConn // one per interface, bound to its address

	mu      sync.Mutex
	found   map[string]*found  // by Entry.Key: address and fingerprint
	addrs   map[string]int     // matches kept by address
	fps     map[string]int     // IP addresses a fingerprint is kept at
	fpAt    map[fpAt]int       // matches kept by fingerprint and IP address
	perIP   map[netip.Addr]int // matches kept by source IP
	sent    map[uint16]time.Time
	sources map[netip.Addr]*rateLimit
	total   *rateLimit
	stats   BrowseStats

	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once
}

type found struct {
	e    Entry
	ip   netip.Addr
	seen time.Time
}

// NewBrowser opens the browser's socket and starts querying.
func NewBrowser(cfg BrowseConfig) (*Browser, error) {
	if cfg.Every == 0 {
		cfg.Every = DefaultQueryEvery
	}
	if cfg.MaxAge == 0 {
		cfg.MaxAge = DefaultMaxAge
	}
	if cfg.MaxEntries == 0 {
		cfg.MaxEntries = DefaultMaxEntries
	}
	if cfg.SourceRate == 0 {
		cfg.SourceRate = DefaultSourceRate
	}
	if cfg.TotalRate == 0 {
		cfg.TotalRate = DefaultTotalRate
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Every < 0 || cfg.MaxAge < 0 || cfg.MaxEntries < 0 || !(cfg.SourceRate > 0) || !(cfg.TotalRate > 0) {
		return nil, errors.New("lobby: negative browse settings")
	}
	if len(cfg.Interfaces) == 0 {
		var err error
		if cfg.Interfaces, err = Interfaces("all"); err != nil {
			return nil, err
		}
	}
	conns, err := browseSockets(cfg.Interfaces)
	if err != nil {
		return nil, err
	}
	b := &Browser{
		cfg: cfg, log: cfg.Logger, conns: conns,
		found: map[string]*found{}, addrs: map[string]int{}, fps: map[string]int{}, fpAt: map[fpAt]int{}, perIP: map[netip.Addr]int{},
		sent:    map[uint16]time.Time{},
		sources: map[netip.Addr]*rateLimit{},
		total:   &rateLimit{rate: cfg.TotalRate, burst: 2 * cfg.TotalRate, now: cfg.Now},
	}
	if b.log == nil {
		b.log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	b.wg.Add(1 + len(conns))
	for _, c := range conns {
		go b.readLoop(c)
	}
	go b.queryLoop(ctx)
	return b, nil
}

// browseSockets opens a socket on each interface, bound to the interface's first
// IPv4 address, so that queries leave from it and answers come back to it from the
// address the host has on that network.
func browseSockets(ifaces []*stdnet.Interface) ([]*stdnet.UDPConn, error) {
	var conns []*stdnet.UDPConn
	var errs []error
	for _, ifi := range ifaces {
		addrs, _ := ifi.Addrs()
		var ip stdnet.IP
		for _, a := range addrs {
			if n, ok := a.(*stdnet.IPNet); ok && n.IP.To4() != nil {
				ip = n.IP.To4()
				break
			}
		}
		if ip == nil {
			continue // no IPv4 on this interface
		}
		c, err := stdnet.ListenUDP("udp4", &stdnet.UDPAddr{IP: ip})
		if err == nil {
			err = ipv4.NewPacketConn(c).SetMulticastInterface(ifi)
			if err != nil {
				c.Close()
			}
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ifi.Name, err))
			continue
		}
		conns = append(conns, c)
	}
	if len(conns) == 0 {
		return nil, fmt.Errorf("lobby: browse on no interface: %w", errors.Join(append(errs, errors.New("none with IPv4"))...))
	}
	return conns, nil
}

// Close stops browsing and closes the socket. It is safe to call more than once.
func (b *Browser) Close() error {
	b.once.Do(func() {
		b.cancel()
		for _, c := range b.conns {
			c.Close()
		}
		b.wg.Wait()
	})
	return nil
}

// Entries appends the matches found and still answering to buf, sorted by name,
// address and fingerprint, and returns the extended slice. Every distinct address
// and fingerprint heard is there; those that share either with another are flagged
// Conflict.
func (b *Browser) Entries(buf []Entry) []Entry {
	b.mu.Lock()
	b.expire(b.cfg.Now())
	n := len(buf)
	for _, f := range b.found {
		e := f.e
		e.Conflict = b.addrs[e.Addr] > 1 || b.fps[e.Fingerprint] > 1
		buf = append(buf, e)
	}
	b.mu.Unlock()
	slices.SortFunc(buf[n:], func(x, y Entry) int {
		if c := strings.Compare(x.Name, y.Name); c != 0 {
			return c
		}
		if c := strings.Compare(x.Addr, y.Addr); c != 0 {
			return c
		}
		return strings.Compare(x.Fingerprint, y.Fingerprint)
	})
	return buf
}

// Stats returns the browser's counters.
func (b *Browser) Stats() BrowseStats {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.stats
}

// queryLoop queries at once and then every Every until ctx ends.
func (b *Browser) queryLoop(ctx context.Context) {
	defer b.wg.Done()
	t := time.NewTicker(b.cfg.Every)
	defer t.Stop()
	for {
		b.queryAll()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// queryAll sends one query on each interface.
func (b *Browser) queryAll() {
	var idb [2]byte
	rand.Read(idb[:])
	id := binary.BigEndian.Uint16(idb[:])
	msg, err := query(id)
	if err != nil {
		return
	}
	b.mu.Lock()
	now := b.cfg.Now()
	b.sent[id] = now
	for old, at := range b.sent {
		if now.Sub(at) > b.cfg.MaxAge {
			delete(b.sent, old)
		}
	}
	b.mu.Unlock()
	for _, c := range b.conns {
		if _, err := c.WriteTo(msg, mdnsGroup); err != nil {
			b.log.Debug("browse: query", "from", c.LocalAddr(), "err", err)
		}
	}
}

// readLoop reads answers from c until it closes.
func (b *Browser) readLoop(c *stdnet.UDPConn) {
	defer b.wg.Done()
	buf := make([]byte, maxPacket+1)
	for {
		n, from, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, stdnet.ErrClosed) {
				return
			}
			continue
		}
		b.handle(buf[:n], from.Addr().Unmap())
	}
}

// handle reads one datagram from src.
func (b *Browser) handle(msg []byte, src netip.Addr) {
	now := b.cfg.Now()
	b.mu.Lock()
	defer b.mu.Unlock()
	if !b.allow(src) {
		b.stats.RateLimited++
		return
	}
	if len(msg) > maxPacket {
		b.stats.Oversized++
		return
	}
	entries, id, bad, err := parseAnswer(msg, src)
	if err != nil {
		b.stats.Malformed++
		b.log.Debug("browse: dropped a message", "from", src, "err", err)
		return
	}
	b.stats.Answers++
	b.stats.Malformed += uint64(bad)
	ping := time.Duration(0)
	if at, ok := b.sent[id]; ok {
		ping = now.Sub(at)
	}
	b.expire(now)
	for _, e := range entries {
		e.Source, e.Ping = "lan", ping
		b.keep(e, src, now)
	}
}

// allow spends one of src's answers and one of the total; b.mu held.
func (b *Browser) allow(src netip.Addr) bool {
	r, ok := b.sources[src]
	if !ok {
		if len(b.sources) >= maxSources {
			for a, s := range b.sources {
				if s.full() {
					delete(b.sources, a) // a full bucket is as good as none
				}
			}
			if len(b.sources) >= maxSources {
				return false
			}
		}
		r = &rateLimit{rate: b.cfg.SourceRate, burst: 2 * b.cfg.SourceRate, now: b.cfg.Now}
		b.sources[src] = r
	}
	return r.take() && b.total.take()
}

// keep records an announced entry from src; b.mu held. Each distinct address and
// fingerprint is a match of its own: a spoof beside a real host, at its address or
// with its fingerprint, hides neither.
func (b *Browser) keep(e Entry, src netip.Addr, now time.Time) {
	key := e.Key()
	if f, ok := b.found[key]; ok {
		if e.Ping == 0 {
			e.Ping = f.e.Ping
		}
		f.e, f.seen = e, now
		return
	}
	if len(b.found) >= b.cfg.MaxEntries || b.perIP[src] >= MaxPerSource {
		b.stats.Full++
		return
	}
	at := fpAt{e.Fingerprint, addrIP(e.Addr)}
	if b.addrs[e.Addr] > 0 || (b.fps[e.Fingerprint] > 0 && b.fpAt[at] == 0) {
		b.stats.Conflicts++
		b.log.Debug("browse: conflicting announcement", "addr", e.Addr, "fingerprint", e.Fingerprint)
	}
	b.found[key] = &found{e: e, ip: src, seen: now}
	b.addrs[e.Addr]++
	if b.fpAt[at]++; b.fpAt[at] == 1 {
		b.fps[e.Fingerprint]++
	}
	b.perIP[src]++
}

// expire drops the matches not heard from for MaxAge; b.mu held.
func (b *Browser) expire(now time.Time) {
	for key, f := range b.found {
		if now.Sub(f.seen) > b.cfg.MaxAge {
			delete(b.found, key)
			dec(b.addrs, f.e.Addr)
			at := fpAt{f.e.Fingerprint, addrIP(f.e.Addr)}
			if dec(b.fpAt, at); b.fpAt[at] == 0 {
				dec(b.fps, f.e.Fingerprint)
			}
			dec(b.perIP, f.ip)
		}
	}
}

// fpAt is a fingerprint announced at one IP address: hosts that share an identity on
// one machine (one IP, several ports) are one home of it, not a conflict.
type fpAt struct {
	fp string
	ip netip.Addr
}

// addrIP returns the IP address of addr (host:port), or the zero Addr.
func addrIP(addr string) netip.Addr {
	ap, err := netip.ParseAddrPort(addr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr()
}

// dec counts one fewer of k in m, forgetting it at zero.
func dec[K comparable](m map[K]int, k K) {
	if m[k]--; m[k] <= 0 {
		delete(m, k)
	}
}

// Find browses for d and returns the matches found, with the browser's counters.
// It queries every quarter of d (at most every DefaultQueryEvery), so that a lost
// query or answer is made up for.
func Find(ctx context.Context, cfg BrowseConfig, d time.Duration) ([]Entry, BrowseStats, error) {
	if cfg.Every == 0 {
		cfg.Every = min(DefaultQueryEvery, max(d/4, 50*time.Millisecond))
	}
	b, err := NewBrowser(cfg)
	if err != nil {
		return nil, BrowseStats{}, err
	}
	defer b.Close()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
	return b.Entries(nil), b.Stats(), ctx.Err()
}

// splitList splits a comma-separated list, dropping empty items and spaces.
func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}
