package render

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

const pxTol = 1e-6

func TestLookRotationLooksAlongDir(t *testing.T) {
	up := mgl64.Vec3{0, 1, 0}
	for _, dir := range []mgl64.Vec3{{1, 0, 0}, {0, 0, -1}, {-1, -0.3, 2}, {0, -1, 0}, {0, 1, 0}, {0.2, -5, 0.1}} {
		q := LookRotation(dir, up)
		got := q.Rotate(mgl64.Vec3{0, 0, -1})
		want := dir.Normalize()
		if got.Sub(want).Len() > 1e-9 {
			t.Errorf("LookRotation(%v) looks along %v, want %v", dir, got, want)
		}
		if math.Abs(q.Len()-1) > 1e-9 {
			t.Errorf("LookRotation(%v) = %v, not unit", dir, q)
		}
		// The camera's right stays horizontal unless dir is vertical.
		if math.Abs(dir.Normalize()[1]) < 0.99 {
			if r := q.Rotate(mgl64.Vec3{1, 0, 0}); math.Abs(r[1]) > 1e-9 {
				t.Errorf("LookRotation(%v) rolls: right = %v", dir, r)
			}
		}
	}
	if q := LookRotation(mgl64.Vec3{}, up); q != mgl64.QuatIdent() {
		t.Errorf("LookRotation(0) = %v, want identity", q)
	}
}

func TestViewProject(t *testing.T) {
	v := View{Eye: mgl64.Vec3{0, 2, 0}, Orientation: LookRotation(mgl64.Vec3{1, 0, 0}, mgl64.Vec3{0, 1, 0}),
		FovY: math.Pi / 2, Near: 0.5, Far: 100, Width: 200, Height: 100}
	cases := []struct {
		p      mgl64.Vec3
		x, y   float64
		inView bool
	}{
		{mgl64.Vec3{10, 2, 0}, 100, 50, true},  // straight ahead: the center
		{mgl64.Vec3{10, 12, 0}, 100, 0, true},  // 45° up: the top edge (fov 90°)
		{mgl64.Vec3{10, 2, 10}, 150, 50, true}, // 45° right (+Z is right when facing +X), aspect 2
		{mgl64.Vec3{10, 2, -20}, 0, 50, true},  // left edge
		{mgl64.Vec3{-10, 2, 0}, 0, 0, false},   // behind
		{mgl64.Vec3{0.2, 2, 0}, 0, 0, false},   // nearer than Near
		{mgl64.Vec3{1000, 2, 0}, 0, 0, false},  // beyond Far
	}
	for _, c := range cases {
		x, y, ok := v.Project(c.p)
		if ok != c.inView {
			t.Errorf("Project(%v) ok = %v, want %v", c.p, ok, c.inView)
			continue
		}
		if ok && (math.Abs(x-c.x) > pxTol || math.Abs(y-c.y) > pxTol) {
			t.Errorf("Project(%v) = (%.6f, %.6f), want (%v, %v)", c.p, x, y, c.x, c.y)
		}
	}
}

func TestHeading(t *testing.T) {
	for _, yaw := range []float64{0, 0.5, -1, math.Pi / 2, 3} {
		q := geom.YawQuat(yaw)
		if got := geom.Yaw(q); math.Abs(got-yaw) > 1e-9 {
			t.Errorf("geom.Yaw(QuatRotate(%v)) = %v", yaw, got)
		}
	}
	if got := geom.Yaw(mgl64.Quat{}); got != 0 {
		t.Errorf("geom.Yaw(zero quat) = %v, want 0", got)
	}
}

func TestChaseFollow(t *testing.T) {
	var c Chase
	target := mgl64.Vec3{10, 5, 0}
	eye, look := c.Follow(target, 0, 1.0/60, nil)
	// Facing +X the camera sits behind (smaller x), above, and looks ahead of it.
	if eye[0] >= target[0] || eye[1] <= target[1] || math.Abs(eye[2]) > 1e-9 {
		t.Errorf("first Follow eye = %v, want behind and above %v", eye, target)
	}
	if d := eye.Sub(target.Add(mgl64.Vec3{0, chaseLookHeight, 0})).Len(); math.Abs(d-DefaultChaseDistance) > 1e-9 {
		t.Errorf("eye distance from pivot = %v, want %v", d, DefaultChaseDistance)
	}
	if look[0] <= target[0] {
		t.Errorf("look = %v, want ahead of %v", look, target)
	}
	// The target jumps 10 m: one short frame closes only part of the gap, and many
	// frames close nearly all of it.
	moved := target.Add(mgl64.Vec3{10, 0, 0})
	eye2, _ := c.Follow(moved, 0, 1.0/60, nil)
	gap := 10.0
	got := eye2[0] - eye[0]
	want := gap * (1 - math.Exp(-DefaultChaseStiffness/60))
	if math.Abs(got-want) > 1e-9 {
		t.Errorf("one frame moved the eye %v m, want %v", got, want)
	}
	for i := 0; i < 600; i++ {
		eye2, _ = c.Follow(moved, 0, 1.0/60, nil)
	}
	if math.Abs(eye2[0]-(eye[0]+gap)) > 1e-6 {
		t.Errorf("after 10 s eye x = %v, want %v", eye2[0], eye[0]+gap)
	}
	// The ground pushes the eye up.
	ground := func(x, z float64) (float64, bool) { return 100, true }
	eye3, _ := c.Follow(moved, 0, 1.0/60, ground)
	if eye3[1] != 100+chaseClearance {
		t.Errorf("eye over high ground at y = %v, want %v", eye3[1], 100+chaseClearance)
	}
}

func TestChaseZoomOrbitLimits(t *testing.T) {
	var c Chase
	for i := 0; i < 100; i++ {
		c.Zoom(0.5)
	}
	if c.Distance != MinChaseDistance {
		t.Errorf("zoomed in distance = %v, want %v", c.Distance, MinChaseDistance)
	}
	for i := 0; i < 100; i++ {
		c.Zoom(2)
	}
	if c.Distance != MaxChaseDistance {
		t.Errorf("zoomed out distance = %v, want %v", c.Distance, MaxChaseDistance)
	}
	c.Orbit(0, 10)
	if c.Pitch != 1.4 {
		t.Errorf("pitch = %v, want 1.4", c.Pitch)
	}
	c.Orbit(7, -10)
	if c.Pitch != MinChasePitch || math.Abs(c.Yaw-(7-2*math.Pi)) > 1e-12 {
		t.Errorf("orbit = yaw %v pitch %v, want %v, %v", c.Yaw, c.Pitch, 7-2*math.Pi, MinChasePitch)
	}
}
