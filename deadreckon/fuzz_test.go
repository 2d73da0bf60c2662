package deadreckon

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/groundtest"
)

// fuzzReader hands out values from fuzz input, zeros when it runs out.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	v := r.b[0]
	r.b = r.b[1:]
	return v
}

func (r *fuzzReader) float() float64 {
	if len(r.b) < 8 {
		r.b = nil
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

func (r *fuzzReader) vec() mgl64.Vec3 { return mgl64.Vec3{r.float(), r.float(), r.float()} }

func (r *fuzzReader) state() State {
	s := State{Time: r.float(), Position: r.vec(), Velocity: r.vec(), Acceleration: r.vec(),
		Orientation: mgl64.Quat{W: r.float(), V: r.vec()}, AngularVelocity: r.vec(),
		NumArticulations: int(r.byte()) % (MaxArticulations + 2)}
	for i := 0; i < MaxArticulations; i++ {
		s.Articulations[i] = Articulation{Angle: r.float(), Rate: r.float()}
	}
	return s
}

func finiteState(s State) bool {
	ok := geom.Finite(s.Time) && geom.FiniteVec(s.Position) && geom.FiniteVec(s.Velocity) && geom.FiniteVec(s.Acceleration) &&
		geom.Finite(s.Orientation.W) && geom.FiniteVec(s.Orientation.V) && geom.FiniteVec(s.AngularVelocity)
	for _, a := range s.Articulations {
		ok = ok && geom.Finite(a.Angle) && geom.Finite(a.Rate)
	}
	return ok
}

// appendState encodes s the way fuzzReader.state decodes it, for the seed corpus.
func appendState(b []byte, s State) []byte {
	f := func(v float64) { b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v)) }
	f(s.Time)
	for _, v := range []mgl64.Vec3{s.Position, s.Velocity, s.Acceleration} {
		f(v[0])
		f(v[1])
		f(v[2])
	}
	f(s.Orientation.W)
	f(s.Orientation.V[0])
	f(s.Orientation.V[1])
	f(s.Orientation.V[2])
	f(s.AngularVelocity[0])
	f(s.AngularVelocity[1])
	f(s.AngularVelocity[2])
	b = append(b, byte(s.NumArticulations))
	for _, a := range s.Articulations {
		f(a.Angle)
		f(a.Rate)
	}
	return b
}

// FuzzReckon feeds arbitrary states, arrival times and frame times to actors of every
// algorithm and clamp mode, and asserts that whatever they show stays finite, with a
// unit orientation.
func FuzzReckon(f *testing.F) {
	for alg := Algorithm(0); alg < numAlgorithms; alg++ {
		b := []byte{byte(alg), 2, 0}
		m := circleMotion(10, 0.5)
		for i := 0; i < 4; i++ {
			b = append(b, 0) // receive
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i)*0.3+0.1))
			b = appendState(b, m(float64(i)*0.3))
			b = append(b, 2) // advance
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(float64(i)*0.3+0.2))
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{b: data}
		cfg := Config{Algorithm: Algorithm(r.byte() % byte(numAlgorithms))}
		clamp := r.byte()
		cfg.Clamp.Mode = ClampMode(clamp % 3)
		if clamp&4 == 0 {
			cfg.Clamp.Footprint = tankFootprint()
		}
		cfg.AverageIntervals = r.byte()%2 == 1
		cfg.CompensateLatency = cfg.AverageIntervals
		a := NewActor(cfg)
		a.SetClockOffset(0.05)
		g := groundtest.Plane{Height: 1, SlopeX: 0.2}
		for steps := 0; len(r.b) > 0 && steps < 64; steps++ {
			switch r.byte() % 4 {
			case 0:
				now := r.float()
				_ = a.Receive(r.state(), now)
			case 1:
				now := r.float()
				_ = a.Break(r.state(), now)
			case 2:
				a.Advance(r.float())
			case 3:
				a.ClampTo(g, r.vec())
			}
			for _, s := range []State{a.Reckoned(), a.LastKnownProjected()} {
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

// FuzzPublisher feeds arbitrary samples to a publisher and asserts that every state it
// publishes is finite and accepted by a remote actor.
func FuzzPublisher(f *testing.F) {
	b := []byte{}
	for i := 0; i < 10; i++ {
		for _, v := range []float64{float64(i) * 0.1, float64(i), 0, 0.5 * float64(i), 1, 0, 0.1, 0, 0.2} {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
		}
		b = append(b, 1, byte(i%3))
	}
	f.Add(b)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := &fuzzReader{b: data}
		p := NewPublisher(PublisherConfig{VelocityFrames: 2, LostThreshold: 0.25, UrgentChange: 3}, 1)
		remote := NewActor(Config{})
		for steps := 0; len(r.b) > 0 && steps < 64; steps++ {
			s := Sample{Time: r.float(), Position: r.vec(), Orientation: mgl64.Quat{W: r.float(), V: r.vec()}}
			s.Articulations[0] = r.float()
			s.NumArticulations = int(r.byte()) % (MaxArticulations + 2)
			flags := r.byte()
			s.Full, s.Break = flags&1 != 0, flags&2 != 0
			d, st := p.Update(s)
			if d == NoUpdate {
				continue
			}
			if !finiteState(st) {
				t.Fatalf("published non-finite %+v", st)
			}
			if math.Abs(s.Time) > DefaultMaxTime || math.Abs(s.Position[0]) > DefaultMaxPosition ||
				math.Abs(s.Position[1]) > DefaultMaxPosition || math.Abs(s.Position[2]) > DefaultMaxPosition {
				continue // beyond what remotes accept by design
			}
			if err := remote.Break(st, float64(steps)); err != nil {
				t.Fatalf("remote rejects published %+v: %v", st, err)
			}
		}
	})
}
