package net

import (
	"math"
	"testing"
	"testing/synctest"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// turningPlacer is a judge that puts every spawn 4 m east of where it was asked,
// facing 2 rad from the asked heading.
type turningPlacer struct{ quietJudge }

func (turningPlacer) Place(_ uint32, _ string, _ int, s deadreckon.State, _ float64) (deadreckon.State, error) {
	s.Position[0] += 4
	s.Orientation = geom.YawQuat(geom.Yaw(s.Orientation) + 2)
	return s, nil
}

// TestSpawnPlacedReturnsTheHostsPlace: SpawnPlaced returns the state the host gave
// the spawn, its judge's place where it has one, as the spawn's EventSpawn carries
// it: an owner can publish from there before it polls the event.
func TestSpawnPlacedReturnsTheHostsPlace(t *testing.T) {
	for _, c := range []struct {
		name   string
		judge  Judge
		dx, dy float64 // the place's offset east, m, and turn, rad, from the asked one
	}{
		{"taken where asked", quietJudge{}, 0, 0},
		{"placed by the judge", turningPlacer{}, 4, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { // each case in a bubble of its own
				h := simHost(t, HostConfig{Clock: &ManualClock{}, Judge: c.judge})
				cl := h.Local()
				asked := tankAt(10, 20)
				asked.Orientation = geom.YawQuat(0.5)
				id, placed, err := cl.SpawnPlaced("ann", 1, asked)
				if err != nil {
					t.Fatal(err)
				}
				if d := placed.Position.Sub(asked.Position); math.Abs(d[0]-c.dx) > 0.01 || math.Abs(d[2]) > 0.01 {
					t.Errorf("placed at %v, want %.0f m east of %v", placed.Position, c.dx, asked.Position)
				}
				if d := geom.WrapAngle(geom.Yaw(placed.Orientation) - 0.5 - c.dy); math.Abs(d) > 0.01 {
					t.Errorf("placed facing %.3f rad, want %.3f", geom.Yaw(placed.Orientation), 0.5+c.dy)
				}
				var ev Event
				for _, e := range cl.Poll(nil) {
					if e.Kind == EventSpawn && e.Actor == id {
						ev = e
					}
				}
				if ev.Kind != EventSpawn || ev.State.Position != placed.Position || ev.State.Orientation != placed.Orientation {
					t.Errorf("the spawn's event carries %+v, want the state SpawnPlaced returned, %+v", ev.State, placed)
				}
			})
		})
	}
}
