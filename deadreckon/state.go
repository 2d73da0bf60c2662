package deadreckon

import (
	"github.com/go-gl/mathgl/mgl64"
)

// MaxArticulations is how many articulations (turret, gun, …) one State carries.
// A fixed array keeps State a plain value that copies without allocating.
const MaxArticulations = 4

// Articulation is one dead-reckoned joint angle, such as a turret's yaw or a gun's pitch.
type Articulation struct {
	// Angle is the joint angle in radians.
	Angle float64
	// Rate is the joint's angular rate in radians per second.
	Rate float64
}

// State is the kinematic state of an actor at one instant, as its owner publishes it
// and as a remote reckons it. A zero Orientation (all components zero) is read as the
// identity; NewState returns a ready value.
type State struct {
	// Time is the owner's timestamp of this state in seconds on the owner's clock.
	Time float64
	// Position is in meters, world frame (Y up).
	Position mgl64.Vec3
	// Velocity is in meters per second.
	Velocity mgl64.Vec3
	// Acceleration is in meters per second squared.
	Acceleration mgl64.Vec3
	// Orientation is a unit quaternion rotating the actor's local frame into the world
	// frame. Locally the actor faces +X with +Y up (so +Z is its right); a yaw of ψ
	// radians about +Y turns its forward to (cos ψ, 0, −sin ψ).
	Orientation mgl64.Quat
	// AngularVelocity is the rotation rate in radians per second about a world axis
	// (direction is the axis, length the rate).
	AngularVelocity mgl64.Vec3
	// Articulations holds the joint angles; only the first NumArticulations are used.
	Articulations [MaxArticulations]Articulation
	// NumArticulations is how many entries of Articulations are in use.
	NumArticulations int
}

// NewState returns a state at rest at position p with the identity orientation.
func NewState(p mgl64.Vec3) State {
	return State{Position: p, Orientation: mgl64.QuatIdent()}
}
