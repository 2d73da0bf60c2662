package game

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/physics"
)

// viewLink is a scriptLink that keeps the observer's views.
type viewLink struct {
	scriptLink
	views []wire.View
}

func (l *viewLink) View(follow uint32, p mgl64.Vec3) error {
	l.views = append(l.views, wire.View{Follow: wire.ActorID(follow), Position: p})
	return nil
}

// TestObserverMatch: an observer's match spawns no tank, reports its camera and the
// tank it follows every viewInterval (and nothing before it has a camera), keeps the
// host's count of observers, and firing or respawning does nothing.
func TestObserverMatch(t *testing.T) {
	l := &viewLink{}
	m, err := NewMatch(Config{Map: testmaps.Small(t), Observe: true}, l)
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	if err := m.Step(0, physics.Input{Throttle: 1}); err != nil {
		t.Fatal(err)
	}
	if l.nextID != 0 || len(l.views) != 0 {
		t.Fatalf("observer spawned %d tanks, sent %d views before it had a camera", l.nextID, len(l.views))
	}
	m.SetCamera(mgl64.Vec3{10, 20, 30})
	m.SetFollow(7)
	l.in = append(l.in, net.Event{Kind: net.EventMessage, Message: &wire.Observers{Count: 2}})
	for i := 1; i <= 60; i++ { // one second at 60 Hz
		m.Fire()
		m.Respawn()
		if err := m.Step(float64(i)/60, physics.Input{Throttle: 1}); err != nil {
			t.Fatal(err)
		}
	}
	m.Snapshot(&snap)
	if n := len(l.views); n < 4 || n > 5 {
		t.Errorf("%d views in a second, want one every %v s", n, viewInterval)
	}
	if v := l.views[0]; v.Follow != 7 || v.Position != (mgl64.Vec3{10, 20, 30}) {
		t.Errorf("view %+v, want tank 7 from the camera", v)
	}
	if snap.Self != -1 || !snap.Observing || snap.Observers != 2 || len(snap.Tanks) != 0 || l.nextID != 0 {
		t.Errorf("snapshot: self %d, observing %v, %d observers, %d tanks, %d spawned; want -1, true, 2, 0, 0",
			snap.Self, snap.Observing, snap.Observers, len(snap.Tanks), l.nextID)
	}
}
