package lobby

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/treadline/treadline/internal/units"
)

// The list server's HTTP API (cmd/tanklist), version 1.
const (
	// RegisterPath takes a POSTed Registration and answers a Registered.
	RegisterPath = "/v1/register"
	// MatchesPath serves the ListPage.
	MatchesPath = "/v1/matches"
	// MaxRegistrationBytes is the largest registration a list server reads.
	MaxRegistrationBytes = 4 << 10
	// MaxListBytes is the largest list page a client reads.
	MaxListBytes = 1 << 20
	// MaxListed is the most matches a client takes from one list page.
	MaxListed = 2000
)

// Registration is what a host sends a list server to be listed, and again to stay
// listed: its entry, and either its address or, when that is empty, its port (the
// server takes the IP the registration came from).
type Registration struct {
	Entry
	// Port is the host's UDP port, used with the registration's source IP when
	// Entry.Addr is empty.
	Port int `json:"port,omitempty"`
	// Token is the token the list server gave the first registration. List
	// servers that take signed registrations ignore it; it is kept for older ones.
	Token string `json:"token,omitempty"`
	// Cert is the host's certificate (DER; base64 in JSON): the one whose SHA-256
	// is Entry.Fingerprint, which the host serves at its address.
	Cert []byte `json:"cert,omitempty"`
	// SignedAt is when the host signed the registration, ms since 1970 UTC.
	SignedAt int64 `json:"signed_at,omitempty"`
	// Sig is the signature, by Cert's key, of every field above but Token and
	// Cert (see SignRegistration): it proves that the registration comes from
	// the host, so that nobody else can list, rename or take over its listing.
	Sig []byte `json:"sig,omitempty"`
}

// Registered is the list server's answer to a registration.
type Registered struct {
	// Addr is the address the match is listed at.
	Addr string `json:"addr"`
	// Token must be presented by renewals.
	Token string `json:"token"`
	// RenewSeconds is how often to renew, s.
	RenewSeconds int `json:"renew_s"`
	// TTLSeconds is how long the listing lasts without a renewal, s.
	TTLSeconds int `json:"ttl_s"`
}

// Listing is a match as a list server lists it.
type Listing struct {
	Entry
	// Join is the -join argument, ADDR#FINGERPRINT.
	Join string `json:"join"`
	// PingMS is the list server's round trip to the host when it last checked it,
	// ms: a hint of how far away the host is.
	PingMS float64 `json:"ping_ms"`
}

// ListPage is the JSON a list server serves at MatchesPath.
type ListPage struct {
	// Matches are the listed matches.
	Matches []Listing `json:"matches"`
}

// ParseListURL splits a list server's URL, "https://host[:port][/path]" with an
// optional "#fingerprint" pinning a self-signed certificate (as tanklist prints
// it), into the base URL and the pin.
func ParseListURL(s string) (base *url.URL, pin string, err error) {
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return nil, "", fmt.Errorf("list %q: give https://HOST[:PORT], optionally #FINGERPRINT", s)
	}
	pin, u.Fragment = strings.ToLower(u.Fragment), ""
	if pin != "" && !isFingerprint(pin) {
		return nil, "", fmt.Errorf("list %q: the fingerprint after # is not 64 hex digits", s)
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return u, pin, nil
}

// ListClient returns an HTTP client for a list server: it checks the server's
// certificate against pin when one is given (a self-signed list server), else
// against the system's roots.
func ListClient(pin string) *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if pin != "" {
		tr.TLSClientConfig = &tls.Config{
			MinVersion:         tls.VersionTLS13,
			InsecureSkipVerify: true, // replaced by the pin below
			VerifyPeerCertificate: func(raw [][]byte, _ [][]*x509.Certificate) error {
				if len(raw) == 0 {
					return errors.New("list server sent no certificate")
				}
				sum := sha256.Sum256(raw[0])
				if got := hex.EncodeToString(sum[:]); got != pin {
					return fmt.Errorf("list server certificate %s, pinned %s", got, pin)
				}
				return nil
			},
		}
	}
	return &http.Client{Transport: tr, Timeout: 10 * time.Second}
}

// FetchList reads the matches a list server lists. What it serves is hostile input:
// a page over MaxListBytes, or that does not decode, is an error; listings that
// break an Entry's rules, or whose join line does not match them, are skipped; at
// most MaxListed are taken. Each entry's Source is the list's URL.
func FetchList(ctx context.Context, listURL string) ([]Entry, error) {
	base, pin, err := ParseListURL(listURL)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base.String()+MatchesPath, nil)
	if err != nil {
		return nil, err
	}
	client := ListClient(pin)
	defer client.CloseIdleConnections() // a client per call: keep no connection open at the server
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", base.Host, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("list %s: %s", base.Host, resp.Status)
	}
	return decodeList(io.LimitReader(resp.Body, MaxListBytes+1), base.String())
}

// decodeList decodes a list page from r, for FetchList.
func decodeList(r io.Reader, source string) ([]Entry, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", source, err)
	}
	if len(b) > MaxListBytes {
		return nil, fmt.Errorf("list %s: page over %d bytes", source, MaxListBytes)
	}
	var page ListPage
	if err := json.Unmarshal(b, &page); err != nil {
		return nil, fmt.Errorf("list %s: %w", source, err)
	}
	var out []Entry
	for _, l := range page.Matches {
		if len(out) == MaxListed {
			break
		}
		if l.Addr == "" || l.Check() != nil || l.Join != l.Entry.Join() || !(l.PingMS >= 0 && l.PingMS < 1e6) {
			continue
		}
		e := l.Entry
		e.Ping, e.Source = units.Duration(l.PingMS/1000), source
		out = append(out, e)
	}
	return out, nil
}

// RegisterConfig sets up a Registrar.
type RegisterConfig struct {
	// URLs are the list servers to register with (see ParseListURL).
	URLs []string
	// Status returns the entry to register now; its Addr, if set, is the address
	// to list (a fleet's public address), else the server takes the
	// registration's source IP and Port. Safe for concurrent use.
	Status func() Entry
	// Port is the host's UDP port.
	Port int
	// Certificate is the host's certificate and key (net.Host.Certificate):
	// registrations are signed with its key, which list servers check against
	// the certificate their probe finds at the address. Required.
	Certificate tls.Certificate
	// Logger receives what happens. If nil, nothing is logged.
	Logger *slog.Logger
}

// DefaultRenew is how often a registrar renews when the server does not say.
const DefaultRenew = 20 * time.Second

// Registrar keeps a hosted match listed on list servers: it registers with each at
// once and renews as often as each asks, retrying after failures, until Close.
// When renewals stop, the listing expires.
type Registrar struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	listed map[string]Registered // by URL, once listed
}

// Register starts registering.
func Register(cfg RegisterConfig) *Registrar {
	ctx, cancel := context.WithCancel(context.Background())
	r := &Registrar{cancel: cancel, listed: map[string]Registered{}}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	for _, u := range cfg.URLs {
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			r.keep(ctx, cfg, u, log)
		}()
	}
	return r
}

// Listed returns where the match is listed now, by list URL.
func (r *Registrar) Listed() map[string]Registered {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := make(map[string]Registered, len(r.listed))
	for k, v := range r.listed {
		out[k] = v
	}
	return out
}

// Close stops renewing. It is safe to call more than once.
func (r *Registrar) Close() error {
	r.cancel()
	r.wg.Wait()
	return nil
}

// keep registers with one list server and renews until ctx ends.
func (r *Registrar) keep(ctx context.Context, cfg RegisterConfig, listURL string, log *slog.Logger) {
	var token string
	wait := time.Duration(0)
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
		req := Registration{Entry: cfg.Status(), Port: cfg.Port, Token: token}
		err := SignRegistration(&req, cfg.Certificate, time.Now())
		var reg Registered
		if err == nil {
			reg, err = registerOnce(ctx, listURL, req)
		}
		if err != nil {
			if ctx.Err() != nil {
				return
			}
			failures++
			wait = min(time.Duration(failures)*5*time.Second, time.Minute)
			log.Warn("list server registration failed", "list", listURL, "err", err, "retry_in", wait)
			if errors.Is(err, errRefused) {
				token = "" // register afresh
			}
			continue
		}
		if failures > 0 || token == "" {
			log.Info("listed", "list", listURL, "addr", reg.Addr)
		}
		failures, token = 0, reg.Token
		r.mu.Lock()
		r.listed[listURL] = reg
		r.mu.Unlock()
		wait = DefaultRenew
		if reg.RenewSeconds > 0 {
			wait = time.Duration(reg.RenewSeconds) * time.Second
		}
	}
}

// errRefused is a registration the list server refused as not the host's (403).
var errRefused = errors.New("the list server refused the registration as not this host's")

// registerOnce posts reg to the list server at listURL.
func registerOnce(ctx context.Context, listURL string, reg Registration) (Registered, error) {
	base, pin, err := ParseListURL(listURL)
	if err != nil {
		return Registered{}, err
	}
	body, err := json.Marshal(reg)
	if err != nil {
		return Registered{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.String()+RegisterPath, bytes.NewReader(body))
	if err != nil {
		return Registered{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	client := ListClient(pin)
	defer client.CloseIdleConnections()
	resp, err := client.Do(req)
	if err != nil {
		return Registered{}, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
	switch {
	case resp.StatusCode == http.StatusForbidden:
		return Registered{}, fmt.Errorf("%w: %s", errRefused, strings.TrimSpace(string(b)))
	case resp.StatusCode != http.StatusOK:
		return Registered{}, fmt.Errorf("%s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	var out Registered
	if err := json.Unmarshal(b, &out); err != nil {
		return Registered{}, fmt.Errorf("answer: %w", err)
	}
	return out, nil
}
