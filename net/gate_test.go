package net

import (
	"context"
	stdnet "net"
	"net/netip"
	"sync"
	"testing"
	"time"

	"github.com/quic-go/quic-go"
)

// gateListener runs a bare QUIC listener on loopback behind a handshake gate, with
// the host's certificate setup, accepting and holding every connection.
func gateListener(t *testing.T, g *handshakeGate, idle time.Duration) stdnet.Addr {
	t.Helper()
	pc, err := stdnet.ListenUDP("udp", &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := selfSigned(time.Now())
	if err != nil {
		t.Fatal(err)
	}
	tr := &quic.Transport{Conn: pc}
	g.install(tr)
	ln, err := tr.Listen(hostTLS(cert), &quic.Config{HandshakeIdleTimeout: idle})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			conn, err := ln.Accept(context.Background())
			if err != nil {
				return
			}
			g.accepted(conn)
		}
	}()
	t.Cleanup(func() { ln.Close(); tr.Close(); pc.Close(); <-done })
	return pc.LocalAddr()
}

// waitUntil polls cond every 5 ms for up to d and reports whether it held.
func waitUntil(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(5 * time.Millisecond)
	}
	return true
}

func TestGateRetryAndCaps(t *testing.T) {
	checkNoLeaks(t)
	for _, tc := range []struct {
		name                     string
		retryAbove, total, per   int
		hellos                   int
		followRetry, forged      bool
		wantInFlight             int
		wantRetries, wantRefused uint64
	}{
		{"hellos below the Retry threshold start handshakes", 100, 100, 100, 3, false, false, 3, 0, 0},
		{"forged Initials below the threshold cost a handshake each", 100, 100, 100, 3, false, true, 3, 0, 0},
		{"past the threshold, hellos get a Retry and no state", 2, 100, 100, 5, false, false, 2, 3, 0},
		{"forged Initials past the threshold get a Retry", 1, 100, 100, 4, false, true, 1, 3, 0},
		{"Retry always: a client that follows it gets in", 0, 100, 100, 3, true, false, 3, 3, 0},
		{"per-prefix cap refuses past it", 100, 100, 2, 5, false, false, 2, 0, 3},
		{"global cap refuses past it", 100, 3, 100, 5, false, false, 3, 0, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := newHandshakeGate(tc.retryAbove, tc.total, tc.per, 1000, func() float64 { return 0 })
			addr := gateListener(t, g, 3*time.Second)
			s := newAttackSocket(t, "127.0.0.1", addr, tc.followRetry)
			if tc.forged {
				for range tc.hellos {
					s.send(forgedInitial())
				}
			} else {
				scid := randomBytes(8)
				hello := clientHello(t, scid)
				for range tc.hellos {
					s.send(sealedInitial(hello, randomBytes(8), scid, nil))
				}
				if tc.followRetry {
					for range tc.hellos {
						select {
						case r := <-s.retries:
							s.send(sealedInitial(hello, r.scid, scid, r.token))
						case <-time.After(2 * time.Second):
							t.Fatal("no Retry")
						}
					}
				}
			}
			want := func(st gateStats) bool {
				return st.inFlight == tc.wantInFlight && st.retries == tc.wantRetries &&
					st.refusedPrefix+st.refusedTotal == tc.wantRefused
			}
			if !waitUntil(2*time.Second, func() bool { return want(g.snapshot()) }) {
				t.Errorf("gate %+v, want %d in flight, %d retries, %d refused", g.snapshot(),
					tc.wantInFlight, tc.wantRetries, tc.wantRefused)
			}
			// A started handshake answers a real hello with its flight (within 3× what
			// it received); a forged Initial never decrypts and gets no answer.
			if r := s.reflection(); r > 3 {
				t.Errorf("host sent %.2f× the bytes it received", r)
			}
			if wantAnswer := !tc.forged || tc.wantRetries > 0; wantAnswer {
				if !waitUntil(time.Second, func() bool { return s.received.Load() > 0 }) {
					t.Error("host never answered")
				}
			} else if n := s.received.Load(); n > 0 {
				t.Errorf("host answered forged Initials with %d bytes", n)
			}
		})
	}
}

func TestGateReleasesOnTimeout(t *testing.T) {
	checkNoLeaks(t)
	g := newHandshakeGate(100, 100, 100, 1000, func() float64 { return 0 })
	addr := gateListener(t, g, 200*time.Millisecond)
	s := newAttackSocket(t, "127.0.0.1", addr, false)
	for range 5 {
		s.send(forgedInitial())
	}
	if !waitUntil(2*time.Second, func() bool { return g.snapshot().inFlight == 5 }) {
		t.Fatalf("gate %+v, want 5 in flight", g.snapshot())
	}
	// Nothing more arrives on them, so the handshake idle timeout (0.2 s) ends them.
	if !waitUntil(3*time.Second, func() bool { return g.snapshot().inFlight == 0 }) {
		t.Errorf("gate %+v: forged handshakes still in flight after their timeout", g.snapshot())
	}
}

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
		if got := addrPrefix(a); got != netip.MustParsePrefix(tc.prefix) {
			t.Errorf("addrPrefix(%s) = %v, want %s", tc.addr, got, tc.prefix)
		}
		if got := addrHost(a); got != netip.MustParsePrefix(tc.host) {
			t.Errorf("addrHost(%s) = %v, want %s", tc.addr, got, tc.host)
		}
	}
	if got := addrPrefix(&stdnet.TCPAddr{}); got.IsValid() {
		t.Errorf("addrPrefix of a TCP address = %v, want the zero prefix", got)
	}
}

func TestPrefixCaps(t *testing.T) {
	a, b := netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("10.0.1.0/24")
	c := newPrefixCaps(3, 2)
	steps := []struct {
		p       netip.Prefix
		release bool
		want    capHit
	}{
		{a, false, capNone},
		{a, false, capNone},
		{a, false, capPrefix},
		{b, false, capNone},
		{b, false, capTotal},
		{a, true, capNone},
		{b, false, capNone},
		{b, false, capTotal},
	}
	for i, s := range steps {
		if s.release {
			c.release(s.p)
			continue
		}
		if got := c.acquire(s.p); got != s.want {
			t.Errorf("step %d: acquire(%v) = %v, want %v", i, s.p, got, s.want)
		}
	}
	if c.total != 3 || c.count(a) != 1 || c.count(b) != 2 {
		t.Errorf("total %d, a %d, b %d; want 3, 1, 2", c.total, c.count(a), c.count(b))
	}
	c.release(netip.MustParsePrefix("10.9.9.0/24")) // never held: no effect
	if c.total != 3 {
		t.Errorf("releasing an unknown prefix changed the total to %d", c.total)
	}
}

func TestEvictingSet(t *testing.T) {
	a, b := netip.MustParsePrefix("10.0.0.0/24"), netip.MustParsePrefix("10.0.1.0/24")
	s := newEvictingSet[int](4, 2)
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
		ev, ok := s.add(st.x, st.p)
		if (st.evicted != 0) != ok || (ok && ev != st.evicted) {
			t.Errorf("step %d: add(%d) evicted %d (%v), want %d", i, st.x, ev, ok, st.evicted)
		}
	}
	if s.len() != 4 || s.count(a) != 1 || s.count(b) != 2 {
		t.Errorf("len %d, a %d, b %d; want 4, 1, 2", s.len(), s.count(a), s.count(b))
	}
	if !s.remove(6) || s.remove(6) || s.count(a) != 0 {
		t.Errorf("remove(6) twice: count(a) = %d", s.count(a))
	}
}

func TestGateRate(t *testing.T) {
	checkNoLeaks(t)
	var mu sync.Mutex
	now := 0.0
	clock := func() float64 { mu.Lock(); defer mu.Unlock(); return now }
	g := newHandshakeGate(100, 100, 100, 2, clock) // 2 per second, 4 deep
	addr := gateListener(t, g, 3*time.Second)
	s := newAttackSocket(t, "127.0.0.1", addr, false)
	scid := randomBytes(8)
	hello := clientHello(t, scid)
	sendHellos := func(n int) {
		for range n {
			s.send(sealedInitial(hello, randomBytes(8), scid, nil))
		}
	}
	sendHellos(6)
	if !waitUntil(2*time.Second, func() bool { st := g.snapshot(); return st.inFlight == 4 && st.refusedPrefix == 2 }) {
		t.Fatalf("after 6 hellos at once: %+v, want the burst of 4 in flight and 2 refused", g.snapshot())
	}
	mu.Lock()
	now += 1 // two more starts earned
	mu.Unlock()
	sendHellos(3)
	if !waitUntil(2*time.Second, func() bool { st := g.snapshot(); return st.inFlight == 6 && st.refusedPrefix == 3 }) {
		t.Errorf("a second later, 3 more hellos: %+v, want 6 in flight and 3 refused", g.snapshot())
	}
	// Another prefix has its own budget.
	o := newAttackSocket(t, "127.0.1.1", addr, false)
	for range 2 {
		o.send(sealedInitial(hello, randomBytes(8), scid, nil))
	}
	if !waitUntil(2*time.Second, func() bool { return g.snapshot().inFlight == 8 }) {
		t.Errorf("another prefix: %+v, want 8 in flight", g.snapshot())
	}
}
