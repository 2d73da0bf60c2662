package render

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Chase camera defaults.
const (
	// DefaultChaseDistance is how far behind the target the camera sits, meters.
	DefaultChaseDistance = 16.0
	// DefaultChasePitch is how far the camera looks down at the target, radians.
	DefaultChasePitch = 0.26
	// DefaultChaseStiffness is the rate at which the camera closes on where it should
	// be, 1/s: after 1/stiffness seconds about 63% of any gap is gone.
	DefaultChaseStiffness = 6.0
	// MinChaseDistance and MaxChaseDistance bound the wheel zoom, meters.
	MinChaseDistance, MaxChaseDistance = 6.0, 80.0
	// chaseLookHeight is how far above the target's origin the camera aims, meters.
	chaseLookHeight = 2.5
	// chaseLookAhead is how far ahead of the target the camera aims, meters, so more
	// of what lies ahead is in view.
	chaseLookAhead = 8.0
	// chaseClearance is how far above the ground the eye stays, meters.
	chaseClearance = 1.5
	// MinChasePitch and MaxChasePitch bound Orbit's pitch, radians: below 0 the eye
	// stays level with the point it orbits and the camera looks up instead, by as
	// much, so a player can aim at a tank up a hill.
	MinChasePitch, MaxChasePitch = -0.45, 1.4
	// maxChaseElevation is the steepest the eye may look down on the pivot from when
	// the ground, not the player's orbit, lifts it, radians: past it the camera comes
	// closer along its arm instead of climbing the hillside behind the target.
	maxChaseElevation = 0.87
	// chaseArmStep is the spacing of the ground samples along the camera's arm, m.
	chaseArmStep = 1.0
	// chaseMinBehind is the share of its wanted horizontal distance the eye keeps
	// from the pivot while it catches up: it swings around a turning target instead
	// of cutting across over it.
	chaseMinBehind = 0.5
)

// Chase is a camera that follows a target from behind and smoothly catches up with it.
// Orbit turns it around the target and Zoom moves it in and out; both persist.
// The zero value is ready and uses the defaults.
type Chase struct {
	// Distance from the target in meters; if zero, DefaultChaseDistance.
	Distance float64
	// Pitch is the look-down angle in radians; if zero, DefaultChasePitch.
	Pitch float64
	// Yaw is an orbit angle in radians added to the target's heading.
	Yaw float64
	// Stiffness is the catch-up rate in 1/s; if zero, DefaultChaseStiffness.
	Stiffness float64

	eye, look mgl64.Vec3
	started   bool
}

// Orbit turns the camera around the target by dyaw and tilts it by dpitch, radians;
// the pitch stays between MinChasePitch and MaxChasePitch.
func (c *Chase) Orbit(dyaw, dpitch float64) {
	c.Yaw = math.Remainder(c.Yaw+dyaw, 2*math.Pi)
	p := c.Pitch
	if p == 0 {
		p = DefaultChasePitch
	}
	c.Pitch = math.Max(MinChasePitch, math.Min(MaxChasePitch, p+dpitch))
	if c.Pitch == 0 {
		c.Pitch = 1e-9 // keep an explicit level view distinct from "use the default"
	}
}

// Zoom multiplies the distance by factor, within MinChaseDistance..MaxChaseDistance.
func (c *Chase) Zoom(factor float64) {
	d := c.Distance
	if d == 0 {
		d = DefaultChaseDistance
	}
	c.Distance = math.Max(MinChaseDistance, math.Min(MaxChaseDistance, d*factor))
}

// Follow moves the camera dt seconds toward its place behind a target at pos facing
// heading (yaw, radians), and returns the eye and the point it looks at. ground, when
// not nil, reports the ground height at (x, z) so the eye stays above it. The first
// call jumps straight to the place.
func (c *Chase) Follow(pos mgl64.Vec3, heading, dt float64, ground func(x, z float64) (float64, bool)) (eye, look mgl64.Vec3) {
	dist := c.Distance
	if dist == 0 {
		dist = DefaultChaseDistance
	}
	pitch := c.Pitch
	if pitch == 0 {
		pitch = DefaultChasePitch
	}
	k := c.Stiffness
	if k == 0 {
		k = DefaultChaseStiffness
	}
	yaw := heading + c.Yaw
	fwd := mgl64.Vec3{math.Cos(yaw), 0, -math.Sin(yaw)}
	pivot := pos.Add(mgl64.Vec3{0, chaseLookHeight, 0})
	wantLook := pivot.Add(fwd.Mul(chaseLookAhead))
	if pitch < 0 { // looking up: the eye stays level with the pivot
		wantLook[1] += (chaseLookAhead + dist) * math.Tan(-pitch)
		pitch = 0
	}
	arm := mgl64.Vec3{-math.Cos(yaw) * math.Cos(pitch), math.Sin(pitch), math.Sin(yaw) * math.Cos(pitch)}
	dist = armLength(pivot, arm, dist, ground)
	wantEye := pivot.Add(arm.Mul(dist))
	if !c.started || dt <= 0 || dt > 1 || !geom.FiniteVec(c.eye) {
		c.eye, c.look, c.started = wantEye, wantLook, true
	} else {
		a := 1 - math.Exp(-k*dt)
		c.eye = c.eye.Add(wantEye.Sub(c.eye).Mul(a))
		// The aim point follows faster than the eye so the target stays centered.
		b := 1 - math.Exp(-3*k*dt)
		c.look = c.look.Add(wantLook.Sub(c.look).Mul(b))
		c.eye = keepOut(c.eye, pivot, wantEye)
	}
	if ground != nil {
		if h, ok := ground(c.eye[0], c.eye[2]); ok && c.eye[1] < h+chaseClearance {
			c.eye[1] = h + chaseClearance
		}
	}
	return c.eye, c.look
}

// armLength returns how long the camera's arm from pivot along unit direction arm may
// be, up to dist: where the ground first comes within chaseClearance of it, so that
// the eye stays behind the target, closer, rather than climbing a hillside behind it
// to look down from overhead. It is never shorter than MinChaseDistance.
func armLength(pivot, arm mgl64.Vec3, dist float64, ground func(x, z float64) (float64, bool)) float64 {
	if ground == nil {
		return dist
	}
	for d := chaseArmStep; d <= dist; d += chaseArmStep {
		p := pivot.Add(arm.Mul(d))
		h, ok := ground(p[0], p[2])
		if !ok || p[1] >= h+chaseClearance {
			continue
		}
		// The ground rises into the arm: stop short of it, unless the eye's
		// lift over the ground there stays under maxChaseElevation anyway.
		full := pivot.Add(arm.Mul(dist))
		if g, ok := ground(full[0], full[2]); ok {
			lift := g + chaseClearance - pivot[1]
			if math.Atan2(lift, dist*math.Hypot(arm[0], arm[2])) <= maxChaseElevation {
				return dist
			}
		}
		return math.Max(MinChaseDistance, d-chaseArmStep)
	}
	return dist
}

// keepOut keeps eye, catching up with want, at least chaseMinBehind of want's
// horizontal distance from pivot: a target turning about, or the orbit swinging,
// makes the eye swing around it rather than pass over it.
func keepOut(eye, pivot, want mgl64.Vec3) mgl64.Vec3 {
	wx, wz := want[0]-pivot[0], want[2]-pivot[2]
	floor := chaseMinBehind * math.Hypot(wx, wz)
	ex, ez := eye[0]-pivot[0], eye[2]-pivot[2]
	r := math.Hypot(ex, ez)
	if r >= floor || floor == 0 {
		return eye
	}
	if r < 1e-9 { // right over the pivot: out toward where the eye is going
		ex, ez, r = wx, wz, math.Hypot(wx, wz)
	}
	eye[0], eye[2] = pivot[0]+ex*floor/r, pivot[2]+ez*floor/r
	return eye
}
