package client

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/treadline/treadline/lobby"
	"github.com/treadline/treadline/net"
)

// The Join menu's search: how often it reads the list servers and measures pings,
// and how much of that it does at most.
const (
	// DefaultListEvery is how often the Join menu reads each list server.
	DefaultListEvery = 10 * time.Second
	// DefaultProbeEvery is how often the Join menu measures one match's ping again.
	DefaultProbeEvery = 15 * time.Second
	// DefaultProbeGap is the least time between two ping measurements, to any
	// host: the measurements run one at a time, at most 1/DefaultProbeGap a second.
	DefaultProbeGap = 250 * time.Millisecond
	// DefaultProbeTimeout bounds one ping measurement.
	DefaultProbeTimeout = 3 * time.Second
	// MaxProbed is how many matches, the first in the list, get their ping measured.
	MaxProbed = 64
	// maxListsRead is how many list servers the Join menu reads.
	maxListsRead = 8
)

// FindConfig sets up the Join menu's search for matches. The zero value looks on
// every interface of the local network, with the defaults.
type FindConfig struct {
	// LAN names the local network's interfaces to look on, as tanks' -lan: "all",
	// "off" or names such as "lo,eth0". If empty, defaults to "all".
	LAN string
	// ListEvery is how often each list server is read. If zero, defaults to
	// DefaultListEvery.
	ListEvery time.Duration
	// ProbeEvery, ProbeGap and ProbeTimeout pace the ping measurements. If zero,
	// they default to DefaultProbeEvery, DefaultProbeGap and DefaultProbeTimeout.
	ProbeEvery, ProbeGap, ProbeTimeout time.Duration
	// Probe measures the round trip to the match at addr whose certificate has the
	// fingerprint fp, with a QUIC handshake. If nil, net.Probe.
	Probe func(ctx context.Context, addr, fp string) (net.ProbeResult, error)
	// KnownHosts is the trust-on-first-use file whose remembered fingerprints mark a
	// match found on the local network whose certificate changed. If empty,
	// net.DefaultKnownHostsPath(); "-": none.
	KnownHosts string
	// Now tells the time for the pacing. If nil, time.Now: pings are network
	// timings.
	Now func() time.Time
	// Fetch reads the list server at url (as given in the lists). If nil,
	// lobby.FetchList; tests in a synctest bubble serve a list from memory.
	Fetch func(ctx context.Context, url string) ([]lobby.Entry, error)
}

func (c FindConfig) withDefaults() FindConfig {
	if c.LAN == "" {
		c.LAN = "all"
	}
	if c.ListEvery <= 0 {
		c.ListEvery = DefaultListEvery
	}
	if c.ProbeEvery <= 0 {
		c.ProbeEvery = DefaultProbeEvery
	}
	if c.ProbeGap <= 0 {
		c.ProbeGap = DefaultProbeGap
	}
	if c.ProbeTimeout <= 0 {
		c.ProbeTimeout = DefaultProbeTimeout
	}
	if c.Fetch == nil {
		c.Fetch = lobby.FetchList
	}
	if c.Probe == nil {
		c.Probe = func(ctx context.Context, addr, fp string) (net.ProbeResult, error) {
			return net.Probe(ctx, addr, fp, nil)
		}
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	return c
}

// foundMatch is a match the Join menu lists: the entry found, with what this client
// measured of it.
type foundMatch struct {
	lobby.Entry
	// measured reports that a probe answered: Ping is this client's handshake
	// round trip and Passphrase what the host's challenge said.
	measured bool
	// problem, if set, says why the last probe failed ("no answer", "certificate
	// differs").
	problem string
}

// probed is the last ping measurement of a match.
type probed struct {
	at      time.Time
	rtt     time.Duration
	pass    bool
	problem string
}

// finder searches for matches while the Join menu is open: the local network by
// its browser, each list server every ListEvery, and each match's ping, one probe at
// a time. Its methods are safe for concurrent use.
type finder struct {
	cfg     FindConfig
	browser *lobby.Browser
	lists   []string
	cancel  context.CancelFunc
	wg      sync.WaitGroup

	known map[string]string // the fingerprints known_hosts remembers, by address

	mu      sync.Mutex
	listed  map[string][]lobby.Entry // by list URL
	errs    map[string]string        // by source ("lan" or a list URL), one line each
	pings   map[string]probed        // by entry key
	entries []lobby.Entry            // the last merged list, for the probe loop
}

// startFinder starts looking, with the list servers of lists (comma-separated URLs;
// one that does not parse is reported as a problem).
func startFinder(cfg FindConfig, lists string) *finder {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithCancel(context.Background())
	f := &finder{cfg: cfg, cancel: cancel, listed: map[string][]lobby.Entry{}, errs: map[string]string{}, pings: map[string]probed{}}
	if cfg.KnownHosts != "-" {
		var err error
		if f.known, err = net.KnownFingerprints(cfg.KnownHosts); err != nil {
			f.errs["known"] = err.Error()
		}
	}
	if ifaces, err := lobby.Interfaces(cfg.LAN); err != nil {
		f.errs["lan"] = "the local network: " + err.Error()
	} else if len(ifaces) > 0 {
		if f.browser, err = lobby.NewBrowser(lobby.BrowseConfig{Interfaces: ifaces, Now: cfg.Now}); err != nil {
			f.errs["lan"] = "the local network: " + err.Error()
		}
	}
	for _, u := range strings.Split(lists, ",") {
		if u = strings.TrimSpace(u); u == "" {
			continue
		}
		if _, _, err := lobby.ParseListURL(u); err != nil {
			f.errs[u] = err.Error()
			continue
		}
		if len(f.lists) < maxListsRead && !slices.Contains(f.lists, u) {
			f.lists = append(f.lists, u)
		}
	}
	for _, u := range f.lists {
		f.wg.Add(1)
		go f.readList(ctx, u)
	}
	f.wg.Add(1)
	go f.probeLoop(ctx)
	return f
}

// close stops looking and waits for the goroutines.
func (f *finder) close() {
	f.cancel()
	if f.browser != nil {
		f.browser.Close()
	}
	f.wg.Wait()
}

// sources says where the finder looks, for the menu: "this network and 2 list
// servers".
func (f *finder) sources() string {
	var parts []string
	if f.browser != nil {
		parts = append(parts, "this network")
	}
	switch n := len(f.lists); n {
	case 0:
	case 1:
		parts = append(parts, "1 list server")
	default:
		parts = append(parts, fmt.Sprintf("%d list servers", n))
	}
	if len(parts) == 0 {
		return "nowhere: the local network is off and no list server is set"
	}
	return strings.Join(parts, " and ")
}

// readList reads the list server u now and every ListEvery until ctx ends.
func (f *finder) readList(ctx context.Context, u string) {
	defer f.wg.Done()
	t := time.NewTicker(f.cfg.ListEvery)
	defer t.Stop()
	for {
		rctx, cancel := context.WithTimeout(ctx, f.cfg.ListEvery)
		entries, err := f.cfg.Fetch(rctx, u)
		cancel()
		if ctx.Err() != nil {
			return
		}
		f.mu.Lock()
		if err != nil {
			f.errs[u] = oneLine(err)
		} else {
			delete(f.errs, u)
			f.listed[u] = entries
		}
		f.mu.Unlock()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// found returns the matches found, each once (found on the local network before a
// list), sorted by name and address, with the pings measured; and the problems, one
// line each, sorted.
func (f *finder) found() ([]foundMatch, []string) {
	var all []lobby.Entry
	if f.browser != nil {
		all = f.browser.Entries(all)
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, u := range f.lists {
		all = append(all, f.listed[u]...)
	}
	seen := map[string]bool{}
	var out []foundMatch
	f.entries = f.entries[:0]
	for _, e := range all {
		if seen[e.Key()] {
			continue
		}
		seen[e.Key()] = true
		f.entries = append(f.entries, e)
		fm := foundMatch{Entry: e}
		fm.Ping = 0 // only this client's own measurement is shown
		if p, ok := f.pings[e.Key()]; ok {
			fm.problem = p.problem
			if p.problem == "" {
				fm.measured, fm.Ping, fm.Passphrase = true, p.rtt, p.pass
			}
		}
		if old, ok := f.known[e.Addr]; ok && e.Source == "lan" && old != e.Fingerprint {
			// Joining it would be refused as a changed certificate: say so first.
			fm.problem = "certificate changed since you joined"
		}
		out = append(out, fm)
	}
	slices.SortStableFunc(out, func(a, b foundMatch) int {
		if c := strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)); c != 0 {
			return c
		}
		return strings.Compare(a.Addr, b.Addr)
	})
	var errs []string
	for _, e := range f.errs {
		errs = append(errs, e)
	}
	slices.Sort(errs)
	return out, errs
}

// probeLoop measures pings, one at a time and at most one every ProbeGap: the match
// measured longest ago (never, first), when that is over ProbeEvery ago.
func (f *finder) probeLoop(ctx context.Context) {
	defer f.wg.Done()
	t := time.NewTicker(f.cfg.ProbeGap)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		e, ok := f.nextProbe()
		if !ok {
			continue
		}
		pctx, cancel := context.WithTimeout(ctx, f.cfg.ProbeTimeout)
		res, err := f.cfg.Probe(pctx, e.Addr, e.Fingerprint)
		cancel()
		if ctx.Err() != nil {
			return
		}
		p := probed{at: f.cfg.Now(), rtt: max(res.RTT, time.Microsecond), pass: res.PassphraseRequired}
		switch {
		case errors.Is(err, net.ErrFingerprintMismatch):
			p.problem = "certificate differs"
		case err != nil:
			p.problem = "no answer"
		}
		f.mu.Lock()
		f.pings[e.Key()] = p
		f.mu.Unlock()
	}
}

// nextProbe picks the match to measure next, if one is due.
func (f *finder) nextProbe() (lobby.Entry, bool) {
	now := f.cfg.Now()
	f.mu.Lock()
	defer f.mu.Unlock()
	var (
		best   lobby.Entry
		bestAt time.Time
		ok     bool
	)
	for i, e := range f.entries {
		if i == MaxProbed {
			break
		}
		p, done := f.pings[e.Key()]
		if done && now.Sub(p.at) < f.cfg.ProbeEvery {
			continue
		}
		if !ok || p.at.Before(bestAt) {
			best, bestAt, ok = e, p.at, true
		}
	}
	if len(f.pings) > 4*MaxProbed { // forget matches long gone
		for k, p := range f.pings {
			if now.Sub(p.at) > 4*f.cfg.ProbeEvery {
				delete(f.pings, k)
			}
		}
	}
	return best, ok
}

// oneLine shortens a list server's error for one line of the menu: its host and the
// last part of the chain.
func oneLine(err error) string {
	s := err.Error()
	var ue *url.Error
	if errors.As(err, &ue) {
		s = strings.TrimSuffix(s, ue.Error()) + ue.Err.Error()
	}
	if len(s) > 90 {
		s = s[:89] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
