package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	stdnet "net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/cmd/internal/clitest"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/lobby"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// startList runs tanklist in this process on a loopback port and returns its URL.
func startList(t *testing.T, extra ...string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	urls := make(chan string, 1)
	done := make(chan error, 1)
	args := append([]string{"-listen", "127.0.0.1:0", "-allow-private", "-identity", filepath.Join(t.TempDir(), "list.pem"),
		"-log-level", "warn", "-verify-timeout", "1s"}, extra...)
	go func() { done <- run(ctx, args, io.Discard, func(u string) { urls <- u }) }()
	t.Cleanup(func() { cancel(); <-done })
	select {
	case u := <-urls:
		return u
	case err := <-done:
		t.Fatalf("tanklist: %v", err)
	}
	return ""
}

// hostEntry is the entry of a match h hosts.
func hostEntry(h *net.Host, name string) lobby.Entry {
	return lobby.Entry{Name: name, Map: h.Match().Map, Players: h.Stats().Players, Capacity: net.DefaultMaxPlayers,
		Version: int(wire.Version), Fingerprint: h.Fingerprint()}
}

func listenHost(t *testing.T) *net.Host {
	t.Helper()
	h, err := net.Listen(context.Background(), net.HostConfig{Addr: "127.0.0.1:0", Match: net.MatchSettings{Map: "dunes"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

// waitListed polls the list until match holds for one of its entries.
func waitListed(t *testing.T, listURL string, match func(lobby.Entry) bool) lobby.Entry {
	t.Helper()
	var found lobby.Entry
	poll.Until(t, 10*time.Second, "listed", func() bool {
		entries, err := lobby.FetchList(context.Background(), listURL)
		if err != nil && strings.Contains(err.Error(), "429") {
			return false // polled faster than the read rate
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if match(e) {
				found = e
				return true
			}
		}
		return false
	})
	return found
}

// TestFindThroughListAndJoin: a host registers, the list server checks it and lists
// it, a client reads the list and joins the match it finds there.
func TestFindThroughListAndJoin(t *testing.T) {
	listURL := startList(t)
	h := listenHost(t)
	r := lobby.Register(lobby.RegisterConfig{URLs: []string{listURL}, Port: udpPort(h), Certificate: h.Certificate(),
		Status: func() lobby.Entry { return hostEntry(h, "listed") }})
	defer r.Close()
	e := waitListed(t, listURL, func(e lobby.Entry) bool { return e.Fingerprint == h.Fingerprint() })
	if e.Addr != h.Addr().String() || e.Name != "listed" || e.Map != "dunes" || e.Ping <= 0 || e.Source == "" {
		t.Errorf("listed %+v (ping %v, from %q), want it at %s", e, e.Ping, e.Source, h.Addr())
	}
	addr, fp, err := net.SplitJoin(e.Join())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := net.Dial(ctx, net.ClientConfig{Addr: addr, Fingerprint: fp, Name: "finder", KnownHosts: "-"})
	if err != nil {
		t.Fatalf("join the listed match: %v", err)
	}
	c.Close()
}

func udpPort(h *net.Host) int { return h.Addr().(*stdnet.UDPAddr).Port }

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func mustAddr(s string) netip.Addr { return netip.MustParseAddr(s) }

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// TestHostileRegistrations: what the list server is sent is hostile; it answers
// each bad registration with a 4xx, lists none of them, and limits each source.
// The server runs in-process with the defaults' rate limits and the real probe,
// on a clock the test holds still, so no token comes back while the burst is spent.
func TestHostileRegistrations(t *testing.T) {
	clk, s := ownerServer(t)
	h := listenHost(t)
	const src = "127.0.0.1:5000"
	good := lobby.Registration{Entry: hostEntry(h, "ok"), Port: udpPort(h)}
	enc := func(r lobby.Registration) string { return signed(t, r, h.Certificate(), clk) }
	with := func(f func(*lobby.Registration)) string { r := good; f(&r); return enc(r) }
	for _, c := range []struct {
		name, body string
		status     int
	}{
		{"not JSON", "hello", 400},
		{"two values", enc(good) + enc(good), 400},
		{"unknown field", strings.Replace(enc(good), `{`, `{"admin":true,`, 1), 400},
		{"oversized", `{"name":"` + strings.Repeat("x", 5000) + `"}`, 400},
		{"bad fingerprint", with(func(r *lobby.Registration) { r.Fingerprint = "zz" }), 400},
		{"no port", with(func(r *lobby.Registration) { r.Port = 0 }), 400},
		{"multicast address", with(func(r *lobby.Registration) { r.Addr = "224.0.0.1:7777" }), 400},
		{"control characters", with(func(r *lobby.Registration) { r.Name = "a\x1b[2Jb" }), 400},
		{"nobody answers there", with(func(r *lobby.Registration) { r.Addr = "127.0.0.1:9" }), 422},
		{"another fingerprint", with(func(r *lobby.Registration) { r.Fingerprint = strings.Repeat("ab", 32) }), 403},
	} {
		if status, body := serveRegistration(s, src, c.body); status != c.status {
			t.Errorf("%s: %d %q, want %d", c.name, status, body, c.status)
		}
	}
	if m := s.page().Matches; len(m) != 0 {
		t.Errorf("after hostile registrations the list holds %+v", m)
	}
	// The source's burst is spent by now: the next ones are turned away.
	limited := 0
	for range 20 {
		if status, _ := serveRegistration(s, src, enc(good)); status == http.StatusTooManyRequests {
			limited++
		}
	}
	if limited == 0 {
		t.Error("no registration was rate-limited")
	}
}

// TestPublicListRefusesPrivate: a public list refuses loopback and private
// addresses, so that registrations cannot make it probe the networks around it.
func TestPublicListRefusesPrivate(t *testing.T) {
	cfg := config{ttl: time.Minute, maxMatches: 10, registerRate: 100, registerBurst: 100, readRate: 100,
		verifyTimeout: time.Second, reverify: time.Hour, now: time.Now, log: discard()}
	s := newServer(cfg, newMemStore(10))
	for _, a := range []string{"127.0.0.1:7777", "10.1.2.3:7777", "192.168.1.2:7777", "169.254.1.1:7777", "[fe80::1]:7777"} {
		reg := lobby.Registration{Entry: lobby.Entry{Addr: a}}
		if _, err := s.listAddr(reg, mustAddr("203.0.113.9")); err == nil {
			t.Errorf("%s accepted by a public list", a)
		} else if !strings.Contains(err.Error(), "-allow-private") {
			t.Errorf("%s refused with %q, which does not name -allow-private", a, err)
		}
	}
	if got, err := s.listAddr(lobby.Registration{Port: 7777}, mustAddr("8.8.4.4")); err != nil || got != "8.8.4.4:7777" {
		t.Errorf("the source's own address: %q, %v", got, err)
	}
}

// TestListingLifecycle: a listing expires without renewals, a renewal needs the
// token, the store holds at most its maximum; on a clock the test moves.
func TestListingLifecycle(t *testing.T) {
	now := time.Unix(1e9, 0)
	probes := 0
	cfg := config{ttl: time.Minute, maxMatches: 2, registerRate: 100, registerBurst: 100, readRate: 100,
		verifyTimeout: time.Second, reverify: 10 * time.Minute, allowPrivate: true, now: func() time.Time { return now }, log: discard(),
		probe: func(context.Context, string, string) (time.Duration, error) {
			probes++
			return 5 * time.Millisecond, nil
		}}
	s := newServer(cfg, newMemStore(cfg.maxMatches))
	reg := func(port int, token string) (int, lobby.Registered) {
		cert := testCertificate(t)
		e := lobby.Entry{Name: "m", Map: "valley", Players: 1, Capacity: 4, Version: 2, Fingerprint: net.Fingerprint(cert.Certificate[0])}
		r := lobby.Registration{Entry: e, Port: port, Token: token}
		lobby.SignRegistration(&r, cert, now)
		body, _ := json.Marshal(r)
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(http.MethodPost, lobby.RegisterPath, strings.NewReader(string(body)))
		req.RemoteAddr = "192.0.2.1:5000"
		s.ServeHTTP(rec, req)
		var out lobby.Registered
		json.Unmarshal(rec.Body.Bytes(), &out)
		return rec.Code, out
	}
	status, first := reg(7000, "")
	if status != 200 || first.Token == "" || first.TTLSeconds != 60 || first.RenewSeconds != 20 {
		t.Fatalf("registration: %d %+v", status, first)
	}
	now = now.Add(50 * time.Second)
	if status, again := reg(7000, first.Token); status != 200 || again.Token != first.Token || probes != 1 {
		t.Errorf("renewal: %d %+v after %d checks", status, again, probes)
	}
	reg(7001, "")
	if status, _ := reg(7002, ""); status != http.StatusServiceUnavailable {
		t.Errorf("a third match in a list of two: %d, want 503", status)
	}
	now = now.Add(61 * time.Second)
	if n := len(s.page().Matches); n != 0 {
		t.Errorf("%d listings 61 s after their last renewal", n)
	}
	if status, _ := reg(7002, ""); status != 200 {
		t.Errorf("a new match once the others expired: %d", status)
	}
	// An address that failed its check is not checked again for a minute.
	s.cfg.probe = func(context.Context, string, string) (time.Duration, error) { probes++; return 0, errors.New("nobody") }
	before := probes
	for range 3 {
		if status, _ := reg(7003, ""); status != http.StatusUnprocessableEntity {
			t.Errorf("an address that does not answer: %d, want 422", status)
		}
	}
	if probes != before+1 {
		t.Errorf("%d checks of the same failing address within a minute, want 1", probes-before)
	}
}

// TestPageEscapes: names are text on the page, never markup.
func TestPageEscapes(t *testing.T) {
	cfg := testConfig()
	cfg.maxMatches, cfg.registerRate, cfg.registerBurst = 10, 1, 1
	store := newMemStore(10)
	store.Put(record{Listing: lobby.Listing{Entry: lobby.Entry{Name: `<script>alert(1)</script>`, Map: "valley",
		Players: 1, Capacity: 8, Version: 2, Fingerprint: strings.Repeat("ef", 32), Addr: "192.0.2.3:7777"},
		Join: "192.0.2.3:7777#" + strings.Repeat("ef", 32), PingMS: 12.4}, Expires: testEpoch.Add(time.Minute)}, testEpoch)
	s := newServer(cfg, store)
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/", nil)
	req.RemoteAddr = "192.0.2.1:5000"
	s.ServeHTTP(rec, req)
	page := rec.Body.String()
	if strings.Contains(page, "<script>") || !strings.Contains(page, "&lt;script&gt;") {
		t.Errorf("the name is not escaped:\n%s", page)
	}
	for _, want := range []string{"tanks -join 192.0.2.3:7777#" + strings.Repeat("ef", 32), "12 ms", "1 / 8", "valley"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}

func FuzzDecodeRegistration(f *testing.F) {
	e := lobby.Entry{Name: "m", Map: "valley", Players: 1, Capacity: 4, Version: 2, Fingerprint: strings.Repeat("cd", 32)}
	b, _ := json.Marshal(lobby.Registration{Entry: e, Port: 7777, Token: "abc"})
	f.Add(b)
	f.Add([]byte(`{"addr":"192.0.2.1:1","fleet":true}`))
	f.Add([]byte(`{"name":"\u0000"}`))
	f.Add([]byte(`{"name":"m","map":"\u200b","players":1,"capacity":4,"version":2,"fingerprint":"` + strings.Repeat("cd", 32) + `","port":1}`))
	cert := testCertificate(f)
	signed := lobby.Registration{Entry: e, Port: 7777}
	signed.Fingerprint = net.Fingerprint(cert.Certificate[0])
	lobby.SignRegistration(&signed, cert, time.Now())
	f.Add([]byte(mustJSON(signed)))
	f.Fuzz(func(t *testing.T, b []byte) {
		reg, err := decodeRegistration(strings.NewReader(string(b)))
		if err != nil {
			return
		}
		if len(b) > lobby.MaxRegistrationBytes || len(reg.Token) > 64 {
			t.Fatalf("decoded %d bytes with a %d-byte token", len(b), len(reg.Token))
		}
		if reg.Entry.Check() == nil {
			reg.Verify(time.Now()) // must not panic
			if ap, err := lobby.ParseAddr(reg.Addr); err == nil && probeable(ap.Addr(), false) == nil && !ap.Addr().IsGlobalUnicast() {
				t.Fatalf("would probe %s", ap.Addr())
			}
			if again, err := decodeRegistration(strings.NewReader(mustJSON(reg))); err != nil || !reflect.DeepEqual(again, reg) {
				t.Fatalf("re-encoded %+v: %+v, %v", reg, again, err)
			}
		}
	})
}
