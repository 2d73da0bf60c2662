package deadreckon

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/groundtest"
)

// pitchRoll returns the pitch (forward axis above the horizon) and roll (right axis
// below the horizon) of q, radians.
func pitchRoll(q mgl64.Quat) (pitch, roll float64) {
	f := geom.Rotate(q, mgl64.Vec3{1, 0, 0})
	r := geom.Rotate(q, mgl64.Vec3{0, 0, 1})
	return math.Asin(f[1]), -math.Asin(r[1])
}

// TestClampInclinedPlane checks the three-ray clamp on inclined planes: the height is
// the plane's under the origin plus the offset, the heading is kept, and pitch and roll
// are the plane's along and across the heading within 0.1°.
func TestClampInclinedPlane(t *testing.T) {
	const offset = 1.1
	for _, p := range []groundtest.Plane{
		{Height: 2, SlopeX: 0.3, SlopeZ: 0},
		{Height: -1, SlopeX: -0.2, SlopeZ: 0.45},
		{Height: 0, SlopeX: 0.7, SlopeZ: -0.6},
	} {
		for _, yaw := range []float64{0, 30 * deg, 135 * deg, -100 * deg, 180 * deg} {
			pos := mgl64.Vec3{12, 50, -7}
			// A reckoned pose that is already tilted wrongly must not matter.
			q := geom.QuatMul(geom.YawQuat(yaw), geom.QuatNormalize(mgl64.Quat{W: 1, V: mgl64.Vec3{0.1, 0, -0.05}}))
			q = geom.QuatMul(geom.YawQuat(yaw-geom.Yaw(q)), q) // exact heading yaw, some pitch and roll
			r := ClampPose(p, pos, q, Clamp{Footprint: tankFootprint(), Mode: ClampAlways, Offset: offset, RayHeight: 100, MaxTilt: 60 * deg})
			if !r.Clamped || r.NumHits != 3 || r.Rays != 3 {
				t.Fatalf("plane %+v yaw %v: not clamped: %+v", p, yaw/deg, r)
			}
			h, _ := p.HeightAt(pos[0], pos[2])
			if math.Abs(r.Position[1]-(h+offset)) > 1e-9 {
				t.Errorf("plane %+v: height %v, want %v", p, r.Position[1], h+offset)
			}
			fx, fz := math.Cos(yaw), -math.Sin(yaw)
			wantPitch := math.Atan(p.SlopeX*fx + p.SlopeZ*fz)
			// Roll: the right axis lies in the plane, perpendicular to the forward axis.
			n, _ := p.NormalAt(0, 0)
			f := mgl64.Vec3{fx, p.SlopeX*fx + p.SlopeZ*fz, fz}.Normalize()
			right := f.Cross(n).Normalize()
			wantRoll := -math.Asin(right[1])
			pitch, roll := pitchRoll(r.Orientation)
			if math.Abs(pitch-wantPitch) > 0.1*deg || math.Abs(roll-wantRoll) > 0.1*deg {
				t.Errorf("plane %+v yaw %v°: pitch %.3f° roll %.3f°, want %.3f° %.3f°", p, yaw/deg, pitch/deg, roll/deg, wantPitch/deg, wantRoll/deg)
			}
			up := geom.Rotate(r.Orientation, mgl64.Vec3{0, 1, 0})
			if a := math.Acos(math.Min(1, up.Dot(n))); a > 0.1*deg {
				t.Errorf("plane %+v yaw %v°: up axis %.3f° off the plane normal", p, yaw/deg, a/deg)
			}
			if d := math.Abs(geom.WrapAngle(geom.Yaw(r.Orientation) - yaw)); d > 1e-9 {
				t.Errorf("plane %+v: heading changed by %v°", p, d/deg)
			}
			if !vecNear(r.Normal, n, 1e-9) {
				t.Errorf("triangle normal %v, want %v", r.Normal, n)
			}
		}
	}
}

// TestClampSingleRay checks the one-ray clamp of an actor without a footprint (or
// with a non-finite one): height under the origin, tilt from the ground normal, at
// any distance, from ClampPose and from Actor.ClampTo alike.
func TestClampSingleRay(t *testing.T) {
	p := groundtest.Plane{Height: 1, SlopeX: 0.25, SlopeZ: -0.1}
	pos, q := mgl64.Vec3{4, 9, 2}, geom.YawQuat(0.4)
	h, _ := p.HeightAt(4, 2)
	n, _ := p.NormalAt(4, 2)
	bad := tankFootprint()
	bad[1][0] = math.NaN()
	a := NewActor(Config{Clamp: Clamp{Mode: ClampAlways, Offset: 0.5}})
	st := NewState(pos)
	st.Orientation = q
	if err := a.Receive(st, 0); err != nil {
		t.Fatal(err)
	}
	a.Advance(0)
	a.ClampTo(p, pos) // the observer right at the actor: the near band
	for _, c := range []struct {
		name string
		r    ClampResult
	}{
		{"ClampPose, no footprint", ClampPose(p, pos, q, Clamp{Mode: ClampAlways, Offset: 0.5})},
		{"ClampPose, NaN footprint", ClampPose(p, pos, q, Clamp{Mode: ClampAlways, Offset: 0.5, Footprint: bad})},
		{"ClampTo near, no footprint", a.LastClamp()},
	} {
		r := c.r
		if r.Rays != 1 || r.NumHits != 1 || math.Abs(r.Position[1]-(h+0.5)) > 1e-12 {
			t.Errorf("%s: %+v, want one ray and height %v", c.name, r, h+0.5)
		}
		if up := geom.Rotate(r.Orientation, mgl64.Vec3{0, 1, 0}); !vecNear(up, n, 1e-9) {
			t.Errorf("%s: up axis %v, want normal %v", c.name, up, n)
		}
	}
}

// TestClampLedge reckons a tank that drives off a ledge and falls: the owner's last
// update has it falling with gravity, so plain reckoning sinks it into the lower
// ground. It must be on the ground every frame in ClampAlways, never below it in
// ClampUp, and untouched in ClampNone.
func TestClampLedge(t *testing.T) {
	g := groundtest.Ledge{X: 10, High: 5, Low: 0}
	const offset = 1.0
	for _, mode := range []ClampMode{ClampNone, ClampUp, ClampAlways} {
		a := NewActor(Config{Clamp: Clamp{Footprint: tankFootprint(), Mode: mode, Offset: offset}})
		_ = a.Receive(State{Time: 0, Position: mgl64.Vec3{0, 5 + offset, 0}, Velocity: mgl64.Vec3{8, 0, 0}, Orientation: mgl64.QuatIdent()}, 0)
		run := ledgeRun{g: g, mode: mode, offset: offset}
		for f := 1; f <= 180; f++ {
			now := float64(f) * frame
			if f == 75 { // just past the edge: the tank starts to fall
				_ = a.Receive(State{Time: now, Position: mgl64.Vec3{8 * now, 5 + offset, 0}, Velocity: mgl64.Vec3{8, -1, 0},
					Acceleration: mgl64.Vec3{0, -9.8, 0}, Orientation: mgl64.QuatIdent()}, now)
			}
			a.Advance(now)
			reck := a.Reckoned()
			a.ClampTo(g, mgl64.Vec3{})
			run.frame(t, f, now, reck, a.Reckoned(), a.LastClamp())
		}
		run.finish(t, a.Reckoned())
	}
}

// ledgeRun checks the frames of TestClampLedge's tank in one clamp mode and keeps
// what the run has shown so far.
type ledgeRun struct {
	g      groundtest.Ledge
	mode   ClampMode
	offset float64
	fell   bool    // above the ground (ClampUp, ClampAlways) at some frame
	below  bool    // sunk half a meter into the ground (ClampNone) at some frame
	prevY  float64 // the height shown at the last frame, m
}

// frame checks frame f at time now: reck reckoned, got shown after ClampTo, c the
// clamp's details.
func (r *ledgeRun) frame(t *testing.T, f int, now float64, reck, got State, c ClampResult) {
	t.Helper()
	switch r.mode {
	case ClampNone:
		if got != reck || c.Clamped {
			t.Fatalf("none: clamping changed the state at frame %d", f)
		}
		if h, _ := r.g.HeightAt(got.Position[0], 0); got.Position[1] < h+r.offset-0.5 {
			r.below = true
		}
		return
	case ClampUp:
		if got.Position[1] < c.Ground-1e-12 {
			t.Fatalf("up: y %v below ground %v at frame %d", got.Position[1], c.Ground, f)
		}
		if got.Position[1] > c.Ground+0.1 {
			r.fell = true
		}
	case ClampAlways:
		// On the ground, or above it while falling no faster than gravity.
		if got.Position[1] < c.Ground-1e-12 {
			t.Fatalf("always: y %v below ground %v at frame %d", got.Position[1], c.Ground, f)
		}
		if drop := r.prevY - got.Position[1]; f > 1 && drop > Gravity*now*frame+1e-9 {
			t.Fatalf("always: dropped %v m in one frame at frame %d", drop, f)
		}
		if got.Position[1] > c.Ground+1e-12 {
			r.fell = true
		}
		r.prevY = got.Position[1]
	}
	// Never below the ground under the origin, never tilted into the drop: the hull
	// rests level on the plateau or on the plain.
	h, _ := r.g.HeightAt(got.Position[0], got.Position[2])
	if c.NumHits != 3 || math.Abs(c.Ground-(h+r.offset)) > 1e-12 {
		t.Fatalf("frame %d: ground %v with hits %v, height %v under the origin", f, c.Ground, c.Hits, h)
	}
	if c.Normal[1] < 1-1e-9 {
		t.Fatalf("frame %d: tilted by the clamp, normal %v", f, c.Normal)
	}
}

// finish checks that the run tested what it is for, last the state shown at its
// end.
func (r *ledgeRun) finish(t *testing.T, last State) {
	t.Helper()
	switch r.mode {
	case ClampNone:
		if !r.below {
			t.Error("none: the unclamped tank never sank: the scenario does not test anything")
		}
	case ClampUp:
		if !r.fell {
			t.Error("up: the tank was never free above the ground")
		}
	case ClampAlways:
		if !r.fell {
			t.Error("always: the tank never fell: the drop was not limited")
		}
		if y := last.Position[1]; math.Abs(y-r.offset) > 1e-9 {
			t.Errorf("always: final y %v, want %v", y, r.offset)
		}
	}
}

// TestClampDistances checks the choice of clamp by observer distance and the reuse of
// the last offset on intermittent frames.
func TestClampDistances(t *testing.T) {
	p := groundtest.Plane{Height: 3, SlopeX: 0.1}
	cfg := Config{Algorithm: Linear, Clamp: Clamp{Footprint: tankFootprint(), Mode: ClampAlways, NearDistance: 50, FarDistance: 100, FarInterval: 3}}
	for _, tc := range []struct {
		dist float64
		rays []int
	}{
		{10, []int{3, 3, 3, 3}},
		{70, []int{1, 1, 1, 1}},
		{150, []int{1, 0, 1, 0, 0, 1, 0, 0, 1}}, // the first far frame clamps, then every third
	} {
		a := NewActor(cfg)
		_ = a.Receive(State{Position: mgl64.Vec3{0, 10, 0}, Velocity: mgl64.Vec3{1, 0, 0}}, 0)
		for i, want := range tc.rays {
			now := float64(i+1) * frame
			a.Advance(now)
			a.ClampTo(p, mgl64.Vec3{0, 10, tc.dist})
			c := a.LastClamp()
			if c.Rays != want {
				t.Errorf("distance %v frame %d: %d rays, want %d", tc.dist, i, c.Rays, want)
			}
			x := a.Reckoned().Position[0]
			h, _ := p.HeightAt(x, 0)
			tolY := 1e-9
			if c.Rays == 0 {
				tolY = 3 * 0.1 * frame // the reused offset lags by the slope times the drive
			}
			if y := a.Reckoned().Position[1]; math.Abs(y-h) > tolY {
				t.Errorf("distance %v frame %d: y %v, ground %v", tc.dist, i, y, h)
			}
		}
	}
}

// TestClampUpOrientation checks that ClampUp leaves an airborne actor's pose alone and
// tilts a lifted one onto the ground.
func TestClampUpOrientation(t *testing.T) {
	p := groundtest.Plane{SlopeZ: 0.2}
	q := geom.QuatMul(geom.YawQuat(0.5), geom.QuatNormalize(mgl64.Quat{W: 1, V: mgl64.Vec3{0.2, 0, 0.1}}))
	c := Clamp{Footprint: tankFootprint(), Mode: ClampUp, Offset: 1}
	air := ClampPose(p, mgl64.Vec3{0, 3, 0}, q, c)
	if !air.Clamped || air.Lifted || air.Position != (mgl64.Vec3{0, 3, 0}) || !quatNear(air.Orientation, q, 1e-12) {
		t.Errorf("airborne: %+v", air)
	}
	sunk := ClampPose(p, mgl64.Vec3{0, 0.5, 0}, q, c)
	n, _ := p.NormalAt(0, 0)
	if !sunk.Lifted || math.Abs(sunk.Position[1]-1) > 1e-12 || !vecNear(geom.Rotate(sunk.Orientation, mgl64.Vec3{0, 1, 0}), n, 1e-9) {
		t.Errorf("sunk: %+v", sunk)
	}
	none := ClampPose(p, mgl64.Vec3{0, -5, 0}, q, Clamp{})
	if none.Clamped || none.Position[1] != -5 {
		t.Errorf("ClampNone moved the pose: %+v", none)
	}
}

// TestClampStagger checks that far actors added to a Reckoner clamp on different
// frames: with FarInterval 3 and three actors, one clamps per frame.
func TestClampStagger(t *testing.T) {
	r := NewReckoner(ReckonerConfig{Workers: 1})
	var g Ground = groundtest.Plane{}
	cfg := Config{Clamp: Clamp{Footprint: tankFootprint(), Mode: ClampAlways, FarInterval: 3}}
	var hs []Handle
	for i := 0; i < 3; i++ {
		h := r.Add(cfg)
		_ = r.Actor(h).Receive(NewState(mgl64.Vec3{float64(i), 1, 0}), 0)
		hs = append(hs, h)
	}
	far := mgl64.Vec3{0, 0, 1000}
	for f := 1; f <= 10; f++ {
		r.Advance(float64(f)*frame, g, far)
		clamped := 0
		for _, h := range hs {
			if r.Actor(h).LastClamp().Rays > 0 {
				clamped++
			}
		}
		if f > 1 && clamped != 1 {
			t.Errorf("frame %d: %d far actors clamped, want 1", f, clamped)
		}
	}
}

// TestClampMaxTilt: ground steeper than MaxTilt (a cliff face) tilts the actor by
// MaxTilt toward the slope, not more.
func TestClampMaxTilt(t *testing.T) {
	p := groundtest.Plane{SlopeX: 2} // 63°
	r := ClampPose(p, mgl64.Vec3{0, 10, 0}, geom.YawQuat(0.3), Clamp{Footprint: tankFootprint(), Mode: ClampAlways})
	up := geom.Rotate(r.Orientation, mgl64.Vec3{0, 1, 0})
	if tilt := math.Acos(up[1]); math.Abs(tilt-DefaultMaxTilt) > 1e-9 || up[0] >= 0 {
		t.Errorf("on a 63° slope rising along +X: tilt %.2f°, up %v; want %.0f° leaning back", tilt/deg, up, DefaultMaxTilt/deg)
	}
}

// TestClampMatchesUprightQuat checks that the three-ray clamp's written-out conversion
// of its ground frame to a quaternion is geom.UprightQuat to the bit, on tilted
// planes under poses facing every way: the frame is rebuilt from the clamp's hits
// with the clamp's own arithmetic.
func TestClampMatchesUprightQuat(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	c := Clamp{Footprint: tankFootprint(), Mode: ClampAlways, Offset: 1}
	for i := 0; i < 2000; i++ {
		g := groundtest.Plane{Height: rng.Float64(), SlopeX: 0.6*rng.Float64() - 0.3, SlopeZ: 0.6*rng.Float64() - 0.3}
		pos := mgl64.Vec3{rng.Float64()*200 - 100, 0, rng.Float64()*200 - 100}
		pos[1], _ = g.HeightAt(pos[0], pos[2])
		q := geom.QuatMul(geom.YawQuat(rng.Float64()*2*math.Pi),
			geom.QuatNormalize(mgl64.Quat{W: 1, V: mgl64.Vec3{0.2 * rng.NormFloat64(), 0, 0.2 * rng.NormFloat64()}}))
		r := ClampPose(g, pos, q, c)
		if !r.Clamped || r.NumHits != 3 {
			t.Fatalf("pose %d: no three-ray clamp: %+v", i, r)
		}
		// The hits' upward normal, unnormalized (cx, cy, cz) and unit (r.Normal), and
		// the pose's heading lifted into the ground plane, as clamp3 computes them.
		h := r.Hits
		ax, ay, az := h[1][0]-h[0][0], h[1][1]-h[0][1], h[1][2]-h[0][2]
		bx, by, bz := h[2][0]-h[0][0], h[2][1]-h[0][1], h[2][2]-h[0][2]
		cx, cy, cz := ay*bz-az*by, az*bx-ax*bz, ax*by-ay*bx
		if cy < 0 {
			cx, cy, cz = -cx, -cy, -cz
		}
		nx, ny, nz := r.Normal[0], r.Normal[1], r.Normal[2]
		qn := geom.QuatNormalize(q)
		w, x, y, z := qn.W, qn.V[0], qn.V[1], qn.V[2]
		fx, fz := 1-2*(y*y+z*z), 2*(x*z-w*y)
		tx, ty, tz := fx*cy, -(fx*cx + fz*cz), fz*cy
		k := 1 / math.Sqrt(tx*tx+ty*ty+tz*tz)
		tx, ty, tz = tx*k, ty*k, tz*k
		sx, sy, sz := ty*nz-tz*ny, tz*nx-tx*nz, tx*ny-ty*nx
		if want := geom.UprightQuat(tx, ty, tz, nx, ny, nz, sx, sy, sz); r.Orientation != want {
			t.Fatalf("pose %d: clamp orientation %v, geom.UprightQuat %v", i, r.Orientation, want)
		}
	}
}

// TestModeLow: in ModeLow an actor beside the observer is clamped as a far one (one
// ray every FarInterval frames, the offset reused in between) and its turret is shown
// at its projection at once instead of blending there; back in ModeHigh the
// three-ray clamp returns.
func TestModeLow(t *testing.T) {
	p := groundtest.Plane{Height: 3, SlopeX: 0.1}
	cfg := Config{Clamp: Clamp{Footprint: tankFootprint(), Mode: ClampAlways, NearDistance: 50, FarDistance: 100, FarInterval: 3}}
	for _, tc := range []struct {
		mode Mode
		rays []int
	}{
		{ModeHigh, []int{3, 3, 3, 3, 3, 3}},
		{ModeLow, []int{1, 0, 1, 0, 0, 1}}, // the phase counter runs from the first clamp
	} {
		a := NewActor(cfg)
		a.SetMode(tc.mode)
		if a.Mode() != tc.mode {
			t.Fatalf("Mode() %v after SetMode(%v)", a.Mode(), tc.mode)
		}
		s := State{Position: mgl64.Vec3{0, 3, 0}, Velocity: mgl64.Vec3{1, 0, 0}, NumArticulations: 1}
		s.Articulations[0].Angle = 0
		_ = a.Receive(s, 0)
		a.Advance(0.5)
		s.Time, s.Position = 0.5, mgl64.Vec3{0.9, 3, 0.3} // off the projection: a blend starts
		s.Articulations[0].Angle = 1                      // the turret swings: a new update
		if err := a.Receive(s, 0.5); err != nil {
			t.Fatal(err)
		}
		turret := math.NaN()
		for i, want := range tc.rays {
			a.Advance(0.5 + float64(i+1)*frame)
			a.ClampTo(p, mgl64.Vec3{0, 3, 5})
			if got := a.LastClamp().Rays; got != want {
				t.Errorf("%v frame %d: %d rays, want %d", tc.mode, i, got, want)
			}
			if i == 0 {
				turret = a.Reckoned().Articulations[0].Angle
			}
		}
		switch tc.mode {
		case ModeLow:
			if math.Abs(turret-1) > 1e-9 {
				t.Errorf("low mode: turret at %.3f rad, want its projection 1", turret)
			}
		default:
			if !(turret < 0.999) {
				t.Errorf("high mode: turret at %.3f rad a frame after the update, want it still blending toward 1", turret)
			}
		}
	}
	a := NewActor(cfg)
	a.SetMode(ModeLow)
	a.SetMode(ModeHigh)
	_ = a.Receive(State{Position: mgl64.Vec3{0, 3, 0}}, 0)
	a.Advance(frame)
	a.ClampTo(p, mgl64.Vec3{0, 3, 5})
	if a.Mode() != ModeHigh || a.LastClamp().Rays != 3 {
		t.Errorf("back in high mode: %v, %d rays, want high and 3", a.Mode(), a.LastClamp().Rays)
	}
	if ModeHigh.String() != "high" || ModeLow.String() != "low" {
		t.Errorf("mode names %q and %q", ModeHigh, ModeLow)
	}
}
