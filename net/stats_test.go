package net

import (
	"math"
	"testing"
	"time"

	"github.com/treadline/treadline/net/wire"
)

func TestHistogram(t *testing.T) {
	var h Histogram
	for _, v := range []float64{-0.001, 0, 0.0005, 0.0007, 0.003, 0.02, 0.9, 1.5, 100, math.NaN()} {
		h.observe(v)
	}
	if h.Count != 9 {
		t.Errorf("count %d, want 9 (NaN ignored)", h.Count)
	}
	if want := -0.001 + 0.0005 + 0.0007 + 0.003 + 0.02 + 0.9 + 1.5 + 100; math.Abs(h.Sum-want) > 1e-9 {
		t.Errorf("sum %v, want %v", h.Sum, want)
	}
	// Buckets: ≤0.0005 holds -0.001, 0, 0.0005; ≤0.001 holds 0.0007; ≤0.005 holds
	// 0.003; ≤0.02 holds 0.02; ≤1 holds 0.9; above every bound 1.5 and 100.
	want := map[int]uint64{0: 3, 1: 1, 3: 1, 5: 1, 10: 1, 11: 2}
	for i, n := range h.Counts {
		if n != want[i] {
			t.Errorf("bucket %d (≤ %v): %d, want %d", i, boundOf(i), n, want[i])
		}
	}
	cum := h.Cumulative()
	if cum[0] != 3 || cum[len(cum)-1] != 7 {
		t.Errorf("cumulative %v: want 3 at the first bound and 7 at the last", cum)
	}
	for i := 1; i < len(cum); i++ {
		if cum[i] < cum[i-1] {
			t.Errorf("cumulative counts fall at %d: %v", i, cum)
		}
	}
}

func boundOf(i int) float64 {
	if b := RelayAgeBounds(); i < len(b) {
		return b[i]
	}
	return math.Inf(1)
}

// TestJoinAndRelayCounters: admitted joins, refusals by reason, handshakes in flight
// and the age of relayed updates are counted.
func TestJoinAndRelayCounters(t *testing.T) {
	checkNoLeaks(t)
	h := testHost(t, HostConfig{Limits: Limits{MaxPlayers: 3}})
	ann := testClient(t, h, ClientConfig{Name: "ann", KnownHosts: "-"})
	bob := testClient(t, h, ClientConfig{Name: "bob", KnownHosts: "-"})
	if c, err := dialTest(h, ClientConfig{Name: "ann", KnownHosts: "-"}); err == nil {
		c.Close()
		t.Fatal("name in use admitted")
	}
	if c, err := dialTest(h, ClientConfig{Name: "cid", KnownHosts: "-"}); err == nil {
		c.Close()
		t.Fatal("fourth player admitted to a three-player match")
	}
	tank, err := ann.Spawn("ann", 1, tankAt(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, bob, 3*time.Second, func(ev Event) bool { return ev.Kind == EventSpawn && ev.Actor == tank })
	const updates = 5
	for i := range updates {
		if err := ann.Publish(tank, tankAt(0.1*float64(i+1), 0)); err != nil {
			t.Fatal(err)
		}
		waitFor(t, bob, 3*time.Second, func(ev Event) bool { return ev.Kind == EventState && ev.Actor == tank })
	}
	st := h.Stats()
	if st.Joined != 2 || st.Joining != 0 {
		t.Errorf("joined %d, joining %d; want 2 and 0", st.Joined, st.Joining)
	}
	if st.Refused != 2 || st.RefusedBy[wire.RefuseName] != 1 || st.RefusedBy[wire.RefuseFull] != 1 {
		t.Errorf("refused %d by reason %v; want one name in use and one full", st.Refused, st.RefusedBy)
	}
	// Each update reached bob (the host's own player is not listening): one
	// observation per update, each younger than the wait for it.
	if st.RelayAge.Count != updates {
		t.Errorf("relay age observed %d times, want %d", st.RelayAge.Count, updates)
	}
	if mean := st.RelayAge.Sum / float64(st.RelayAge.Count); !(mean > -0.5 && mean < 3) {
		t.Errorf("mean relay age %v s", mean)
	}
}
