package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/treadline/treadline/cmd/tankhost/internal/agones"
	"github.com/treadline/treadline/cmd/tankhost/internal/agones/agonestest"
	"github.com/treadline/treadline/lobby"
)

// fakeList is a list server that keeps what it is sent and lists everything.
type fakeList struct {
	url  string
	mu   sync.Mutex
	regs []lobby.Registration
}

func startFakeList(t *testing.T) *fakeList {
	t.Helper()
	f := &fakeList{}
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reg lobby.Registration
		if r.URL.Path != lobby.RegisterPath || json.NewDecoder(r.Body).Decode(&reg) != nil {
			http.Error(w, "no", http.StatusBadRequest)
			return
		}
		f.mu.Lock()
		f.regs = append(f.regs, reg)
		f.mu.Unlock()
		json.NewEncoder(w).Encode(lobby.Registered{Addr: reg.Addr, Token: "t", RenewSeconds: 1, TTLSeconds: 3})
	}))
	t.Cleanup(srv.Close)
	sum := sha256.Sum256(srv.Certificate().Raw)
	f.url = srv.URL + "#" + hex.EncodeToString(sum[:])
	return f
}

// last returns the latest registration, waiting for one.
func (f *fakeList) last(t *testing.T) lobby.Registration {
	t.Helper()
	var reg lobby.Registration
	poll(t, "a registration", func() bool {
		f.mu.Lock()
		defer f.mu.Unlock()
		if len(f.regs) == 0 {
			return false
		}
		reg = f.regs[len(f.regs)-1]
		return true
	})
	return reg
}

// TestListRegistration: with -list, tankhost registers its match, by the address its
// registration comes from; a fleet's game server registers the public address its
// fleet gives it, marked as a fleet's.
func TestListRegistration(t *testing.T) {
	t.Run("host", func(t *testing.T) {
		list := startFakeList(t)
		h := startHost(t, []string{"-bots", "0", "-pass", "x", "-list", list.url}, nil)
		reg := list.last(t)
		if reg.Addr != "" || reg.Port == 0 || !strings.HasSuffix(h.addr, ":"+itoa(reg.Port)) || reg.Fingerprint != h.fp ||
			!reg.Passphrase || reg.Fleet || reg.Map != "test" {
			t.Errorf("registration %+v for the host at %s", reg, h.addr)
		}
	})
	t.Run("fleet", func(t *testing.T) {
		list := startFakeList(t)
		side := agonestest.New(t, "198.51.100.7", PortName, 7402)
		t.Setenv(agones.PortEnv, side.Port())
		h := startHost(t, []string{"-bots", "0", "-agones", "-list", list.url}, nil)
		reg := list.last(t)
		if reg.Addr != "198.51.100.7:7402" || !reg.Fleet || reg.Fingerprint != h.fp {
			t.Errorf("fleet registration %+v, want the public address 198.51.100.7:7402", reg)
		}
	})
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestMatchName: a host names its match by -name, or by the machine's host name and
// its port, so that two hosts of one machine read apart in the lists.
func TestMatchName(t *testing.T) {
	for _, c := range []struct {
		name, hostname string
		port           int
		want           string
	}{
		{"", "mybox", 7777, "mybox:7777"},
		{"", "mybox", 7778, "mybox:7778"},
		{"", "mybox.example.org", 7777, "mybox:7777"},
		{"", strings.Repeat("a", 40), 7777, strings.Repeat("a", 27) + ":7777"},
		{"", "", 7777, "tankhost:7777"},
		{"", "bad\x00host", 7777, "tankhost:7777"},
		{"arena", "mybox", 7777, "arena"},
	} {
		if got := matchName(c.name, c.hostname, c.port); got != c.want {
			t.Errorf("matchName(%q, %q, %d) = %q, want %q", c.name, c.hostname, c.port, got, c.want)
		}
	}
}
