package game

import (
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
)

// plainRemoteView is a remote tank's view and last-known states as reading its actor
// at the end of a Step gives them, field by field: what refreshViews filled before
// readRemote read each actor once, with its proxy's path.
func plainRemoteView(m *Match, t *tank, now float64) (TankView, Known) {
	a := t.actor
	r := a.Reckoned()
	var v TankView
	v.Stale = a.Stale(now)
	v.Position, v.Orientation = r.Position, r.Orientation
	v.Turret = r.Articulations[physics.ArticulationTurret].Angle
	v.Gun = r.Articulations[physics.ArticulationGun].Angle
	v.Velocity, v.Acceleration = r.Velocity, r.Acceleration
	k := Known{LastKnown: a.LastKnown(), LastKnownProjected: a.LastKnownProjected()}
	if !m.detail.NoProjection {
		v.Error = v.Position.Sub(k.LastKnownProjected.Position).Len()
	}
	c := a.LastClamp()
	v.Clamped = c.Clamped
	v.ClampHits, v.NumClampHits = c.Hits, c.NumHits
	v.GroundNormal = c.Normal
	v.UpdateAge = now - t.lastHeard
	v.Mode = a.Mode()
	return v, k
}

// nearestTruth is an Observer that keeps the ObserverDistance of the last sample
// each local tank's publisher was given.
type nearestTruth struct {
	dist map[uint32]float64
}

func (o *nearestTruth) Polled(float64, []net.Event, time.Duration)  {}
func (o *nearestTruth) Published(uint32, deadreckon.State, float64) {}
func (o *nearestTruth) Truth(actor uint32, s *deadreckon.Sample) {
	o.dist[actor] = s.ObserverDistance
}

// TestRemoteViewsReadOnce: the views a Step hands out for remote tanks, read from
// each actor once with its proxy's path (readRemote) and finished after publish,
// are field for field what reading the actors at the end of the Step gives, with
// and without the projection, at frame lengths from 1/60 s to a fifth of a second,
// with routes and progress (patrolling bots) and a change of algorithm (a new
// configuration); publish measures the player's tank's nearest other from the last
// step's views; and the remote tanks move, so the comparison is not of resting
// tanks.
func TestRemoteViewsReadOnce(t *testing.T) {
	rig := newRig(t, gametest.Config{Seed: 2})
	mp := testmaps.Valley(t) // a map with room for the patrols' routes
	owner := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 6, Seed: 5, Patrol: 0.5}, join(t, rig))
	truth := &nearestTruth{dist: map[uint32]float64{}}
	m := mustMatch(t, Config{Map: mp, Seed: 6, Observer: truth}, join(t, rig))
	self, _ := m.Self()
	now, moved := 0.0, 0.0
	start := map[uint32]mgl64.Vec3{}
	var last []mgl64.Vec3 // the views' positions after the last Step
	measured := 0
	for k := range 240 {
		// The owner ticks at 60 Hz; the viewer's frames are 1 to 12 ticks long.
		for range 1 + k*5%12 {
			now += tick
			rig.SetNow(now)
			mustStep(t, owner, now, physics.Input{})
		}
		m.SetViewDetail(ViewDetail{NoProjection: k%3 == 0})
		switch k {
		case 80:
			m.SetAlgorithm(deadreckon.Linear)
		case 160:
			m.SetAlgorithm(deadreckon.ProjectiveVelocityBlend)
		}
		n := len(m.tanks)
		delete(truth.dist, self)
		mustStep(t, m, now, physics.Input{Throttle: 1, Steer: 0.2})
		if d, ok := truth.dist[self]; ok && len(m.tanks) == n && len(last) == n {
			// The nearest other as of the last Step's views, as publish measures it.
			me := m.byID[self].body.Pose().Position // the pose publish samples
			want := math.Inf(1)
			for i, tk := range m.tanks {
				if tk.id != self {
					want = math.Min(want, last[i].Sub(me).Len())
				}
			}
			if d != want {
				t.Fatalf("frame %d: the player's tank measured its nearest other at %v m, the last step's views at %v", k, d, want)
			}
			measured++
		}
		last = last[:0]
		remote := 0
		for _, tk := range m.tanks {
			last = append(last, tk.view.Position)
			if tk.local {
				continue
			}
			remote++
			want, known := plainRemoteView(m, tk, now)
			got := tk.view
			if tk.lastKnownAt != known.LastKnown.Time {
				t.Fatalf("frame %d, tank %d: last known at %v, the actor's %v", k, tk.id, tk.lastKnownAt, known.LastKnown.Time)
			}
			if !m.detail.NoProjection && tk.known != known {
				t.Fatalf("frame %d, tank %d: last known\n%+v\nread plainly\n%+v", k, tk.id, tk.known, known)
			}
			// The fields readRemote does not fill: the id, name, team, combat state and trail.
			if got.ID != tk.id || got.Name != tk.name || got.Team != tk.team || got.Local {
				t.Fatalf("frame %d, tank %d: view's id %d, name %q, team %d, local %v", k, tk.id, got.ID, got.Name, got.Team, got.Local)
			}
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
	routes := 0
	for _, tk := range m.tanks {
		if tk.route != nil {
			routes++
		}
	}
	if routes == 0 {
		t.Error("no remote tank had a route: the routes' progress was not compared")
	}
	if measured < 100 {
		t.Errorf("the player's tank's nearest other compared on %d frames, want at least 100", measured)
	}
}

// TestUpdatesHeardWhileJoining: the state updates a peer hears outside a Step, as
// NewMatch hears them while it waits for the host's answers, are applied there and
// then: none is left queued for a reckoning's pass that would read it from an event
// buffer polled anew, and none is lost. After every Step nothing is left queued
// either.
func TestUpdatesHeardWhileJoining(t *testing.T) {
	rig := newRig(t, gametest.Config{Seed: 3})
	mp := testmaps.Valley(t)
	owner := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 6, Seed: 7}, join(t, rig))
	m := mustMatch(t, Config{Map: mp, Seed: 8}, join(t, rig))
	queued := func(when string) {
		t.Helper()
		for _, tk := range m.tanks {
			if len(tk.pend) > 0 {
				t.Fatalf("%s: tank %d has %d updates left queued", when, tk.id, len(tk.pend))
			}
		}
	}
	now, heard := 0.0, 0
	for k := range 60 {
		now += tick
		rig.SetNow(now)
		mustStep(t, owner, now, physics.Input{})
		if k%2 == 0 {
			mustStep(t, m, now, physics.Input{})
			queued(fmt.Sprintf("after step %d", k))
			continue
		}
		// As NewMatch does: the events polled outside a Step.
		before := map[uint32]float64{}
		for _, tk := range m.tanks {
			if !tk.local {
				before[tk.id] = tk.actor.LastKnown().Time
			}
		}
		m.receive(now, false)
		queued(fmt.Sprintf("after the receive of frame %d", k))
		for _, tk := range m.tanks {
			if lk, ok := before[tk.id]; ok && tk.actor.LastKnown().Time != lk {
				heard++
			}
		}
	}
	if heard == 0 {
		t.Error("no update heard outside a Step reached its actor: nothing was tested")
	}
}
