package game

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
)

// Stall says why the player's tank does not go where its throttle drives it, for the
// hint the client shows (Snapshot.Stall).
type Stall uint8

const (
	// StallNone: the tank goes, or is not driven.
	StallNone Stall = iota
	// StallSteep: the way driven climbs too steeply for the tracks.
	StallSteep
	// StallBlocked: a rock, another tank or the border is in the way.
	StallBlocked
)

// Hint returns the line the client shows for s: what happened and what to do; "" for
// StallNone.
func (s Stall) Hint() string {
	switch s {
	case StallSteep:
		return "Too steep to climb here: back off (S) and go around, or take the slope at an angle"
	case StallBlocked:
		return "Blocked: back off (S) and steer around what is in the way"
	}
	return ""
}

// When the player's tank counts as stalled.
const (
	// stallThrottle is the least throttle, either way, that counts as driving.
	stallThrottle = 0.5
	// stallSpeed is the speed, m/s, along the way driven under which a driven tank
	// is not going anywhere.
	stallSpeed = 0.8
	// stallAfter is how long, s, a tank must be driven and stuck before the hint:
	// long enough for a start from rest (0 → 1 m/s takes under half a second on the
	// flat), short enough to come while the player still holds the key.
	stallAfter = 1.5
	// steepGrade is the climb, rad, from which a stuck tank is stuck on the slope:
	// the tank climbs at 4.3 m/s on 20° and not at all past about 30°
	// (physics.TankSpec).
	steepGrade = 22 * math.Pi / 180
)

// stallCause returns why a tank of pose p, driven by in and touching something or
// not, is not moving as driven right now: StallNone while it moves, or is not driven.
func stallCause(p physics.Pose, in physics.Input, touching bool) Stall {
	if math.Abs(in.Throttle) < stallThrottle || !geom.FiniteVec(p.Velocity) {
		return StallNone
	}
	way := geom.Rotate(p.Orientation, mgl64.Vec3{1, 0, 0})
	if in.Throttle < 0 {
		way = way.Mul(-1)
	}
	if p.Velocity.Dot(way) > stallSpeed {
		return StallNone
	}
	switch {
	case math.Asin(math.Max(-1, math.Min(1, way[1]))) > steepGrade:
		return StallSteep
	case touching:
		return StallBlocked
	}
	return StallNone // slow but free: starting, or braking to turn
}

// stallWatch follows the player's tank from step to step: a cause that lasts
// stallAfter becomes the Stall shown.
type stallWatch struct {
	cause Stall
	since float64 // s the cause has lasted
	shown Stall
}

// step updates the watch with this step's cause over dt seconds.
func (w *stallWatch) step(cause Stall, dt float64) {
	if cause != w.cause {
		w.cause, w.since = cause, 0
	} else {
		w.since += dt
	}
	w.shown = StallNone
	if cause != StallNone && w.since >= stallAfter {
		w.shown = cause
	}
}
