package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// View is a perspective camera pose in the world: where the eye is, where it looks, and
// the picture it makes. It looks along its local −Z with +Y up, as OpenGL cameras do.
type View struct {
	// Eye is the camera position in meters, world frame.
	Eye mgl64.Vec3
	// Orientation rotates the camera's local frame into the world.
	Orientation mgl64.Quat
	// FovY is the vertical field of view in radians.
	FovY float64
	// Near and Far are the clip distances in meters.
	Near, Far float64
	// Width and Height are the picture size in pixels.
	Width, Height int
}

// LookRotation returns the orientation of a camera at rest looking along dir with up
// as near to its +Y as dir allows. A zero dir, or one parallel to up, gives a result
// that still looks along dir when dir is not zero, and the identity when it is.
func LookRotation(dir, up mgl64.Vec3) mgl64.Quat {
	if dir.Len() == 0 {
		return mgl64.QuatIdent()
	}
	z := dir.Normalize().Mul(-1)
	x := up.Cross(z)
	if x.Len() < 1e-9 {
		// dir is parallel to up: pick any perpendicular right vector.
		x = mgl64.Vec3{1, 0, 0}.Cross(z)
		if x.Len() < 1e-9 {
			x = mgl64.Vec3{0, 0, 1}.Cross(z)
		}
	}
	x = x.Normalize()
	y := z.Cross(x)
	m := mgl64.Mat3FromCols(x, y, z)
	return mgl64.Mat4ToQuat(m.Mat4()).Normalize()
}

// Forward returns the unit direction the view looks along.
func (v View) Forward() mgl64.Vec3 {
	return v.Orientation.Rotate(mgl64.Vec3{0, 0, -1})
}

// HalfAngle returns the half-angle of the narrowest cone about the view's axis
// that holds the whole picture (its corners), radians.
func (v View) HalfAngle() float64 {
	halfH := math.Tan(v.FovY / 2)
	halfW := halfH * float64(v.Width) / math.Max(1, float64(v.Height))
	return math.Atan(math.Hypot(halfH, halfW))
}

// Project maps world point p to pixel coordinates (x right, y down from the top-left
// corner, pixel centers at half-integers). ok is false when p is behind the eye or
// outside the near/far range; x and y may then be anything.
func (v View) Project(p mgl64.Vec3) (x, y float64, ok bool) {
	local := v.Orientation.Conjugate().Rotate(p.Sub(v.Eye))
	depth := -local[2]
	if depth < v.Near || depth > v.Far || v.Height <= 0 {
		return 0, 0, false
	}
	f := 1 / math.Tan(v.FovY/2)
	aspect := float64(v.Width) / float64(v.Height)
	ndcX := f / aspect * local[0] / depth
	ndcY := f * local[1] / depth
	x = (ndcX + 1) / 2 * float64(v.Width)
	y = (1 - ndcY) / 2 * float64(v.Height)
	return x, y, true
}
