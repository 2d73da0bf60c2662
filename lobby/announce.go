package lobby

import (
	"bytes"
	"errors"
	"fmt"
	"log"
	"log/slog"
	stdnet "net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/mdns"
	"github.com/miekg/dns"
)

// DefaultAnswerRate is how many mDNS answers per second an announcer gives at most,
// in bursts of twice that: plenty for every browser on a network, and a cap on what
// a flood of queries can make the host send.
const DefaultAnswerRate = 50.0

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
	// Now tells the time for the answer rate. If nil, time.Now.
	Now func() time.Time
	// Logger receives what the announcer does. If nil, nothing is logged.
	Logger *slog.Logger
}

// AnnounceStats are an announcer's counters.
type AnnounceStats struct {
	// Answered counts the questions answered.
	Answered uint64
	// Limited counts the questions left unanswered past the answer rate.
	Limited uint64
	// Malformed counts the messages that did not decode.
	Malformed uint64
}

// Announcer announces a hosted match on the local network by DNS-SD over multicast
// DNS (service _treadline._udp, port 5353), answering the queries of browsers such as
// Find, and of any DNS-SD tool, with the match's current Status. Close stops it.
type Announcer struct {
	servers []*mdns.Server
	stats   announceCounters
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
	if cfg.Now == nil {
		cfg.Now = time.Now
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
	limit := &rateLimit{rate: cfg.AnswerRate, burst: 2 * cfg.AnswerRate, now: cfg.Now}
	mlog := log.New(&mdnsLog{log: logger, malformed: &a.stats.malformed}, "", 0)
	var errs []error
	for _, ifi := range ifaces {
		addrs, _ := ifi.Addrs()
		var ips []stdnet.IP
		for _, ad := range addrs {
			if n, ok := ad.(*stdnet.IPNet); ok && n.IP.To4() != nil {
				ips = append(ips, n.IP)
			}
		}
		z := &zone{cfg: cfg, ips: ips, limit: limit, stats: &a.stats}
		srv, err := mdns.NewServer(&mdns.Config{Zone: z, Iface: ifi, Logger: mlog})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", ifi.Name, err))
			continue
		}
		a.servers = append(a.servers, srv)
	}
	if len(a.servers) == 0 {
		return nil, fmt.Errorf("lobby: announce on no interface: %w", errors.Join(errs...))
	}
	logger.Info("announcing on the local network", "service", Service, "interfaces", len(a.servers), "port", cfg.Port)
	return a, nil
}

// Stats returns the announcer's counters.
func (a *Announcer) Stats() AnnounceStats {
	return AnnounceStats{Answered: a.stats.answered.Load(), Limited: a.stats.limited.Load(),
		Malformed: a.stats.malformed.Load()}
}

// Close stops announcing. It is safe to call more than once.
func (a *Announcer) Close() error {
	for _, s := range a.servers {
		s.Shutdown()
	}
	return nil
}

// zone answers the questions about one announced match on one interface.
type zone struct {
	cfg   AnnounceConfig
	ips   []stdnet.IP
	limit *rateLimit
	stats *announceCounters
}

// Records answers q within the answer rate.
func (z *zone) Records(q dns.Question) []dns.RR {
	e := z.cfg.Status()
	if e.Check() != nil {
		return nil // nothing sound to announce yet
	}
	rrs := records(q, e, z.cfg.Port, z.ips)
	if len(rrs) == 0 {
		return nil
	}
	if !z.limit.take() {
		z.stats.limited.Add(1)
		return nil
	}
	z.stats.answered.Add(1)
	return rrs
}

// mdnsLog turns the mDNS server's log lines into debug records, counting the
// messages it could not decode.
type mdnsLog struct {
	log       *slog.Logger
	malformed *atomic.Uint64
}

func (l *mdnsLog) Write(p []byte) (int, error) {
	if bytes.Contains(p, []byte("Failed to unpack")) {
		l.malformed.Add(1)
	}
	l.log.Debug("mdns", "line", string(bytes.TrimSpace(p)))
	return len(p), nil
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
