package admission

import (
	"fmt"
	"math"
	"net/netip"
	"testing"
)

func pfx(s string) netip.Prefix { return netip.MustParsePrefix(s) }

func TestGuessLimiterPerPrefix(t *testing.T) {
	g := NewGuessLimiter(5, 5, 1, 30, 100, 0)
	a, b := pfx("10.0.0.0/24"), pfx("10.0.1.0/24")
	for i := range 5 {
		if ok, _ := g.Allow(a, 0); !ok {
			t.Fatalf("guess %d of a burst of 5 refused", i)
		}
		g.Fail(a, 0)
	}
	ok, wait := g.Allow(a, 0)
	if ok || math.Abs(wait-5) > 1e-9 {
		t.Errorf("sixth guess: allowed %v, wait %v s; want refused, wait 5 s", ok, wait)
	}
	if ok, _ := g.Allow(b, 0); !ok {
		t.Error("another prefix slowed by a's guessing")
	}
	if ok, wait := g.Allow(a, 3); ok || math.Abs(wait-2) > 1e-9 {
		t.Errorf("after 3 s: allowed %v, wait %v s; want refused, wait 2 s", ok, wait)
	}
	if ok, _ := g.Allow(a, 5); !ok {
		t.Error("after one interval the prefix has not earned a check")
	}
	g.Fail(a, 5)
	if ok, _ := g.Allow(a, 5.1); ok {
		t.Error("a second check in the same interval")
	}
}

func TestGuessLimiterGlobal(t *testing.T) {
	// A guesser spread over 40 prefixes: each gets its first guess, then the global
	// budget (burst 30, 1/s) holds all of them, but never a prefix that never failed.
	g := NewGuessLimiter(5, 5, 1, 30, 100, 0)
	checked := 0
	for range 3 {
		for i := range 40 {
			p := pfx(fmt.Sprintf("10.0.%d.0/24", i))
			if ok, _ := g.Allow(p, 0); ok {
				checked++
				g.Fail(p, 0)
			}
		}
	}
	if checked != 40 {
		t.Errorf("%d guesses checked at once from 40 prefixes, want 40 (one each; the global budget covers only 30 more and they spent it)", checked)
	}
	ok, wait := g.Allow(pfx("10.0.3.0/24"), 0.5)
	if ok || math.Abs(wait-0.5) > 1e-9 {
		t.Errorf("a failed prefix with tokens left but no global budget: allowed %v, wait %v; want refused, 0.5 s", ok, wait)
	}
	if ok, _ := g.Allow(pfx("192.168.7.0/24"), 0.5); !ok {
		t.Error("an honest prefix that never failed was slowed by the global budget")
	}
	if ok, _ := g.Allow(pfx("10.0.3.0/24"), 1); !ok {
		t.Error("no check after the global budget refilled one")
	}
}

func TestGuessLimiterLRU(t *testing.T) {
	g := NewGuessLimiter(1, 60, 100, 100, 3, 0)
	a, b, c, d, e := pfx("10.0.0.0/24"), pfx("10.0.1.0/24"), pfx("10.0.2.0/24"), pfx("10.0.3.0/24"), pfx("10.0.4.0/24")
	for _, p := range []netip.Prefix{a, b, c} {
		g.Fail(p, 0)
	}
	g.Allow(a, 1) // a is seen again: b is now the least recent
	g.Fail(d, 1)
	if g.Tracked() != 3 {
		t.Fatalf("tracking %d prefixes, want the capacity 3", g.Tracked())
	}
	for _, tc := range []struct {
		p       netip.Prefix
		allowed bool
	}{
		{a, false}, // remembered: still slowed
		{b, true},  // forgotten: starts afresh
		{c, false},
		{d, false},
	} {
		if ok, _ := g.Allow(tc.p, 2); ok != tc.allowed {
			t.Errorf("allow(%v) = %v, want %v", tc.p, ok, tc.allowed)
		}
	}
	g.Fail(e, 2) // evicts the least recent of a, c, d as seen just now: a
	if ok, _ := g.Allow(c, 2); ok {
		t.Error("a recently seen prefix was forgotten instead of the least recent")
	}
	// However many prefixes pass, the most recent guesser is never wiped.
	for i := range 1000 {
		g.Fail(pfx(fmt.Sprintf("172.16.%d.0/24", i%250)), 3)
		g.Fail(e, 3)
	}
	if ok, _ := g.Allow(e, 3); ok {
		t.Error("a guessing prefix was forgotten while it kept guessing")
	}
}
