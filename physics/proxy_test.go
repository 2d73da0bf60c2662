package physics

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/tank"
)

// Tolerances of the proxy tests.
const (
	// onPath is how close a proxy that nothing disturbs stays to its path, m or rad.
	onPath = 1e-9
	// maxOverlap is how deep a tank may sink into a proxy, m (box2d's contact slop
	// is 0.005 m per body).
	maxOverlap = 0.02
)

func addProxy(t testing.TB, w *World, x, z, yaw float64) *Proxy {
	t.Helper()
	p, err := w.AddProxy(TankSpec{}, x, z, yaw)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func proxyCorners(p *Proxy) [4]mgl64.Vec2 {
	x, z, yaw := p.Place()
	s := p.Spec()
	return footprint(x, z, yaw, s.Length, s.Width)
}

// A tank driven at full throttle into a stationary proxy stops against it: contact
// is reported on both, the hulls do not overlap, the tank does not pass through, and
// the proxy does not give way.
func TestTankStopsAgainstProxy(t *testing.T) {
	for _, c := range []struct {
		name           string
		px, pz, pyaw   float64
		maxX           float64 // farthest the tank's middle may get, m
		wantTouchAtEnd bool
	}{
		{"head-on", 30, 0, math.Pi, 30 - tank.DefaultLength, true},
		{"broadside", 30, 0, math.Pi / 2, 30 - tank.DefaultWidth/2 - tank.DefaultLength/2, true},
		{"offset", 30, 2.5, math.Pi, 30 - tank.DefaultLength, false}, // may scrape past sideways
	} {
		w := newWorld(t, WorldConfig{})
		tk := addTank(t, w, 0, 0, 0)
		px := addProxy(t, w, c.px, c.pz, c.pyaw)
		tk.SetInput(Input{Throttle: 1})
		worst, farthest := math.Inf(-1), math.Inf(-1)
		var touched bool
		for w.Time() < 10 {
			w.Tick()
			worst = math.Max(worst, overlap(hullCorners(tk), proxyCorners(px)))
			touched = touched || tk.Touching()
			if !touched {
				continue
			}
			farthest = math.Max(farthest, tk.Pose().Position[0])
		}
		t.Logf("%s: deepest overlap %.4f m, farthest x %.3f m, end %v, speed %.3f m/s", c.name, worst, farthest,
			tk.Pose().Position, speed(tk))
		if tk.Contacts().Tanks == 0 || px.Contacts() == 0 {
			t.Errorf("%s: no contact reported: tank %+v, proxy %d", c.name, tk.Contacts(), px.Contacts())
		}
		if worst > maxOverlap {
			t.Errorf("%s: hull sank %.3f m into the proxy, want ≤ %.2f m", c.name, worst, maxOverlap)
		}
		if x, z, yaw := px.Place(); math.Abs(x-c.px) > onPath || math.Abs(z-c.pz) > onPath || math.Abs(geom.WrapAngle(yaw-c.pyaw)) > onPath {
			t.Errorf("%s: proxy moved to (%.4f, %.4f) yaw %.4f, want (%g, %g) yaw %.4f", c.name, x, z, yaw, c.px, c.pz, c.pyaw)
		}
		if !c.wantTouchAtEnd {
			continue
		}
		if farthest > c.maxX+maxOverlap {
			t.Errorf("%s: tank reached x = %.3f m, past the proxy's face at %.3f m", c.name, farthest, c.maxX)
		}
		if !tk.Touching() || !px.Touching() {
			t.Errorf("%s: not touching after 10 s of pushing", c.name)
		}
		if v := speed(tk); v > 0.05 {
			t.Errorf("%s: tank still moving at %.3f m/s against a stationary proxy", c.name, v)
		}
	}
}

// A proxy whose path runs into a resting tank pushes it out of the way, gently: it
// advances into the tank at the push speed at most, trailing its path meanwhile,
// without the hulls sinking into each other and without flinging the tank; once back
// on its path it stops pushing.
func TestProxyPushesRestingTank(t *testing.T) {
	for _, c := range []struct {
		name   string
		tyaw   float64 // the tank's heading: the proxy comes from −X
		speed  float64 // the path's speed until it stops at x = 8, m/s
		halfIn float64 // half the tank's extent along X, m
	}{
		{"from behind", 0, 3, tank.DefaultLength / 2},
		{"into its side", math.Pi / 2, 8, tank.DefaultWidth / 2},
		{"slowly", 0, 0.4, tank.DefaultLength / 2},
	} {
		w := newWorld(t, WorldConfig{})
		tk := addTank(t, w, 10, 0, c.tyaw)
		px := addProxy(t, w, 0, 0, 0)
		path := func(at float64) (x, v float64) {
			if x = c.speed * at; x < 8 {
				return x, c.speed
			}
			return 8, 0
		}
		worst, fastest := math.Inf(-1), 0.0
		for w.Time() < 25 {
			x, v := path(w.FrameTime())
			if err := px.MoveTo(x, 0, 0, v, 0, 0); err != nil {
				t.Fatal(err)
			}
			w.Step(w.FixedStep())
			worst = math.Max(worst, overlap(hullCorners(tk), proxyCorners(px)))
			fastest = math.Max(fastest, speed(tk))
		}
		x, z, _ := px.Place()
		front := x + tank.DefaultLength/2
		back := tk.Pose().Position[0] - c.halfIn
		t.Logf("%s: proxy at %.3f m, front %.3f m; tank back %.3f m (pushed %.2f m), fastest %.2f m/s, overlap %.4f m",
			c.name, x, front, back, tk.Pose().Position[0]-10, fastest, worst)
		if tk.Contacts().Tanks == 0 || px.Contacts() == 0 {
			t.Errorf("%s: no contact: tank %+v, proxy %d", c.name, tk.Contacts(), px.Contacts())
		}
		if math.Abs(x-8) > 1e-6 || math.Abs(z) > 1e-6 {
			t.Errorf("%s: proxy at (%.4f, %.4f), want on its path at (8, 0)", c.name, x, z)
		}
		if worst > maxOverlap {
			t.Errorf("%s: hulls overlapped by %.3f m, want ≤ %.2f", c.name, worst, maxOverlap)
		}
		if back < front-maxOverlap || back > front+0.1 {
			t.Errorf("%s: tank's back at %.3f m, want just ahead of the proxy's front at %.3f m", c.name, back, front)
		}
		if fastest > DefaultProxyPushSpeed+0.05 {
			t.Errorf("%s: tank pushed at up to %.2f m/s, want ≤ %.2f m/s", c.name, fastest, DefaultProxyPushSpeed)
		}
		if px.Jumps() != 0 {
			t.Errorf("%s: the proxy jumped %d times", c.name, px.Jumps())
		}
	}
}

// A proxy following a tank that drives away is not held back by it.
func TestProxyFollowsDepartingTank(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	tk := addTank(t, w, tank.DefaultLength+0.2, 0, 0)
	px := addProxy(t, w, 0, 0, 0)
	tk.SetInput(Input{Throttle: 1})
	for w.Time() < 4 {
		// The path trails the tank by 0.2 m, at its speed.
		p := tk.Pose()
		if err := px.MoveTo(p.Position[0]-tank.DefaultLength-0.2, 0, 0, p.Velocity[0], 0, 0); err != nil {
			t.Fatal(err)
		}
		w.Step(w.FixedStep())
		x, _, _ := px.Place()
		if gap := tk.Pose().Position[0] - x - tank.DefaultLength; gap < -maxOverlap || gap > 0.4 {
			t.Fatalf("t = %.2f s: gap %.3f m between the proxy and the tank it follows, want about 0.2 m", w.Time(), gap)
		}
	}
	if v := speed(tk); v < 5 {
		t.Errorf("tank at %.2f m/s after 4 s at full throttle, want > 5", v)
	}
}

// Proxies follow their paths through one another, rocks and the border: nothing
// blocks them and they report no contacts.
func TestProxiesPassThroughProxiesAndStatics(t *testing.T) {
	w := newWorld(t, WorldConfig{
		Min: mgl64.Vec2{-50, -50}, Max: mgl64.Vec2{50, 50},
		Obstacles: []Obstacle{{X: 0, Z: 0, Radius: 3}},
	})
	type path struct{ x, z, yaw, vx, vz, yawRate float64 }
	paths := []path{
		{-40, 0, 0, 10, 0, 0},              // through the rock, the other proxies and the +X border
		{40, 0, math.Pi, -10, 0, 0},        // head-on through the first
		{0, -40, -math.Pi / 2, 0, 10, 0.3}, // turning, across both and out through +Z
	}
	var ps []*Proxy
	for _, p := range paths {
		ps = append(ps, addProxy(t, w, p.x, p.z, p.yaw))
	}
	for w.Time() < 11 {
		for i, p := range paths {
			if err := ps[i].MoveTo(p.x, p.z, p.yaw, p.vx, p.vz, p.yawRate); err != nil {
				t.Fatal(err)
			}
			// Set once at time 0 and extrapolated: MoveTo keeps the path, anchored now.
			paths[i].x, paths[i].z = p.x+p.vx*w.FixedStep(), p.z+p.vz*w.FixedStep()
			paths[i].yaw = p.yaw + p.yawRate*w.FixedStep()
		}
		w.Tick()
		for i, p := range paths {
			x, z, yaw := ps[i].Place()
			if math.Hypot(x-p.x, z-p.z) > 1e-6 || math.Abs(geom.WrapAngle(yaw-p.yaw)) > 1e-6 {
				t.Fatalf("t = %.2f s: proxy %d at (%.4f, %.4f) yaw %.4f, path (%.4f, %.4f) yaw %.4f",
					w.Time(), i, x, z, yaw, p.x, p.z, geom.WrapAngle(p.yaw))
			}
		}
	}
	for i, p := range ps {
		if p.Contacts() != 0 || p.Touching() || p.Jumps() != 0 {
			t.Errorf("proxy %d: %d contacts, touching %v, %d jumps", i, p.Contacts(), p.Touching(), p.Jumps())
		}
	}
	x0, _, _ := ps[0].Place()
	x1, _, _ := ps[1].Place()
	_, z2, _ := ps[2].Place()
	if x0 < 60 || x1 > -60 || z2 < 60 {
		t.Errorf("proxies ended at x = %.2f, x = %.2f, z = %.2f, want each through the border at ±50", x0, x1, z2)
	}
}

// Across frames of any length, a proxy given its reckoned pose at the world's present
// before each Step ends every fixed step on the reckoned path; with no MoveTo it
// carries on along the last path.
func TestProxyTracksReckonedPathAcrossFrames(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	px := addProxy(t, w, 0, 0, 0)
	// A reckoned path of changing speed and turn rate.
	pose := func(t float64) (x, z, yaw, vx, vz, wz float64) {
		return 2*t + 0.5*t*t, 3 * math.Sin(0.5*t), 0.4 * math.Sin(t), 2 + t, 1.5 * math.Cos(0.5*t), 0.4 * math.Cos(t)
	}
	frames := []float64{1.0 / 60, 1.0 / 144, 1.0 / 30, 0.021, 1.0 / 60, 0.05}
	worst := 0.0
	for k := 0; w.Time() < 4; k++ {
		if err := px.MoveTo(pose(w.FrameTime())); err != nil {
			t.Fatal(err)
		}
		w.Step(frames[k%len(frames)])
		x, z, yaw := px.Place()
		wx, wz, wyaw, _, _, _ := pose(w.Time())
		// Between MoveTo calls the proxy goes straight along the tangent: the error
		// is the path's curvature over at most one frame.
		worst = math.Max(worst, math.Hypot(x-wx, z-wz))
		if d := math.Abs(geom.WrapAngle(yaw - wyaw)); d > 0.01 {
			t.Fatalf("t = %.3f s: yaw %.4f, reckoned %.4f", w.Time(), yaw, wyaw)
		}
	}
	t.Logf("largest distance from the reckoned path after a step: %.4f m", worst)
	if worst > 0.01 {
		t.Errorf("proxy strayed %.4f m from the reckoned path, want ≤ 0.01 m", worst)
	}
	if px.Jumps() != 0 {
		t.Errorf("%d jumps on a smooth path", px.Jumps())
	}
	// No more MoveTo: one second along the last path.
	x0, z0, _ := px.Place()
	_, _, _, vx, vz, _ := pose(w.FrameTime())
	run(w, 1)
	if x, z, _ := px.Place(); math.Abs(x-x0-vx) > 0.2 || math.Abs(z-z0-vz) > 0.2 {
		t.Errorf("without MoveTo the proxy went from (%.2f, %.2f) to (%.2f, %.2f), want about +(%.2f, %.2f)", x0, z0, x, z, vx, vz)
	}
}

// A proxy off its path by a little catches up at the catch-up speed; off by more than
// ProxyJump meters or 45°, it jumps; across ±π it turns the short way.
func TestProxyCatchUpAndJump(t *testing.T) {
	for _, c := range []struct {
		name            string
		x, z, yaw       float64 // where the path is, the proxy being at rest at the origin facing 0 (or yaw0)
		yaw0            float64
		wantJump        bool
		wantStepsOnPath int // fixed steps until it is on the path
	}{
		{"one meter", 1, 0, 0, 0, false, 6}, // 1 m at 10 m/s: 0.1 s
		{"half a degree", 0, 0, 0.01, 0, false, 1},
		{"across ±π", 0, 0, -math.Pi + 0.01, math.Pi - 0.01, false, 1},
		{"ten meters", 10, -2, 0, 0, true, 1},
		{"ninety degrees", 0, 0, math.Pi / 2, 0, true, 1},
	} {
		w := newWorld(t, WorldConfig{})
		addTank(t, w, 0, 15, 0) // near enough to keep the proxy awake, clear of its moves
		px := addProxy(t, w, 0, 0, c.yaw0)
		if err := px.MoveTo(c.x, c.z, c.yaw, 0, 0, 0); err != nil {
			t.Fatal(err)
		}
		steps := 0
		for ; steps < 60; steps++ {
			x, z, yaw := px.Place()
			if math.Hypot(x-c.x, z-c.z) < 1e-9 && math.Abs(geom.WrapAngle(yaw-c.yaw)) < 1e-9 {
				break
			}
			w.Tick()
			if vx, vz, _ := px.Velocity(); !c.wantJump && math.Hypot(vx, vz) > DefaultProxyCatchUp+1e-9 {
				t.Errorf("%s: catching up at %.2f m/s, above %.0f m/s", c.name, math.Hypot(vx, vz), DefaultProxyCatchUp)
			}
			if _, _, wz := px.Velocity(); !c.wantJump && math.Abs(wz) > 1.5 {
				t.Errorf("%s: turning at %.2f rad/s", c.name, wz)
			}
		}
		if got := px.Jumps() > 0; got != c.wantJump {
			t.Errorf("%s: jumped %v, want %v", c.name, got, c.wantJump)
		}
		if steps != c.wantStepsOnPath {
			t.Errorf("%s: on the path after %d steps, want %d", c.name, steps, c.wantStepsOnPath)
		}
	}
}

// Removing a proxy ends the contacts of the tanks touching it; bad places and paths
// are refused with errors and change nothing.
func TestProxyRemoveAndErrors(t *testing.T) {
	w := newWorld(t, WorldConfig{Min: mgl64.Vec2{-50, -50}, Max: mgl64.Vec2{50, 50}})
	tk := addTank(t, w, 0, 0, 0)
	px := addProxy(t, w, 7.5, 0, 0)
	tk.SetInput(Input{Throttle: 1})
	run(w, 1)
	if !tk.Touching() || !px.Touching() {
		t.Fatalf("not touching before the removal")
	}
	held := tk.Pose().Position[0]
	w.RemoveProxy(px)
	w.RemoveProxy(px) // twice: nothing
	if tk.Touching() || px.Touching() || len(w.Proxies()) != 0 {
		t.Errorf("after RemoveProxy: tank touching %v, proxy touching %v, %d proxies", tk.Touching(), px.Touching(), len(w.Proxies()))
	}
	if err := px.MoveTo(1, 2, 3, 0, 0, 0); err != nil {
		t.Errorf("MoveTo on a removed proxy: %v", err)
	}
	run(w, 1)
	if x := tk.Pose().Position[0]; x < held+0.5 {
		t.Errorf("tank still held at x = %.2f (was %.2f) a second after the proxy left", x, held)
	}
	other := newWorld(t, WorldConfig{})
	other.RemoveProxy(addProxy(t, w, 0, 20, 0)) // another world's: nothing
	if len(w.Proxies()) != 1 {
		t.Errorf("removing through another world took the proxy out")
	}

	for _, c := range []struct {
		spec      TankSpec
		x, z, yaw float64
	}{
		{TankSpec{Spec: tank.Spec{Length: -1}}, 0, 0, 0},
		{TankSpec{}, math.NaN(), 0, 0},
		{TankSpec{}, 0, math.Inf(1), 0},
		{TankSpec{}, 0, 0, math.NaN()},
		{TankSpec{}, 2e5, 0, 0},
	} {
		if _, err := w.AddProxy(c.spec, c.x, c.z, c.yaw); !errors.Is(err, ErrConfig) {
			t.Errorf("AddProxy(%+v, %g, %g, %g) = %v, want ErrConfig", c.spec, c.x, c.z, c.yaw, err)
		}
	}
	if _, err := w.AddProxy(TankSpec{}, 80, 0, 0); err != nil {
		t.Errorf("AddProxy outside the border: %v (a remote tank is where its owner says)", err)
	}
	p := w.Proxies()[0]
	if err := p.MoveTo(5, 20, 0, 1, 0, 0); err != nil {
		t.Fatal(err)
	}
	nan, inf := math.NaN(), math.Inf(1)
	for _, m := range [][6]float64{
		{nan, 0, 0, 0, 0, 0}, {0, inf, 0, 0, 0, 0}, {0, 0, nan, 0, 0, 0},
		{0, 0, 0, inf, 0, 0}, {0, 0, 0, 0, nan, 0}, {0, 0, 0, 0, 0, -inf},
		{1e300, 0, 0, 0, 0, 0}, {0, 0, 0, 1e3, 0, 0}, {0, 0, 0, 0, 0, 50},
	} {
		if err := p.MoveTo(m[0], m[1], m[2], m[3], m[4], m[5]); !errors.Is(err, ErrBadMove) {
			t.Errorf("MoveTo%v = %v, want ErrBadMove", m, err)
		}
	}
	t0 := w.Time()
	run(w, 1)
	if x, z, _ := p.Place(); math.Abs(x-(5+w.Time()-t0)) > 1e-6 || math.Abs(z-20) > 1e-6 {
		t.Errorf("after refused moves the proxy is at (%.3f, %.3f), want on its last good path (%.3f, 20)", x, z, 5+w.Time()-t0)
	}
}

// A proxy that appears on a tank, or a tank teleported onto a proxy, does not fling
// the tank out: they pass through each other until they part, and collide after.
func TestProxyGhostsUntilApart(t *testing.T) {
	w := newWorld(t, WorldConfig{})
	tk := addTank(t, w, 0, 0, 0)
	other := addTank(t, w, -30, 0, 0)
	px := addProxy(t, w, 2, 0.5, 0.3) // on top of tk
	path := func(x, v float64) {
		if err := px.MoveTo(x, 0.5, 0.3, v, 0, 0); err != nil {
			t.Fatal(err)
		}
	}
	path(2, 0)
	run(w, 1)
	if p := tk.Pose().Position; math.Hypot(p[0], p[2]) > 0.01 || speed(tk) > 0.01 {
		t.Fatalf("tank under a new proxy moved to %v at %.2f m/s", p, speed(tk))
	}
	// Away along +X at 4 m/s until clear, then back into the tank.
	t0 := w.Time()
	for w.Time()-t0 < 4 {
		path(2+4*(w.FrameTime()-t0), 4)
		w.Step(w.FixedStep())
	}
	if len(px.ghosts) != 0 {
		t.Fatalf("still a ghost of %d tanks 16 m apart", len(px.ghosts))
	}
	t1, x1 := w.Time(), 2+4*(w.Time()-t0)
	for w.Time()-t1 < 6 {
		path(x1-4*(w.FrameTime()-t1), -4)
		w.Step(w.FixedStep())
	}
	if tk.Contacts().Tanks == 0 || tk.Pose().Position[0] > -1 {
		t.Errorf("the returning proxy did not push the tank: contacts %+v, tank at %v", tk.Contacts(), tk.Pose().Position)
	}
	if d := overlap(hullCorners(tk), proxyCorners(px)); d > maxOverlap {
		t.Errorf("returning proxy overlaps the tank by %.3f m", d)
	}

	// A tank teleported onto the proxy (a respawn) is not flung either.
	x, z, _ := px.Place()
	other.Teleport(x+1, z, 0)
	path(x, 0)
	run(w, 1)
	if p := other.Pose().Position; math.Hypot(p[0]-x-1, p[2]-z) > 0.01 {
		t.Errorf("tank respawned onto a proxy moved %.3f m", math.Hypot(p[0]-x-1, p[2]-z))
	}
	w.RemoveTank(other)
	if px.haunts(other) {
		t.Error("a removed tank is still a ghost")
	}
}

// TestWorldsOnTwoGoroutines adds tanks on and off a proxy in one world while another
// world ticks on another goroutine, as a client does beside the host it runs
// in-process. box2d counts its distance queries in package-level variables, so under
// the race detector this fails unless every such query is serialized.
func TestWorldsOnTwoGoroutines(t *testing.T) {
	a, b := newWorld(t, WorldConfig{}), newWorld(t, WorldConfig{})
	addProxy(t, a, 0, 0, 0)
	tb := addTank(t, b, 0, 0, 0)
	addProxy(t, b, 9, 0, math.Pi)
	tb.SetInput(Input{Throttle: 1})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 300 {
			b.Tick()
		}
	}()
	for i := range 200 {
		a.RemoveTank(addTank(t, a, float64(i%2)*20, 0, 0)) // on the proxy and off it
	}
	<-done
	if tb.Contacts().Tanks == 0 {
		t.Errorf("the ticking world's tank never touched its proxy: %+v", tb.Contacts())
	}
}

// TestSpinningProxyPushesGently spins a proxy in place beside a resting tank, its
// corner sweeping through the tank's side, as a remote tank spun by a collision is
// reckoned: the tank is pushed aside no faster than a proxy's push allows, not flung
// (before the spin counted, a proxy spinning at 6 rad/s flung it at 8.5 m/s, at 10 rad/s 14 m/s).
func TestSpinningProxyPushesGently(t *testing.T) {
	for _, rate := range []float64{2, 6, 10} {
		w := newWorld(t, WorldConfig{})
		tk := addTank(t, w, 0, 5, 0) // side by side, 5 m apart: the proxy's corners reach 3.9 m
		px := addProxy(t, w, 0, 0, 0)
		worst := 0.0
		for w.Time() < 2 {
			if err := px.MoveTo(0, 0, rate*w.Time(), 0, 0, rate); err != nil {
				t.Fatal(err)
			}
			w.Tick()
			worst = math.Max(worst, speed(tk))
		}
		t.Logf("spin %g rad/s: tank's fastest %.2f m/s, %d contacts", rate, worst, px.Contacts())
		if px.Contacts() == 0 {
			t.Errorf("spin %g rad/s: the proxy never touched the tank", rate)
		}
		// Three times a straight push's: beside the push, the turning hull drags the
		// tank sideways by friction while they touch (1.2 m/s after 2 s at any rate).
		if bound := 3 * DefaultProxyPushSpeed; worst > bound {
			t.Errorf("spin %g rad/s: tank flung at %.2f m/s, bound %.2f", rate, worst, bound)
		}
	}
}

// A proxy far from every tank sleeps out of box2d and still follows its path; it
// wakes before a tank can reach it and the tank stops against it as against one that
// never slept; a path that wakes it on top of a tank passes through the tank (a
// ghost) instead of flinging it.
func TestProxySleepsFarFromTanks(t *testing.T) {
	for _, c := range []struct {
		name      string
		px, vx    float64 // the proxy's start x, m, and its path's speed along x, m/s (heading −X)
		throttle  float64 // the tank's
		wantGhost bool
	}{
		{"driven into", 120, -8, 0.3, false},
		{"woken on the tank", 0.5, 0, 0, true},
	} {
		w := newWorld(t, WorldConfig{})
		tk := addTank(t, w, 0, 0, 0)
		px := addProxy(t, w, 300, 0, math.Pi)
		tk.SetInput(Input{Throttle: c.throttle})
		w.Tick()
		if !px.Asleep() {
			t.Fatalf("%s: a proxy 300 m from the only tank is awake", c.name)
		}
		if err := px.MoveTo(c.px, 0, math.Pi, c.vx, 0, 0); err != nil {
			t.Fatal(err)
		}
		if x, _, _ := px.Place(); x != c.px {
			t.Errorf("%s: a sleeping proxy is at x = %.2f, its path at %.2f", c.name, x, c.px)
		}
		worst, wokeAt := math.Inf(-1), math.Inf(-1)
		for w.Time() < 20 {
			w.Tick()
			if !px.Asleep() && math.IsInf(wokeAt, -1) {
				x, _, _ := px.Place()
				wokeAt = x - tk.Pose().Position[0]
			}
			worst = math.Max(worst, overlap(hullCorners(tk), proxyCorners(px)))
		}
		t.Logf("%s: woke %.1f m ahead of the tank, deepest overlap %.3f m, tank at %v", c.name, wokeAt, worst, tk.Pose().Position)
		if px.Asleep() {
			t.Errorf("%s: asleep with a tank against it", c.name)
		}
		if c.wantGhost {
			if x := tk.Pose().Position[0]; speed(tk) > 0.05 || math.Abs(x) > 0.05 {
				t.Errorf("%s: tank pushed to x = %.2f m, moving at %.2f m/s", c.name, x, speed(tk))
			}
			continue
		}
		if wokeAt < DefaultProxyWake {
			t.Errorf("%s: woke only %.1f m ahead of the tank", c.name, wokeAt)
		}
		if tk.Contacts().Tanks == 0 || px.Contacts() == 0 || worst > maxOverlap {
			t.Errorf("%s: contacts %+v / %d, deepest overlap %.3f m (want contact, ≤ %.2f m)", c.name, tk.Contacts(), px.Contacts(), worst, maxOverlap)
		}
	}
}

// TestSleepingProxiesLeaveBodyList: a sleeping proxy's body is out of box2d's body
// list, and a proxy that wakes goes back to its own place in it, so box2d's steps
// walk only the awake bodies and build their islands in the order they would with
// every body listed (newest first). Proxies circle through a row of tanks, so they
// sleep and wake over and over; some are removed asleep and some awake, and new ones
// are added meanwhile.
func TestSleepingProxiesLeaveBodyList(t *testing.T) {
	w := newWorld(t, WorldConfig{Obstacles: []Obstacle{{X: 500, Z: 500, Radius: 3}}, Min: mgl64.Vec2{-800, -800}, Max: mgl64.Vec2{800, 800}})
	for i := range 3 {
		addTank(t, w, float64(i)*60, 0, 0)
	}
	var proxies []*Proxy
	add := func(i int) {
		proxies = append(proxies, addProxy(t, w, float64(i%7)*40, 200, 0))
	}
	for i := range 20 {
		add(i)
	}
	check := func(step int) {
		t.Helper()
		want := map[*box2d.B2Body]bool{}
		for _, tk := range w.Tanks() {
			want[tk.body] = true
		}
		slept := 0
		for _, p := range w.Proxies() {
			if p.Asleep() {
				slept++
				continue
			}
			want[p.body] = true
		}
		n, statics := 0, 0
		last := uint64(math.MaxUint64)
		for b := w.b2.M_bodyList; b != nil; b = b.M_next {
			n++
			if _, ok := b.GetUserData().(staticKind); ok {
				statics++
				continue
			}
			if !want[b] {
				t.Fatalf("step %d: a sleeping or removed body is in box2d's list", step)
			}
			if s := bodySeq(b); s >= last {
				t.Fatalf("step %d: body made %d listed after one made %d", step, s, last)
			} else {
				last = s
			}
			if b.M_next != nil && b.M_next.M_prev != b {
				t.Fatalf("step %d: the list's back link is broken", step)
			}
		}
		if n-statics != len(want) || statics != 2 || w.b2.M_bodyCount != n {
			t.Fatalf("step %d: %d bodies listed (%d static), want %d and 2; box2d counts %d", step, n, statics, len(want), w.b2.M_bodyCount)
		}
		if step == 599 && slept == 0 {
			t.Errorf("no proxy asleep at the end: the test does not test sleeping")
		}
	}
	woke := 0
	for step := range 600 {
		now := w.FrameTime()
		for i, p := range proxies {
			// Circles of 110 m about (60, 100): through the tanks and far from them.
			a := 0.3*now + float64(i)
			if err := p.MoveTo(60+110*math.Cos(a), 100-110*math.Sin(a), a+math.Pi/2, -33*math.Sin(a), -33*math.Cos(a), 0.3); err != nil {
				t.Fatal(err)
			}
		}
		before := map[*Proxy]bool{}
		for _, p := range proxies {
			before[p] = p.Asleep()
		}
		w.Tick()
		for _, p := range proxies {
			if before[p] && !p.Asleep() {
				woke++
			}
		}
		check(step)
		switch {
		case step%50 == 10 && len(proxies) > 0: // remove the first asleep, or the first
			k := 0
			for i, p := range proxies {
				if p.Asleep() {
					k = i
					break
				}
			}
			w.RemoveProxy(proxies[k])
			proxies = slices.Delete(proxies, k, k+1)
			check(step)
		case step%50 == 30:
			add(step)
			check(step)
		}
	}
	if woke < 10 {
		t.Errorf("%d wakes in 600 steps: the test does not test waking", woke)
	}
	t.Logf("%d wakes", woke)
}

// TestQuietProxiesAsPlainWake: skipping the wake tests of sleeping proxies that no
// tank can reach in the coming steps (World.quiet) changes nothing. Two worlds, one
// testing every sleeping proxy at every step, are given the same frames: proxies
// driving at up to the proxies' top speed toward, past and away from two tanks,
// their paths set every few steps; a tank driving, teleported now and then, and a
// third tank added and removed. Every proxy's sleep, place and velocity and every
// tank's pose match bit for bit at every step, proxies that raced in from far away
// touched the tanks, and most sleeping proxies' tests were skipped.
func TestQuietProxiesAsPlainWake(t *testing.T) {
	build := func(plain bool) (*World, []*Tank, []*Proxy) {
		w := newWorld(t, WorldConfig{Min: mgl64.Vec2{-900, -900}, Max: mgl64.Vec2{900, 900}})
		w.plainWake = plain
		tanks := []*Tank{addTank(t, w, 0, 0, 0), addTank(t, w, 40, 30, 1)}
		var ps []*Proxy
		for i := range 60 {
			a := float64(i) * 0.7
			r := 20 + float64(i%10)*40
			ps = append(ps, addProxy(t, w, r*math.Cos(a), r*math.Sin(a), a))
		}
		return w, tanks, ps
	}
	wq, tq, pq := build(false)
	wp, tp, pp := build(true)
	// path gives proxy i its path at time now: a straight run through the tanks'
	// ground at a speed of up to MaxProxySpeed, turned round every 20 s.
	path := func(i int, now float64) (x, z, yaw, vx, vz float64) {
		a := float64(i) * 0.7
		speed := 5 + float64(i%7)*float64(MaxProxySpeed-6)/6
		r := 20 + float64(i%10)*40
		run := math.Mod(now+float64(i), 20)
		along := r - speed*run
		if along < -r {
			along = -r - (along + r) // past the middle and back out
			speed = -speed
		}
		return along * math.Cos(a), along * math.Sin(a), a + math.Pi, -speed * math.Cos(a), -speed * math.Sin(a)
	}
	var extra [2]*Tank
	skipped, tested, touched := 0, 0, 0
	for step := 0; step < 3000; {
		frame := 1 + step%6 // one to six steps a frame, as a client's frames run
		for _, set := range []struct {
			w  *World
			ps []*Proxy
		}{{wq, pq}, {wp, pp}} {
			now := set.w.FrameTime()
			for i, p := range set.ps {
				x, z, yaw, vx, vz := path(i, now)
				if err := p.MoveTo(x, z, yaw, vx, vz, 0); err != nil {
					t.Fatal(err)
				}
			}
		}
		for k, set := range [][]*Tank{tq, tp} {
			w := []*World{wq, wp}[k]
			set[0].SetInput(Input{Throttle: 0.8, Steer: math.Sin(float64(step) / 90)})
			switch {
			case step%700 < 6 && extra[k] == nil:
				extra[k] = addTank(t, w, -60, 80, 2)
			case step%700 >= 350 && step%700 < 356 && extra[k] != nil:
				w.RemoveTank(extra[k])
				extra[k] = nil
			}
		}
		for j := range frame {
			if j == 1 && step/frame%40 == 0 {
				// Between two steps of a frame, beside a proxy that may be asleep
				// far from every tank and have its tests skipped.
				for k, w := range []*World{wq, wp} {
					x, z, _, _, _ := path(step/40*7%60, w.FrameTime())
					[][]*Tank{tq, tp}[k][1].Teleport(x+8, z, 0.3)
				}
			}
			for i, p := range pq { // wq.proxies in the same order
				if wq.steps < wq.quiet[i] && wq.calm == wq.calmSeen && !wq.repathed.Load() {
					skipped++
				} else if p.asleep {
					tested++
				}
			}
			wq.Tick()
			wp.Tick()
			step++
			for i := range pq {
				a, b := pq[i], pp[i]
				ax, az, ayaw := a.Place()
				bx, bz, byaw := b.Place()
				avx, avz, aw := a.Velocity()
				bvx, bvz, bw := b.Velocity()
				if a.Asleep() != b.Asleep() || ax != bx || az != bz || ayaw != byaw || avx != bvx || avz != bvz || aw != bw {
					t.Fatalf("step %d: proxy %d asleep %v at (%v, %v, %v) moving (%v, %v, %v), want asleep %v at (%v, %v, %v) moving (%v, %v, %v)",
						step, i, a.Asleep(), ax, az, ayaw, avx, avz, aw, b.Asleep(), bx, bz, byaw, bvx, bvz, bw)
				}
				if a.Touching() {
					touched++
				}
			}
			for i, tk := range wq.Tanks() {
				if got, want := tk.Pose(), wp.Tanks()[i].Pose(); got != want {
					t.Fatalf("step %d: tank %d at %v, want %v", step, i, got.Position, want.Position)
				}
			}
		}
	}
	t.Logf("sleeping proxies' tests: %d skipped, %d run; %d proxy-steps touching a tank", skipped, tested, touched)
	if touched == 0 {
		t.Error("no proxy touched a tank: the test does not test waking in time")
	}
	if skipped < tested {
		t.Errorf("%d sleeping proxies' tests skipped against %d run: the shortcut is not tested", skipped, tested)
	}
}

// TestMoveToOrientedAsMoveTo: a path given by orientation (MoveToOriented, its
// heading worked out when needed) moves a proxy, asleep or awake, bit for bit as
// the same path given by heading (MoveTo with geom.Yaw(q) − back), and is refused
// with the same error.
func TestMoveToOrientedAsMoveTo(t *testing.T) {
	build := func() (*World, *Tank, []*Proxy) {
		w := newWorld(t, WorldConfig{})
		tk := addTank(t, w, 0, 0, 0)
		tk.SetInput(Input{Throttle: 0.6, Steer: 0.4})
		var ps []*Proxy
		for i := range 8 {
			ps = append(ps, addProxy(t, w, float64(i)*9-30, 12, 0))
		}
		return w, tk, ps
	}
	wa, _, pa := build()
	wb, _, pb := build()
	bad := []struct {
		name           string
		x, z           float64
		q              mgl64.Quat
		back, vx, rate float64
	}{
		{"back not finite", 0, 0, mgl64.QuatIdent(), math.NaN(), 0, 0},
		{"back infinite", 0, 0, mgl64.QuatIdent(), math.Inf(1), 0, 0},
		{"place not finite", math.NaN(), 0, mgl64.QuatIdent(), 0, 0, 0},
		{"too far", 2 * MaxProxyCoordinate, 0, mgl64.QuatIdent(), 0.1, 0, 0},
		{"too fast", 0, 0, mgl64.QuatIdent(), 0.1, 2 * MaxProxySpeed, 0},
		{"turning too fast", 0, 0, mgl64.QuatIdent(), 0.1, 0, 2 * MaxProxyYawRate},
	}
	for _, c := range bad {
		want := pa[0].MoveTo(c.x, c.z, geom.Yaw(c.q)-c.back, c.vx, 0, c.rate)
		got := pb[0].MoveToOriented(c.x, c.z, c.q, c.back, c.vx, 0, c.rate)
		if want == nil || got == nil || got.Error() != want.Error() {
			t.Errorf("%s: refused with %v, want %v", c.name, got, want)
		}
	}
	for step := range 900 {
		now := wa.FrameTime()
		for i := range pa {
			// Circles through the tank's ground, turning; one orientation not
			// normalised and one not finite (read as no turn at all).
			a := 0.4*now + float64(i)
			q := geom.QuatMul(geom.YawQuat(a+math.Pi/2), geom.AxisRotation(mgl64.Vec3{1, 0, 0}, 0.1*float64(i)))
			switch i {
			case 6:
				q = q.Scale(1.7)
			case 7:
				q.W = math.Inf(1)
			}
			back := 0.3 * float64(i%3) / 60
			x, z := 25*math.Cos(a), 10-25*math.Sin(a)
			vx, vz := -10*math.Sin(a), -10*math.Cos(a)
			if err := pa[i].MoveTo(x, z, geom.Yaw(q)-back, vx, vz, 0.4); err != nil {
				t.Fatal(err)
			}
			if err := pb[i].MoveToOriented(x, z, q, back, vx, vz, 0.4); err != nil {
				t.Fatal(err)
			}
		}
		wa.Step(float64(1+step%3) / 60)
		wb.Step(float64(1+step%3) / 60)
		for i := range pa {
			ax, az, ayaw := pa[i].Place()
			bx, bz, byaw := pb[i].Place()
			if pa[i].Asleep() != pb[i].Asleep() || ax != bx || az != bz || ayaw != byaw {
				t.Fatalf("step %d: proxy %d asleep %v at (%v, %v) heading %v, want asleep %v at (%v, %v) heading %v",
					step, i, pb[i].Asleep(), bx, bz, byaw, pa[i].Asleep(), ax, az, ayaw)
			}
		}
		if a, b := wa.Tanks()[0].Pose(), wb.Tanks()[0].Pose(); a != b {
			t.Fatalf("step %d: tank at %v, want %v", step, b.Position, a.Position)
		}
	}
	// A removed proxy is where it was last told to be, heading as told.
	q := geom.YawQuat(2.5)
	if err := pa[0].MoveTo(3, 4, geom.Yaw(q)-0.01, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	if err := pb[0].MoveToOriented(3, 4, q, 0.01, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	wa.RemoveProxy(pa[0])
	wb.RemoveProxy(pb[0])
	ax, az, ayaw := pa[0].Place()
	if bx, bz, byaw := pb[0].Place(); ax != bx || az != bz || ayaw != byaw {
		t.Errorf("removed: at (%v, %v) heading %v, want (%v, %v) heading %v", bx, bz, byaw, ax, az, ayaw)
	}
	slept, touched := 0, 0
	for i := range pa {
		if pa[i].Contacts() > 0 {
			touched++
		}
		if pa[i].Asleep() {
			slept++
		}
	}
	t.Logf("%d proxies touched the tank, %d asleep at the end", touched, slept)
	if touched == 0 {
		t.Error("no proxy touched the tank: the test does not test headings in contact")
	}
}
