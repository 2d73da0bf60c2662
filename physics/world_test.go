package physics

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// hullCorners returns the four footprint corners of a tank on the ground plane.
func hullCorners(tk *Tank) [4]mgl64.Vec2 {
	p, s := tk.Pose(), tk.Spec()
	return footprint(p.Position[0], p.Position[2], p.Yaw, s.Length, s.Width)
}

// footprint returns the four corners of a length × width hull whose middle is at
// (x, z), heading yaw.
func footprint(x, z, yaw, length, width float64) [4]mgl64.Vec2 {
	c, sn := math.Cos(yaw), math.Sin(yaw)
	f := mgl64.Vec2{c, -sn} // forward (x, z)
	r := mgl64.Vec2{sn, c}  // right (x, z)
	m := mgl64.Vec2{x, z}
	hl, hw := length/2, width/2
	return [4]mgl64.Vec2{
		m.Add(f.Mul(hl)).Add(r.Mul(hw)), m.Add(f.Mul(hl)).Sub(r.Mul(hw)),
		m.Sub(f.Mul(hl)).Sub(r.Mul(hw)), m.Sub(f.Mul(hl)).Add(r.Mul(hw)),
	}
}

// penetration returns how deep two hulls overlap, m (separating-axis test; ≤ 0
// when apart).
func penetration(a, b *Tank) float64 { return overlap(hullCorners(a), hullCorners(b)) }

// overlap returns how deep two rectangles overlap, m (separating-axis test; ≤ 0 when
// apart).
func overlap(ca, cb [4]mgl64.Vec2) float64 {
	depth := math.Inf(1)
	for _, poly := range [2][4]mgl64.Vec2{ca, cb} {
		for i := 0; i < 2; i++ {
			axis := poly[i+1].Sub(poly[i]).Normalize()
			loA, hiA := math.Inf(1), math.Inf(-1)
			loB, hiB := math.Inf(1), math.Inf(-1)
			for k := 0; k < 4; k++ {
				pa, pb := ca[k].Dot(axis), cb[k].Dot(axis)
				loA, hiA = math.Min(loA, pa), math.Max(hiA, pa)
				loB, hiB = math.Min(loB, pb), math.Max(hiB, pb)
			}
			depth = math.Min(depth, math.Min(hiA-loB, hiB-loA))
		}
	}
	return depth
}

// Two tanks driving at each other at full speed collide, touch, and never pass
// through or sink into each other: closing at 30 m/s they move half a meter per step,
// and continuous collision stops them at the moment of impact.
func TestTanksCollide(t *testing.T) {
	for _, c := range []struct {
		name         string
		bx, bz, byaw float64
	}{
		{"head-on", 60, 0, math.Pi},
		{"side impact", 30, 30, math.Pi / 2},
		{"glancing", 60, 2.5, math.Pi},
	} {
		w := newWorld(t, WorldConfig{})
		a := addTank(t, w, 0, 0, 0)
		b := addTank(t, w, c.bx, c.bz, c.byaw)
		a.SetInput(Input{Throttle: 1})
		b.SetInput(Input{Throttle: 1})
		worst := math.Inf(-1)
		for w.Time() < 15 {
			w.Tick()
			worst = math.Max(worst, penetration(a, b))
		}
		if a.Contacts().Tanks == 0 || b.Contacts().Tanks == 0 {
			t.Errorf("%s: no contact reported (%+v, %+v)", c.name, a.Contacts(), b.Contacts())
		}
		t.Logf("%s: deepest overlap %.3f m; contacts %+v", c.name, worst, a.Contacts())
		if worst > 0.02 {
			t.Errorf("%s: hulls overlapped by %.3f m, want ≤ 0.02 m", c.name, worst)
		}
		if c.name == "head-on" {
			// Still pushing against each other, on the line between them.
			if !a.Touching() || !b.Touching() {
				t.Errorf("head-on: not touching after 15 s of pushing")
			}
			if d := b.Pose().Position[0] - a.Pose().Position[0]; d < tank.DefaultLength-0.05 {
				t.Errorf("head-on: centers %.3f m apart, want ≥ %.2f (no pass-through)", d, tank.DefaultLength-0.05)
			}
		}
	}
}

func TestRocksAndBorderStopTanks(t *testing.T) {
	w := newWorld(t, WorldConfig{
		Min: mgl64.Vec2{-50, -50}, Max: mgl64.Vec2{50, 50},
		Obstacles: []Obstacle{{X: 20, Z: 0, Radius: 2}},
	})
	a := addTank(t, w, 0, 0, 0)        // toward the rock
	b := addTank(t, w, 0, 30, math.Pi) // toward the −X border
	a.SetInput(Input{Throttle: 1})
	b.SetInput(Input{Throttle: 1})
	run(w, 15)
	if a.Contacts().Rocks == 0 {
		t.Errorf("tank driving at the rock: contacts %+v", a.Contacts())
	}
	if x := a.Pose().Position[0]; x > 20-2-tank.DefaultLength/2+0.05 {
		t.Errorf("tank driving at the rock reached x = %.2f, past the rock's face", x)
	}
	if b.Contacts().Border == 0 {
		t.Errorf("tank driving at the border: contacts %+v", b.Contacts())
	}
	for _, c := range hullCorners(b) {
		if c[0] < -50.05 {
			t.Errorf("hull corner %v beyond the border x = −50", c)
		}
	}
}

// Every tank stays inside the shipped map's border and on its ground while driving
// randomly for a minute, crossing hills, the ridge and rocks.
func TestOnShippedMap(t *testing.T) {
	m, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(t, MapConfig(m))
	rng := rand.New(rand.NewPCG(9, 9))
	for _, s := range m.Spawns() {
		addTank(t, w, s[0], s[1], rng.Float64()*2*math.Pi)
	}
	for w.Time() < 60 {
		if w.Steps()%120 == 0 {
			for _, tk := range w.Tanks() {
				tk.SetInput(Input{Throttle: rng.Float64()*1.4 - 0.2, Steer: rng.Float64()*2 - 1, AimYaw: rng.Float64() * 6})
			}
		}
		w.Tick()
		for i, tk := range w.Tanks() {
			p := tk.Pose()
			if !m.Contains(p.Position[0], p.Position[2]) || !p.OnGround {
				t.Fatalf("tank %d at %v left the map (on ground: %v)", i, p.Position, p.OnGround)
			}
			if s, _ := m.SurfaceAt(p.Position[0], p.Position[2]); math.Abs(p.Position[1]-s) > 6 {
				t.Fatalf("tank %d at %v: %.2f m from the ground under it", i, p.Position, p.Position[1]-s)
			}
		}
	}
}

// scripted drives a world of four tanks with seeded random inputs that change every
// half second, so they turn, climb and bump into each other.
func scripted(t *testing.T, seed uint64, frames []float64) []Pose {
	w := newWorld(t, WorldConfig{Ground: slope(6), Min: mgl64.Vec2{-40, -40}, Max: mgl64.Vec2{40, 40}, Obstacles: []Obstacle{{X: 5, Z: 5, Radius: 2}}})
	for i := 0; i < 4; i++ {
		addTank(t, w, float64(i)*10-15, float64(i%2)*8-4, float64(i))
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []Pose
	next := 0.0
	for _, dt := range frames {
		if w.Time() >= next {
			for _, tk := range w.Tanks() {
				tk.SetInput(Input{Throttle: rng.Float64()*2 - 1, Steer: rng.Float64()*2 - 1, AimYaw: rng.Float64() * 6, GunElevation: rng.Float64() - 0.5})
			}
			next += 0.5
		}
		w.Step(dt)
	}
	for _, tk := range w.Tanks() {
		out = append(out, tk.Pose())
	}
	return out
}

func TestReplayIsDeterministic(t *testing.T) {
	frames := make([]float64, 1200)
	for i := range frames {
		frames[i] = 1.0 / 60
	}
	a := scripted(t, 3, frames)
	b := scripted(t, 3, frames)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("tank %d: replay gave %+v, first run %+v", i, b[i], a[i])
		}
	}
	c := scripted(t, 4, frames)
	if a[0] == c[0] {
		t.Fatal("different inputs gave the same pose: the script is not driving the tanks")
	}
}

// Frame-rate independence: frames of jittered length add up to the same fixed steps.
func TestStepAccumulates(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	rng := rand.New(rand.NewPCG(5, 5))
	total := 0
	for i := 0; i < 1000; i++ {
		total += w.Step(0.005 + 0.025*rng.Float64())
	}
	if uint64(total) != w.Steps() {
		t.Fatalf("Step returned %d steps in all, world ran %d", total, w.Steps())
	}
	if w.Time() != float64(w.Steps())/DefaultStepRate {
		t.Fatalf("Time() = %g after %d steps", w.Time(), w.Steps())
	}
	w2 := newWorld(t, WorldConfig{})
	if n := w2.Step(1); n != DefaultMaxSteps {
		t.Errorf("Step(1 s) ran %d steps, want the cap %d", n, DefaultMaxSteps)
	}
	if n := w2.Step(1.0 / 120); n != 0 {
		t.Errorf("after a capped Step, half a step's time ran %d steps, want 0 (excess dropped)", n)
	}
	for _, dt := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if n := w2.Step(dt); n != 0 {
			t.Errorf("Step(%g) ran %d steps", dt, n)
		}
	}
}

func TestConfigErrors(t *testing.T) {
	for _, cfg := range []WorldConfig{
		{StepRate: -60}, {StepRate: math.NaN()}, {Gravity: -1}, {MaxSteps: -1}, {SolverIterations: 1000},
		{Min: mgl64.Vec2{10, 0}, Max: mgl64.Vec2{-10, 5}},
		{Max: mgl64.Vec2{math.Inf(1), 5}},
		{Obstacles: []Obstacle{{X: 1, Z: 1, Radius: 0}}},
		{Obstacles: []Obstacle{{X: math.NaN(), Z: 1, Radius: 1}}},
		{ProxyJump: -1}, {ProxyCatchUp: math.NaN()},
	} {
		if _, err := NewWorld(cfg); !errors.Is(err, ErrConfig) {
			t.Errorf("NewWorld(%+v) = %v, want ErrConfig", cfg, err)
		}
	}
	w := newWorld(t, WorldConfig{Min: mgl64.Vec2{-10, -10}, Max: mgl64.Vec2{10, 10}})
	for _, c := range []struct {
		spec    TankSpec
		x, z, y float64
	}{
		{TankSpec{Mass: -1}, 0, 0, 0},
		{TankSpec{Spec: tank.Spec{TopSpeed: math.NaN()}}, 0, 0, 0},
		{TankSpec{Spec: tank.Spec{GunMin: 0.5, GunMax: 0.1}}, 0, 0, 0},
		{TankSpec{TrackGauge: 5}, 0, 0, 0},
		{TankSpec{}, 11, 0, 0},
		{TankSpec{}, 0, math.NaN(), 0},
		{TankSpec{}, 0, 0, math.Inf(1)},
	} {
		if _, err := w.AddTank(c.spec, c.x, c.z, c.y); !errors.Is(err, ErrConfig) {
			t.Errorf("AddTank(%+v, %g, %g, %g) = %v, want ErrConfig", c.spec, c.x, c.z, c.y, err)
		}
	}
	if len(w.Tanks()) != 0 {
		t.Errorf("%d tanks after failed adds", len(w.Tanks()))
	}
}

func TestRemoveAndTeleport(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	a := addTank(t, w, 0, 0, 0)
	b := addTank(t, w, 20, 0, 0)
	a.SetInput(Input{Throttle: 1})
	run(w, 2)
	a.Teleport(-30, 12, 1)
	p := a.Pose()
	if p.Position != (mgl64.Vec3{-30, 0, 12}) || math.Abs(p.Yaw-1) > 1e-12 || speed(a) != 0 {
		t.Errorf("after Teleport: %+v", p)
	}
	w.RemoveTank(b)
	w.RemoveTank(b)
	w.RemoveTank(nil)
	if len(w.Tanks()) != 1 || w.Tanks()[0] != a {
		t.Fatalf("Tanks() after removing b = %v", w.Tanks())
	}
	b.Teleport(0, 0, 0) // a removed tank ignores calls
	run(w, 1)
	if speed(a) == 0 {
		t.Error("tank stopped driving after its neighbour was removed")
	}
	other := newWorld(t, WorldConfig{})
	other.RemoveTank(a) // another world's tank: nothing happens
	if len(w.Tanks()) != 1 {
		t.Error("removing a tank through another world changed this one")
	}
}

// Over the ridge of the shipped map: up the even climb (slower than on the flat),
// then off the ledge; the clamp follows the drop and the reported tilt rate stays
// capped.
func TestOverTheRidge(t *testing.T) {
	m, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	lm, ok := m.Landmark("climb")
	if !ok {
		t.Fatal(`no "climb" landmark`)
	}
	w := newWorld(t, MapConfig(m))
	tk := addTank(t, w, lm.X, lm.Z, lm.Yaw)
	tk.SetInput(Input{Throttle: 1, AimYaw: lm.Yaw})
	maxY, climbSpeed, dropped := math.Inf(-1), 0.0, false
	for w.Time() < 40 && !dropped {
		w.Tick()
		p := tk.Pose()
		if !p.OnGround || !geom.Finite(p.Position[0], p.Position[1], p.Position[2]) {
			t.Fatalf("t = %.2f: pose %+v", w.Time(), p)
		}
		if p.Position[1] > maxY {
			maxY = p.Position[1]
			if pitch := math.Asin(forward(p)[1]); pitch > 10*math.Pi/180 {
				climbSpeed = math.Max(climbSpeed, speed(tk))
			}
		}
		av := p.AngularVelocity
		yawPart := p.Orientation.Rotate(mgl64.Vec3{0, 1, 0}).Mul(tk.body.GetAngularVelocity())
		if tilt := av.Sub(yawPart).Len(); tilt > MaxTiltRate+1e-9 {
			t.Fatalf("t = %.2f: tilt rate %.2f rad/s above the cap", w.Time(), tilt)
		}
		dropped = maxY-p.Position[1] > 8
	}
	if !dropped {
		t.Fatalf("tank never dropped off the ledge: top %.1f m, now at %v", maxY, tk.Pose().Position)
	}
	t.Logf("dropped off the ledge at t = %.2f s from a top of %.1f m; climbed at up to %.2f m/s", w.Time(), maxY, climbSpeed)
	if climbSpeed == 0 || climbSpeed > 11 {
		t.Errorf("speed on the climb (pitched up > 10°) reached %.2f m/s, want slower than the flat's 15 (≤ 11)", climbSpeed)
	}
}

func TestTeleportStaysInsideBorder(t *testing.T) {
	w := newWorld(t, WorldConfig{Min: mgl64.Vec2{-50, -50}, Max: mgl64.Vec2{50, 50}})
	tk := addTank(t, w, 0, 0, 0)
	tk.Teleport(80, -70, 0.7)
	p := tk.Pose().Position
	r := math.Hypot(tank.DefaultLength, tank.DefaultWidth) / 2
	if math.Abs(p[0]-(50-r)) > 1e-9 || math.Abs(p[2]-(-50+r)) > 1e-9 {
		t.Errorf("Teleport(80, −70) put the tank at %v, want (%g, %g)", p, 50-r, -50+r)
	}
	run(w, 1)
	for _, c := range hullCorners(tk) {
		if math.Abs(c[0]) > 50 || math.Abs(c[1]) > 50 {
			t.Errorf("hull corner %v outside the border", c)
		}
	}
}

func TestInterpolated(t *testing.T) {
	w := newWorld(t, WorldConfig{Ground: slope(8)})
	tk := addTank(t, w, 0, 0, 2.5)
	tk.SetInput(Input{Throttle: 0.5, Steer: -1, AimYaw: -3}) // turning left: yaw grows through π
	var prev, cur Pose
	for crossed := false; !crossed; {
		if w.Time() > 10 {
			t.Fatal("yaw never crossed ±π")
		}
		w.Tick()
		prev, cur = tk.Interpolated(0), tk.Pose()
		crossed = prev.Yaw > 3 && cur.Yaw < -3
	}
	if got := tk.Interpolated(1); got != cur {
		t.Errorf("Interpolated(1) = %+v, want the current pose", got)
	}
	if got := tk.Interpolated(math.NaN()); got != cur {
		t.Errorf("Interpolated(NaN) = %+v, want the current pose", got)
	}
	mid := tk.Interpolated(0.5)
	if want := prev.Position.Add(cur.Position).Mul(0.5); !vecNear(mid.Position, want, 1e-12) {
		t.Errorf("Interpolated(0.5).Position = %v, want %v", mid.Position, want)
	}
	// The blend takes the short way across ±π.
	if want := geom.WrapAngle(prev.Yaw + geom.WrapAngle(cur.Yaw-prev.Yaw)/2); math.Abs(mid.Yaw-want) > 1e-12 || math.Abs(mid.Yaw) < 3 {
		t.Errorf("Interpolated(0.5).Yaw = %g between %g and %g, want %g", mid.Yaw, prev.Yaw, cur.Yaw, want)
	}
	half := prev.Orientation.Inverse().Mul(mid.Orientation)
	full := prev.Orientation.Inverse().Mul(cur.Orientation)
	angle := func(q mgl64.Quat) float64 { return 2 * math.Acos(math.Min(1, math.Abs(q.W))) }
	if math.Abs(angle(half)-angle(full)/2) > 1e-6 {
		t.Errorf("Interpolated(0.5) turned %g rad of the step's %g", angle(half), angle(full))
	}
	w.Step(0.25 / DefaultStepRate)
	if a := w.Alpha(); math.Abs(a-0.25) > 1e-9 {
		t.Errorf("Alpha() = %g after a quarter step, want 0.25", a)
	}
}

// Hostile input (NaN, infinities, huge values) never corrupts the simulation.
func TestHostileInputs(t *testing.T) {
	w := newWorld(t, WorldConfig{Ground: slope(7), Min: mgl64.Vec2{-60, -60}, Max: mgl64.Vec2{60, 60}})
	for i := 0; i < 4; i++ {
		addTank(t, w, float64(i)*12-18, 0, 0)
	}
	bad := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300, -1e300, 0, 0.5, -1, 1e-320}
	rng := rand.New(rand.NewPCG(13, 13))
	pick := func() float64 { return bad[rng.IntN(len(bad))] }
	for w.Time() < 20 {
		if w.Steps()%10 == 0 {
			for _, tk := range w.Tanks() {
				tk.SetInput(Input{Throttle: pick(), Steer: pick(), AimYaw: pick(), GunElevation: pick()})
			}
		}
		w.Step(pick())
		w.Tick()
		for i, tk := range w.Tanks() {
			p := tk.Pose()
			if !geom.Finite(p.Position[0], p.Position[1], p.Position[2], p.Velocity[0], p.Velocity[1], p.Velocity[2],
				p.Orientation.W, p.Orientation.V[0], p.Orientation.V[1], p.Orientation.V[2],
				p.AngularVelocity[0], p.AngularVelocity[1], p.AngularVelocity[2], p.Turret, p.TurretRate, p.Gun, p.GunRate) {
				t.Fatalf("tank %d at t = %.2f: pose not finite: %+v", i, w.Time(), p)
			}
			if math.Abs(p.Position[0]) > 60 || math.Abs(p.Position[2]) > 60 || p.Gun < tank.DefaultGunMin || p.Gun > tank.DefaultGunMax {
				t.Fatalf("tank %d at t = %.2f: pose out of bounds: %+v", i, w.Time(), p)
			}
		}
	}
}

// TestCollideHoldsTheMapsObstacles: what keeps a reckoned tank out of a map's
// obstacles holds its rocks and border, with the tank's hull.
func TestCollideHoldsTheMapsObstacles(t *testing.T) {
	m, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	c := Collide(m)
	w, ok := c.Obstacles.(*deadreckon.Walls)
	if !ok {
		t.Fatalf("obstacles %T, want *deadreckon.Walls", c.Obstacles)
	}
	if len(w.Rocks) != len(m.Obstacles()) || len(w.Rocks) == 0 {
		t.Errorf("%d rocks, want the map's %d", len(w.Rocks), len(m.Obstacles()))
	}
	for i, o := range m.Obstacles() {
		if r := w.Rocks[i]; r.X != o.X || r.Z != o.Z || r.Radius != o.Radius {
			t.Errorf("rock %d: %+v, want %+v", i, r, o)
		}
	}
	if w.Min != m.Min() || w.Max != m.Max() {
		t.Errorf("border %v…%v, want the map's %v…%v", w.Min, w.Max, m.Min(), m.Max())
	}
	s := tank.Spec{}.WithDefaults()
	if c.Hull.HalfLength != s.Length/2 || c.Hull.HalfWidth != s.Width/2 {
		t.Errorf("hull %+v, want half of %v × %v m", c.Hull, s.Length, s.Width)
	}
}

// TestStepB2AsPlain: a world stepped by stepB2 (no time-of-impact pass while it
// holds no contact) is bit for bit the world box2d's own Step makes, tanks,
// proxies and every body's sweep and flags, through steps with contacts (tanks
// against each other, the rocks, the border and proxies) and without.
func TestStepB2AsPlain(t *testing.T) {
	build := func(plain bool) (*World, []*Tank, []*Proxy) {
		w := newWorld(t, WorldConfig{Min: mgl64.Vec2{-60, -60}, Max: mgl64.Vec2{60, 60},
			Obstacles: []Obstacle{{X: 20, Z: 4, Radius: 3}, {X: -15, Z: -25, Radius: 5}, {X: 0, Z: 40, Radius: 2}}})
		w.plainStep = plain
		tanks := []*Tank{addTank(t, w, 0, 0, 0), addTank(t, w, -30, 10, 1), addTank(t, w, 25, -30, 2)}
		var ps []*Proxy
		for i := range 6 {
			ps = append(ps, addProxy(t, w, float64(i)*15-40, -10, 0))
		}
		return w, tanks, ps
	}
	wa, ta, pa := build(false)
	wb, tb, pb := build(true)
	alone, touching := 0, 0
	for step := range 2400 {
		for k, tanks := range [][]*Tank{ta, tb} {
			for i, tk := range tanks {
				tk.SetInput(Input{Throttle: 1 - 0.4*float64(i), Steer: math.Sin(float64(step+300*i) / 70)})
			}
			for i, p := range [][]*Proxy{pa, pb}[k] {
				// Back and forth across the tanks' ground, every 10 s.
				now := []*World{wa, wb}[k].FrameTime()
				v := 6 * math.Cos(now*math.Pi/10+float64(i))
				x := float64(i)*15 - 40
				z := 40 * math.Sin(now*math.Pi/10+float64(i))
				if err := p.MoveTo(x, z, math.Pi/2, 0, v*math.Pi/10*40/6, 0); err != nil {
					t.Fatal(err)
				}
			}
		}
		wa.Tick()
		wb.Tick()
		// The contacts after the step are those its time-of-impact pass saw.
		if wa.b2.M_contactManager.M_contactCount == 0 {
			alone++
		} else {
			touching++
		}
		for i := range ta {
			if got, want := ta[i].Pose(), tb[i].Pose(); got != want {
				t.Fatalf("step %d: tank %d at %v, want %v", step, i, got.Position, want.Position)
			}
		}
		for i := range pa {
			ax, az, ayaw := pa[i].Place()
			bx, bz, byaw := pb[i].Place()
			if ax != bx || az != bz || ayaw != byaw {
				t.Fatalf("step %d: proxy %d at (%v, %v, %v), want (%v, %v, %v)", step, i, ax, az, ayaw, bx, bz, byaw)
			}
		}
		a, b := wa.b2.M_bodyList, wb.b2.M_bodyList
		for ; a != nil && b != nil; a, b = a.M_next, b.M_next {
			if a.M_sweep != b.M_sweep || a.M_flags != b.M_flags || a.M_linearVelocity != b.M_linearVelocity {
				t.Fatalf("step %d: body sweep %+v flags %#x, want %+v %#x", step, a.M_sweep, a.M_flags, b.M_sweep, b.M_flags)
			}
		}
		if a != nil || b != nil {
			t.Fatalf("step %d: body lists of different lengths", step)
		}
		if wa.b2.M_contactManager.M_contactCount != wb.b2.M_contactManager.M_contactCount {
			t.Fatalf("step %d: %d contacts, want %d", step, wa.b2.M_contactManager.M_contactCount, wb.b2.M_contactManager.M_contactCount)
		}
	}
	t.Logf("%d steps ended without a contact, %d with; %d solved times of impact", alone, touching, wa.toiSolved)
	if alone < 100 || touching < 100 || wa.toiSolved < 10 || touching-int(wa.toiSolved) < 100 {
		t.Errorf("%d steps ended without a contact, %d with, %d solved times of impact: every kind must be tested",
			alone, touching, wa.toiSolved)
	}
}
