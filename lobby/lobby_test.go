package lobby

import (
	"context"
	"errors"
	"fmt"
	stdnet "net"
	"net/netip"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/miekg/dns"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net/wire"
)

var testFP = strings.Repeat("3f", 32)

func testEntry() Entry {
	return Entry{Name: "ann", Map: "dunes", Players: 2, Capacity: 8, Passphrase: true,
		Version: int(wire.Version), Fingerprint: testFP}
}

// answerFor packs an mDNS answer announcing es, each on its port.
func answerFor(t testing.TB, id uint16, es []Entry, ports []int) []byte {
	t.Helper()
	m := &dns.Msg{MsgHdr: dns.MsgHdr{Id: id, Response: true, Authoritative: true}}
	for i, e := range es {
		m.Answer = append(m.Answer, records(dns.Question{Name: serviceName, Qtype: dns.TypePTR}, e, ports[i],
			[]stdnet.IP{stdnet.IPv4(10, 9, 9, 9)})...)
	}
	b, err := m.Pack()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTXT(t *testing.T) {
	e := testEntry()
	e.Fleet = true
	got, err := parseTXT(txtOf(e))
	if err != nil || got != e {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, e)
	}
	good := txtOf(testEntry())
	with := func(extra ...string) []string { return append(append([]string{}, extra...), good...) }
	without := func(key string) []string {
		var out []string
		for _, s := range good {
			if !strings.HasPrefix(s, key+"=") {
				out = append(out, s)
			}
		}
		return out
	}
	for _, c := range []struct {
		name string
		txt  []string
		ok   bool
	}{
		{"unknown keys and flags ignored", with("zz=1", "flag", "=x"), true},
		{"first of a repeated key wins", with("n=bob"), true},
		{"upper-case keys", with("N=bob"), true},
		{"no txtvers", without("txtvers"), false},
		{"other txtvers", with("txtvers=2"), false},
		{"no name", without("n"), false},
		{"no map", without("m"), false},
		{"no fingerprint", without("fp"), false},
		{"short fingerprint", with("fp=abcd"), false},
		{"upper-case fingerprint", with("fp=" + strings.ToUpper(testFP)), false},
		{"players over capacity", with("p=9"), false},
		{"negative players", with("p=-1"), false},
		{"signed count", with("c=+8"), false},
		{"huge capacity", with("c=99999999999999999999"), false},
		{"bad flag", with("pw=yes"), false},
		{"control character in the name", with("n=a\x07b"), false},
		{"invalid UTF-8 map", with("m=\xff"), false},
		{"name too long", with("n=" + strings.Repeat("x", 33)), false},
		{"version 0", with("v=0"), false},
		{"too many strings", with(strings.Split(strings.Repeat("a=b,", maxTXTStrings), ",")...), false},
		{"too many bytes", with("z=" + strings.Repeat("x", maxTXTBytes)), false},
	} {
		_, err := parseTXT(c.txt)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok=%v", c.name, err, c.ok)
		}
		if err != nil && !errors.Is(err, ErrBadEntry) {
			t.Errorf("%s: %v does not wrap ErrBadEntry", c.name, err)
		}
	}
}

func TestParseAnswer(t *testing.T) {
	src := netip.MustParseAddr("192.0.2.44")
	e := testEntry()
	entries, id, bad, err := parseAnswer(answerFor(t, 77, []Entry{e}, []int{7777}), src)
	if err != nil || bad != 0 || id != 77 || len(entries) != 1 {
		t.Fatalf("parseAnswer = %v, id %d, %d bad, %v", entries, id, bad, err)
	}
	// The address is where the answer came from, whatever A records it carries.
	if e.Addr = "192.0.2.44:7777"; entries[0] != e {
		t.Errorf("entry %+v, want %+v", entries[0], e)
	}
	many := make([]Entry, 20)
	ports := make([]int, 20)
	for i := range many {
		many[i], ports[i] = testEntry(), 1000+i
		many[i].Fingerprint = fmt.Sprintf("%064x", i)
	}
	entries, _, bad, err = parseAnswer(answerFor(t, 1, many, ports), src)
	if err != nil || len(entries) != maxInstances || bad != 20-maxInstances {
		t.Errorf("20 instances in one answer: kept %d, %d bad, %v; want %d kept", len(entries), bad, err, maxInstances)
	}
	q, _ := query(5)
	for _, c := range []struct {
		name string
		msg  []byte
	}{
		{"garbage", []byte("not dns at all")},
		{"empty", nil},
		{"a query", q},
		{"oversized", make([]byte, maxPacket+1)},
	} {
		if _, _, _, err := parseAnswer(c.msg, src); err == nil {
			t.Errorf("%s: parsed", c.name)
		}
	}
	// An instance without its SRV record is bad, the rest of the answer still read.
	m := &dns.Msg{MsgHdr: dns.MsgHdr{Response: true}}
	m.Answer = []dns.RR{&dns.PTR{Hdr: dns.RR_Header{Name: serviceName, Rrtype: dns.TypePTR, Class: dns.ClassINET},
		Ptr: "lonely." + serviceName}}
	b, _ := m.Pack()
	if entries, _, bad, err := parseAnswer(b, src); err != nil || len(entries) != 0 || bad != 1 {
		t.Errorf("an instance without SRV: %v, %d bad, %v", entries, bad, err)
	}
}

func FuzzParseTXT(f *testing.F) {
	f.Add(strings.Join(txtOf(testEntry()), "\n"))
	f.Add("txtvers=1\nn=\xff\nfp=zz")
	f.Fuzz(func(t *testing.T, s string) {
		e, err := parseTXT(strings.Split(s, "\n"))
		if err == nil {
			if cerr := e.Check(); cerr != nil {
				t.Fatalf("parsed an entry that fails Check: %v", cerr)
			}
			if again, err := parseTXT(txtOf(e)); err != nil || again != e {
				t.Fatalf("re-encoded %+v: %+v, %v", e, again, err)
			}
		}
	})
}

func FuzzParseAnswer(f *testing.F) {
	f.Add(answerFor(f, 1, []Entry{testEntry()}, []int{7777}))
	q, _ := query(1)
	f.Add(q)
	f.Add([]byte{0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0})
	src := netip.MustParseAddr("127.0.0.1")
	f.Fuzz(func(t *testing.T, b []byte) {
		entries, _, bad, err := parseAnswer(b, src)
		if err != nil && (len(entries) != 0 || bad != 0) {
			t.Fatal("entries with an error")
		}
		if len(entries)+bad > maxInstances+len(b) || len(entries) > maxInstances {
			t.Fatalf("%d entries from one answer", len(entries))
		}
		for _, e := range entries {
			if err := e.Check(); err != nil || !strings.HasPrefix(e.Addr, "127.0.0.1:") {
				t.Fatalf("entry %+v: %v", e, err)
			}
		}
	})
}

// loopback returns the loopback interface, or skips the test.
func loopback(t *testing.T) []*stdnet.Interface {
	t.Helper()
	ifs, err := Interfaces("lo")
	if err != nil {
		t.Skipf("no loopback interface named lo: %v", err)
	}
	return ifs
}

// ephemeralPort reserves a UDP port on the loopback interface for the test's life: the
// port a host the test announces listens on, apart from every other test's.
func ephemeralPort(t *testing.T) int {
	t.Helper()
	c, err := stdnet.ListenUDP("udp4", &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c.LocalAddr().(*stdnet.UDPAddr).Port
}

// fingerprintFor is a fingerprint no other test's host has, even one announced by
// another test binary on the same machine: the process's id and the host's port.
func fingerprintFor(port int) string {
	return fmt.Sprintf("%064x", os.Getpid()<<16|port)
}

// TestAnnounceAndFind: a host announced on the loopback interface is found there, by
// real multicast, with its live player count.
func TestAnnounceAndFind(t *testing.T) {
	lo := loopback(t)
	var players atomic.Int64
	players.Store(1)
	port := ephemeralPort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	e := testEntry()
	e.Fingerprint = fingerprintFor(port)
	a, err := Announce(AnnounceConfig{Port: port, Interfaces: lo, Status: func() Entry {
		s := e
		s.Players = int(players.Load())
		return s
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, want := range []int{1, 5} {
		players.Store(int64(want))
		entries, st, err := Find(context.Background(), BrowseConfig{Interfaces: lo}, time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var got *Entry
		for i := range entries {
			if entries[i].Fingerprint == e.Fingerprint {
				got = &entries[i]
			}
		}
		if got == nil {
			t.Fatalf("the announced host not found; found %v, %+v", entries, st)
		}
		if got.Addr != addr || got.Players != want || got.Name != "ann" || got.Source != "lan" || got.Ping <= 0 {
			t.Errorf("found %+v (ping %v), want ann at %s with %d players", *got, got.Ping, addr, want)
		}
		if !strings.HasSuffix(got.Line(), "tanks -join "+addr+"#"+e.Fingerprint) {
			t.Errorf("line %q lacks the join line", got.Line())
		}
	}
	if st := a.Stats(); st.Answered == 0 {
		t.Errorf("announcer %+v", st)
	}
}

// TestBrowserHostile: garbage, oversized messages, a flood of announcements and a
// spoofed fingerprint sent straight at a browser are dropped and counted, memory
// stays bounded, and the honest host is still found.
func TestBrowserHostile(t *testing.T) {
	lo := loopback(t)
	port := ephemeralPort(t)
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	honest := testEntry()
	honest.Fingerprint = fingerprintFor(port)
	a, err := Announce(AnnounceConfig{Port: port, Interfaces: lo, Status: func() Entry { return honest }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := NewBrowser(BrowseConfig{Interfaces: lo, Every: 100 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	to := b.conns[0].LocalAddr().(*stdnet.UDPAddr)
	attacker, err := stdnet.DialUDP("udp4", nil, &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, 1), Port: to.Port})
	if err != nil {
		t.Fatal(err)
	}
	defer attacker.Close()
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	spoof := honest
	spoof.Name = "evil"
	sent := 0
	for i := range 3000 {
		var msg []byte
		switch i % 4 {
		case 0:
			msg = []byte("\x00\x00\x84garbage")
		case 1:
			msg = make([]byte, 20000)
		case 2: // a flood of distinct matches
			fl := testEntry()
			fl.Fingerprint = fmt.Sprintf("%064x", i)
			msg = answerFor(t, 0, []Entry{fl}, []int{2000 + i%60000})
		case 3: // the honest host's fingerprint at the attacker's port
			msg = answerFor(t, 0, []Entry{spoof}, []int{9})
		}
		if _, err := attacker.Write(msg); err == nil {
			sent++
		}
	}
	var entries []Entry
	poll.Within(5*time.Second, func() bool {
		entries = b.Entries(entries[:0])
		st := b.Stats()
		return slicesContain(entries, honest.Fingerprint, addr) && st.Malformed > 0 && st.Oversized > 0
	})
	runtime.GC()
	runtime.ReadMemStats(&after)
	st := b.Stats()
	t.Logf("sent %d hostile messages; %+v; %d entries; heap %.1f → %.1f MB", sent, st, len(entries),
		float64(before.HeapAlloc)/(1<<20), float64(after.HeapAlloc)/(1<<20))
	if !slicesContain(entries, honest.Fingerprint, addr) {
		t.Errorf("the honest host is not found at its address: %v", entries)
	}
	if st.Malformed == 0 || st.Oversized == 0 || st.RateLimited == 0 || st.Full+st.Conflicts == 0 {
		t.Errorf("hostile messages not all counted: %+v", st)
	}
	if len(entries) > MaxPerSource+1 {
		t.Errorf("%d entries kept, at most %d from the attacker's address and the honest host", len(entries), MaxPerSource+1)
	}
	if grown := int64(after.HeapAlloc) - int64(before.HeapAlloc); grown > 8<<20 {
		t.Errorf("heap grew %d bytes", grown)
	}
}

// slicesContain reports whether es holds a match of fingerprint fp at addr.
func slicesContain(es []Entry, fp, addr string) bool {
	for _, e := range es {
		if e.Fingerprint == fp && e.Addr == addr {
			return true
		}
	}
	return false
}

// TestBrowserKeepsHostsOfOneIdentityApart: two hosts sharing an identity on one
// machine (one IP, two ports) are both kept, each at its address, neither flagged; the
// same identity announced from another IP is a conflict, kept and flagged, so that a
// clone heard first hides no host.
func TestBrowserKeepsHostsOfOneIdentityApart(t *testing.T) {
	b, err := NewBrowser(BrowseConfig{Interfaces: loopback(t), Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	e := testEntry()
	here, there := netip.MustParseAddr("192.0.2.7"), netip.MustParseAddr("192.0.2.8")
	b.handle(answerFor(t, 0, []Entry{e}, []int{7777}), here)
	b.handle(answerFor(t, 0, []Entry{e}, []int{7778}), here)
	b.handle(answerFor(t, 0, []Entry{e}, []int{7777}), there)
	got := b.Entries(nil)
	if len(got) != 3 || !slicesContain(got, e.Fingerprint, "192.0.2.7:7777") || !slicesContain(got, e.Fingerprint, "192.0.2.7:7778") {
		t.Errorf("found %v, want the two hosts of 192.0.2.7, ports 7777 and 7778, and the clone", got)
	}
	b.handle(answerFor(t, 0, []Entry{e}, []int{7777}), here) // heard again: still no conflict of its own
	b2, err := NewBrowser(BrowseConfig{Interfaces: loopback(t), Every: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer b2.Close()
	b2.handle(answerFor(t, 0, []Entry{e}, []int{7777}), here)
	b2.handle(answerFor(t, 0, []Entry{e}, []int{7778}), here)
	for _, x := range b2.Entries(nil) {
		if x.Conflict {
			t.Errorf("%s flagged as a conflict, sharing an identity on one machine only", x.Addr)
		}
	}
	if c := b.Stats().Conflicts; c != 1 {
		t.Errorf("%d conflicts, want 1 (the identity announced from another IP)", c)
	}
}

func ExampleEntry_Line() {
	e := Entry{Name: "ann", Map: "dunes", Players: 2, Capacity: 8, Passphrase: true, Version: int(wire.Version),
		Fingerprint: strings.Repeat("ab", 32), Addr: "192.0.2.7:7777", Ping: 3 * time.Millisecond, Source: "lan"}
	fmt.Println(e.Line())
	// Output: ann  192.0.2.7:7777  map dunes  players 2/8  passphrase  ping 3 ms  via lan  tanks -join 192.0.2.7:7777#abababababababababababababababababababababababababababababababab
}
