package net

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestIdentityKept: an identity file made once gives the same certificate on every
// load, a host listening with it presents that fingerprint, and rotating replaces it.
func TestIdentityKept(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "sub", "host-identity.pem")
		now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
		first, created, err := LoadIdentity(path, false, now)
		if err != nil || !created {
			t.Fatalf("first load: created %v, %v", created, err)
		}
		again, created, err := LoadIdentity(path, false, now.Add(time.Hour))
		if err != nil || created {
			t.Fatalf("second load: created %v, %v", created, err)
		}
		fp := Fingerprint(first.Certificate[0])
		if Fingerprint(again.Certificate[0]) != fp {
			t.Errorf("reloaded identity has another fingerprint")
		}
		h := simHost(t, HostConfig{Certificate: &again})
		if h.Fingerprint() != fp {
			t.Errorf("host presents %s, its identity is %s", h.Fingerprint(), fp)
		}
		c := testClient(t, h, ClientConfig{Name: "pinned", Fingerprint: fp})
		c.Close()
		rotated, created, err := LoadIdentity(path, true, now)
		if err != nil || !created || Fingerprint(rotated.Certificate[0]) == fp {
			t.Errorf("rotate: created %v, same fingerprint %v, %v", created, Fingerprint(rotated.Certificate[0]) == fp, err)
		}
		if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, _, err := LoadIdentity(path, false, now); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("damaged file: %v, want an error naming it", err)
		}
		if b, _ := os.ReadFile(path); string(b) != "garbage" {
			t.Error("a damaged identity file was replaced without being asked to")
		}
	})
}
