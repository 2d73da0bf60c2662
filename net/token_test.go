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
