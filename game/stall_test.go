package game

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
)

// pitched returns a hull pose facing +X pitched up by grade, moving at speed along
// its forward axis.
func pitched(grade, speed float64) physics.Pose {
	q := mgl64.QuatRotate(grade, mgl64.Vec3{0, 0, 1}) // +X tilts toward +Y
	fwd := geom.Rotate(q, mgl64.Vec3{1, 0, 0})
	return physics.Pose{Orientation: q, Velocity: fwd.Mul(speed)}
}

// TestStallCause: a tank held on the throttle but not going is stuck on a slope when
// the way it drives climbs past steepGrade, blocked when it touches something, and
// not stuck while it moves, is not driven, or is merely slow and free.
func TestStallCause(t *testing.T) {
	deg := math.Pi / 180
	for _, tc := range []struct {
		name     string
		pose     physics.Pose
		throttle float64
		touching bool
		want     Stall
	}{
		{"held up a 30° slope, stopped", pitched(30*deg, 0), 1, false, StallSteep},
		{"held up a 30° slope, sliding back", pitched(30*deg, -1), 1, false, StallSteep},
		{"reversing down a 30° slope, stopped", pitched(30*deg, 0), -1, false, StallNone},
		{"reversing up a 30° slope (facing down), stopped", pitched(-30*deg, 0), -1, false, StallSteep},
		{"climbing a 30° slope at 2 m/s", pitched(30*deg, 2), 1, false, StallNone},
		{"no throttle on a 30° slope", pitched(30*deg, 0), 0.2, false, StallNone},
		{"against a rock on the flat", pitched(0, 0.1), 1, true, StallBlocked},
		{"up a 10° slope against a tank", pitched(10*deg, 0), 0.8, true, StallBlocked},
		{"starting on the flat, touching nothing", pitched(0, 0.3), 1, false, StallNone},
		{"moving on the flat while touching", pitched(0, 5), 1, true, StallNone},
		{"a broken velocity", physics.Pose{Orientation: mgl64.QuatIdent(), Velocity: mgl64.Vec3{math.NaN()}}, 1, true, StallNone},
	} {
		if got := stallCause(tc.pose, physics.Input{Throttle: tc.throttle}, tc.touching); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
	if StallSteep.Hint() == "" || StallBlocked.Hint() == "" || StallNone.Hint() != "" {
		t.Error("a stall without a hint, or a hint without a stall")
	}
}

// TestStallWatch: a cause shows once it has lasted stallAfter, and goes at once when
// it ends or changes.
func TestStallWatch(t *testing.T) {
	var w stallWatch
	const dt = 1.0 / 60
	steps := func(c Stall, s float64) {
		for range int(math.Round(s / dt)) {
			w.step(c, dt)
		}
	}
	steps(StallSteep, stallAfter-0.1)
	if w.shown != StallNone {
		t.Errorf("shown %v after %.1f s, want nothing before %v s", w.shown, stallAfter-0.1, stallAfter)
	}
	steps(StallSteep, 0.2)
	if w.shown != StallSteep {
		t.Errorf("shown %v after %.1f s stuck on a slope, want StallSteep", w.shown, stallAfter+0.1)
	}
	steps(StallBlocked, dt)
	if w.shown != StallNone {
		t.Errorf("the cause changed: shown %v, want nothing until the new one lasts", w.shown)
	}
	steps(StallNone, 5)
	if w.shown != StallNone {
		t.Errorf("moving again: shown %v", w.shown)
	}
}

// TestStallOnTheMap drives the player's tank, full throttle, up the steepest slope
// of the valley map and then along its level floor: stuck on the slope, the match
// says it is too steep within a few seconds; on the floor it says nothing.
func TestStallOnTheMap(t *testing.T) {
	t.Parallel()
	mp := testmaps.Valley(t)
	// The steepest spot whose ground stays over 32° for 6 m uphill, and the way up.
	best, bx, bz, byaw := 0.0, 0.0, 0.0, 0.0
	for x := -230.0; x <= 230; x += 2 {
		for z := -230.0; z <= 230; z += 2 {
			n, ok := mp.NormalAt(x, z)
			if !ok || n[1] > math.Cos(32*math.Pi/180) {
				continue
			}
			up := mgl64.Vec3{-n[0], 0, -n[2]}.Normalize()
			n2, ok := mp.NormalAt(x+6*up[0], z+6*up[2])
			if s := math.Acos(n[1]); ok && n2[1] < math.Cos(32*math.Pi/180) && s > best {
				best, bx, bz, byaw = s, x, z, geom.Heading(up)
			}
		}
	}
	if best == 0 {
		t.Fatal("no slope over 32° on the valley map")
	}
	l := &scriptLink{}
	m, err := NewMatch(Config{Map: mp, Seed: 1}, l)
	if err != nil {
		t.Fatal(err)
	}
	drive := func(seconds float64) Stall {
		var snap Snapshot
		for range int(seconds * 60) {
			l.now += 1.0 / 60
			if err := m.Step(l.now, physics.Input{Throttle: 1}); err != nil {
				t.Fatal(err)
			}
			m.Snapshot(&snap)
			if snap.Stall != StallNone {
				return snap.Stall
			}
		}
		return StallNone
	}
	m.moveLocal(m.self, bx, bz, byaw)
	if got := drive(5); got != StallSteep {
		t.Errorf("driven up %.0f° at (%.0f, %.0f): %v, want StallSteep within 5 s", best*180/math.Pi, bx, bz, got)
	}
	floor, ok := mp.Landmark("floor")
	if !ok {
		t.Fatal("the valley map has no floor landmark")
	}
	m.moveLocal(m.self, floor.X, floor.Z, floor.Yaw)
	if got := drive(3); got != StallNone {
		t.Errorf("driven along the level floor: %v, want none", got)
	}
}
