package game

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
)

// TestViewDetail: a match told that no overlay reads the last-known states or the
// trails leaves them out of its snapshots (and the error out of its views), keeps the
// combat's record of the last-known time all the same, and fills them again, trail
// history included, once they are asked for.
func TestViewDetail(t *testing.T) {
	rig := newRig(t, gametest.Config{})
	owner := join(t, rig)
	m := mustMatch(t, Config{Map: testmaps.Small(t), NoPlayer: true}, join(t, rig))
	s := deadreckon.NewState(mgl64.Vec3{10, 5, 10})
	s.Velocity = mgl64.Vec3{3, 0, 0}
	id, err := owner.Spawn("target", 1, s)
	if err != nil {
		t.Fatal(err)
	}
	var snap Snapshot
	step := func(k int) TankView {
		now := float64(k) * tick
		rig.SetNow(now)
		if k%6 == 0 {
			// A sideways step the projection cannot foresee, so it and the shown
			// tank part.
			u := s
			u.Position = mgl64.Vec3{10 + 3*now, 5, 10 + 0.5*float64(k%12/6)}
			if err := owner.Publish(id, u); err != nil {
				t.Fatal(err)
			}
		}
		mustStep(t, m, now, physics.Input{})
		m.Snapshot(&snap)
		return viewOf(t, &snap, id)
	}
	k := 0
	for ; k < 60; k++ {
		step(k)
	}
	full := step(k)
	k++
	// The trail shares snap's buffer: keep its length, not the slice.
	trail := len(full.Trail)
	if p := knownOf(t, &snap, id).LastKnownProjected.Position; p == (mgl64.Vec3{}) || trail < 2 {
		t.Fatalf("default detail: projection %v, %d trail samples; want both filled", p, trail)
	}

	m.SetViewDetail(ViewDetail{NoProjection: true, NoTrails: true})
	for ; k < 120; k++ {
		v := step(k)
		if len(snap.Known) != 0 || v.Error != 0 || len(v.Trail) != 0 {
			t.Fatalf("tick %d without detail: %d last-known states, error %v, %d trail samples; want none", k, len(snap.Known), v.Error, len(v.Trail))
		}
		if tk := m.byID[id]; tk.lastKnownAt != tk.actor.LastKnown().Time || tk.lastKnownAt == 0 {
			t.Fatalf("tick %d without detail: last known at %v, the actor's at %v", k, tk.lastKnownAt, tk.actor.LastKnown().Time)
		}
	}

	m.SetViewDetail(ViewDetail{})
	v := step(k)
	if kn := knownOf(t, &snap, id); kn.LastKnownProjected.Position == (mgl64.Vec3{}) || kn.LastKnown.Time == 0 || v.Error == 0 {
		t.Errorf("detail back on: last known %v, projection %v, error %v; want them filled", kn.LastKnown.Position, kn.LastKnownProjected.Position, v.Error)
	}
	if len(v.Trail) <= trail {
		t.Errorf("detail back on: %d trail samples, want more than the %d before, the ones sampled meanwhile", len(v.Trail), trail)
	}
}
