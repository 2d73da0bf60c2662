package client

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/lobby"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// entry is a valid entry for the finder's tests.
func entry(name string, port int) lobby.Entry {
	return lobby.Entry{Name: name, Map: "valley", Players: 1, Capacity: 8, Version: int(wire.Version),
		Fingerprint: strings.Repeat(fmt.Sprintf("%02x", port%256), 32), Addr: fmt.Sprintf("192.0.2.1:%d", port)}
}

// TestFinderProbesPaced: the finder reads a list server, measures each match's
// ping once (one probe at a time, none again before ProbeEvery), shows only its own
// measurement and what the probe says of the passphrase, and names a failed probe
// and a list it cannot read in one line each.
func TestFinderProbesPaced(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a, b, c := entry("alpha", 7001), entry("bravo", 7002), entry("charlie", 7003)
		// The good list is served from memory: a list server's TLS connection would
		// block the bubble's clock. The others go through lobby.FetchList: a refused
		// connection and a URL of the wrong scheme, which end at once.
		const good = "https://127.0.0.1:8443"
		fetch := func(ctx context.Context, u string) ([]lobby.Entry, error) {
			if u == good {
				// As lobby.FetchList gives them: with the list's ping, which the
				// finder must not show, and the list as their source.
				out := []lobby.Entry{a, b, c}
				for i := range out {
					out[i].Ping, out[i].Source = 40*time.Millisecond, good
				}
				return out, nil
			}
			return lobby.FetchList(ctx, u)
		}
		var (
			mu            sync.Mutex
			calls         = map[string]int{}
			inFlight, top int
		)
		probe := func(ctx context.Context, addr, fp string) (net.ProbeResult, error) {
			mu.Lock()
			calls[addr]++
			inFlight++
			top = max(top, inFlight)
			mu.Unlock()
			time.Sleep(time.Millisecond) // long enough for an overlap to show
			mu.Lock()
			inFlight--
			mu.Unlock()
			switch addr {
			case b.Addr:
				return net.ProbeResult{RTT: 12 * time.Millisecond, PassphraseRequired: true}, nil
			case c.Addr:
				return net.ProbeResult{}, fmt.Errorf("probe: %w", net.ErrFingerprintMismatch)
			}
			return net.ProbeResult{RTT: 3 * time.Millisecond}, nil
		}
		f := startFinder(FindConfig{LAN: "off", ListEvery: 50 * time.Millisecond, ProbeGap: time.Millisecond, ProbeEvery: time.Hour, Probe: probe,
			Fetch: fetch},
			good+", https://127.0.0.1:1, ftp://nonsense")
		defer f.close()
		var found []foundMatch
		var errs []string
		poll.Until(t, 10*time.Second, "three matches measured and two problems", func() bool {
			found, errs = f.found()
			mu.Lock()
			defer mu.Unlock()
			return len(found) == 3 && len(calls) == 3 && len(errs) == 2
		})
		time.Sleep(100 * time.Millisecond) // a chance to probe again, which it must not take
		found, _ = f.found()
		mu.Lock()
		for addr, n := range calls {
			if n != 1 {
				t.Errorf("%s probed %d times within ProbeEvery, want once", addr, n)
			}
		}
		if top != 1 {
			t.Errorf("%d probes ran at once, want one at a time", top)
		}
		mu.Unlock() // before the finder's close, which waits for a probe under way
		for _, tc := range []struct {
			fm   foundMatch
			want string
		}{
			{found[0], " · valley · 1/8 · ping 3 ms · 127.0.0.1"},
			{found[1], " · valley · 1/8 · passphrase · ping 12 ms · 127.0.0.1"},
			{found[2], " · valley · 1/8 · certificate differs · 127.0.0.1"},
		} {
			// Each row starts with the match's address.
			if got := matchSummary(tc.fm); !strings.HasPrefix(got, tc.fm.Addr+tc.want) {
				t.Errorf("%s: %q, want %q…", tc.fm.Name, got, tc.fm.Addr+tc.want)
			}
		}
		if all := strings.Join(errs, "\n"); !strings.Contains(all, "list 127.0.0.1:1: ") || !strings.Contains(all, "ftp://nonsense") {
			t.Errorf("problems %q, want the unreachable list and the bad URL", errs)
		}
		for _, e := range errs {
			if strings.Contains(e, "\n") || len(e) > 100 {
				t.Errorf("problem %q is not one short line", e)
			}
		}
	})
}

// TestJoinScreenRows: the Join screen without a search says so and offers to type
// an address; with matches, Enter on one that needs a passphrase asks for it, on
// another version refuses in one line, and on an open one joins it, saying where it
// was found.
func TestJoinScreenRows(t *testing.T) {
	var chose []MenuMode
	s := DefaultSettings()
	m := &menu{}
	typed := &menuScreen{title: "typed", items: []menuItem{{label: "Back", act: func() { m.pop() }}}}
	m.push(&menuScreen{title: "main", items: []menuItem{{label: "x", act: func() {}}}})
	sc := joinScreen(m, &s, typed, func(mode MenuMode) { chose = append(chose, mode) }, func() {}, nil)
	m.push(sc)
	if p := m.page(); p.Items[0][0] != "No matches found yet" || p.Items[1] != [2]string{"Join as", "player"} || p.Items[2][1] != "nowhere (type an address)" {
		t.Fatalf("without a search the Join screen shows %q", p.Items)
	}
	old := entry("old", 7004)
	old.Version++
	locked := entry("locked", 7005)
	locked.Passphrase = true
	open := entry("open", 7006)
	open.Source = "lan"
	j := &joinMenu{m: m, s: &s, typed: typed, choose: func(mode MenuMode) { chose = append(chose, mode) }, apply: func() {}, sc: sc}
	for _, e := range []lobby.Entry{locked, old, open} {
		j.found = append(j.found, foundMatch{Entry: e})
	}
	if !j.rebuild() || j.rebuild() {
		t.Fatal("rebuild did not report one change, then none")
	}
	m.key(window.KeyEnter) // locked: its passphrase
	if m.top().title != "Passphrase for locked" || !m.editing {
		t.Fatalf("Enter on a match with a passphrase shows %q (editing %v)", m.top().title, m.editing)
	}
	for _, r := range "pw" {
		m.char(r)
	}
	m.key(window.KeyEnter)
	if len(chose) != 1 || s.Last.JoinPass != "pw" || s.Last.JoinAddr != locked.Join() {
		t.Fatalf("after the passphrase: chose %v, last %+v", chose, s.Last)
	}
	m.pop()
	m.key(window.KeyDown)
	m.key(window.KeyEnter) // old: refused in one line
	if len(chose) != 1 || !strings.Contains(m.note, "another version") {
		t.Errorf("Enter on another version: chose %v, note %q", chose, m.note)
	}
	m.key(window.KeyDown)
	if h := m.page().Hint; !strings.Contains(h, "trusted as far as this network is") {
		t.Errorf("a match found on this network selected: hint %q", h)
	}
	m.key(window.KeyEnter)
	if len(chose) != 2 || s.Last.JoinVia != "lan" || s.Last.JoinPass != "" || s.Last.JoinAddr != open.Join() {
		t.Errorf("Enter on an open match: chose %v, last %+v", chose, s.Last)
	}
}
