package lobby

import (
	"errors"
	"fmt"
	"log/slog"
	stdnet "net"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/miekg/dns"
)

// DefaultAnswerRate is how many mDNS answers per second an announcer gives at most,
// in bursts of twice that: plenty for every browser on a network, and a cap on what
// a flood of queries can make the host send.
const DefaultAnswerRate = 50.0

// DefaultSourceAnswerRate is how many answers per second an announcer gives one
// source address, in bursts of sourceBurst: a browser asks once a second, Find four
// times, and a machine may run both.
const DefaultSourceAnswerRate = 8.0

// sourceBurst is the burst of a source's answers.
const sourceBurst = 16

// cacheFor is how long an announcer reuses the records it built for a question:
// a flood costs it a lookup, not a Status call and a build, per query.
const cacheFor = time.Second

// AnnounceConfig sets up an Announcer.
type AnnounceConfig struct {
	// Status returns the entry to announce now; its Addr and Ping are ignored
	// (browsers take the address an answer comes from). It is called for each
	// answer, from the announcer's goroutines, and must be safe for concurrent use.
	Status func() Entry
	// Port is the UDP port the host listens on. Required.
	Port int
	// Interfaces are the network interfaces to announce on. If empty, defaults to
	// every interface Interfaces("all") returns.
	Interfaces []*stdnet.Interface
	// AnswerRate caps the answers per second, in bursts of twice that. If zero,
	// defaults to DefaultAnswerRate.
	AnswerRate float64
	// SourceAnswerRate caps the answers per second to one source address, in
	// bursts of 16. If zero, defaults to DefaultSourceAnswerRate.
	SourceAnswerRate float64
	// Now tells the time for the answer rate. If nil, time.Now.
	Now func() time.Time
	// Logger receives what the announcer does. If nil, nothing is logged.
	Logger *slog.Logger
}

// AnnounceStats are an announcer's counters.
type AnnounceStats struct {
	// Answered counts the questions answered.
	Answered uint64
	// Limited counts the queries left unanswered past the source's or the total
	// answer rate.
	Limited uint64
	// Malformed counts the messages that did not decode.
	Malformed uint64
}

// Announcer announces a hosted match on the local network by DNS-SD over multicast
// DNS (service _treadline._udp, port 5353), answering the queries of browsers such as
// Find, and of any DNS-SD tool, with the match's current Status. It answers each
// query to the address it came from (with the query's id when it asks for a unicast
// answer), within a rate per source address and a total one; a source that has not
// asked lately is answered first. Close stops it.
type Announcer struct {
	conns []*stdnet.UDPConn
	stats announceCounters
	wg    sync.WaitGroup
	once  sync.Once
}

type announceCounters struct {
	answered, limited, malformed atomic.Uint64
}

// Announce starts announcing.
func Announce(cfg AnnounceConfig) (*Announcer, error) {
	if cfg.Status == nil || cfg.Port < 1 || cfg.Port > 65535 {
		return nil, errors.New("lobby: announce needs a Status and a port")
	}
	if cfg.AnswerRate == 0 {
		cfg.AnswerRate = DefaultAnswerRate
	}
	if cfg.SourceAnswerRate == 0 {
		cfg.SourceAnswerRate = DefaultSourceAnswerRate
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if !(cfg.AnswerRate > 0) || !(cfg.SourceAnswerRate > 0) {
		return nil, errors.New("lobby: negative answer rates")
	}
	ifaces := cfg.Interfaces
	if len(ifaces) == 0 {
		var err error
		if ifaces, err = Interfaces("all"); err != nil {
			return nil, err
		}
	}
	logger := cfg.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	a := &Announcer{}
	limits := &answerLimits{cfg: cfg, sources: map[netip.Addr]*rateLimit{},
		total: &rateLimit{rate: cfg.AnswerRate, burst: 2 * cfg.AnswerRate, now: cfg.Now}}
	var errs []error
	var zones []*zone
	for _, ifi := range ifaces {
		addrs, _ := ifi.Addrs()
		var ips []stdnet.IP
		for _, ad := range addrs {
			if n, ok := ad.(*stdnet.IPNet); ok && n.IP.To4() != nil {
				ips = append(ips, n.IP)
			}
		}
		c, err := stdnet.ListenMulticastUDP("udp4", ifi, mdnsGroup)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ifi.Name, err))
			continue
		}
		a.conns = append(a.conns, c)
		zones = append(zones, &zone{cfg: cfg, ips: ips, limits: limits, stats: &a.stats, log: logger,
			cache: map[dns.Question]cached{}})
	}
	if len(a.conns) == 0 {
		return nil, fmt.Errorf("lobby: announce on no interface: %w", errors.Join(errs...))
	}
	a.wg.Add(len(a.conns))
	for i, c := range a.conns {
		go a.serve(c, zones[i])
	}
	logger.Info("announcing on the local network", "service", Service, "interfaces", len(a.conns), "port", cfg.Port)
	return a, nil
}

// Stats returns the announcer's counters.
func (a *Announcer) Stats() AnnounceStats {
	return AnnounceStats{Answered: a.stats.answered.Load(), Limited: a.stats.limited.Load(),
		Malformed: a.stats.malformed.Load()}
}

// Close stops announcing. It is safe to call more than once.
func (a *Announcer) Close() error {
	a.once.Do(func() {
		for _, c := range a.conns {
			c.Close()
		}
		a.wg.Wait()
	})
	return nil
}

// serve answers the queries c receives until it closes.
func (a *Announcer) serve(c *stdnet.UDPConn, z *zone) {
	defer a.wg.Done()
	buf := make([]byte, maxPacket+1)
	for {
		n, from, err := c.ReadFromUDPAddrPort(buf)
		if err != nil {
			if errors.Is(err, stdnet.ErrClosed) {
				return
			}
			continue
		}
		if out := z.answer(buf[:n], from); out != nil {
			if _, err := c.WriteToUDPAddrPort(out, from); err != nil {
				z.log.Debug("announce: answer", "to", from, "err", err)
			}
		}
	}
}

// answerLimits are an announcer's answer rates, shared by its interfaces. Safe for
// concurrent use.
type answerLimits struct {
	cfg   AnnounceConfig
	total *rateLimit

	mu      sync.Mutex
	sources map[netip.Addr]*rateLimit
}

// allow spends one of src's answers and one of the total. A source may spend the
// total down to the share of its burst that the source has spent of its own: one
// that keeps within its rate (an honest browser) may spend the total's last
// tokens, one that floods drains its own bucket and is answered only while the
// total is nearly full, so that floods share the answers the total leaves over.
func (l *answerLimits) allow(src netip.Addr) bool {
	l.mu.Lock()
	r, ok := l.sources[src]
	if !ok {
		if len(l.sources) >= maxSources {
			for a, s := range l.sources {
				if s.full() {
					delete(l.sources, a)
				}
			}
		}
		if len(l.sources) >= maxSources {
			l.mu.Unlock()
			return l.total.takeAbove(l.total.burst / 2)
		}
		r = &rateLimit{rate: l.cfg.SourceAnswerRate, burst: sourceBurst, now: l.cfg.Now}
		l.sources[src] = r
	}
	l.mu.Unlock()
	level := r.level()
	if !r.take() {
		return false
	}
	return l.total.takeAbove(l.total.burst * (1 - level))
}

// zone answers the questions about one announced match on one interface.
type zone struct {
	cfg    AnnounceConfig
	ips    []stdnet.IP
	limits *answerLimits
	stats  *announceCounters
	log    *slog.Logger

	mu    sync.Mutex
	cache map[dns.Question]cached
}

// cached is the answer to a question as built at a time from an entry.
type cached struct {
	rrs []dns.RR
	at  time.Time
	e   Entry
}

// answer returns the packed answer to the query msg from src, or nil for none.
func (z *zone) answer(msg []byte, from netip.AddrPort) []byte {
	src := from.Addr().Unmap()
	if len(msg) < 12 || msg[2]&0x80 != 0 {
		return nil // too short for a header, or an answer (other hosts' on the group)
	}
	if !z.limits.allow(src) {
		z.stats.limited.Add(1)
		return nil
	}
	var q dns.Msg
	if len(msg) > maxPacket || q.Unpack(msg) != nil || q.Opcode != dns.OpcodeQuery || q.Rcode != 0 || q.Truncated {
		z.stats.malformed.Add(1)
		return nil
	}
	var answer []dns.RR
	unicast := false
	for _, qq := range q.Question {
		answer = append(answer, z.records(qq)...)
		unicast = unicast || qq.Qclass&(1<<15) != 0
	}
	if len(answer) == 0 {
		return nil
	}
	resp := &dns.Msg{MsgHdr: dns.MsgHdr{Response: true, Opcode: dns.OpcodeQuery, Authoritative: true}, Compress: true, Answer: answer}
	if unicast || from.Port() != 5353 { // RFC 6762, sections 6.7 and 18.1
		resp.Id = q.Id
	}
	out, err := resp.Pack()
	if err != nil {
		return nil
	}
	z.stats.answered.Add(1)
	return out
}

// records answers q from the cache, building the answer afresh once cacheFor has
// passed or the match's entry has changed (a player joined): reading the entry is
// cheap, building and checking the records is what a flood must not repeat.
func (z *zone) records(q dns.Question) []dns.RR {
	q.Name, q.Qclass = strings.ToLower(q.Name), q.Qclass&^(1<<15)
	now := z.cfg.Now()
	e := z.cfg.Status()
	z.mu.Lock()
	defer z.mu.Unlock()
	if c, ok := z.cache[q]; ok && c.e == e && now.Sub(c.at) < cacheFor && !now.Before(c.at) {
		return c.rrs
	}
	var rrs []dns.RR
	if e.Check() == nil { // nothing sound to announce yet
		rrs = records(q, e, z.cfg.Port, z.ips)
	}
	if len(z.cache) >= 64 {
		clear(z.cache) // questions are few; a flood of odd ones starts it afresh
	}
	z.cache[q] = cached{rrs: rrs, at: now, e: e}
	return rrs
}

// rateLimit is a token bucket on real time. Safe for concurrent use.
type rateLimit struct {
	rate, burst float64
	now         func() time.Time

	mu     sync.Mutex
	tokens float64
	last   time.Time
}

// take spends a token if there is one.
func (r *rateLimit) take() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.last.IsZero() {
		r.tokens = r.burst
	} else {
		r.tokens = min(r.burst, r.tokens+now.Sub(r.last).Seconds()*r.rate)
	}
	r.last = now
	if r.tokens < 1 {
		return false
	}
	r.tokens--
	return true
}

// takeAbove spends a token if more than floor remain.
func (r *rateLimit) takeAbove(floor float64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := r.now()
	if r.last.IsZero() {
		r.tokens = r.burst
	} else {
		r.tokens = min(r.burst, r.tokens+now.Sub(r.last).Seconds()*r.rate)
	}
	r.last = now
	if r.tokens < 1+floor {
		return false
	}
	r.tokens--
	return true
}

// level is the share of its burst the bucket holds now, 0 to 1.
func (r *rateLimit) level() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.last.IsZero() {
		return 1
	}
	return min(r.burst, r.tokens+r.now().Sub(r.last).Seconds()*r.rate) / r.burst
}

// full reports whether the bucket has refilled to its burst: it remembers nothing.
func (r *rateLimit) full() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.last.IsZero() || r.tokens+r.now().Sub(r.last).Seconds()*r.rate >= r.burst
}

// Interfaces returns the network interfaces that spec names: "all" for every
// interface that is up and can multicast, the loopback included (a browser on the
// same machine finds its hosts there); "off" for none; or a comma-separated list of
// names, such as "lo" or "eth0,wlan0".
func Interfaces(spec string) ([]*stdnet.Interface, error) {
	switch spec {
	case "off", "":
		return nil, nil
	case "all":
		all, err := stdnet.Interfaces()
		if err != nil {
			return nil, fmt.Errorf("lobby: network interfaces: %w", err)
		}
		var out []*stdnet.Interface
		for i := range all {
			f := all[i].Flags
			if f&stdnet.FlagUp != 0 && f&(stdnet.FlagMulticast|stdnet.FlagLoopback) != 0 {
				out = append(out, &all[i])
			}
		}
		return out, nil
	}
	var out []*stdnet.Interface
	for _, name := range splitList(spec) {
		ifi, err := stdnet.InterfaceByName(name)
		if err != nil {
			return nil, fmt.Errorf("lobby: network interface %q: %w", name, err)
		}
		out = append(out, ifi)
	}
	return out, nil
}
