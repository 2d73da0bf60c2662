package game

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
)

// plainRemoteView is a remote tank's view as reading its actor at the end of a
// Step gives it, field by field: what refreshViews filled before readRemote read
// each actor once, with its proxy's path.
func plainRemoteView(m *Match, t *tank, now float64) TankView {
	a := t.actor
	r := a.Reckoned()
	var v TankView
	v.Stale = a.Stale(now)
	v.Position, v.Orientation = r.Position, r.Orientation
	v.Turret = r.Articulations[physics.ArticulationTurret].Angle
	v.Gun = r.Articulations[physics.ArticulationGun].Angle
	v.Velocity, v.Acceleration = r.Velocity, r.Acceleration
	v.LastKnown = a.LastKnown()
	if !m.detail.NoProjection {
		v.LastKnownProjected = a.LastKnownProjected()
		v.Error = v.Position.Sub(v.LastKnownProjected.Position).Len()
	}
	c := a.LastClamp()
	v.Clamped = c.Clamped
	v.ClampHits, v.NumClampHits = c.Hits, c.NumHits
	v.GroundNormal = c.Normal
	v.UpdateAge = now - t.lastHeard
	v.Mode = a.Mode()
	return v
}

// TestRemoteViewsReadOnce: the views a Step hands out for remote tanks, read from
// each actor once with its proxy's path (readRemote) and finished after publish,
// are field for field what reading the actors at the end of the Step gives, with
// and without the projection, at frame lengths from 1/60 s to a fifth of a second;
// and the remote tanks move, so the comparison is not of resting tanks.
func TestRemoteViewsReadOnce(t *testing.T) {
	rig := newRig(t, gametest.Config{Seed: 2})
	mp := testmaps.Small(t)
	owner := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 6, Seed: 5}, join(t, rig))
	m := mustMatch(t, Config{Map: mp, Seed: 6}, join(t, rig))
	now, moved := 0.0, 0.0
	start := map[uint32]mgl64.Vec3{}
	for k := range 240 {
		// The owner ticks at 60 Hz; the viewer's frames are 1 to 12 ticks long.
		for range 1 + k*5%12 {
			now += tick
			rig.SetNow(now)
			mustStep(t, owner, now, physics.Input{})
		}
		m.SetViewDetail(ViewDetail{NoProjection: k%3 == 0})
		mustStep(t, m, now, physics.Input{Throttle: 1, Steer: 0.2})
		remote := 0
		for _, tk := range m.tanks {
			if tk.local {
				continue
			}
			remote++
			want := plainRemoteView(m, tk, now)
			got := tk.view
			// The fields readRemote does not fill: the id, name, team, combat state and trail.
			got.ID, got.Name, got.Team, got.Local = 0, "", 0, false
			got.Trail = nil
			want.Health, want.MaxHealth, want.Wreck, want.Protected = got.Health, got.MaxHealth, got.Wreck, got.Protected
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("frame %d, tank %d: view\n%+v\nread plainly\n%+v", k, tk.id, got, want)
			}
			if p, ok := start[tk.id]; !ok {
				start[tk.id] = got.Position
			} else {
				moved = max(moved, got.Position.Sub(p).Len())
			}
		}
		if k > 10 && remote != 6 {
			t.Fatalf("frame %d: %d remote tanks, want 6", k, remote)
		}
	}
	if moved < 5 {
		t.Errorf("the remote tanks moved at most %.1f m: the views compared were of tanks at rest", moved)
	}
}
