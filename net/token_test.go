package net

import "testing"

func TestReconnectToken(t *testing.T) {
	a, b := newReconnectToken(), newReconnectToken()
	if a == (ReconnectToken{}) || a == b {
		t.Fatalf("tokens %x and %x: want random, non-zero and distinct", a, b)
	}
	flipped := a
	flipped[15] ^= 1
	for _, tc := range []struct {
		name      string
		held, got ReconnectToken
		want      bool
	}{
		{"same token", a, a, true},
		{"another token", a, b, false},
		{"one bit off", a, flipped, false},
		{"no token presented", a, ReconnectToken{}, false},
		{"zero matches nothing, not even zero", ReconnectToken{}, ReconnectToken{}, false},
	} {
		if got := tc.held.matches(tc.got); got != tc.want {
			t.Errorf("%s: matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestTokenMemory(t *testing.T) {
	m := newTokenMemory(600, 3)
	a, b, c, d := newReconnectToken(), newReconnectToken(), newReconnectToken(), newReconnectToken()
	m.remember("ann", a, 0)
	m.remember("bob", b, 1)
	m.remember("cid", c, 2)
	for _, tc := range []struct {
		name string
		tok  ReconnectToken
		now  float64
		want bool
	}{
		{"ann", a, 10, true},
		{"ann", b, 10, false}, // bob's token for ann's name
		{"bob", b, 601, true},
		{"ann", a, 600.5, false}, // expired
		{"dan", d, 10, false},
	} {
		if got := m.knows(tc.name, tc.tok, tc.now); got != tc.want {
			t.Errorf("knows(%s, …, %v) = %v, want %v", tc.name, tc.now, got, tc.want)
		}
	}
	m.remember("ann", d, 20) // a new session: the old token no longer counts
	if m.knows("ann", a, 21) || !m.knows("ann", d, 21) {
		t.Error("a new session's token did not replace the old one")
	}
	m.remember("dan", d, 30) // full: the oldest (bob, given at 1) goes
	if m.knows("bob", b, 31) || !m.knows("cid", c, 31) || !m.knows("dan", d, 31) || len(m.byName) != 3 {
		t.Errorf("after overflow: %d names; bob %v cid %v dan %v", len(m.byName),
			m.knows("bob", b, 31), m.knows("cid", c, 31), m.knows("dan", d, 31))
	}
}
