package lobby

import (
	"context"
	"fmt"
	stdnet "net"
	"sync"
	"testing"
	"time"

	"golang.org/x/net/ipv4"
)

// TestQueryFloodHidesNoHost: while 16 sources (127.0.0.2 to 127.0.0.17) send the
// host 1 000 mDNS queries a second over loopback multicast, for 4 s, a browser kept
// open finds the host throughout and each one-second Find finds it.
func TestQueryFloodHidesNoHost(t *testing.T) {
	lo := loopback(t)
	e := testEntry()
	e.Fingerprint = fmt.Sprintf("%064x", time.Now().UnixNano()+7)
	a, err := Announce(AnnounceConfig{Port: 40125, Interfaces: lo, Status: func() Entry { return e }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	q, _ := query(0)
	const sources, perSecond, lasts = 16, 1000, 8 * time.Second
	ctx, cancel := context.WithTimeout(context.Background(), lasts)
	defer cancel()
	var wg sync.WaitGroup
	for i := range sources {
		c, err := stdnet.ListenUDP("udp4", &stdnet.UDPAddr{IP: stdnet.IPv4(127, 0, 0, byte(2+i))})
		if err != nil {
			t.Skipf("no loopback source address 127.0.0.%d: %v", 2+i, err)
		}
		defer c.Close()
		if err := ipv4.NewPacketConn(c).SetMulticastInterface(lo[0]); err != nil {
			t.Skipf("multicast on %s: %v", lo[0].Name, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			tick := time.NewTicker(time.Second * sources / perSecond)
			defer tick.Stop()
			for {
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
					c.WriteTo(q, mdnsGroup)
				}
			}
		}()
	}
	b, err := NewBrowser(BrowseConfig{Interfaces: lo})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	time.Sleep(500 * time.Millisecond) // the flood under way
	found, runs := 0, 0
	for ctx.Err() == nil && runs < 6 {
		entries, st, _ := Find(context.Background(), BrowseConfig{Interfaces: lo}, time.Second)
		t.Logf("find: %+v", st)
		runs++
		if slicesContain(entries, e.Fingerprint, "127.0.0.1:40125") {
			found++
		}
	}
	held := slicesContain(b.Entries(nil), e.Fingerprint, "127.0.0.1:40125")
	wg.Wait()
	t.Logf("under the flood: Find found the host in %d of %d runs; the browser held it at %v: %v; announcer %+v",
		found, runs, lasts, held, a.Stats())
	if found != runs || !held {
		t.Errorf("under the flood: Find found the host in %d of %d runs, the browser held it: %v", found, runs, held)
	}
	if st := a.Stats(); st.Limited == 0 {
		t.Errorf("no query rate-limited: %+v", st)
	}
}
