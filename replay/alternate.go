package replay

import (
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/terrain"
)

// alternate is the A/B comparison's second view: one deadreckon.Actor per tank with
// the second algorithm, fed every recorded spawn, update and despawn at its recorded
// time.
type alternate struct {
	on     bool
	algo   deadreckon.Algorithm
	cfg    deadreckon.Config
	actors map[uint32]*deadreckon.Actor
	next   int // the first event not yet fed
	camera mgl64.Vec3
}

// reset forgets every tank, back at the start of the recording.
func (a *alternate) reset() {
	a.actors = make(map[uint32]*deadreckon.Actor)
	a.next = 0
}

// feed hands the actors the events due by t, then reckons and clamps them to t.
func (a *alternate) feed(rec *Recording, t float64, g *terrain.Map) {
	if !a.on {
		return
	}
	ev := rec.Events
	for ; a.next < len(ev) && ev[a.next].Time <= t; a.next++ {
		e := &ev[a.next].Event
		switch e.Kind {
		case net.EventSpawn:
			act := deadreckon.NewActor(a.cfg)
			if act.Break(e.State, ev[a.next].Time) == nil {
				act.SetClampPhase(int(e.Actor))
				a.actors[e.Actor] = act
			}
		case net.EventState:
			if act := a.actors[e.Actor]; act != nil {
				_ = act.Receive(e.State, ev[a.next].Time) // the replay's main view counts refusals
			}
		case net.EventDespawn:
			delete(a.actors, e.Actor)
		}
	}
	off := rec.ClockOffset(t)
	for _, act := range a.actors {
		act.SetClockOffset(off)
		act.Advance(t)
		act.ClampTo(g, a.camera)
	}
}
