package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"log/slog"
	"math/big"
	stdnet "net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/treadline/treadline/lobby"
	"github.com/treadline/treadline/net"
)

// testEpoch is the time on the clocks of the tests that call the list server
// in-process: its handler reads the clock it is given (config.now), so they
// sign their registrations at testEpoch and move the clock themselves.
var testEpoch = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

// testConfig is a list server's configuration for tests that call it in-process,
// its clock stopped at testEpoch.
func testConfig() config {
	return config{ttl: time.Minute, maxMatches: 100, registerRate: 100, registerBurst: 100, readRate: 100,
		verifyTimeout: DefaultVerifyTimeout, reverify: DefaultReverify, now: func() time.Time { return testEpoch }, log: discard()}
}

// manualClock is a list server's clock that the test moves (config.now).
type manualClock struct {
	mu sync.Mutex
	at time.Time
}

func (c *manualClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.at }

func (c *manualClock) advance(d time.Duration) { c.mu.Lock(); defer c.mu.Unlock(); c.at = c.at.Add(d) }

// serveRegistration posts body to s as if from src and returns the status and body.
func serveRegistration(s *server, src, body string) (int, string) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodPost, lobby.RegisterPath, strings.NewReader(body))
	req.RemoteAddr = src
	s.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

// TestPublicListRefusesSpecial: a public list probes only global unicast
// addresses; a list with -allow-private also private ones, and still never the
// addresses no host can have or that reach elsewhere (NAT64, 6to4, zones).
func TestPublicListRefusesSpecial(t *testing.T) {
	never := []string{"0.1.2.3", "192.0.0.170", "240.0.0.1", "255.255.255.255", "[64:ff9b::a00:1]",
		"[64:ff9b:1::1]", "[2002:a00:1::1]", "[fec0::1]", "[::10.0.0.1]", "[100::1]", "[fe80::1%eth0]",
		"[2001::1]", "192.88.99.1"}
	private := []string{"127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.2", "169.254.169.254",
		"100.64.0.1", "100.100.100.200", "198.18.0.1", "198.19.255.254", "[fc00::1]", "[fe80::1]", "[::1]",
		"192.0.2.1", "[2001:db8::1]"}
	public := []string{"8.8.8.8", "1.1.1.1", "[2606:4700::1111]", "100.128.0.1", "198.20.0.1"}
	for _, allowPrivate := range []bool{false, true} {
		cfg := testConfig()
		cfg.allowPrivate = allowPrivate
		s := newServer(cfg, newMemStore(10))
		check := func(ip string, ok bool) {
			_, err := s.listAddr(lobby.Registration{Entry: lobby.Entry{Addr: ip + ":7777"}}, mustAddr("8.8.4.4"))
			if (err == nil) != ok {
				t.Errorf("allow-private %v: %s: %v, want ok %v", allowPrivate, ip, err, ok)
			}
		}
		for _, a := range never {
			check(a, false)
		}
		for _, a := range private {
			check(a, allowPrivate)
		}
		for _, a := range public {
			check(a, true)
		}
	}
	s := newServer(testConfig(), newMemStore(10))
	if _, err := s.listAddr(lobby.Registration{Entry: lobby.Entry{Addr: "127.0.0.1:7777"}}, mustAddr("8.8.4.4")); err == nil || !strings.Contains(err.Error(), "-allow-private") {
		t.Errorf("127.0.0.1 refused with %v, want a sentence naming -allow-private", err)
	}
}

// TestProbeFailureGeneric: the answer to a registration whose check failed says
// so in one generic sentence, whatever the reason (which the log keeps): the list
// is no oracle of what answers where.
func TestProbeFailureGeneric(t *testing.T) {
	var log bytes.Buffer
	cfg := testConfig()
	cfg.allowPrivate, cfg.log = true, slog.New(slog.NewTextHandler(&log, nil))
	reasons := []string{"connection refused", "timeout: no recent network activity", "certificate 1234, pinned abcd"}
	var n atomic.Int32
	cfg.probe = func(context.Context, string, string) (time.Duration, error) {
		return 0, errors.New(reasons[int(n.Add(1)-1)%len(reasons)])
	}
	s := newServer(cfg, newMemStore(10))
	var bodies []string
	for i := range reasons {
		status, body := serveRegistration(s, "192.0.2.1:5000", registrationBody(t, 7000+i))
		if status != http.StatusUnprocessableEntity {
			t.Fatalf("%d %q, want 422", status, body)
		}
		bodies = append(bodies, body)
	}
	for i, b := range bodies {
		if b != bodies[0] || strings.Contains(b, reasons[i]) {
			t.Errorf("answer %d %q: tells the reason, or differs from %q", i, b, bodies[0])
		}
		if !strings.Contains(log.String(), reasons[i]) {
			t.Errorf("the log lacks the reason %q", reasons[i])
		}
	}
}

// TestProbePerTarget: registrations from many sources naming one target IP (any
// ports) make the list probe it a few times a minute, not once per registration.
func TestProbePerTarget(t *testing.T) {
	cfg := testConfig()
	cfg.allowPrivate = true
	var probes atomic.Int32
	cfg.probe = func(context.Context, string, string) (time.Duration, error) {
		probes.Add(1)
		return 0, errors.New("nobody")
	}
	s := newServer(cfg, newMemStore(10))
	for i := range 200 {
		src := stdnet.JoinHostPort(stdnet.IPv4(192, 0, 2, byte(i)).String(), "5000")
		serveRegistration(s, src, registrationBody(t, 1000+i, "198.51.100.7"))
	}
	if n := probes.Load(); n > probesPerTargetBurst {
		t.Errorf("%d probes of one target from 200 registrations, want at most %d", n, probesPerTargetBurst)
	}
}

// TestProbeSmall: a probe of an address where nothing answers sends a few
// datagrams, a fixed budget, whatever the time it is given.
func TestProbeSmall(t *testing.T) {
	pc, err := stdnet.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	var datagrams, bytes atomic.Int64
	go func() {
		buf := make([]byte, 2048)
		for {
			n, _, err := pc.ReadFrom(buf)
			if err != nil {
				return
			}
			datagrams.Add(1)
			bytes.Add(int64(n))
		}
	}()
	cfg := testConfig()
	cfg.allowPrivate = true
	s := newServer(cfg, newMemStore(10))
	start := time.Now()
	status, _ := serveRegistration(s, "192.0.2.1:5000", registrationBody(t, 0, pc.LocalAddr().String()))
	time.Sleep(200 * time.Millisecond)
	t.Logf("probe of a silent address: %d datagrams, %d bytes, in %v (answer %d)", datagrams.Load(), bytes.Load(),
		time.Since(start).Round(time.Millisecond), status)
	if d, b := datagrams.Load(), bytes.Load(); d > maxProbeDatagrams || b > maxProbeBytes {
		t.Errorf("a probe sent %d datagrams, %d bytes; want at most %d, %d", d, b, maxProbeDatagrams, maxProbeBytes)
	}
}

// registrationBody is a registration of a match on port, at addr when given
// (an IP, or an IP and port), else at the source's IP, signed at testEpoch.
func registrationBody(t testing.TB, port int, addr ...string) string {
	t.Helper()
	cert := testCertificate(t)
	reg := lobby.Registration{Entry: lobby.Entry{Name: "m", Map: "valley", Players: 1, Capacity: 4, Version: 2,
		Fingerprint: net.Fingerprint(cert.Certificate[0])}, Port: port}
	if len(addr) > 0 {
		reg.Addr = addr[0]
		if ip, err := netip.ParseAddr(addr[0]); err == nil {
			reg.Addr = netip.AddrPortFrom(ip, uint16(port)).String()
		}
	}
	if err := lobby.SignRegistration(&reg, cert, testEpoch); err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(reg)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var (
	certOnce sync.Once
	certTest tls.Certificate
)

// testCertificate is a host's certificate and key for tests, made once, valid
// around testEpoch and today alike (the TLS tests serve it on real sockets).
func testCertificate(t testing.TB) tls.Certificate {
	certOnce.Do(func() {
		key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			panic(err)
		}
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), NotBefore: testEpoch.AddDate(-10, 0, 0), NotAfter: testEpoch.AddDate(10, 0, 0)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			panic(err)
		}
		certTest = tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	})
	return certTest
}
