package admission

import (
	stdnet "net"
	"net/netip"
	"testing"
)

func TestAddrPrefix(t *testing.T) {
	for _, tc := range []struct {
		addr, prefix, host string
	}{
		{"127.0.0.9:1", "127.0.0.0/24", "127.0.0.9/32"},
		{"[::ffff:10.1.2.3]:7", "10.1.2.0/24", "10.1.2.3/32"},
		{"[2001:db8:1:2:3:4:5:6]:7", "2001:db8:1:2::/64", "2001:db8:1:2:3:4:5:6/128"},
	} {
		a, err := stdnet.ResolveUDPAddr("udp", tc.addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := Prefix(a); got != netip.MustParsePrefix(tc.prefix) {
			t.Errorf("Prefix(%s) = %v, want %s", tc.addr, got, tc.prefix)
		}
		if got := Host(a); got != netip.MustParsePrefix(tc.host) {
			t.Errorf("Host(%s) = %v, want %s", tc.addr, got, tc.host)
		}
	}
	if got := Prefix(&stdnet.TCPAddr{}); got.IsValid() {
		t.Errorf("Prefix of a TCP address = %v, want the zero prefix", got)
	}
}

func TestEvictingSet(t *testing.T) {
	a, b := netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("10.0.1.0/24")
	s := NewEvictingSet[int](4, 2)
	type step struct {
		x       int
		p       netip.Prefix
		evicted int // 0: none
	}
	c, d := netip.MustParsePrefix("10.0.2.0/24"), netip.MustParsePrefix("10.0.3.0/24")
	for i, st := range []step{
		{1, b, 0}, {2, a, 0}, {3, a, 0}, {4, c, 0},
		{5, d, 2}, // set full: the oldest of the prefix holding the most, not the oldest overall
		{6, a, 1}, // set full, every prefix holding one: the oldest overall
		{7, a, 3}, // prefix a full: its oldest goes
	} {
		ev, ok := s.Add(st.x, st.p)
		if (st.evicted != 0) != ok || (ok && ev != st.evicted) {
			t.Errorf("step %d: add(%d) evicted %d (%v), want %d", i, st.x, ev, ok, st.evicted)
		}
	}
	if s.Len() != 4 || s.Count(a) != 2 || s.Count(b) != 0 {
		t.Errorf("len %d, a %d, b %d; want 4, 2, 0", s.Len(), s.Count(a), s.Count(b))
	}
	if !s.Remove(6) || s.Remove(6) || s.Count(a) != 1 {
		t.Errorf("remove(6) twice: count(a) = %d", s.Count(a))
	}
}
