package lobby

import (
	"fmt"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/net/wire"
)

// TestSpoofKeepsTheRealHost: an answer from the host's own address with another
// fingerprint, or the host's fingerprint announced from elsewhere, is kept beside the
// real host, in either order, and every entry that shares an address or a
// fingerprint with another is flagged as a conflict.
func TestSpoofKeepsTheRealHost(t *testing.T) {
	lo := loopback(t)
	hostIP, otherIP := netip.MustParseAddr("192.0.2.10"), netip.MustParseAddr("192.0.2.66")
	real := testEntry()
	other := testEntry()
	other.Fingerprint, other.Name = fmt.Sprintf("%064x", 99), "evil"
	for _, c := range []struct {
		name        string
		spoof       Entry
		spoofFrom   netip.Addr
		spoofFirst  bool
		wantEntries int
	}{
		{"another fingerprint at the host's address, after", other, hostIP, false, 2},
		{"another fingerprint at the host's address, before", other, hostIP, true, 2},
		{"the host's fingerprint elsewhere, after", real, otherIP, false, 2},
		{"the host's fingerprint elsewhere, before", real, otherIP, true, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := NewBrowser(BrowseConfig{Interfaces: lo, Every: time.Hour})
			if err != nil {
				t.Fatal(err)
			}
			defer b.Close()
			honest := answerFor(t, 0, []Entry{real}, []int{7777})
			spoof := answerFor(t, 0, []Entry{c.spoof}, []int{7777})
			if c.spoofFirst {
				b.handle(spoof, c.spoofFrom)
			}
			for range 3 {
				b.handle(honest, hostIP)
				b.handle(spoof, c.spoofFrom)
			}
			es := b.Entries(nil)
			var gotReal bool
			for _, e := range es {
				if e.Addr == "192.0.2.10:7777" && e.Fingerprint == real.Fingerprint {
					gotReal = true
				}
				if !e.Conflict {
					t.Errorf("%s at %s not flagged as a conflict", e.Fingerprint[:8], e.Addr)
				}
			}
			if !gotReal || len(es) != c.wantEntries {
				t.Errorf("real host kept: %v; entries %+v", gotReal, es)
			}
			if st := b.Stats(); st.Conflicts == 0 {
				t.Errorf("no conflict counted: %+v", st)
			}
		})
	}
}

func ExampleEntry_Line_conflict() {
	e := Entry{Name: "ann", Map: "dunes", Players: 2, Capacity: 8, Version: int(wire.Version),
		Fingerprint: strings.Repeat("ab", 32), Addr: "192.0.2.7:7777", Source: "lan", Conflict: true}
	fmt.Println(e.Line())
	// Output: ann  192.0.2.7:7777  map dunes  players 2/8  via lan  conflict: another announcement shares its address or fingerprint  tanks -join 192.0.2.7:7777#abababababababababababababababababababababababababababababababab
}
