package render

import "github.com/go-gl/mathgl/mgl64"

// cameraSetter is a Session that wants to know where the camera stands: *game.Match
// chooses each remote tank's ground-clamp detail by its distance from the camera.
type cameraSetter interface{ SetCamera(p mgl64.Vec3) }

// Eye returns the camera position in meters, world frame, and false before the first
// Update placed the camera.
func (s *Scene) Eye() (mgl64.Vec3, bool) { return s.view.Eye, s.chase.started }

// tellCamera passes the camera position of the last drawn frame to the session, for
// the next Step.
func (l *loop) tellCamera() {
	if c, ok := l.s.(cameraSetter); ok {
		if eye, placed := l.scene.Eye(); placed {
			c.SetCamera(eye)
		}
	}
}
