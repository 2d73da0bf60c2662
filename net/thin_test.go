package net

import (
	"math"
	"testing"
	"time"
)

func TestThinningInterval(t *testing.T) {
	th := Thinning{Near: 50, PerMeter: 0.002, MaxInterval: 0.5}
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

// TestThinningPerObserver checks that a far observer gets fewer partial updates than
// a near one, and every full update.
func TestThinningPerObserver(t *testing.T) {
	checkNoLeaks(t)
	h := testHost(t, HostConfig{Thinning: Thinning{Near: 20, PerMeter: 0.01, MaxInterval: 1}})
	h.Local() // the host player observes too, without actors of its own
	owner := testClient(t, h, ClientConfig{Name: "owner", KnownHosts: "-"})
	near := testClient(t, h, ClientConfig{Name: "near", KnownHosts: "-"})
	far := testClient(t, h, ClientConfig{Name: "far", KnownHosts: "-"})
	tank, err := owner.Spawn("owner", 1, tankAt(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := near.Spawn("near", 2, tankAt(10, 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := far.Spawn("far", 2, tankAt(200, 0)); err != nil { // 180 m past Near: ≥ 1 s apart
		t.Fatal(err)
	}
	const n = 40
	for i := 0; i < n; i++ {
		s := tankAt(float64(i)*0.02, 0)
		s.NumArticulations = 0
		if err := owner.Publish(tank, s, i%20 == 19); err != nil {
			t.Fatal(err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	count := func(p Peer) (partial, full int) {
		deadline := time.Now().Add(time.Second)
		for time.Now().Before(deadline) {
			for _, ev := range p.Poll(nil) {
				if ev.Kind == EventState && ev.Actor == tank {
					if ev.Full {
						full++
					} else {
						partial++
					}
				}
			}
			time.Sleep(10 * time.Millisecond)
		}
		return partial, full
	}
	np, nf := count(near)
	fp, ff := count(far)
	t.Logf("near observer: %d partial, %d full; far: %d partial, %d full; host thinned %d", np, nf, fp, ff, h.Stats().Thinned)
	if np+nf != n {
		t.Errorf("near observer got %d of %d updates", np+nf, n)
	}
	if ff != 2 {
		t.Errorf("far observer got %d full updates, want both", ff)
	}
	if fp < 1 || fp > 2 {
		t.Errorf("far observer got %d partial updates within 0.4 s, want the first and at most one more", fp)
	}
}
