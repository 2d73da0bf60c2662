package deadreckon

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
)

// Ground is the surface that ground clamping follows. Heights are world Y in meters at
// world (x, z). Implementations must be safe for concurrent reads, because a Reckoner
// may clamp actors from several goroutines at once.
type Ground interface {
	// HeightAt reports the ground height at (x, z); ok is false outside the ground.
	HeightAt(x, z float64) (h float64, ok bool)
	// NormalAt reports the unit upward surface normal at (x, z); ok is false outside
	// the ground.
	NormalAt(x, z float64) (n mgl64.Vec3, ok bool)
	// RayDown casts a ray from (x, y, z) straight down and reports the height of the
	// first surface at or below y; ok is false when nothing is hit.
	RayDown(x, y, z float64) (h float64, ok bool)
}

// ClampMode says how ground clamping treats an actor's height.
type ClampMode uint8

const (
	// ClampNone leaves the reckoned height alone (flying or swimming actors).
	ClampNone ClampMode = iota
	// ClampUp lifts an actor that is below the ground but leaves one above it free
	// (vehicles that can jump or fall).
	ClampUp
	// ClampAlways puts the actor on the ground every frame.
	ClampAlways
)

// String returns "none", "up" or "always".
func (m ClampMode) String() string {
	switch m {
	case ClampNone:
		return "none"
	case ClampUp:
		return "up"
	case ClampAlways:
		return "always"
	}
	return fmt.Sprintf("ClampMode(%d)", uint8(m))
}
