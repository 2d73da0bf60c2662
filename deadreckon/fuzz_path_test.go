package deadreckon

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/groundtest"
)

func (r *fuzzReader) progress() Progress {
	p := Progress{Route: uint16(r.byte() % 3), Time: r.float(), S: r.float(), Rate: r.float(), Accel: r.float(),
		NumArticulations: int(r.byte()) % (MaxArticulations + 2)}
	for i := 0; i < MaxArticulations; i++ {
		p.Articulations[i] = Articulation{Angle: r.float(), Rate: r.float()}
	}
	return p
}

// FuzzPath feeds arbitrary routes, progress, states, arrival and frame times to a
// path actor, and a path publisher's progress to another: whatever they show stays
// finite with a unit orientation, and every progress the publisher sends is taken.
func FuzzPath(f *testing.F) {
	seed := []byte{1}
	for i := 0; i < 6; i++ {
		seed = append(seed, 0, 1) // progress on route 1
		for _, v := range []float64{float64(i) * 0.3, float64(i) * 0.3, 3 * float64(i), 5, 0.5} {
			seed = binary.LittleEndian.AppendUint64(seed, math.Float64bits(v))
		}
		seed = append(seed, 0, 3) // advance
		seed = binary.LittleEndian.AppendUint64(seed, math.Float64bits(float64(i)*0.3+0.2))
	}
	f.Add(seed)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{b: data}
		square, err := NewRoute([]mgl64.Vec3{{0, 0, 0}, {10, 0, 0}, {10, 0, -10}, {0, 0, -10}}, true, r.byte()%2 == 1)
		if err != nil {
			t.Fatal(err)
		}
		a := NewActor(Config{Algorithm: Path, CompensateLatency: true,
			Clamp: Clamp{Mode: ClampAlways, Footprint: tankFootprint()}})
		a.SetClockOffset(0.05)
		a.SetRoute(1, square)
		pp := NewPathPublisher(PathPublisherConfig{}, 1)
		remote := NewActor(Config{Algorithm: Path})
		remote.SetRoute(pp.SetRoute(square), square)
		g := groundtest.Plane{Height: 1, SlopeX: 0.2}
		for steps := 0; len(r.b) > 0 && steps < 64; steps++ {
			switch r.byte() % 6 {
			case 0:
				_ = a.ReceiveProgress(r.progress(), r.float())
			case 1:
				_ = a.Receive(r.state(), r.float())
			case 2:
				ways := make([]mgl64.Vec3, int(r.byte()%5))
				for i := range ways {
					ways[i] = r.vec()
				}
				if rt, err := NewRoute(ways, r.byte()%2 == 1, r.byte()%2 == 1); err == nil {
					a.SetRoute(uint16(r.byte()%3), rt)
				}
			case 3:
				a.Advance(r.float())
			case 4:
				a.ClampTo(g, r.vec())
			case 5:
				s := PathSample{Sample: Sample{Time: r.float(), Position: r.vec()}, OnRoute: r.byte()%4 != 0, S: r.float()}
				u := pp.Update(s)
				if u.HasProgress {
					if err := remote.ReceiveProgress(u.Progress, s.Time); err != nil && geom.Finite(s.Time) {
						t.Fatalf("published progress %+v refused: %v", u.Progress, err)
					}
				}
				remote.Advance(s.Time)
			}
			for _, s := range []State{a.Reckoned(), remote.Reckoned(), pp.Reckoned()} {
				if !finiteState(s) {
					t.Fatalf("non-finite state %+v", s)
				}
				if l := math.Sqrt(geom.QuatDot(s.Orientation, s.Orientation)); math.Abs(l-1) > 1e-6 {
					t.Fatalf("orientation length %v", l)
				}
			}
		}
	})
}
