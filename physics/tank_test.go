package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/tank"
)

// Acceleration on the flat: the default tank reaches 14 m/s in 6…13 s and levels off
// at its governed 15 m/s; reverse levels off at 6 m/s.
func TestTopSpeedAndAcceleration(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	tk := addTank(t, w, 0, 0, 0)
	tk.SetInput(Input{Throttle: 1})
	reach := -1.0
	for w.Time() < 30 {
		w.Tick()
		if reach < 0 && speed(tk) >= 14 {
			reach = w.Time()
		}
	}
	if reach < 6 || reach > 13 {
		t.Errorf("0 → 14 m/s in %.2f s, want 6…13 s", reach)
	}
	if v := speed(tk); math.Abs(v-tank.DefaultTopSpeed) > 0.2 {
		t.Errorf("top speed %.3f m/s, want %g ± 0.2", v, tank.DefaultTopSpeed)
	}
	if f := forward(tk.Pose()); !vecNear(tk.Pose().Velocity.Normalize(), f, 1e-6) {
		t.Errorf("velocity %v not along the hull's forward %v", tk.Pose().Velocity, f)
	}

	w = newWorld(t, WorldConfig{})
	tk = addTank(t, w, 0, 0, 0)
	tk.SetInput(Input{Throttle: -1})
	run(w, 20)
	if v := tk.Pose().Velocity[0]; math.Abs(v+tank.DefaultReverseSpeed) > 0.2 {
		t.Errorf("reverse speed %.3f m/s, want −%g ± 0.2", v, tank.DefaultReverseSpeed)
	}
}

// Stopping: from top speed with the throttle released, the tracks brake at the
// traction limit; stopping distance v²/(2(μ+c_rr)g) ≈ 18 m for the default tank.
func TestStoppingDistance(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	tk := addTank(t, w, -200, 0, 0)
	tk.SetInput(Input{Throttle: 1})
	run(w, 25)
	v0 := speed(tk)
	x0 := tk.Pose().Position[0]
	tk.SetInput(Input{})
	stopped := -1.0
	t0 := w.Time()
	for w.Time()-t0 < 10 {
		w.Tick()
		if stopped < 0 && speed(tk) < 0.01 {
			stopped = w.Time() - t0
		}
	}
	d := tk.Pose().Position[0] - x0
	want := v0 * v0 / (2 * (DefaultTraction + DefaultRollingResistance) * DefaultGravity)
	if d < 0.9*want || d > 1.2*want || d < 12 || d > 30 {
		t.Errorf("stopped in %.2f m from %.2f m/s, want ≈ %.1f m (12…30 m)", d, v0, want)
	}
	if stopped < 1.5 || stopped > 4 {
		t.Errorf("stopped after %.2f s, want 1.5…4 s", stopped)
	}
	x1 := tk.Pose().Position[0]
	run(w, 5)
	if dx := tk.Pose().Position[0] - x1; math.Abs(dx) > 1e-6 {
		t.Errorf("idle tank crept %.2g m on the flat", dx)
	}
}

func TestTurnInPlace(t *testing.T) {
	for _, c := range []struct {
		steer float64
		sign  float64 // sign of the yaw rate: steering right turns clockwise seen from above
	}{{1, -1}, {-1, 1}, {0.5, -0.5}} {
		w := newWorld(t, WorldConfig{})
		tk := addTank(t, w, 5, -7, 0.3)
		tk.SetInput(Input{Steer: c.steer})
		run(w, 2)
		yaw0 := tk.Pose().Yaw
		run(w, 1)
		rate := geom.WrapAngle(tk.Pose().Yaw-yaw0) / 1
		want := c.sign * tank.DefaultTurnRate
		if math.Abs(rate-want) > 0.02*tank.DefaultTurnRate {
			t.Errorf("steer %g: yaw rate %.2f°/s, want %.2f°/s", c.steer, deg(rate), deg(want))
		}
		if av := tk.Pose().AngularVelocity; math.Abs(av[1]-want) > 0.02*tank.DefaultTurnRate || math.Hypot(av[0], av[2]) > 1e-9 {
			t.Errorf("steer %g: angular velocity %v, want (0, %.3f, 0)", c.steer, av, want)
		}
		if p := tk.Pose().Position; math.Hypot(p[0]-5, p[2]+7) > 0.05 {
			t.Errorf("steer %g: turning in place moved the hull to %v", c.steer, p)
		}
	}
}

// An arc at full throttle and half steer: the tank keeps most of its speed, turns
// right, and the path's curvature matches yaw rate / speed.
func TestArc(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	tk := addTank(t, w, 0, 0, 0)
	tk.SetInput(Input{Throttle: 1, Steer: 0.5})
	run(w, 20)
	p := tk.Pose()
	v, om := speed(tk), p.AngularVelocity[1]
	if v < 12 || om >= 0 {
		t.Fatalf("arc: speed %.2f m/s, yaw rate %.3f rad/s; want ≥ 12 m/s turning right", v, om)
	}
	// The velocity stays along the hull: tracks grip sideways.
	if f := forward(p); p.Velocity.Normalize().Dot(f) < 0.999 {
		t.Errorf("arc: velocity %v slips %.1f° off the hull's heading %v", p.Velocity, deg(math.Acos(p.Velocity.Normalize().Dot(f))), f)
	}
	// Pivot: one track still (throttle = TurnRate·gauge/2 / TopSpeed, full steer):
	// the hull circles the still track, its middle at radius gauge/2.
	w = newWorld(t, WorldConfig{})
	tk = addTank(t, w, 0, 0, 0)
	th := tank.DefaultTurnRate * DefaultTrackGauge / 2 / tank.DefaultTopSpeed
	tk.SetInput(Input{Throttle: th, Steer: -1}) // left track still, turning left
	run(w, 3)
	p = tk.Pose()
	if r := speed(tk) / p.AngularVelocity[1]; math.Abs(r-DefaultTrackGauge/2) > 0.01 {
		t.Errorf("pivot turn: radius %.3f m, want %.3f", r, DefaultTrackGauge/2)
	}
	left := p.Velocity.Add(p.AngularVelocity.Cross(p.Orientation.Rotate(mgl64.Vec3{0, 0, -DefaultTrackGauge / 2})))
	if left.Len() > 0.01 {
		t.Errorf("pivot turn: left track moving at %v, want still", left)
	}
}

// Slopes: on a climb the engine's power limits the speed to
// P / (m·g·(sin θ + c_rr·cos θ)), well below the flat's 15 m/s; a 35° slope is too
// steep to hold and the tank slides back even at full throttle.
func TestClimbIsSlowerThanFlat(t *testing.T) {
	for _, deg := range []float64{0, 10, 20, 25} {
		th := deg * math.Pi / 180
		want := math.Min(tank.DefaultTopSpeed, DefaultPower/(DefaultMass*DefaultGravity*(math.Sin(th)+DefaultRollingResistance*math.Cos(th))))
		w := newWorld(t, WorldConfig{Ground: slope(deg)})
		tk := addTank(t, w, 0, 0, 0)
		tk.SetInput(Input{Throttle: 1})
		run(w, 40)
		if v := speed(tk); math.Abs(v-want) > 0.02*want {
			t.Errorf("%g° climb: %.2f m/s, want %.2f ± 2 %%", deg, v, want)
		}
		// The velocity runs along the slope.
		if n := tk.Pose().GroundNormal; math.Abs(tk.Pose().Velocity.Dot(n)) > 1e-9 {
			t.Errorf("%g° climb: velocity %v leaves the ground (normal %v)", deg, tk.Pose().Velocity, n)
		}
		// Downhill the governor holds the top speed.
		w = newWorld(t, WorldConfig{Ground: slope(deg)})
		tk = addTank(t, w, 0, 0, math.Pi)
		tk.SetInput(Input{Throttle: 1})
		run(w, 40)
		if v := speed(tk); math.Abs(v-tank.DefaultTopSpeed) > 0.1 {
			t.Errorf("%g° descent: %.2f m/s, want %g", deg, v, tank.DefaultTopSpeed)
		}
	}
	w := newWorld(t, WorldConfig{Ground: slope(35)})
	tk := addTank(t, w, 0, 0, 0)
	tk.SetInput(Input{Throttle: 1})
	run(w, 5)
	if x := tk.Pose().Position[0]; x > -1 {
		t.Errorf("35° at full throttle: moved to x = %.2f, want sliding back down (x < −1)", x)
	}
}

// Idle on slopes: facing up or down the slope the braked tracks hold up to
// atan(Traction) ≈ 31°, and the tank rolls downhill on steeper ground; sideways the
// tracks grip up to atan(LateralGrip) ≈ 39°.
func TestIdleOnSlopes(t *testing.T) {
	for _, c := range []struct {
		deg, yaw float64
		rolls    bool
	}{
		{10, 0, false}, {25, 0, false}, {25, math.Pi, false}, {35, 0, true}, {35, math.Pi, true},
		{35, math.Pi / 2, false}, {45, math.Pi / 2, true},
	} {
		w := newWorld(t, WorldConfig{Ground: slope(c.deg)})
		tk := addTank(t, w, 0, 0, c.yaw)
		run(w, 5)
		dx := tk.Pose().Position[0]
		if rolled := dx < -1; rolled != c.rolls || dx > 1e-9 {
			t.Errorf("%g° facing yaw %.2f: idle for 5 s moved %.3f m along the slope, want rolling downhill = %v", c.deg, c.yaw, dx, c.rolls)
		}
	}
}

// Pitch and roll on an analytic slope: facing uphill the hull pitches up by the
// slope's angle; facing across it rolls by it.
func TestPitchAndRollOnSlope(t *testing.T) {
	const slopeDeg = 15.0
	th := slopeDeg * math.Pi / 180
	ground := slope(slopeDeg)
	for _, c := range []struct {
		name              string
		yaw               float64
		wantPitch, wantRl float64 // forward.Y = sin(pitch); right.Y = −sin(roll)… see below
	}{
		{"uphill", 0, th, 0},
		{"downhill", math.Pi, -th, 0},
		{"across, uphill on the left", -math.Pi / 2, 0, th},
		{"across, uphill on the right", math.Pi / 2, 0, -th},
	} {
		w := newWorld(t, WorldConfig{Ground: ground})
		tk := addTank(t, w, 3, 4, c.yaw)
		w.Tick()
		p := tk.Pose()
		f := p.Orientation.Rotate(mgl64.Vec3{1, 0, 0})
		r := p.Orientation.Rotate(mgl64.Vec3{0, 0, 1})
		up := p.Orientation.Rotate(mgl64.Vec3{0, 1, 0})
		pitch := math.Asin(f[1])
		roll := math.Asin(-r[1]) // positive: the right side is lower
		if math.Abs(pitch-c.wantPitch) > 1e-9 || math.Abs(roll-c.wantRl) > 1e-9 {
			t.Errorf("%s: pitch %.4f°, roll %.4f°; want %.4f°, %.4f°", c.name, deg(pitch), deg(roll), deg(c.wantPitch), deg(c.wantRl))
		}
		if !vecNear(up, ground.n, 1e-9) || !vecNear(p.GroundNormal, ground.n, 1e-9) {
			t.Errorf("%s: hull up %v, ground normal %v; want %v", c.name, up, p.GroundNormal, ground.n)
		}
		if h, _ := ground.HeightAt(p.Position[0], p.Position[2]); math.Abs(p.Position[1]-h) > 1e-9 {
			t.Errorf("%s: height %.6f, ground %.6f", c.name, p.Position[1], h)
		}
		if !p.OnGround {
			t.Errorf("%s: not on the ground", c.name)
		}
	}
}

func TestTurretAndGun(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	tk := addTank(t, w, 0, 0, 0.5)
	if p := tk.Pose(); p.Turret != 0 || p.Gun != 0 {
		t.Fatalf("new tank: turret %g, gun %g; want 0, 0", p.Turret, p.Gun)
	}
	run(w, 1)
	if p := tk.Pose(); p.Turret != 0 || p.TurretRate != 0 {
		t.Fatalf("zero input: turret %g rate %g, want it held forward", p.Turret, p.TurretRate)
	}
	tk.SetInput(Input{AimYaw: 0.5 + math.Pi/2, GunElevation: 1})
	run(w, 1)
	p := tk.Pose()
	if math.Abs(p.Turret-tank.DefaultTurretRate) > 1e-9 || math.Abs(p.TurretRate-tank.DefaultTurretRate) > 1e-9 {
		t.Errorf("after 1 s: turret %.3f° at %.3f°/s, want %.3f° at the rate limit", deg(p.Turret), deg(p.TurretRate), deg(tank.DefaultTurretRate))
	}
	if math.Abs(p.Gun-tank.DefaultGunRate) > 1e-9 {
		t.Errorf("after 1 s: gun %.3f°, want %.3f° (rate limited)", deg(p.Gun), deg(tank.DefaultGunRate))
	}
	run(w, 3)
	p = tk.Pose()
	if math.Abs(p.Turret-math.Pi/2) > 1e-9 || p.TurretRate != 0 {
		t.Errorf("after 4 s: turret %.3f° at %.3f°/s, want 90° at rest", deg(p.Turret), deg(p.TurretRate))
	}
	if math.Abs(p.Gun-tank.DefaultGunMax) > 1e-12 {
		t.Errorf("gun %.3f°, want the +20° limit", deg(p.Gun))
	}
	// Aiming behind: the turret takes the short way round, through ±180°.
	tk.SetInput(Input{AimYaw: 0.5 - math.Pi + 0.1, GunElevation: -1})
	run(w, 10)
	p = tk.Pose()
	if math.Abs(geom.WrapAngle(p.Turret-(-math.Pi+0.1))) > 1e-9 || math.Abs(p.Gun-tank.DefaultGunMin) > 1e-12 {
		t.Errorf("turret %.3f°, gun %.3f°; want %.3f°, −8°", deg(p.Turret), deg(p.Gun), deg(-math.Pi+0.1))
	}
	// The turret holds its world aim while the hull turns (within its rate).
	tk.SetInput(Input{AimYaw: 0})
	run(w, 5)
	tk.SetInput(Input{Steer: 1, AimYaw: 0})
	run(w, 1)
	for k := 0; k < 60; k++ {
		w.Tick()
		if p := tk.Pose(); math.Abs(geom.WrapAngle(p.Yaw+p.Turret)) > 1e-9 {
			t.Fatalf("turning hull: turret world yaw %.4f°, want held at 0", deg(geom.WrapAngle(p.Yaw+p.Turret)))
		}
	}
}

func TestSetInputSanitizes(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	tk := addTank(t, w, 0, 0, 0)
	tk.SetInput(Input{Throttle: 7, Steer: -3})
	if in := tk.Input(); in.Throttle != 1 || in.Steer != -1 {
		t.Errorf("Input() = %+v, want throttle 1, steer −1", in)
	}
	tk.SetInput(Input{Throttle: math.NaN(), Steer: math.Inf(1), AimYaw: math.NaN(), GunElevation: math.Inf(-1)})
	in := tk.Input()
	if in.Throttle != 0 || in.Steer != 0 || in.AimYaw != 0 || in.GunElevation != 0 {
		t.Errorf("Input() = %+v after non-finite input, want zeros (held aim)", in)
	}
	run(w, 1)
	if p := tk.Pose(); !geom.Finite(p.Position[0], p.Position[1], p.Position[2], p.Turret, p.Gun) || speed(tk) != 0 {
		t.Errorf("pose after non-finite input: %+v", p)
	}
}

func TestPoseState(t *testing.T) {
	w := newWorld(t, WorldConfig{Ground: slope(5)})
	tk := addTank(t, w, 0, 0, 0)
	tk.SetInput(Input{Throttle: 1, AimYaw: 1, GunElevation: 0.3})
	run(w, 0.5)
	p := tk.Pose()
	s := p.State()
	if s.Time != w.Time() || s.Position != p.Position || s.Velocity != p.Velocity || s.Orientation != p.Orientation || s.AngularVelocity != p.AngularVelocity {
		t.Errorf("State() = %+v does not carry the pose %+v", s, p)
	}
	want := [2]deadreckon.Articulation{{Angle: p.Turret, Rate: p.TurretRate}, {Angle: p.Gun, Rate: p.GunRate}}
	if s.NumArticulations != 2 || s.Articulations[ArticulationTurret] != want[0] || s.Articulations[ArticulationGun] != want[1] {
		t.Errorf("articulations %v (%d), want %v", s.Articulations, s.NumArticulations, want)
	}
	smp := p.Sample()
	if smp.Time != p.Time || smp.Position != p.Position || smp.Orientation != p.Orientation || smp.NumArticulations != 2 ||
		smp.Articulations[ArticulationTurret] != p.Turret || smp.Articulations[ArticulationGun] != p.Gun {
		t.Errorf("Sample() = %+v does not carry the pose %+v", smp, p)
	}
	if p.TurretRate == 0 || p.GunRate == 0 {
		t.Errorf("turret and gun rates %g, %g; want them moving", p.TurretRate, p.GunRate)
	}
}

func vecNear(a, b mgl64.Vec3, tol float64) bool { return a.Sub(b).Len() <= tol }
