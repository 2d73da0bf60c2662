package clock

import (
	"errors"
	"math"
	"math/rand/v2"
	"sync"
	"testing"
)

const tol = 1e-12

func TestSampleMath(t *testing.T) {
	cases := []struct {
		name        string
		s           Sample
		rtt, offset float64
	}{
		// Remote is 100 s ahead; 20 ms each way; host answers at once.
		{"symmetric", Sample{LocalSend: 1, RemoteReceive: 101.02, RemoteSend: 101.02, LocalReceive: 1.04}, 0.04, 100},
		// Same, but the host holds the request 5 ms: the hold is not round trip.
		{"host delay", Sample{LocalSend: 1, RemoteReceive: 101.02, RemoteSend: 101.025, LocalReceive: 1.045}, 0.04, 100},
		// Remote behind: offset negative.
		{"remote behind", Sample{LocalSend: 50, RemoteReceive: 0.01, RemoteSend: 0.01, LocalReceive: 50.02}, 0.02, -50},
		// 30 ms out, 10 ms back: the estimate is off by (30 − 10)/2 = 10 ms ≤ RTT/2.
		{"asymmetric", Sample{LocalSend: 0, RemoteReceive: 10.03, RemoteSend: 10.03, LocalReceive: 0.04}, 0.04, 10.01},
	}
	for _, tc := range cases {
		if got := tc.s.RTT(); math.Abs(got-tc.rtt) > 1e-9 {
			t.Errorf("%s: RTT = %v, want %v", tc.name, got, tc.rtt)
		}
		if got := tc.s.Offset(); math.Abs(got-tc.offset) > 1e-9 {
			t.Errorf("%s: Offset = %v, want %v", tc.name, got, tc.offset)
		}
		// The seed's form for an immediate answer: remote − local + half the round trip.
		if tc.s.RemoteSend == tc.s.RemoteReceive {
			seed := tc.s.RemoteSend - tc.s.LocalReceive + tc.s.RTT()/2
			if math.Abs(seed-tc.s.Offset()) > 1e-9 {
				t.Errorf("%s: seed formula %v != Offset %v", tc.name, seed, tc.s.Offset())
			}
		}
	}
}

// link simulates a remote clock offset by trueOffset from the local one, with one-way
// delays of base plus exponential jitter and occasional spikes.
type link struct {
	rng        *rand.Rand
	trueOffset float64
	base       float64
	jitter     float64
}

func (l *link) delay() float64 {
	d := l.base + l.rng.ExpFloat64()*l.jitter
	if l.rng.IntN(10) == 0 {
		d += 0.2 // a retransmission or a queue
	}
	return d
}

func (l *link) sample(now float64) Sample {
	out, back, hold := l.delay(), l.delay(), 0.002*l.rng.Float64()
	t1 := now + out + l.trueOffset
	return Sample{LocalSend: now, RemoteReceive: t1, RemoteSend: t1 + hold, LocalReceive: now + out + hold + back}
}

func TestConvergesAndStaysSmooth(t *testing.T) {
	cases := []struct {
		name                 string
		offset, base, jitter float64
		bound                float64 // worst |Offset − truth| after warm-up, s
	}{
		{"lan", 12.5, 0.001, 0.0005, 0.002},
		{"bad link", -3000, 0.06, 0.015, 0.010},
		{"satellite", 0.25, 0.3, 0.05, 0.040},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			l := link{rng: rand.New(rand.NewPCG(11, 12)), trueOffset: tc.offset, base: tc.base, jitter: tc.jitter}
			s := New(Config{})
			now := 0.0
			prev, prevAt := 0.0, 0.0
			worst := 0.0
			for i := 0; i < 120; i++ {
				smp := l.sample(now)
				if err := s.Add(smp); err != nil {
					t.Fatalf("sample %d: %v", i, err)
				}
				// Frames between samples: the offset must never move faster than the slew.
				for f := 0; f < 10; f++ {
					now = smp.LocalReceive + float64(f)*0.1
					s.Advance(now)
					off := s.Offset()
					if i >= DefaultWarmup && math.Abs(off-prev) > DefaultSlewRate*(now-prevAt)+tol {
						t.Fatalf("offset jumped %v s in %v s at sample %d", off-prev, now-prevAt, i)
					}
					prev, prevAt = off, now
					if i >= 8 {
						worst = max(worst, math.Abs(off-tc.offset))
					}
				}
			}
			off, bound := s.Estimate()
			t.Logf("worst offset error after 8 samples %.3f ms; estimate %.6f ± %.3f ms; RTT median %.1f ms, min %.1f ms",
				worst*1e3, off, bound*1e3, s.RTT()*1e3, s.MinRTT()*1e3)
			if worst > tc.bound {
				t.Errorf("offset error %v s > %v s", worst, tc.bound)
			}
			if math.Abs(off-tc.offset) > bound+tol {
				t.Errorf("estimate %v off by more than its bound %v", off, bound)
			}
			if !(s.MinRTT() <= s.RTT()) || s.RTT() < 2*tc.base {
				t.Errorf("RTT %v, min %v for a %v s one-way base", s.RTT(), s.MinRTT(), tc.base)
			}
		})
	}
}

func TestFirstSampleSetsOffsetAndBigGapSteps(t *testing.T) {
	s := New(Config{Window: 1, Warmup: 1})
	if s.Synced() || s.Offset() != 0 {
		t.Fatal("new Sync claims to be synced")
	}
	if err := s.Add(Sample{LocalSend: 0, RemoteReceive: 7.01, RemoteSend: 7.01, LocalReceive: 0.02}); err != nil {
		t.Fatal(err)
	}
	if !s.Synced() || math.Abs(s.Offset()-7) > tol {
		t.Fatalf("after one sample: synced %v, offset %v; want true, 7", s.Synced(), s.Offset())
	}
	// A 10 ms change slews: after 1 s only 5 ms of it.
	_ = s.Add(Sample{LocalSend: 1, RemoteReceive: 8.02, RemoteSend: 8.02, LocalReceive: 1.02})
	if got := s.Offset(); math.Abs(got-(7+DefaultSlewRate*1.0)) > 1e-9 {
		t.Errorf("slewing offset after 1 s = %v, want %v", got, 7+DefaultSlewRate)
	}
	s.Advance(2.02)
	if got := s.Offset(); math.Abs(got-7.01) > 1e-9 {
		t.Errorf("offset after 2 s = %v, want 7.01 reached", got)
	}
	// A 2 s change is a clock step: taken at once.
	_ = s.Add(Sample{LocalSend: 3, RemoteReceive: 12.03, RemoteSend: 12.03, LocalReceive: 3.04})
	if got := s.Offset(); math.Abs(got-9.01) > 1e-9 {
		t.Errorf("offset after a 2 s step = %v, want 9.01", got)
	}
	// Time running backwards changes nothing.
	s.Advance(-5)
	if got := s.Offset(); math.Abs(got-9.01) > 1e-9 {
		t.Errorf("Advance into the past moved the offset to %v", got)
	}
	if got := s.ToLocal(s.ToRemote(123.25)); math.Abs(got-123.25) > 1e-9 {
		t.Errorf("ToLocal(ToRemote(123.25)) = %v", got)
	}
	if got := s.ToRemote(1); math.Abs(got-10.01) > 1e-9 {
		t.Errorf("ToRemote(1) = %v, want 10.01", got)
	}
}

func TestBadSamples(t *testing.T) {
	s := New(Config{MaxRTT: 1})
	good := Sample{LocalSend: 0, RemoteReceive: 5.01, RemoteSend: 5.01, LocalReceive: 0.02}
	if err := s.Add(good); err != nil {
		t.Fatal(err)
	}
	off, rtt := s.Offset(), s.RTT()
	nan := math.NaN()
	bad := []Sample{
		{LocalSend: nan, LocalReceive: 1},
		{LocalSend: 0, RemoteReceive: math.Inf(1), RemoteSend: math.Inf(1), LocalReceive: 1},
		{LocalSend: 2, RemoteReceive: 5, RemoteSend: 5, LocalReceive: 1},         // answer before request
		{LocalSend: 0, RemoteReceive: 6, RemoteSend: 5, LocalReceive: 1},         // host sent before it received
		{LocalSend: 0, RemoteReceive: 5, RemoteSend: 5.5, LocalReceive: 0.1},     // host held it longer than the round trip
		{LocalSend: 0, RemoteReceive: 5.01, RemoteSend: 5.01, LocalReceive: 1.5}, // round trip past MaxRTT
	}
	for i, b := range bad {
		if err := s.Add(b); !errors.Is(err, ErrBadSample) {
			t.Errorf("bad sample %d: %v, want ErrBadSample", i, err)
		}
	}
	if s.Offset() != off || s.RTT() != rtt {
		t.Errorf("bad samples moved offset %v → %v, RTT %v → %v", off, s.Offset(), rtt, s.RTT())
	}
	if a, r := s.Counts(); a != 1 || r != uint64(len(bad)) {
		t.Errorf("Counts = %d, %d; want 1, %d", a, r, len(bad))
	}
}

func TestMedianRTT(t *testing.T) {
	s := New(Config{Window: 4})
	for i, rtt := range []float64{0.5, 0.1, 0.3, 0.2, 0.9} { // the 0.5 falls out of the window
		t0 := float64(i)
		_ = s.Add(Sample{LocalSend: t0, RemoteReceive: t0, RemoteSend: t0, LocalReceive: t0 + rtt})
	}
	if got := s.RTT(); math.Abs(got-0.25) > 1e-9 {
		t.Errorf("median RTT of {0.1, 0.3, 0.2, 0.9} = %v, want 0.25", got)
	}
	if got := s.MinRTT(); math.Abs(got-0.1) > 1e-9 {
		t.Errorf("MinRTT = %v, want 0.1", got)
	}
}

func TestConfigDefaults(t *testing.T) {
	for _, cfg := range []Config{{}, {Window: -3, MaxRTT: -1, SlewRate: 2, StepThreshold: math.NaN(), Warmup: -1}} {
		s := New(cfg)
		want := Config{Window: DefaultWindow, MaxRTT: DefaultMaxRTT, SlewRate: DefaultSlewRate, StepThreshold: DefaultStepThreshold, Warmup: DefaultWarmup}
		if s.cfg != want {
			t.Errorf("New(%+v) config = %+v, want %+v", cfg, s.cfg, want)
		}
	}
}

func TestConcurrentUse(t *testing.T) {
	s := New(Config{})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < 200; i++ {
			t0 := float64(i)
			_ = s.Add(Sample{LocalSend: t0, RemoteReceive: t0 + 3, RemoteSend: t0 + 3, LocalReceive: t0 + 0.01})
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 200; i++ {
			s.Advance(float64(i))
			_ = s.ToLocal(s.ToRemote(float64(i)))
		}
	}()
	wg.Wait()
	if math.Abs(s.Offset()-2.995) > 1e-9 {
		t.Errorf("offset %v, want 2.995", s.Offset())
	}
}

func TestWarmupSteps(t *testing.T) {
	s := New(Config{Warmup: 2})
	// First answer waited 200 ms on the way back: offset estimate 100 ms low.
	_ = s.Add(Sample{LocalSend: 0, RemoteReceive: 50.01, RemoteSend: 50.01, LocalReceive: 0.22})
	if got := s.Offset(); math.Abs(got-49.9) > 1e-9 {
		t.Fatalf("first offset %v, want 49.9", got)
	}
	// The second, clean, is still warm-up: taken at once.
	_ = s.Add(Sample{LocalSend: 1, RemoteReceive: 51.01, RemoteSend: 51.01, LocalReceive: 1.02})
	if got := s.Offset(); math.Abs(got-50) > 1e-9 {
		t.Fatalf("offset after warm-up %v, want 50", got)
	}
	// After warm-up a sample with a shorter round trip (11 ms) estimates 50.005; the
	// offset slews toward it, moving 5 ms/s × 0.991 s in the time since the last one.
	_ = s.Add(Sample{LocalSend: 2, RemoteReceive: 52.0105, RemoteSend: 52.0105, LocalReceive: 2.011})
	if est, _ := s.Estimate(); math.Abs(est-50.005) > 1e-9 {
		t.Fatalf("estimate %v, want 50.005", est)
	}
	if got, want := s.Offset(), 50+DefaultSlewRate*(2.011-1.02); math.Abs(got-want) > 1e-9 {
		t.Errorf("offset %v after a better sample, want %v", got, want)
	}
	s.Advance(3)
	if got := s.Offset(); math.Abs(got-50.005) > 1e-9 {
		t.Errorf("offset %v a second later, want 50.005", got)
	}
}
