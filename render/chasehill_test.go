package render

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// hill is a ground with one steep round hill, 30 m high, its flanks up to 33° steep.
func hill(x, z float64) (float64, bool) { return 30 * math.Exp(-(x*x+z*z)/(40*40)), true }

// TestChaseStaysBehindOnHills drives a target over a steep hill at 10 m/s, and back
// down with the heading turned about: every frame the chase camera stays behind the
// target (at least a third of its distance, horizontally), above the ground, and
// never looks down on it from steeper than maxChaseElevation (overhead).
func TestChaseStaysBehindOnHills(t *testing.T) {
	for _, tc := range []struct {
		name    string
		heading float64
		from    float64
		dir     float64
	}{
		{"east over the hill", 0, -120, 1},
		{"west over the hill", math.Pi, 120, -1},
		{"turning about on the flank", 0, -30, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c Chase
			worstBehind, worstElev := math.Inf(1), 0.0
			const dt = 1.0 / 60
			for i := 0; i < 24*60; i++ {
				x := tc.from + tc.dir*10*float64(i)*dt
				heading := tc.heading
				if tc.dir == 0 { // parked on the flank, turning at 35°/s
					heading = 0.61 * float64(i) * dt
				}
				y, _ := hill(x, 0)
				pos := mgl64.Vec3{x, y, 0}
				eye, _ := c.Follow(pos, heading, dt, hill)
				pivot := pos.Add(mgl64.Vec3{0, chaseLookHeight, 0})
				fwd := mgl64.Vec3{math.Cos(heading), 0, -math.Sin(heading)}
				off := eye.Sub(pivot)
				behind := -off.Dot(fwd)
				horiz := math.Hypot(off[0], off[2])
				elev := math.Atan2(off[1], horiz)
				if i > 60 { // a second to settle after the first frame
					worstBehind = math.Min(worstBehind, behind)
					worstElev = math.Max(worstElev, elev)
				}
				if g, _ := hill(eye[0], eye[2]); eye[1] < g+chaseClearance-1e-9 {
					t.Fatalf("frame %d: eye %v under the ground (%v)", i, eye, g)
				}
			}
			if tc.dir != 0 && worstBehind < DefaultChaseDistance/3 {
				t.Errorf("the eye came within %.1f m behind the target, want at least %.1f", worstBehind, DefaultChaseDistance/3)
			}
			if worstElev > maxChaseElevation+1e-9 {
				t.Errorf("the eye rose to %.0f° over the target, want at most %.0f°", worstElev*180/math.Pi, maxChaseElevation*180/math.Pi)
			}
			t.Logf("closest behind %.1f m, steepest %.0f°", worstBehind, worstElev*180/math.Pi)
		})
	}
}

// TestChaseAgainstRidgeAndTurnAbout: at the foot of a 50° slope rising behind the
// target the eye stays behind it, closer, rather than climbing the slope to look down
// from overhead; and when the target turns about in an instant on a hillside, the eye
// swings around it instead of passing over it.
func TestChaseAgainstRidgeAndTurnAbout(t *testing.T) {
	ridge := func(x, z float64) (float64, bool) { return math.Max(0, -x*math.Tan(50*math.Pi/180)), true }
	var c Chase
	pos := mgl64.Vec3{0, 0, 0}
	pivot := pos.Add(mgl64.Vec3{0, chaseLookHeight, 0})
	for range 120 {
		eye, _ := c.Follow(pos, 0, 1.0/60, ridge)
		off := eye.Sub(pivot)
		if elev := math.Atan2(off[1], math.Hypot(off[0], off[2])); elev > maxChaseElevation || off[0] > -MinChaseDistance*0.9 {
			t.Fatalf("against the ridge: eye %v, %.0f° over the target; want behind it, at most %.0f°",
				eye, elev*180/math.Pi, maxChaseElevation*180/math.Pi)
		}
	}
	c = Chase{}
	y, _ := hill(-25, 0)
	pos = mgl64.Vec3{-25, y, 0}
	pivot = pos.Add(mgl64.Vec3{0, chaseLookHeight, 0})
	for range 60 {
		c.Follow(pos, 0, 1.0/60, hill)
	}
	closest := math.Inf(1)
	for range 180 {
		eye, _ := c.Follow(pos, math.Pi, 1.0/60, hill)
		closest = math.Min(closest, math.Hypot(eye[0]-pivot[0], eye[2]-pivot[2]))
	}
	if want := chaseMinBehind * DefaultChaseDistance * math.Cos(DefaultChasePitch); closest < want-1e-9 {
		t.Errorf("turning about, the eye passed %.1f m from over the target, want at least %.1f", closest, want)
	}
}
