package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	stdnet "net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/session"
)

// metricPrefix starts the name of every metric tankhost exports, but for the
// standard Go runtime (go_…) and process (process_…) collectors' own.
const metricPrefix = "treadline_"

// rttSampleEvery is how often each player's round trip is sampled into
// treadline_rtt_seconds.
const rttSampleEvery = time.Second

// healthzStale is how long the match loop may go without a step before /healthz
// reports it stalled.
const healthzStale = 2 * time.Second

// The metrics server's limits: a scrape is one small GET every 15 s to a minute,
// on a connection Prometheus keeps alive between scrapes, and a health probe is one
// GET every few seconds. Requests' headers come in milliseconds on the networks that
// scrape, so seconds are plenty.
const (
	metricsHeaderTimeout = 3 * time.Second
	metricsReadTimeout   = 5 * time.Second
	metricsWriteTimeout  = 30 * time.Second
	// metricsIdleTimeout outlasts a one-minute scrape interval, so that a scraper
	// keeps its connection.
	metricsIdleTimeout = 75 * time.Second
	// metricsMaxConns caps the connections held at once, metricsMaxPerSource those
	// from one IP address. A newcomer past either takes the place of the
	// connection idle (or silent since it opened) the longest, from its own
	// address first: idle connections cannot keep a probe out, since a probe's
	// request needs a moment and theirs never comes. With none idle, the newcomer
	// is closed at once.
	metricsMaxConns     = 32
	metricsMaxPerSource = 8
	// metricsMaxScrapes caps the /metrics requests served at once (503 past it), so
	// that scrapes cannot crowd out /healthz, which is never limited.
	metricsMaxScrapes = 4
)

// connGate tracks the metrics server's connections and keeps them within
// metricsMaxConns and metricsMaxPerSource, evicting the longest idle for a
// newcomer. Safe for concurrent use.
type connGate struct {
	max, perSource int

	mu      sync.Mutex
	conns   map[stdnet.Conn]*gateConn
	sources map[string]int
	stats   gateStats
}

// gateStats count what the gate did.
type gateStats struct {
	evicted, refused uint64
}

type gateConn struct {
	source string
	idle   bool      // new and silent, or idle between requests
	since  time.Time // when it last went idle
}

func newConnGate(max, perSource int) *connGate {
	return &connGate{max: max, perSource: perSource, conns: map[stdnet.Conn]*gateConn{}, sources: map[string]int{}}
}

// source is the IP address of c's peer.
func source(c stdnet.Conn) string {
	if a, ok := c.RemoteAddr().(*stdnet.TCPAddr); ok {
		return a.IP.String()
	}
	return c.RemoteAddr().String()
}

// admit takes in a newly accepted connection: past a limit it closes the
// connection idle longest (of the newcomer's source when that is full), or, with
// none idle, reports false and the newcomer is to be closed.
func (g *connGate) admit(c stdnet.Conn, now time.Time) bool {
	src := source(c)
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.sources[src] >= g.perSource || len(g.conns) >= g.max {
		own := g.sources[src] >= g.perSource
		var victim stdnet.Conn
		var at time.Time
		for vc, gc := range g.conns {
			if gc.idle && (!own || gc.source == src) && (victim == nil || gc.since.Before(at)) {
				victim, at = vc, gc.since
			}
		}
		if victim == nil {
			g.stats.refused++
			return false
		}
		g.stats.evicted++
		g.forget(victim)
		victim.Close() // http.Server sees the close and ends the connection
	}
	g.conns[c] = &gateConn{source: src, idle: true, since: now}
	g.sources[src]++
	return true
}

// state follows http.Server's view of c.
func (g *connGate) state(c stdnet.Conn, st http.ConnState, now time.Time) {
	g.mu.Lock()
	defer g.mu.Unlock()
	gc, ok := g.conns[c]
	switch {
	case !ok:
	case st == http.StateClosed || st == http.StateHijacked:
		g.forget(c)
	case st == http.StateIdle:
		gc.idle, gc.since = true, now
	case st == http.StateActive:
		gc.idle = false
	}
}

// forget drops c from the gate; g.mu held.
func (g *connGate) forget(c stdnet.Conn) {
	gc, ok := g.conns[c]
	if !ok {
		return
	}
	delete(g.conns, c)
	if g.sources[gc.source]--; g.sources[gc.source] <= 0 {
		delete(g.sources, gc.source)
	}
}

// gateListener passes the gate's admitted connections on and closes the rest at
// once: Accept never waits for a place, so the backlog never holds a probe.
type gateListener struct {
	stdnet.Listener
	gate *connGate
}

// Accept implements net.Listener.
func (l *gateListener) Accept() (stdnet.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.gate.admit(c, time.Now()) {
			return c, nil
		}
		c.Close()
	}
}

// rttBuckets are treadline_rtt_seconds' upper bounds, seconds.
var rttBuckets = []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 1, 2}

// refuseLabels name treadline_joins_refused_total's reasons, by net.HostStats.RefusedBy
// index (the reason the refused player is told).
var refuseLabels = [len(net.HostStats{}.RefusedBy)]string{
	wire.RefusePassphrase: "passphrase",
	wire.RefuseVersion:    "version",
	wire.RefuseFull:       "full",
	wire.RefuseName:       "name",
	wire.RefuseBanned:     "banned",
	wire.RefuseProtocol:   "protocol",
	wire.RefuseOther:      "other",
}

// monitor follows a served match for /metrics and /healthz: it reads the host's
// counters at each scrape and keeps the match loop's last status. Safe for
// concurrent use.
type monitor struct {
	sdk *agones.SDK // nil without -agones
	rtt prometheus.Histogram

	mu       sync.Mutex
	host     *net.Host
	last     session.ServeStatus
	stepped  bool
	lastRTT  time.Time
	wallNow  func() time.Time
	descs    descs
	registry *prometheus.Registry
}

type descs struct {
	moves *prometheus.Desc // updates refused by the movement checks, by reason
	players, actors, joins, refused, handshakes, joining, accepted, relayed, thinned, overwritten, downlink, drops,
	timedOut, kicked, judged, relayDelay, relayAhead, matchState, sdkCalls, sdkFailures, health, withheld *prometheus.Desc
}

func newMonitor(sdk *agones.SDK, wallNow func() time.Time) *monitor {
	d := func(name, help string, labels ...string) *prometheus.Desc {
		return prometheus.NewDesc(metricPrefix+name, help, labels, nil)
	}
	m := &monitor{sdk: sdk, wallNow: wallNow, registry: prometheus.NewRegistry()}
	m.descs = descs{
		players: d("players", "Players connected, the host's own bots and a DIS gateway's entities not counted."),
		actors:  d("actors", "Actors (tanks) in the match, bots included."),
		joins:   d("joins_total", "Players admitted to the match."),
		refused: d("joins_refused_total", "Connections turned away, by reason: what the player was told, or handshake "+
			"(the QUIC handshake refused by the caps and rates) and evicted (a half-open join closed for a newer one).", "reason"),
		handshakes: d("handshakes_in_flight", "QUIC handshakes under way."),
		joining:    d("joins_in_progress", "Connections past the QUIC handshake that have not joined or been refused yet."),
		accepted:   d("updates_accepted_total", "State updates accepted from their owners."),
		relayed:    d("updates_relayed_total", "State updates sent on to observers, one per observer."),
		thinned:    d("updates_thinned_total", "Relays skipped by distance thinning."),
		overwritten: d("updates_overwritten_total", "Records owed to a player and replaced by a newer one of the same tank "+
			"before they went out (past -zones-above tanks)."),
		downlink: d("downlink_bytes_total", "State bytes the scheduler sent players past -zones-above tanks, by budget: "+
			"within, or outside (the first records of tanks entering a player's interest).", "budget"),
		drops: d("drops_total", "Updates and messages dropped, by reason.", "reason"),
		moves: d("updates_refused_total", "Updates refused because their tank could not have moved so (also counted in "+
			"drops_total's invalid), by what it could not have done.", "reason"),
		timedOut: d("players_timed_out_total", "Players dropped for silence."),
		judged: d("claims_judged_total", "The referee's decisions by verdict: each hit claim's (accepted, or the reason it "+
			"was refused) and refused_message for game messages refused unread.", "verdict"),
		kicked: d("players_kicked_total", "Players kicked by the host's defences, by reason (idle: published nothing; flood: bad traffic).", "reason"),
		relayDelay: d("relay_delay_seconds", "Age of each relayed copy of an update when the host relays it, one observation per observer: "+
			"host clock minus the owner's timestamp (owner-to-host delay and clock-sync error); negative ages are counted apart."),
		relayAhead: d("relay_delay_negative_total", "Relayed copies whose owner's timestamp was ahead of the host clock (a clock-sync error), "+
			"left out of treadline_relay_delay_seconds."),
		matchState: d("match_state", "1 for the state the match is in (waiting, playing, idle, ended), 0 for the others.", "state"),
		sdkCalls:   d("agones_calls_total", "Agones SDK lifecycle and metadata calls the sidecar accepted."),
		sdkFailures: d("agones_failures_total",
			"Agones SDK calls that failed (each is retried with backoff), health pings included."),
		health:   d("agones_health_pings_total", "Health pings the Agones sidecar accepted."),
		withheld: d("agones_health_withheld_total", "Health pings withheld because the match loop had not stepped since the last one."),
	}
	m.rtt = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    metricPrefix + "rtt_seconds",
		Help:    "Players' smoothed QUIC round trips, each player sampled once a second.",
		Buckets: rttBuckets,
	})
	m.registry.MustRegister(m, m.rtt)
	// The standard names, go_… and process_…, that dashboards and alerts look for.
	m.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// listening records the host once it listens.
func (m *monitor) listening(h *net.Host) {
	m.mu.Lock()
	m.host = h
	m.mu.Unlock()
}

// tick records one step of the match loop; it samples round trips once a second.
func (m *monitor) tick(st session.ServeStatus) {
	m.mu.Lock()
	m.last, m.stepped = st, true
	sample := st.Now.Sub(m.lastRTT) >= rttSampleEvery
	if sample {
		m.lastRTT = st.Now
	}
	h := m.host
	m.mu.Unlock()
	if !sample || h == nil {
		return
	}
	for _, p := range h.Players() {
		if p.Addr != "" { // remote players only: the host's own has no round trip
			m.rtt.Observe(p.RTT.Seconds())
		}
	}
}

// Describe implements prometheus.Collector.
func (m *monitor) Describe(ch chan<- *prometheus.Desc) {
	prometheus.DescribeByCollect(m, ch)
}

// Collect implements prometheus.Collector: the host's counters as they are now.
func (m *monitor) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	h, st := m.host, m.last
	m.mu.Unlock()
	d := &m.descs
	for s := session.MatchWaiting; s <= session.MatchEnded; s++ {
		v := 0.0
		if s == st.State {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(d.matchState, prometheus.GaugeValue, v, s.String())
	}
	if m.sdk != nil {
		ss := m.sdk.Stats()
		ch <- prometheus.MustNewConstMetric(d.sdkCalls, prometheus.CounterValue, float64(ss.Calls))
		ch <- prometheus.MustNewConstMetric(d.sdkFailures, prometheus.CounterValue, float64(ss.Failures+ss.HealthFailures))
		ch <- prometheus.MustNewConstMetric(d.health, prometheus.CounterValue, float64(ss.Health))
		ch <- prometheus.MustNewConstMetric(d.withheld, prometheus.CounterValue, float64(ss.Withheld))
	}
	if h == nil {
		return
	}
	hs := h.Stats()
	gauge := func(desc *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.GaugeValue, v, labels...)
	}
	counter := func(desc *prometheus.Desc, v uint64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(desc, prometheus.CounterValue, float64(v), labels...)
	}
	gauge(d.players, float64(remotePlayers(hs)))
	gauge(d.actors, float64(hs.Actors))
	gauge(d.handshakes, float64(hs.HandshakesInFlight))
	gauge(d.joining, float64(hs.Joining))
	counter(d.joins, hs.Joined)
	for i, n := range hs.RefusedBy {
		if refuseLabels[i] != "" {
			counter(d.refused, n, refuseLabels[i])
		}
	}
	counter(d.refused, hs.HandshakesRefused, "handshake")
	counter(d.refused, hs.JoinsEvicted, "evicted")
	counter(d.refused, hs.HandshakesEvicted, "handshake_evicted")
	counter(d.kicked, hs.IdleKicked, "idle")
	counter(d.kicked, hs.FloodKicked, "flood")
	counter(d.accepted, hs.Accepted)
	counter(d.relayed, hs.Relayed)
	counter(d.thinned, hs.Thinned)
	counter(d.overwritten, hs.Overwritten)
	counter(d.downlink, hs.DownlinkBytes-hs.DownlinkBypass, "within")
	counter(d.downlink, hs.DownlinkBypass, "outside")
	for _, r := range []struct {
		reason string
		n      uint64
	}{
		{"late", hs.Late}, {"superseded", hs.Superseded}, {"rate_limited", hs.RateLimited}, {"spawn_rate", hs.SpawnsThrottled}, {"invalid", hs.Invalid},
		{"unauthorized", hs.Unauthorized}, {"malformed", hs.Malformed}, {"overflow", hs.Overflow},
	} {
		counter(d.drops, r.n, r.reason)
	}
	for _, r := range []struct {
		reason string
		n      uint64
	}{
		{"speed", hs.Moves.Speed}, {"velocity", hs.Moves.Velocity}, {"acceleration", hs.Moves.Acceleration},
		{"height", hs.Moves.Height}, {"articulation", hs.Moves.Articulation}, {"turn", hs.Moves.Turn},
	} {
		counter(d.moves, r.n, r.reason)
	}
	counter(d.timedOut, hs.TimedOut)
	for _, j := range hs.Judged {
		counter(d.judged, j.N, j.Verdict)
	}
	cum := hs.RelayAge.Cumulative()
	buckets := make(map[float64]uint64, len(cum))
	for i, b := range net.RelayAgeBounds() {
		buckets[b] = cum[i]
	}
	ch <- prometheus.MustNewConstHistogram(d.relayDelay, hs.RelayAge.Count, hs.RelayAge.Sum, buckets)
	counter(d.relayAhead, hs.RelayAge.Negative)
}

// remotePlayers is the number of players connected, the host's own not counted.
func remotePlayers(hs net.HostStats) int { return max(hs.Players-1, 0) }

// healthz answers 200 "ok" while the match loop steps, 503 with the reason when it
// has not started, has stalled or has ended.
func (m *monitor) healthz(w http.ResponseWriter, _ *http.Request) {
	m.mu.Lock()
	st, stepped := m.last, m.stepped
	m.mu.Unlock()
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	switch age := m.wallNow().Sub(st.Now); {
	case !stepped:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "starting")
	case st.State == session.MatchEnded:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintln(w, "match ended:", st.Reason)
	case age > healthzStale:
		w.WriteHeader(http.StatusServiceUnavailable)
		fmt.Fprintf(w, "match loop stalled for %v\n", age.Round(time.Millisecond))
	default:
		fmt.Fprintf(w, "ok: %s, %d players\n", st.State, st.Players)
	}
}

// serveMetrics serves /metrics and /healthz on addr until ctx ends. It returns once
// the listener is open, with its address; serving errors are logged.
func serveMetrics(ctx context.Context, addr string, m *monitor, log *slog.Logger) (stdnet.Addr, func(), error) {
	ln, err := stdnet.Listen("tcp", addr)
	if err != nil {
		return nil, nil, fmt.Errorf("-metrics %s: %w", addr, err)
	}
	gate := newConnGate(metricsMaxConns, metricsMaxPerSource)
	ln = &gateListener{Listener: ln, gate: gate}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelWarn), MaxRequestsInFlight: metricsMaxScrapes}))
	mux.HandleFunc("GET /healthz", m.healthz)
	// Whoever holds a connection open, idle or dribbling its request, is cut off by
	// the timeouts, and sooner by the gate when a newcomer needs the place.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: metricsHeaderTimeout, ReadTimeout: metricsReadTimeout,
		WriteTimeout: metricsWriteTimeout, IdleTimeout: metricsIdleTimeout, MaxHeaderBytes: 8 << 10,
		ConnState: func(c stdnet.Conn, st http.ConnState) { gate.state(c, st, time.Now()) },
		ErrorLog:  slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("metrics server", "err", err)
		}
	}()
	stop := func() {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-done
	}
	log.Info("metrics", "url", "http://"+ln.Addr().String()+"/metrics")
	return ln.Addr(), stop, nil
}
