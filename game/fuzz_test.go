package game

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/physics"
)

// scriptLink is a Link whose incoming events the test writes directly.
type scriptLink struct {
	now    float64
	in     []net.Event
	nextID uint32
	chat   []string // lines sent
}

func (l *scriptLink) ID() uint32   { return 1 }
func (l *scriptLink) Now() float64 { return l.now }
func (l *scriptLink) Spawn(string, int, deadreckon.State) (uint32, error) {
	l.nextID++
	return 1000 + l.nextID, nil
}
func (l *scriptLink) Despawn(uint32) error                   { return nil }
func (l *scriptLink) Publish(uint32, deadreckon.State) error { return nil }
func (l *scriptLink) Stats() net.Stats                       { return net.Stats{} }

// Send drops game messages: the script has no referee (Refereed false), so the match
// never fights on it.
func (l *scriptLink) Send(wire.Message) error { return nil }
func (l *scriptLink) Refereed() bool          { return false }
func (l *scriptLink) Chat(text string) error {
	l.chat = append(l.chat, text)
	return nil
}
func (l *scriptLink) Poll(buf []net.Event) []net.Event {
	buf = append(buf, l.in...)
	l.in = l.in[:0]
	return buf
}

// fuzzFloat reads a float64 from b, mapping some bit patterns to the hostile values
// a peer could send.
func fuzzFloat(b []byte) float64 {
	if len(b) < 8 {
		return 0
	}
	v := binary.LittleEndian.Uint64(b)
	switch v % 16 {
	case 0:
		return math.NaN()
	case 1:
		return math.Inf(1)
	case 2:
		return -1e300
	case 3:
		return 0
	}
	return math.Float64frombits(v)
}

// FuzzRemoteEvents feeds a match arbitrary spawns, updates and despawns, as a
// hostile or broken peer might, and checks that nothing it draws is ever non-finite
// and that its own tank keeps working.
func FuzzRemoteEvents(f *testing.F) {
	mp := testmaps.Small(f)
	seed := make([]byte, 0, 64*4)
	for i := range 64 * 4 {
		seed = append(seed, byte(i*37))
	}
	f.Add(seed)
	f.Add([]byte{0, 1, 2, 3})
	f.Add(make([]byte, 200))
	f.Fuzz(func(t *testing.T, data []byte) {
		link := &scriptLink{}
		m, err := NewMatch(Config{Map: mp, Seed: 1}, link)
		if err != nil {
			t.Fatal(err)
		}
		var snap Snapshot
		const rec = 1 + 1 + 8*8 // kind, actor, then eight floats
		for k := 0; len(data) >= rec && k < 200; k++ {
			r := data[:rec]
			data = data[rec:]
			f := func(i int) float64 { return fuzzFloat(r[2+8*i:]) }
			s := deadreckon.State{
				Time:             f(0),
				Position:         mgl64.Vec3{f(1), f(2), f(3)},
				Velocity:         mgl64.Vec3{f(4), 0, f(5)},
				Orientation:      mgl64.Quat{W: f(6), V: mgl64.Vec3{0, f(7), 0}},
				NumArticulations: int(r[1] % 7), // may exceed MaxArticulations
			}
			if s.NumArticulations > deadreckon.MaxArticulations {
				s.NumArticulations = -1
			}
			ev := net.Event{Kind: net.EventKind(r[0] % 6), Actor: uint32(r[1] % 5), Owner: uint32(r[0] % 3), State: s}
			link.in = append(link.in, ev)
			link.now += float64(r[0]%8) * 0.01
			err := m.Step(link.now, physics.Input{Throttle: 1})
			if ev.Kind == net.EventClosed {
				if err == nil {
					t.Fatal("closed link not reported")
				}
				return
			}
			if err != nil {
				t.Fatalf("Step: %v", err)
			}
			m.Snapshot(&snap)
			for _, v := range snap.Tanks {
				p, q := v.Position, v.Orientation
				for _, x := range []float64{p[0], p[1], p[2], q.W, q.V[0], q.V[1], q.V[2], v.Turret, v.Gun, v.Error, v.UpdateAge} {
					if math.IsNaN(x) || math.IsInf(x, 0) {
						t.Fatalf("tank %d shows a non-finite value: %+v", v.ID, v)
					}
				}
			}
			if snap.Self < 0 {
				t.Fatal("the player's tank is gone")
			}
		}
	})
}
