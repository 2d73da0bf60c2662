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

// TestNoSquatting: a registration naming a running host's address and its public
// fingerprint, under another name and player count, is refused, signed or not;
// the host's own registration lists it under its own name.
func TestNoSquatting(t *testing.T) {
	listURL := startList(t)
	h := listenHost(t)
	squat := lobby.Registration{Entry: hostEntry(h, "squatter"), Port: udpPort(h)}
	squat.Players = 7
	if status, body := post(t, listURL, mustJSON(squat)); status == http.StatusOK {
		t.Errorf("an unsigned squat: %d %s", status, body)
	}
	other := otherCertificate(t)
	signed := squat
	if err := lobby.SignRegistration(&signed, other, time.Now()); err == nil {
		if status, body := post(t, listURL, mustJSON(signed)); status == http.StatusOK {
			t.Errorf("a squat signed by another key: %d %s", status, body)
		}
	}
	r := lobby.Register(lobby.RegisterConfig{URLs: []string{listURL}, Port: udpPort(h), Certificate: h.Certificate(),
		Status: func() lobby.Entry { return hostEntry(h, "real") }})
	defer r.Close()
	e := waitListed(t, listURL, func(e lobby.Entry) bool { return e.Fingerprint == h.Fingerprint() })
	if e.Name != "real" {
		t.Errorf("listed as %q, want the host's own name", e.Name)
	}
	// Renewing the squat after the host is listed changes nothing.
	post(t, listURL, mustJSON(squat))
	if e := waitListed(t, listURL, func(e lobby.Entry) bool { return e.Fingerprint == h.Fingerprint() }); e.Name != "real" || e.Players == 7 {
		t.Errorf("after a squat the listing is %+v", e)
	}
}

// TestNoDenial: registrations naming a host's address with a wrong fingerprint,
// every 2 s, do not keep the host itself from being listed.
func TestNoDenial(t *testing.T) {
	listURL := startList(t)
	h := listenHost(t)
	wrong := lobby.Registration{Entry: hostEntry(h, "denier"), Port: udpPort(h)}
	other := otherCertificate(t)
	wrong.Fingerprint = net.Fingerprint(other.Certificate[0])
	lobby.SignRegistration(&wrong, other, time.Now())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			w := wrong
			lobby.SignRegistration(&w, other, time.Now())
			post(t, listURL, mustJSON(w))
			select {
			case <-ctx.Done():
			case <-time.After(2 * time.Second):
			}
		}
	}()
	time.Sleep(500 * time.Millisecond) // the first wrong one goes first
	start := time.Now()
	r := lobby.Register(lobby.RegisterConfig{URLs: []string{listURL}, Port: udpPort(h), Certificate: h.Certificate(),
		Status: func() lobby.Entry { return hostEntry(h, "real") }})
	defer r.Close()
	waitListed(t, listURL, func(e lobby.Entry) bool { return e.Fingerprint == h.Fingerprint() && e.Name == "real" })
	t.Logf("listed %v after the host registered, under a wrong registration every 2 s", time.Since(start).Round(time.Millisecond))
	cancel()
	<-done
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
