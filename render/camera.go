package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Eye returns the camera position in meters, world frame, and false before the first
// Update placed the camera.
func (s *Scene) Eye() (mgl64.Vec3, bool) { return s.view.Eye, s.chase.started }

// SelfHeading returns the heading (yaw, radians) of the player's tank as last drawn,
// and false before a snapshot held it.
func (s *Scene) SelfHeading() (float64, bool) { return s.selfHeading, s.haveSelf }

// SetFOV sets the camera's vertical field of view, radians.
func (s *Scene) SetFOV(fovY float64) {
	s.cam.SetFov(float32(fovY * 180 / math.Pi))
	s.view.FovY = fovY
}
