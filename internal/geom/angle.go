package geom

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// WrapAngle returns the angle x, in radians, wrapped into (−π, π]; non-finite input
// gives 0. The common case, x already in range, is small enough to be inlined.
func WrapAngle(x float64) float64 {
	if x > -math.Pi && x <= math.Pi {
		return x
	}
	return wrapAngleOut(x)
}

// wrapAngleOut is WrapAngle for x outside (−π, π] (or NaN).
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

// YawQuat returns the orientation with heading yaw radians about +Y and no pitch or
// roll: forward (+X) turns to (cos yaw, 0, −sin yaw).
func YawQuat(yaw float64) mgl64.Quat {
	s, c := math.Sincos(0.5 * yaw)
	return mgl64.Quat{W: c, V: mgl64.Vec3{0, s, 0}}
}

// Yaw returns the heading of orientation q in radians, in (−π, π]: the angle about +Y
// of its forward (+X) axis projected on the horizontal plane. A zero quaternion reads
// as the identity; a forward axis pointing straight up or down gives 0.
func Yaw(q mgl64.Quat) float64 { return Heading(Rotate(QuatNormalize(q), mgl64.Vec3{1, 0, 0})) }

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
