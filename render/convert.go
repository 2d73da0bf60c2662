package render

import (
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
)

// This file is the single place where the simulation's float64 mgl64 values become
// g3n's float32 math32 values. Everything above it speaks mgl64.

// vec3 converts a world-frame mgl64 vector to math32.
func vec3(v mgl64.Vec3) math32.Vector3 {
	return math32.Vector3{X: float32(v[0]), Y: float32(v[1]), Z: float32(v[2])}
}

// quat converts a unit mgl64 quaternion to math32. A zero quaternion (all components
// zero, as in a zero deadreckon.State) becomes the identity.
func quat(q mgl64.Quat) math32.Quaternion {
	if q.W == 0 && q.V == (mgl64.Vec3{}) {
		return math32.Quaternion{W: 1}
	}
	return math32.Quaternion{X: float32(q.V[0]), Y: float32(q.V[1]), Z: float32(q.V[2]), W: float32(q.W)}
}

// color converts linear RGB components in [0, 1] to a math32 colour.
func color(r, g, b float64) math32.Color {
	return math32.Color{R: float32(r), G: float32(g), B: float32(b)}
}

// appendVec3 appends the three float32 components of v to buf.
func appendVec3(buf []float32, v mgl64.Vec3) []float32 {
	return append(buf, float32(v[0]), float32(v[1]), float32(v[2]))
}

// appendColor appends the three float32 components of c to buf.
func appendColor(buf []float32, c math32.Color) []float32 {
	return append(buf, c.R, c.G, c.B)
}
