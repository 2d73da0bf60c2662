package game

import (
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
)

// offsetLink is a scriptLink whose clock sync reads the offset the test sets.
type offsetLink struct {
	scriptLink
	offset time.Duration
}

func (l *offsetLink) Stats() net.Stats { return net.Stats{ClockOffset: l.offset} }

// TestClockOffsetReachesActors: a remote tank's actor is given the link's clock
// offset only when it changes (setting the same one again changes nothing), and
// reckons, latency compensated, exactly as an actor given the offset every frame:
// through a change of the offset, back and forth, and for a tank that joins late.
func TestClockOffsetReachesActors(t *testing.T) {
	mp := testmaps.Small(t)
	link := &offsetLink{}
	m := mustMatch(t, Config{Map: mp, NoPlayer: true}, link)
	m.SetLatencyCompensation(true)
	refs := map[uint32]*deadreckon.Actor{}
	var snap Snapshot
	offsets := []time.Duration{0, 0, 50 * time.Millisecond, 50 * time.Millisecond, -20 * time.Millisecond,
		-20 * time.Millisecond, 0, 80 * time.Millisecond, 80 * time.Millisecond, 80 * time.Millisecond}
	for f, off := range offsets {
		link.now += tick
		for _, id := range []uint32{100, 101} {
			if id == 101 && f < 5 {
				continue // joins late
			}
			// Stamped 100 ms behind the local clock: the offset decides how old
			// it is taken to be (100 ms plus the offset).
			s := deadreckon.NewState(mgl64.Vec3{float64(id - 100), 0, 4})
			s.Time, s.Velocity = link.now-0.1, mgl64.Vec3{10, 0, 0}
			ref := refs[id]
			kind := net.EventState
			if ref == nil {
				ref = deadreckon.NewActor(m.remoteReckoning())
				refs[id] = ref
				kind = net.EventSpawn
				if err := ref.Break(s, link.now); err != nil {
					t.Fatal(err)
				}
			} else if err := ref.Receive(s, link.now); err != nil {
				t.Fatal(err)
			}
			link.in = append(link.in, net.Event{Kind: kind, Actor: id, Owner: 2, Name: "r", State: s})
		}
		link.offset = off
		if err := m.Step(link.now, physics.Input{}); err != nil {
			t.Fatal(err)
		}
		m.Snapshot(&snap)
		for id, ref := range refs {
			ref.SetClockOffset(off.Seconds())
			ref.Advance(link.now)
			got, want := knownOf(t, &snap, id).LastKnownProjected.Position, ref.LastKnownProjected().Position
			if got[0] != want[0] || got[2] != want[2] {
				t.Errorf("frame %d, offset %v, tank %d: projected to %v, want %v", f, off, id, got, want)
			}
		}
	}
}
