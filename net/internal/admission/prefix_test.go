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

func TestPrefixCaps(t *testing.T) {
	a, b := netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("10.0.1.0/24")
	c := NewCaps(3, 2)
	steps := []struct {
		p       netip.Prefix
		release bool
		want    Hit
	}{
		{a, false, HitNone},
		{a, false, HitNone},
		{a, false, HitPrefix},
		{b, false, HitNone},
		{b, false, HitTotal},
		{a, true, HitNone},
		{b, false, HitNone},
		{b, false, HitTotal},
	}
	for i, s := range steps {
		if s.release {
			c.Release(s.p)
			continue
		}
		if got := c.Acquire(s.p); got != s.want {
			t.Errorf("step %d: acquire(%v) = %v, want %v", i, s.p, got, s.want)
		}
	}
	if c.Total() != 3 || c.Count(a) != 1 || c.Count(b) != 2 {
		t.Errorf("total %d, a %d, b %d; want 3, 1, 2", c.Total(), c.Count(a), c.Count(b))
	}
	c.Release(netip.MustParsePrefix("10.9.9.0/24")) // never held: no effect
	if c.Total() != 3 {
		t.Errorf("releasing an unknown prefix changed the total to %d", c.Total())
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
	for i, st := range []step{
		{1, a, 0}, {2, a, 0},
		{3, a, 1}, // prefix a full: its oldest goes
		{4, b, 0}, {5, b, 0},
		{6, a, 2}, // a full again: its oldest is 2 (1 is gone)
		{7, netip.MustParsePrefix("10.0.2.0/24"), 3}, // set full: the oldest overall
	} {
		ev, ok := s.Add(st.x, st.p)
		if (st.evicted != 0) != ok || (ok && ev != st.evicted) {
			t.Errorf("step %d: add(%d) evicted %d (%v), want %d", i, st.x, ev, ok, st.evicted)
		}
	}
	if s.Len() != 4 || s.Count(a) != 1 || s.Count(b) != 2 {
		t.Errorf("len %d, a %d, b %d; want 4, 1, 2", s.Len(), s.Count(a), s.Count(b))
	}
	if !s.Remove(6) || s.Remove(6) || s.Count(a) != 0 {
		t.Errorf("remove(6) twice: count(a) = %d", s.Count(a))
	}
}
