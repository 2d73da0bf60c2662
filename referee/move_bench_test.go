package referee

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/tank"
)

// benchSpacing is the distance between neighbouring tanks in the benchmarks, m: the
// density stays that of a busy match (about three tanks within touching reach of
// each), so a bigger match is a bigger map, not a denser one.
const benchSpacing = 30.0

// BenchmarkMoverMove is the cost of one accepted update in the movement checks,
// finding the tanks next to the updated one included, at 64, 256 and 512 tanks. The
// grid keeps it flat; "scan" is the same check over every tank, for comparison.
//
//	go test -run '^$' -bench MoverMove ./referee
func BenchmarkMoverMove(b *testing.B) {
	for _, scan := range []bool{false, true} {
		for _, n := range []int{64, 256, 512} {
			name := fmt.Sprintf("grid/actors=%d", n)
			if scan {
				name = fmt.Sprintf("scan/actors=%d", n)
			}
			b.Run(name, func(b *testing.B) {
				m := NewMover(tank.Spec{}, flatGround)
				l := defaultLimits()
				side := int(math.Ceil(math.Sqrt(float64(n))))
				pins := make([]net.Anchor, n)
				for i := range n {
					s := tankAt(benchSpacing*float64(i%side), benchSpacing*float64(i/side))
					m.Spawned(uint32(i+1), uint32(i%4+1), s, s, 0)
					pins[i] = net.Anchor{Pos: s.Position, Orient: s.Orientation}
				}
				b.ReportAllocs()
				b.ResetTimer()
				for k := range b.N {
					i := k % n
					t := m.tracks[uint32(i+1)]
					next := t.last
					now := 0.01 * float64(k/n+1)
					next.Time = now
					if scan {
						m.scanMeet(t, &next, now, &l)
						if err := checkMove(t, &pins[i], &next, now, &m.mo, &l); err != nil {
							b.Fatal(err)
						}
					} else if err := m.Move(uint32(i+1), &next, &pins[i], now, &l); err != nil {
						b.Fatal(err)
					}
					pins[i].Advance(&next, now)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/update")
			})
		}
	}
}

// scanMeet is meet over every tank, without the grid.
func (m *Mover) scanMeet(t *moveTrack, next *deadreckon.State, now float64, l *net.Limits) {
	mo := &m.mo
	for _, o := range m.tracks {
		if o == t {
			continue
		}
		r := mo.contact + l.PositionSlack + mo.shove*math.Min(math.Max(0, now-o.lastAt), net.AnchorPeriod)
		q := o.last.Position
		if within(next.Position, q, r) || within(t.last.Position, q, r) {
			t.met(now, o.owner != t.owner)
		}
	}
}

// TestMeetMatchesScan: the grid finds the same meetings as a scan of every tank,
// over tanks of four players driving about at random, some updates far off.
func TestMeetMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := NewMover(tank.Spec{}, nil)
	l := defaultLimits()
	const n = 120
	for i := range n {
		s := tankAt(rng.Float64()*400-200, rng.Float64()*400-200)
		m.Spawned(uint32(i+1), uint32(i%4+1), s, s, 0)
	}
	for k := range 20000 {
		now := 0.001 * float64(k+1)
		tr := m.tracks[uint32(rng.IntN(n)+1)]
		next := tr.last
		next.Time = now
		jump := 2.0
		if rng.IntN(50) == 0 {
			jump = 80
		}
		next.Position[0] += (rng.Float64()*2 - 1) * jump
		next.Position[2] += (rng.Float64()*2 - 1) * jump
		before := *tr
		m.scanMeet(tr, &next, now, &l)
		want := *tr
		*tr = before
		m.meet(tr, &next, now, &l)
		if tr.metAt != want.metAt || tr.shoveAt != want.shoveAt {
			t.Fatalf("update %d: met at %g, shoved at %g; a scan says %g, %g", k, tr.metAt, tr.shoveAt, want.metAt, want.shoveAt)
		}
		// Accept it as the host would, whatever the rules say, to keep them moving.
		tr.last, tr.lastAt = next, now
		m.grid.Move(tr, next.Position[0], next.Position[2])
	}
}
