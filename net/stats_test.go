package net

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/net/wire"
)

func TestHistogram(t *testing.T) {
	var h Histogram
	for _, v := range []float64{-0.001, -5, 0, 0.0005, 0.0007, 0.003, 0.02, 0.9, 1.5, 100, math.NaN()} {
		h.observe(v, 1)
	}
	h.observe(0.003, 0) // a relay to nobody observes nothing
	if h.Count != 8 || h.Negative != 2 {
		t.Errorf("count %d, negative %d; want 8 and 2 (NaN ignored, negatives apart)", h.Count, h.Negative)
	}
	if want := 0.0005 + 0.0007 + 0.003 + 0.02 + 0.9 + 1.5 + 100; math.Abs(h.Sum-want) > 1e-9 {
		t.Errorf("sum %v, want %v (negatives not summed)", h.Sum, want)
	}
	// Buckets: ≤0.0005 holds 0, 0.0005; ≤0.001 holds 0.0007; ≤0.005 holds 0.003;
	// ≤0.02 holds 0.02; ≤1 holds 0.9; above every bound 1.5 and 100.
	want := map[int]uint64{0: 2, 1: 1, 3: 1, 5: 1, 10: 1, 11: 2}
	for i, n := range h.Counts {
		if n != want[i] {
			t.Errorf("bucket %d (≤ %v): %d, want %d", i, boundOf(i), n, want[i])
		}
	}
	cum := h.Cumulative()
	if cum[0] != 2 || cum[len(cum)-1] != 6 {
		t.Errorf("cumulative %v: want 2 at the first bound and 6 at the last", cum)
	}
	for i := 1; i < len(cum); i++ {
		if cum[i] < cum[i-1] {
			t.Errorf("cumulative counts fall at %d: %v", i, cum)
		}
	}
}

// TestHistogramCopies: an age observed for n copies counts n times, in its bucket, the
// count and the sum, as n observations of it would.
func TestHistogramCopies(t *testing.T) {
	var once, copies Histogram
	for range 3 {
		once.observe(0.004, 1)
		once.observe(-0.002, 1)
	}
	copies.observe(0.004, 3)
	copies.observe(-0.002, 3)
	if once != copies {
		t.Errorf("3 copies %+v, want as 3 observations %+v", copies, once)
	}
	if copies.Count != 3 || copies.Negative != 3 || math.Abs(copies.Sum-0.012) > 1e-12 {
		t.Errorf("3 copies: count %d, negative %d, sum %v; want 3, 3, 0.012", copies.Count, copies.Negative, copies.Sum)
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
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		h := simHost(t, HostConfig{Limits: Limits{MaxPlayers: 3}})
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
		// Each update reached bob alone (the host's own player is not listening): one
		// observation per relayed copy, each younger than the wait for it. On loopback the
		// owner's synced clock may run a hair ahead of the host's: those ages count apart.
		if n := st.RelayAge.Count + st.RelayAge.Negative; n != updates {
			t.Errorf("relay age observed %d times (%d negative), want %d", n, st.RelayAge.Negative, updates)
		}
		if st.RelayAge.Count > 0 {
			if mean := st.RelayAge.Sum / float64(st.RelayAge.Count); !(mean >= 0 && mean < 3) {
				t.Errorf("mean relay age %v s", mean)
			}
		}
	})
}
