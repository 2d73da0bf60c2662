package net

import (
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/treadline/treadline/internal/poll"
)

func TestThinningInterval(t *testing.T) {
	th := Thinning{Near: 50, PerMeter: 2 * time.Millisecond, MaxInterval: 500 * time.Millisecond}
	for _, tc := range []struct{ d, want float64 }{
		{0, 0}, {50, 0}, {150, 0.2}, {300, 0.5}, {1e6, 0.5},
	} {
		if got := th.interval(tc.d); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("interval(%v m) = %v s, want %v", tc.d, got, tc.want)
		}
	}
	if (Thinning{}).Enabled() || (Thinning{}).interval(1000) != 0 {
		t.Error("zero Thinning thins")
	}
}

// TestThinningPerObserver checks that a far observer gets an actor's updates at most
// once per interval of the host's clock, while a near one gets every update.
func TestThinningPerObserver(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		clk := &ManualClock{}
		h := simHost(t, HostConfig{Thinning: Thinning{Near: 20, PerMeter: 10 * time.Millisecond, MaxInterval: time.Second}, Clock: clk})
		host := h.Local() // the host player observes too, without actors of its own
		owner := pipeJoin(t, h, ClientConfig{Name: "owner", Clock: clk})
		near := pipeJoin(t, h, ClientConfig{Name: "near", Clock: clk})
		far := pipeJoin(t, h, ClientConfig{Name: "far", Clock: clk})
		tank, err := owner.Spawn("owner", 1, tankAt(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := near.Spawn("near", 2, tankAt(10, 0)); err != nil {
			t.Fatal(err)
		}
		if _, err := far.Spawn("far", 2, tankAt(200, 0)); err != nil { // 180 m past Near: 1 s apart
			t.Fatal(err)
		}
		seen := map[*Client]int{}
		count := func(cs ...*Client) {
			for _, c := range cs {
				for _, ev := range c.Poll(nil) {
					if ev.Kind == EventState && ev.Actor == tank {
						seen[c]++
					}
				}
			}
		}
		const n = 10
		publishBurst := func(from int) {
			t.Helper()
			before := h.Stats()
			for i := from; i < from+n; i++ {
				if err := owner.Publish(tank, tankAt(float64(i)*0.02, 0)); err != nil {
					t.Fatal(err)
				}
			}
			poll.Until(t, 3*time.Second, "burst relayed", func() bool {
				st := h.Stats()
				return st.Accepted == before.Accepted+n
			})
		}
		// A burst at one instant: the far observer gets its first update only.
		publishBurst(0)
		poll.Until(t, 3*time.Second, "near and host observers served", func() bool {
			count(near, far, host)
			return seen[near] == n && seen[host] == n
		})
		// A second later, the far observer gets one more.
		clk.Advance(1100 * time.Millisecond)
		publishBurst(n)
		poll.Until(t, 3*time.Second, "near and host observers served", func() bool {
			count(near, far, host)
			return seen[near] == 2*n && seen[host] == 2*n
		})
		poll.Until(t, 3*time.Second, "far observer served", func() bool { count(far); return seen[far] == 2 })
		if st := h.Stats(); st.Thinned != 2*n-2 || st.Relayed != 4*n+2 {
			t.Errorf("host thinned %d and relayed %d, want %d and %d", st.Thinned, st.Relayed, 2*n-2, 4*n+2)
		}
	})
}
