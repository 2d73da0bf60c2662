package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"log/slog"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/treadline/treadline/lobby"
	"github.com/treadline/treadline/net"
)

// Defaults of the list server.
const (
	// DefaultTTL is how long a listing lasts without a renewal.
	DefaultTTL = 60 * time.Second
	// DefaultMaxMatches is how many matches the list holds at most.
	DefaultMaxMatches = 10000
	// DefaultRegisterRate is how many registrations per second one source address
	// may send, in bursts of DefaultRegisterBurst: a host renews every TTL/3.
	DefaultRegisterRate  = 0.5
	DefaultRegisterBurst = 10
	// DefaultReadRate is how many list reads per second one source address may
	// make, in bursts of twice that.
	DefaultReadRate = 10.0
	// DefaultVerifyTimeout bounds the check that a registered address answers as
	// the host it says it is.
	DefaultVerifyTimeout = 8 * time.Second
	// DefaultReverify is how often a listed host is checked again.
	DefaultReverify = 10 * time.Minute
	// maxVerifying bounds the checks running at once.
	maxVerifying = 16
	// failedFor is how long a failed check is remembered: the same address is not
	// checked again sooner, so that registrations cannot make the list server
	// knock on an address over and over.
	failedFor = time.Minute
	// maxTracked bounds the source addresses and failed addresses remembered.
	maxTracked = 65536
)

// config is the list server's configuration.
type config struct {
	ttl, verifyTimeout, reverify time.Duration
	maxMatches                   int
	registerRate, readRate       float64
	registerBurst                float64
	// allowPrivate lets loopback, private and link-local addresses be listed (a
	// list for one network, and tests); a public list refuses them, so that it
	// cannot be made to probe the networks around it.
	allowPrivate bool
	// probe checks that a host answers at addr with fp; net.Probe by default.
	probe func(ctx context.Context, addr, fp string) (time.Duration, error)
	now   func() time.Time
	log   *slog.Logger
}

// server is the list server's HTTP handler.
type server struct {
	cfg       config
	store     Store
	register  *limiter
	read      *limiter
	verifying chan struct{}

	mu     sync.Mutex
	failed map[string]time.Time // address → when its check failed
}

func newServer(cfg config, store Store) *server {
	if cfg.probe == nil {
		cfg.probe = func(ctx context.Context, addr, fp string) (time.Duration, error) {
			r, err := net.Probe(ctx, addr, fp, nil)
			return r.RTT, err
		}
	}
	return &server{cfg: cfg, store: store,
		register:  newLimiter(cfg.registerRate, cfg.registerBurst, maxTracked),
		read:      newLimiter(cfg.readRate, 2*cfg.readRate, maxTracked),
		verifying: make(chan struct{}, maxVerifying),
		failed:    map[string]time.Time{},
	}
}

// ServeHTTP routes the requests.
func (s *server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	src := sourceIP(r)
	switch {
	case r.URL.Path == lobby.RegisterPath && r.Method == http.MethodPost:
		if !s.register.allow(src, s.cfg.now()) {
			tooMany(w, s.cfg.registerRate)
			return
		}
		s.handleRegister(w, r, src)
	case r.URL.Path == "/healthz":
		io.WriteString(w, "ok\n")
	case (r.URL.Path == lobby.MatchesPath || r.URL.Path == "/") && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		if !s.read.allow(src, s.cfg.now()) {
			tooMany(w, s.cfg.readRate)
			return
		}
		page := s.page()
		if r.URL.Path == "/" {
			s.servePage(w, page)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		json.NewEncoder(w).Encode(page)
	default:
		http.NotFound(w, r)
	}
}

// tooMany answers 429 with when to come back.
func tooMany(w http.ResponseWriter, rate float64) {
	w.Header().Set("Retry-After", strconv.Itoa(int(1/rate)+1))
	http.Error(w, "too many requests from your address; slow down", http.StatusTooManyRequests)
}

// sourceIP is the request's source address.
func sourceIP(r *http.Request) netip.Addr {
	ap, err := netip.ParseAddrPort(r.RemoteAddr)
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// decodeRegistration reads one registration from r: at most MaxRegistrationBytes
// of a single JSON object with only the known fields.
func decodeRegistration(r io.Reader) (lobby.Registration, error) {
	b, err := io.ReadAll(io.LimitReader(r, lobby.MaxRegistrationBytes+1))
	if err != nil {
		return lobby.Registration{}, err
	}
	if len(b) > lobby.MaxRegistrationBytes {
		return lobby.Registration{}, fmt.Errorf("registration over %d bytes", lobby.MaxRegistrationBytes)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var reg lobby.Registration
	if err := dec.Decode(&reg); err != nil {
		return lobby.Registration{}, fmt.Errorf("registration: %w", err)
	}
	if dec.More() {
		return lobby.Registration{}, errors.New("registration: more than one JSON value")
	}
	if len(reg.Token) > 64 {
		return lobby.Registration{}, errors.New("registration: token too long")
	}
	return reg, nil
}

// listAddr returns the address to list a registration from src at: its own, or
// src's IP with its port. It refuses addresses a public list does not list.
func (s *server) listAddr(reg lobby.Registration, src netip.Addr) (string, error) {
	var ap netip.AddrPort
	if reg.Addr != "" {
		var err error
		if ap, err = lobby.ParseAddr(reg.Addr); err != nil {
			return "", err
		}
	} else {
		if reg.Port < 1 || reg.Port > 65535 || !src.IsValid() {
			return "", errors.New("registration: give addr, or port with the host registering from its own address")
		}
		ap = netip.AddrPortFrom(src, uint16(reg.Port))
	}
	a := ap.Addr()
	if !s.cfg.allowPrivate && (a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || !a.IsGlobalUnicast()) {
		return "", fmt.Errorf("address %s is not public: this list only lists matches the internet can join (a list for one site runs with -allow-private)", a)
	}
	return ap.String(), nil
}

// handleRegister lists a match, or renews its listing.
func (s *server) handleRegister(w http.ResponseWriter, r *http.Request, src netip.Addr) {
	reg, err := decodeRegistration(r.Body)
	if err == nil {
		reg.Addr, err = s.listAddr(reg, src)
	}
	if err == nil {
		err = reg.Entry.Check()
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	now := s.cfg.now()
	old, listed := s.store.Get(reg.Addr, now)
	if listed && (reg.Token == "" || reg.Token != old.Token) {
		http.Error(w, "this address is listed by another registration; wait for it to expire", http.StatusForbidden)
		return
	}
	rec := record{Listing: lobby.Listing{Entry: reg.Entry, Join: reg.Entry.Join()}, Token: old.Token,
		Verified: old.Verified}
	rec.PingMS = old.PingMS
	if !listed || old.Fingerprint != reg.Fingerprint || now.Sub(old.Verified) >= s.cfg.reverify {
		rtt, status, err := s.verify(r.Context(), reg.Addr, reg.Fingerprint)
		if err != nil {
			s.cfg.log.Info("registration refused", "source", src, "addr", reg.Addr, "err", err)
			http.Error(w, err.Error(), status)
			return
		}
		rec.Verified, rec.PingMS = now, float64(rtt.Microseconds())/1000
	}
	if rec.Token == "" {
		rec.Token = newToken()
	}
	rec.Expires = now.Add(s.cfg.ttl)
	if err := s.store.Put(rec, now); err != nil {
		http.Error(w, err.Error(), http.StatusServiceUnavailable)
		return
	}
	if !listed {
		s.cfg.log.Info("listed", "addr", reg.Addr, "name", reg.Name, "map", reg.Map, "fleet", reg.Fleet)
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(lobby.Registered{Addr: reg.Addr, Token: rec.Token,
		RenewSeconds: int(s.cfg.ttl.Seconds() / 3), TTLSeconds: int(s.cfg.ttl.Seconds())})
}

// verify checks that a Treadline host answers at addr with fingerprint fp, and
// returns its round trip; on failure, the HTTP status to answer with.
func (s *server) verify(ctx context.Context, addr, fp string) (time.Duration, int, error) {
	now := s.cfg.now()
	s.mu.Lock()
	if at, ok := s.failed[addr]; ok && now.Sub(at) < failedFor {
		s.mu.Unlock()
		return 0, http.StatusUnprocessableEntity, fmt.Errorf("%s did not answer as a Treadline host with that fingerprint a moment ago; try again in a minute", addr)
	}
	s.mu.Unlock()
	select {
	case s.verifying <- struct{}{}:
		defer func() { <-s.verifying }()
	default:
		return 0, http.StatusServiceUnavailable, errors.New("the list server is checking many hosts; try again shortly")
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.verifyTimeout)
	defer cancel()
	rtt, err := s.cfg.probe(ctx, addr, fp)
	if err != nil {
		s.mu.Lock()
		if len(s.failed) >= maxTracked {
			for a, at := range s.failed {
				if now.Sub(at) >= failedFor {
					delete(s.failed, a)
				}
			}
			if len(s.failed) >= maxTracked {
				clear(s.failed) // under attack: forget, and check again at most once more each
			}
		}
		s.failed[addr] = now
		s.mu.Unlock()
		return 0, http.StatusUnprocessableEntity, fmt.Errorf("%s does not answer as a Treadline host with that fingerprint: %v", addr, err)
	}
	return rtt, 0, nil
}

// page returns the list as clients read it.
func (s *server) page() lobby.ListPage {
	recs := s.store.List(s.cfg.now(), nil)
	page := lobby.ListPage{Matches: make([]lobby.Listing, 0, len(recs))}
	for _, r := range recs {
		page.Matches = append(page.Matches, r.Listing)
	}
	return page
}

// newToken returns a random renewal token.
func newToken() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// limiter is a token bucket per source address, for at most max addresses (full
// buckets are forgotten first; when all are busy, newcomers wait). Safe for
// concurrent use.
type limiter struct {
	rate, burst float64
	max         int
	mu          sync.Mutex
	b           map[netip.Addr]*bucket
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newLimiter(rate, burst float64, max int) *limiter {
	return &limiter{rate: rate, burst: burst, max: max, b: map[netip.Addr]*bucket{}}
}

// allow spends one of a's tokens, if it has one.
func (l *limiter) allow(a netip.Addr, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, ok := l.b[a]
	if !ok {
		if len(l.b) >= l.max {
			for k, o := range l.b {
				if o.tokens+now.Sub(o.last).Seconds()*l.rate >= l.burst {
					delete(l.b, k)
				}
			}
			if len(l.b) >= l.max {
				return false
			}
		}
		b = &bucket{tokens: l.burst, last: now}
		l.b[a] = b
	}
	b.tokens = min(l.burst, b.tokens+now.Sub(b.last).Seconds()*l.rate)
	b.last = now
	if b.tokens < 1 {
		return false
	}
	b.tokens--
	return true
}

// servePage writes the list as a web page.
func (s *server) servePage(w http.ResponseWriter, page lobby.ListPage) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	var buf bytes.Buffer
	if err := pageTemplate.Execute(&buf, page); err != nil {
		http.Error(w, "page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Write(buf.Bytes())
}

var pageTemplate = template.Must(template.New("page").Funcs(template.FuncMap{
	"ping": func(ms float64) string {
		if ms <= 0 {
			return "–"
		}
		return strconv.Itoa(int(ms+0.5)) + " ms"
	},
}).Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Treadline matches</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
body { font-family: sans-serif; margin: 2em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: .2em; }
p.note { color: #555; margin-top: 0; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4em .8em; border-bottom: 1px solid #ddd; vertical-align: middle; }
th { background: #f3f3f3; }
td.num { text-align: right; white-space: nowrap; }
input.join { font-family: monospace; font-size: .8em; width: 100%; min-width: 50em; border: 1px solid #ccc; padding: .25em; }
.tag { font-size: .8em; background: #e8eef8; border-radius: .3em; padding: .1em .4em; }
</style></head>
<body>
<h1>Treadline matches</h1>
<p class="note">{{len .Matches}} open {{if eq (len .Matches) 1}}match{{else}}matches{{end}}. Copy a join line into a terminal, or pick the match in the game's Join menu. Ping is the list server's own round trip to the host: a hint of how far away it is.</p>
<table>
<thead><tr><th>Match</th><th>Map</th><th>Players</th><th>Ping</th><th>Join line</th></tr></thead>
<tbody>
{{range .Matches}}<tr>
<td>{{.Name}}{{if .Passphrase}} <span class="tag">passphrase</span>{{end}}{{if .Fleet}} <span class="tag">server</span>{{end}}</td>
<td>{{.Map}}</td>
<td class="num">{{.Players}} / {{.Capacity}}</td>
<td class="num">{{ping .PingMS}}</td>
<td><input class="join" readonly value="tanks -join {{.Join}}" aria-label="join line for {{.Name}}"></td>
</tr>
{{else}}<tr><td colspan="5">No open matches right now.</td></tr>
{{end}}</tbody></table>
</body></html>
`))
