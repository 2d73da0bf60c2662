package deadreckon

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// The world frame's helpers, one of each for the whole project: meters, seconds,
// radians; Y up, right-handed; yaw ψ about +Y, so that a tank with yaw ψ faces
// (cos ψ, 0, −sin ψ), its local +X.

// Finite reports whether every value is neither NaN nor infinite.
func Finite(vs ...float64) bool {
	for _, v := range vs {
		if !finite(v) {
			return false
		}
	}
	return true
}

// FiniteVec reports whether every component of v is finite.
func FiniteVec(v mgl64.Vec3) bool { return finiteVec(v) }

// finite reports whether v is neither NaN nor infinite: v − v is NaN exactly then.
func finite(v float64) bool { return v-v == 0 }

func finiteVec(v mgl64.Vec3) bool { return finite(v[0]) && finite(v[1]) && finite(v[2]) }

// wrapAngle returns x wrapped into (−π, π]. The common case, x already in range, is
// small enough to be inlined.
func wrapAngle(x float64) float64 {
	if x > -math.Pi && x <= math.Pi {
		return x
	}
	return wrapAngleOut(x)
}

// wrapAngleOut is wrapAngle for x outside (−π, π] (or NaN).
func wrapAngleOut(x float64) float64 {
	const twoPi = 2 * math.Pi
	switch {
	case x > math.Pi && x <= 3*math.Pi:
		return x - twoPi
	case x > -3*math.Pi && x <= -math.Pi:
		return x + twoPi
	case math.IsNaN(x) || math.IsInf(x, 0):
		return 0
	}
	x = math.Mod(x+math.Pi, twoPi)
	if x <= 0 {
		x += twoPi
	}
	return x - math.Pi
}

// WrapAngle returns the angle x, in radians, wrapped into (−π, π]; non-finite input
// gives 0.
func WrapAngle(x float64) float64 { return wrapAngle(x) }

// YawQuat returns the orientation with heading yaw radians about +Y and no pitch or
// roll: forward (+X) turns to (cos yaw, 0, −sin yaw).
func YawQuat(yaw float64) mgl64.Quat {
	s, c := math.Sincos(0.5 * yaw)
	return mgl64.Quat{W: c, V: mgl64.Vec3{0, s, 0}}
}

// Yaw returns the heading of orientation q in radians, in (−π, π]: the angle about +Y
// of its forward (+X) axis projected on the horizontal plane. A zero quaternion reads
// as the identity; a forward axis pointing straight up or down gives 0.
func Yaw(q mgl64.Quat) float64 { return Heading(rotate(qnormalize(q), mgl64.Vec3{1, 0, 0})) }

// Heading returns the yaw of direction d in radians, in (−π, π]: the angle about +Y
// from +X to d's horizontal part, atan2(−z, x). A vertical, zero or non-finite d
// gives 0.
func Heading(d mgl64.Vec3) float64 {
	h := math.Atan2(-d[2], d[0])
	switch {
	case h == 0 || math.IsNaN(h) || d[0] == 0 && d[2] == 0:
		return 0 // also never −0
	case h <= -math.Pi:
		return math.Pi
	}
	return h
}

// SlerpShort interpolates from unit quaternions a to b by u in [0, 1] along the
// shorter arc, returning a unit quaternion. (mgl64.QuatSlerp and QuatNlerp may take
// the long way.)
func SlerpShort(a, b mgl64.Quat, u float64) mgl64.Quat { return slerpShort(a, b, u) }

// GroundOrientation returns the orientation of a vehicle standing on ground whose
// upward unit normal is n and heading the way fwd points: its up axis is n (tilts
// steeper than the clamp allows are limited), its forward axis fwd's heading raised
// or lowered into the ground plane.
func GroundOrientation(fwd, n mgl64.Vec3) mgl64.Quat { return groundOrientation(fwd, n) }
