package main

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/lobby"
	"github.com/treadline/treadline/net"
)

// ownerServer is a list server in-process with the defaults' rate limits and the
// real probe (net.Probe over the loopback), on a clock the test moves: what its
// ownership tests wait on (expiry, the memory of a failed check, renewals) is the
// clock's, and a host checks in well under its verify timeout.
func ownerServer(t *testing.T) (*manualClock, *server) {
	t.Helper()
	clk := &manualClock{at: testEpoch}
	cfg := testConfig()
	cfg.allowPrivate, cfg.now, cfg.verifyTimeout = true, clk.now, time.Second
	cfg.registerRate, cfg.registerBurst, cfg.readRate = DefaultRegisterRate, DefaultRegisterBurst, DefaultReadRate
	return clk, newServer(cfg, newMemStore(cfg.maxMatches))
}

// signed is reg signed by cert at the clock's time, as JSON.
func signed(t *testing.T, reg lobby.Registration, cert tls.Certificate, clk *manualClock) string {
	t.Helper()
	if err := lobby.SignRegistration(&reg, cert, clk.now()); err != nil {
		t.Fatal(err)
	}
	return mustJSON(reg)
}

// listedAs is the listing of fingerprint fp on s, if any.
func listedAs(s *server, fp string) (lobby.Listing, bool) {
	for _, l := range s.page().Matches {
		if l.Fingerprint == fp {
			return l, true
		}
	}
	return lobby.Listing{}, false
}

// TestNoSquatting: a registration naming a running host's address and its public
// fingerprint, under another name and player count, is refused, signed or not;
// the host's own registration lists it under its own name.
func TestNoSquatting(t *testing.T) {
	clk, s := ownerServer(t)
	h := listenHost(t)
	const src = "127.0.0.1:5000" // the host's own IP: a registration with no addr is listed there
	squat := lobby.Registration{Entry: hostEntry(h, "squatter"), Port: udpPort(h)}
	squat.Players = 7
	if status, body := serveRegistration(s, src, mustJSON(squat)); status == http.StatusOK {
		t.Errorf("an unsigned squat: %d %s", status, body)
	}
	other := otherCertificate(t)
	bySomeone := squat
	if err := lobby.SignRegistration(&bySomeone, other, clk.now()); err == nil {
		if status, body := serveRegistration(s, src, mustJSON(bySomeone)); status == http.StatusOK {
			t.Errorf("a squat signed by another key: %d %s", status, body)
		}
	}
	own := lobby.Registration{Entry: hostEntry(h, "real"), Port: udpPort(h)}
	clk.advance(time.Second)
	if status, body := serveRegistration(s, src, signed(t, own, h.Certificate(), clk)); status != http.StatusOK {
		t.Fatalf("the host's own registration: %d %s", status, body)
	}
	if e, ok := listedAs(s, h.Fingerprint()); !ok || e.Name != "real" {
		t.Errorf("listed as %+v (%v), want the host's own name", e, ok)
	}
	// Renewing the squat after the host is listed changes nothing.
	clk.advance(time.Second)
	serveRegistration(s, src, mustJSON(squat))
	serveRegistration(s, src, mustJSON(bySomeone))
	if e, ok := listedAs(s, h.Fingerprint()); !ok || e.Name != "real" || e.Players == 7 {
		t.Errorf("after a squat the listing is %+v (%v)", e, ok)
	}
}

// TestNoDenial: registrations naming a host's address with a wrong fingerprint,
// every 2 s, do not keep the host itself from being listed, nor from renewing its
// listing, for two of its lifetimes.
func TestNoDenial(t *testing.T) {
	clk, s := ownerServer(t)
	h := listenHost(t)
	const src = "127.0.0.1:5000"
	other := otherCertificate(t)
	wrong := lobby.Registration{Entry: hostEntry(h, "denier"), Port: udpPort(h)}
	wrong.Fingerprint = net.Fingerprint(other.Certificate[0])
	own := lobby.Registration{Entry: hostEntry(h, "real"), Port: udpPort(h)}
	renew := DefaultTTL / 3 // as lobby.Register renews
	for at := time.Duration(0); at < 2*DefaultTTL; at += 2 * time.Second {
		serveRegistration(s, src, signed(t, wrong, other, clk)) // the first wrong one goes first
		clk.advance(500 * time.Millisecond)
		if at%renew == 0 {
			if status, body := serveRegistration(s, src, signed(t, own, h.Certificate(), clk)); status != http.StatusOK {
				t.Fatalf("the host's registration %v after the first wrong one: %d %s", at, status, body)
			}
		}
		if e, ok := listedAs(s, h.Fingerprint()); !ok || e.Name != "real" {
			t.Fatalf("%v after the first wrong registration the host is listed as %+v (%v)", at, e, ok)
		}
		clk.advance(1500 * time.Millisecond)
	}
}

// TestRegistrationReplay: a registration signed by the host is taken once; the
// same bytes again, or older ones, are refused, and so is one signed too long ago.
func TestRegistrationReplay(t *testing.T) {
	now := time.Unix(1e9, 0)
	cfg := testConfig()
	cfg.allowPrivate, cfg.now = true, func() time.Time { return now }
	cfg.probe = func(context.Context, string, string) (time.Duration, error) { return time.Millisecond, nil }
	s := newServer(cfg, newMemStore(10))
	cert := otherCertificate(t)
	reg := lobby.Registration{Entry: lobby.Entry{Name: "m", Map: "valley", Players: 1, Capacity: 4, Version: 2,
		Fingerprint: net.Fingerprint(cert.Certificate[0])}, Port: 7000}
	sign := func(at time.Time) string {
		r := reg
		if err := lobby.SignRegistration(&r, cert, at); err != nil {
			t.Fatal(err)
		}
		return mustJSON(r)
	}
	first := sign(now)
	if status, body := serveRegistration(s, "192.0.2.1:5000", first); status != http.StatusOK {
		t.Fatalf("a signed registration: %d %s", status, body)
	}
	now = now.Add(time.Second)
	if status, _ := serveRegistration(s, "192.0.2.1:5000", first); status == http.StatusOK {
		t.Error("the same registration again was taken")
	}
	if status, _ := serveRegistration(s, "192.0.2.1:5000", sign(now.Add(-10*time.Minute))); status == http.StatusOK {
		t.Error("a registration signed 10 minutes ago was taken")
	}
	if status, body := serveRegistration(s, "192.0.2.1:5000", sign(now)); status != http.StatusOK {
		t.Errorf("a renewal: %d %s", status, body)
	}
	tampered := strings.Replace(sign(now.Add(time.Second)), `"players":1`, `"players":3`, 1)
	if status, _ := serveRegistration(s, "192.0.2.1:5000", tampered); status == http.StatusOK {
		t.Error("a registration changed after signing was taken")
	}
	var page lobby.ListPage
	json.Unmarshal([]byte(mustJSON(s.page())), &page)
	if len(page.Matches) != 1 || page.Matches[0].Players != 1 {
		t.Errorf("listed %+v", page.Matches)
	}
}

// otherCertificate is a certificate and key no host here serves.
func otherCertificate(t *testing.T) tls.Certificate {
	t.Helper()
	h, err := net.Listen(context.Background(), net.HostConfig{Addr: "127.0.0.1:0"})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	return h.Certificate()
}
