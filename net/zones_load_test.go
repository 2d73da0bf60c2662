package net

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/net/wire"
)

// loadRun is what loadSim measured.
type loadRun struct {
	near []float64 // the host's delay of each record of a tank within nearRadius of its player, s, sorted
	down []float64 // the bytes each player was sent in each whole second (datagrams and control frames), sorted
	// dgrams counts the datagrams of records the players were sent from from on
	// (each an encryption and a system call at both ends), and dgramBytes their bytes.
	dgrams, dgramBytes int
	s                  *zoneSim
}

// loadSim runs tankload's match on simulated time: n tanks, one player each, round
// wide circles spread over the 512 m map at 6 m/s (cmd/tankload's newBot), ten
// updates a second each without articulations, the default budget, a coalescing
// window every 2 ms. It measures what the host alone adds, with no bots' process,
// quic-go or CPU in the way: the time from an update's arrival to its first copy in
// a player's datagram, for the tanks within nearRadius of the player from from on,
// and the bytes each player is sent in each whole second from from on.
func loadSim(t testing.TB, n int, from, seconds float64) loadRun {
	t.Helper()
	s := newZoneSim(t, 0, DefaultExtent, Limits{MaxPlayers: n}, 1)
	const golden = 2.399963229728653 // radians
	for i := range n {
		r := 200 * math.Sqrt((float64(i)+0.5)/256)
		if i >= 256 {
			r = 200 * math.Sqrt(math.Mod(float64(i)*0.618034, 1))
		}
		radius := 40 + math.Mod(float64(i)*37, 110)
		c := mgl64.Vec3{r * math.Cos(float64(i)*golden), 0, r * math.Sin(float64(i)*golden)}
		for k := 0; k <= 2; k += 2 {
			c[k] = math.Max(-240+radius, math.Min(240-radius, c[k]))
		}
		th := float64(i)
		s.addTank(fmt.Sprintf("p%03d", i), &simTank{pos: c.Add(mgl64.Vec3{radius * math.Cos(th), 0, radius * math.Sin(th)}),
			heading: -(th + math.Pi/2), speed: 6, turn: -6 / radius, steady: true, bare: true,
			next: math.Mod(float64(i), 64) / 64 / s.hz})
	}
	s.drain()
	if !s.h.m.zones.on {
		t.Fatalf("%d tanks: the scheduler is off", n)
	}
	run := loadRun{s: s}
	byActor := map[wire.ActorID]*simTank{}
	for _, st := range s.tanks {
		byActor[st.a.id] = st
	}
	total := func(i int) int {
		if i < len(s.ctrl) {
			return s.bytes[i] + s.ctrl[i]
		}
		return s.bytes[i]
	}
	last := make([]int, n+1)
	counted := map[uint64]bool{} // a repeat's delay is not the record's
	pubAt, seq := map[uint64]float64{}, make([]uint16, n)
	logged, nextSec := len(s.log), math.Ceil(from)
	dgrams0, bytes0 := -1, 0
	for s.now < seconds {
		if dgrams0 < 0 && s.now >= from {
			dgrams0, bytes0 = s.dgramN, sumInts(s.bytes)
		}
		s.step(0.002)
		for i, st := range s.tanks {
			if st.seq != seq[i] {
				seq[i] = st.seq
				pubAt[uint64(st.a.id)<<16|uint64(st.seq)] = s.now
			}
		}
		for _, e := range s.log[logged:] {
			if counted[e] {
				continue
			}
			counted[e] = true
			o, a := s.tanks[e>>32-1], byActor[wire.ActorID(e>>16)]
			if s.now >= from && distance(o.a, a.a) <= nearRadius {
				run.near = append(run.near, s.now-pubAt[e&(1<<32-1)])
			}
		}
		logged = len(s.log)
		if s.now >= nextSec-1e-9 {
			for i := 1; i <= n; i++ {
				if nextSec > math.Ceil(from) {
					run.down = append(run.down, float64(total(i)-last[i]))
				}
				last[i] = total(i)
			}
			nextSec++
		}
	}
	slices.Sort(run.near)
	slices.Sort(run.down)
	run.dgrams, run.dgramBytes = s.dgramN-dgrams0, sumInts(s.bytes)-bytes0
	return run
}

func sumInts(v []int) (n int) {
	for _, x := range v {
		n += x
	}
	return n
}

// TestZonesNearAtOnce runs tankload's match of 128 tanks on simulated time: the
// tanks within nearRadius of a player reach it within nearSpacing and a window or
// two of their updates (the choice alone held them back for up to a tenth of a
// second), what each player is sent in a second, control frames included,
// stays within its budget, and a player's records go in one datagram at most every
// nearSpacing, the near tanks' and the choice's together.
func TestZonesNearAtOnce(t *testing.T) {
	const (
		n       = 128
		nearP99 = nearSpacing + 0.004 // s
	)
	if testing.Short() {
		t.Skip("128 tanks for several simulated seconds")
	}
	// Under the race detector (one goroutine here, nothing to race), one second
	// measured: several minutes otherwise.
	seconds := 5.0
	if raceEnabled {
		seconds = 3
	}
	run := loadSim(t, n, 2, seconds)
	q := func(v []float64, p float64) float64 { return v[min(len(v)-1, int(p*float64(len(v))))] }
	if len(run.near) < 1000 || len(run.down) < n {
		t.Fatalf("%d near records, %d player-seconds measured", len(run.near), len(run.down))
	}
	if run.near[0] < -1e-9 {
		t.Fatalf("a near record went %.1f ms before its update", -run.near[0]*1000)
	}
	if p := q(run.near, 0.99); p > nearP99 {
		t.Errorf("near records: host delay p99 %.1f ms, want at most %.1f", p*1000, nearP99*1000)
	}
	budget := float64(DefaultDownlink)
	if p95, top := q(run.down, 0.95), q(run.down, 1); p95 > budget || top > budget*1.1 {
		t.Errorf("bytes a player was sent in a second: p95 %.0f, max %.0f; budget %.0f", p95, top, budget)
	}
	// The heartbeats' repeats and the first records of tanks entering a
	// player's interest may go between: a few a second.
	perSecond := float64(run.dgrams) / n / (seconds - 2)
	if perSecond > 1/nearSpacing {
		t.Errorf("%.1f datagrams of records a second to a player, want at most %.0f (one every nearSpacing)", perSecond, 1/nearSpacing)
	}
	st := run.s.h.m.stats
	t.Logf("%d near records: host delay p50 %.1f, p99 %.1f, max %.1f ms; a player's second: p50 %.0f, p95 %.0f, max %.0f B; %d B bypassed, %d B other; %.1f datagrams a second of %.0f B",
		len(run.near), q(run.near, 0.5)*1000, q(run.near, 0.99)*1000, q(run.near, 1)*1000,
		q(run.down, 0.5), q(run.down, 0.95), q(run.down, 1), st.DownlinkBypass, st.DownlinkOther,
		perSecond, float64(run.dgramBytes)/math.Max(1, float64(run.dgrams)))
}
