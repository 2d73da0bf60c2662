package physics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// Defaults for WorldConfig.
const (
	// DefaultStepRate is the fixed physics rate, Hz.
	DefaultStepRate = 60.0
	// DefaultGravity is the gravitational acceleration, m/s².
	DefaultGravity = 9.81
	// DefaultMaxSteps is the most fixed steps one Step call runs; time beyond that is
	// skipped (World.Skip) so a stalled frame cannot snowball.
	DefaultMaxSteps = 8
	// DefaultSolverIterations is how many passes the track and grip solver makes per
	// step.
	DefaultSolverIterations = 8
)

// box2d solver iterations per step.
const (
	velocityIterations = 8
	positionIterations = 3
)

// ErrConfig reports an invalid WorldConfig, TankSpec or tank placement; NewWorld and
// AddTank wrap it.
var ErrConfig = errors.New("invalid physics config")

// Obstacle is a static round obstacle (a rock) on the ground plane.
type Obstacle struct {
	// X and Z are its center, world meters; Radius its radius, m.
	X, Z, Radius float64
}

// WorldConfig describes a World. The zero value is flat ground at height 0 with no
// border and no obstacles, stepped at DefaultStepRate.
type WorldConfig struct {
	// Ground gives heights and normals. If nil, the ground is the plane Y = 0.
	Ground deadreckon.Ground
	// Min and Max are the (x, z) corners of the border wall, m. If both are zero,
	// there is no border.
	Min, Max mgl64.Vec2
	// Obstacles are static circles tanks collide with.
	Obstacles []Obstacle
	// StepRate is the fixed step rate, Hz. If zero, defaults to DefaultStepRate.
	StepRate float64
	// Gravity is the gravitational acceleration, m/s². If zero, defaults to
	// DefaultGravity.
	Gravity float64
	// MaxSteps caps the fixed steps per Step call. If zero, defaults to
	// DefaultMaxSteps.
	MaxSteps int
	// SolverIterations is how many passes the track and grip solver makes per step.
	// If zero, defaults to DefaultSolverIterations.
	SolverIterations int
	// ProxyJump is how far a Proxy may be from its path, m, before it jumps onto it
	// instead of driving there. If zero, defaults to DefaultProxyJump.
	ProxyJump float64
	// ProxyCatchUp is how much faster than its path a Proxy may move to get back onto
	// it, m/s. If zero, defaults to DefaultProxyCatchUp.
	ProxyCatchUp float64
	// ProxyPushSpeed is the fastest a Proxy advances into a tank it meets, beyond the
	// tank's own speed away from it, m/s. If zero, defaults to DefaultProxyPushSpeed.
	ProxyPushSpeed float64
	// ProxyWake is how near a tank a Proxy must come, m, to be in box2d (see
	// Proxy.Asleep). If zero, defaults to DefaultProxyWake.
	ProxyWake float64
}

// MapConfig returns the config for a battle on m: its ground, its border as the wall
// and its rocks as obstacles, with every other field at its default.
func MapConfig(m *terrain.Map) WorldConfig {
	cfg := WorldConfig{Ground: m, Min: m.Min(), Max: m.Max()}
	for _, o := range m.Obstacles() {
		cfg.Obstacles = append(cfg.Obstacles, Obstacle{X: o.X, Z: o.Z, Radius: o.Radius})
	}
	return cfg
}

// Walls returns the config's border and rocks as the obstacles a receiver keeps a
// reckoned tank out of (deadreckon.Collide): the same shapes its physics collides
// with.
func (c WorldConfig) Walls() *deadreckon.Walls {
	w := &deadreckon.Walls{Min: c.Min, Max: c.Max}
	for _, o := range c.Obstacles {
		w.Rocks = append(w.Rocks, deadreckon.Rock{X: o.X, Z: o.Z, Radius: o.Radius})
	}
	return w
}

// Collide returns what keeps a reckoned tank out of m's obstacles: its border and
// rocks, with the default tank's hull. Every peer and the referee's rebuild reckon
// remote tanks with it, so that they are all stopped where the truth is.
func Collide(m *terrain.Map) deadreckon.Collide {
	return deadreckon.Collide{Obstacles: MapConfig(m).Walls(), Hull: Hull(tank.Spec{})}
}

// Hull returns the hull box of a tank of spec s (zero fields the defaults'), as
// deadreckon.Collide takes it.
func Hull(s tank.Spec) deadreckon.Hull {
	s = s.WithDefaults()
	return deadreckon.Hull{HalfLength: s.Length / 2, HalfWidth: s.Width / 2}
}

func (c WorldConfig) withDefaults() WorldConfig {
	if c.StepRate == 0 {
		c.StepRate = DefaultStepRate
	}
	if c.Gravity == 0 {
		c.Gravity = DefaultGravity
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.SolverIterations == 0 {
		c.SolverIterations = DefaultSolverIterations
	}
	if c.ProxyJump == 0 {
		c.ProxyJump = DefaultProxyJump
	}
	if c.ProxyCatchUp == 0 {
		c.ProxyCatchUp = DefaultProxyCatchUp
	}
	if c.ProxyPushSpeed == 0 {
		c.ProxyPushSpeed = DefaultProxyPushSpeed
	}
	if c.ProxyWake == 0 {
		c.ProxyWake = DefaultProxyWake
	}
	if c.Ground == nil {
		c.Ground = flatGround{}
	}
	return c
}

func (c WorldConfig) validate() error {
	switch {
	case !geom.Finite(c.StepRate) || c.StepRate < 1 || c.StepRate > 10000:
		return fmt.Errorf("%w: step rate %g Hz, want 1…10000", ErrConfig, c.StepRate)
	case !geom.Finite(c.Gravity) || c.Gravity < 0:
		return fmt.Errorf("%w: gravity %g m/s²", ErrConfig, c.Gravity)
	case c.MaxSteps < 1:
		return fmt.Errorf("%w: max steps %d", ErrConfig, c.MaxSteps)
	case c.SolverIterations < 1 || c.SolverIterations > 100:
		return fmt.Errorf("%w: solver iterations %d, want 1…100", ErrConfig, c.SolverIterations)
	case !positive(c.ProxyJump):
		return fmt.Errorf("%w: proxy jump %g m, want > 0", ErrConfig, c.ProxyJump)
	case !positive(c.ProxyCatchUp):
		return fmt.Errorf("%w: proxy catch-up %g m/s, want > 0", ErrConfig, c.ProxyCatchUp)
	case !positive(c.ProxyPushSpeed):
		return fmt.Errorf("%w: proxy push speed %g m/s, want > 0", ErrConfig, c.ProxyPushSpeed)
	case !positive(c.ProxyWake):
		return fmt.Errorf("%w: proxy wake %g m, want > 0", ErrConfig, c.ProxyWake)
	case !geom.Finite(c.Min[0], c.Min[1], c.Max[0], c.Max[1]):
		return fmt.Errorf("%w: border %v…%v is not finite", ErrConfig, c.Min, c.Max)
	case c.hasBorder() && !(c.Max[0] > c.Min[0] && c.Max[1] > c.Min[1]):
		return fmt.Errorf("%w: border %v…%v is empty", ErrConfig, c.Min, c.Max)
	}
	for i, o := range c.Obstacles {
		if !geom.Finite(o.X, o.Z, o.Radius) || !(o.Radius > 0) {
			return fmt.Errorf("%w: obstacle %d at (%g, %g) radius %g", ErrConfig, i, o.X, o.Z, o.Radius)
		}
	}
	return nil
}

// positive reports whether v is a positive finite number.
func positive(v float64) bool { return v > 0 && geom.Finite(v) }

func (c WorldConfig) hasBorder() bool { return c.Min != (mgl64.Vec2{}) || c.Max != (mgl64.Vec2{}) }

// World is the physics of one battlefield: tanks on a box2d plane (zero gravity in
// 2D) with the ground's slopes acting on them, stepped at a fixed rate. The box2d
// plane maps to the world as X = x, Z = −y, yaw = angle.
//
// A World and its tanks are not safe for concurrent use; one goroutine steps it and
// reads the poses.
type World struct {
	cfg      WorldConfig
	h        float64 // fixed step, s
	b2       *box2d.B2World
	tanks    []*Tank
	proxies  []*Proxy
	steps    uint64
	acc      float64
	skipped  float64 // frame time passed without being simulated (Skip), s
	listener *contactListener
	// made counts the tanks and proxies added, so a sleeping proxy's body goes back
	// to its place in box2d's body list (link).
	made uint64
	// calm counts the breaks of the calm the sleeping proxies' skipped tests
	// are worked out in: a tank added or removed, or one that moved more than
	// maxStride between two steps' wake tests (keepCalm), or a proxy's new path
	// (repathed, counted at the next keepCalm). calmSeen is the count quiet was
	// last cleared at.
	calm, calmSeen uint64
	// repathed says a proxy was given a new path since the last keepCalm; set from
	// the goroutines that set the proxies' paths (Proxy.MoveTo).
	repathed atomic.Bool
	// quiet holds, for each proxy (by its index in proxies), the step count before
	// which its wake test is skipped (Proxy.quietFor): kept side by side, so a
	// step passes over a skipped sleeper without reading the proxy.
	quiet []uint64
	// strideFrom is each tank's place at the last step's wake tests (box2d's frame).
	strideFrom []box2d.B2Vec2
	// plainWake runs every sleeping proxy's wake test at every step, as the
	// tests' reference for the skipped ones.
	plainWake bool
	// plainStep steps box2d with its own B2World.Step, as the tests' reference
	// for stepB2; toiSolved counts stepB2's steps that ran the time-of-impact
	// pass, so the tests know they test both kinds.
	plainStep bool
	toiSolved uint64
}

// body user data for static fixtures.
type staticKind int

const (
	kindRock staticKind = iota + 1
	kindBorder
)

// NewWorld returns an empty world for cfg.
func NewWorld(cfg WorldConfig) (*World, error) {
	cfg = cfg.withDefaults()
	if err := cfg.validate(); err != nil {
		return nil, fmt.Errorf("new world: %w", err)
	}
	cfg.Obstacles = append([]Obstacle(nil), cfg.Obstacles...)
	b2 := box2d.MakeB2World(box2d.MakeB2Vec2(0, 0))
	w := &World{cfg: cfg, h: 1 / cfg.StepRate, b2: &b2}
	w.listener = &contactListener{}
	w.b2.SetContactListener(w.listener)

	if len(cfg.Obstacles) > 0 {
		bd := box2d.MakeB2BodyDef()
		bd.Type = box2d.B2BodyType.B2_staticBody
		body := w.b2.CreateBody(&bd)
		body.SetUserData(kindRock)
		for _, o := range cfg.Obstacles {
			shape := box2d.MakeB2CircleShape()
			shape.M_radius = o.Radius
			shape.M_p = box2d.MakeB2Vec2(o.X, -o.Z)
			fd := box2d.MakeB2FixtureDef()
			fd.Shape = &shape
			fd.Friction = 0.4
			fd.Filter = box2d.MakeB2Filter()
			body.CreateFixtureFromDef(&fd)
		}
	}
	if cfg.hasBorder() {
		bd := box2d.MakeB2BodyDef()
		bd.Type = box2d.B2BodyType.B2_staticBody
		body := w.b2.CreateBody(&bd)
		body.SetUserData(kindBorder)
		x0, x1 := cfg.Min[0], cfg.Max[0]
		y0, y1 := -cfg.Max[1], -cfg.Min[1]
		corners := [5]box2d.B2Vec2{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}}
		for i := 0; i < 4; i++ {
			shape := box2d.MakeB2EdgeShape()
			shape.Set(corners[i], corners[i+1])
			fd := box2d.MakeB2FixtureDef()
			fd.Shape = &shape
			fd.Friction = 0.4
			fd.Filter = box2d.MakeB2Filter()
			body.CreateFixtureFromDef(&fd)
		}
	}
	return w, nil
}

// Ground returns the ground the world's tanks drive on.
func (w *World) Ground() deadreckon.Ground { return w.cfg.Ground }

// Config returns the world's config with defaults filled in.
func (w *World) Config() WorldConfig { return w.cfg }

// Tanks returns the tanks in the order they were added. The slice is shared: do not
// modify it.
func (w *World) Tanks() []*Tank { return w.tanks }

// Time returns the simulation time, s: the number of fixed steps run times the step.
func (w *World) Time() float64 { return float64(w.steps) * w.h }

// FrameTime returns the time Step has been given so far, s: Time plus the remainder
// carried over to the next call (Alpha fixed steps). Time skipped (Skip, or a capped
// Step) does not count. It is the present of Proxy.MoveTo.
func (w *World) FrameTime() float64 { return w.Time() + w.acc }

// Steps returns the number of fixed steps run so far.
func (w *World) Steps() uint64 { return w.steps }

// FixedStep returns the length of one fixed step, s.
func (w *World) FixedStep() float64 { return w.h }

// Step advances the world by dt seconds of frame time: it runs as many fixed steps
// as the accumulated time allows, at most MaxSteps, and returns how many it ran. The
// remainder carries over to the next call, so the simulation does not depend on the
// frame rate. Time beyond MaxSteps steps is skipped (Skip). A dt that is negative,
// zero or not finite runs nothing.
func (w *World) Step(dt float64) int {
	if !(dt > 0) || math.IsInf(dt, 1) {
		return 0
	}
	w.acc += dt
	if over := w.acc - float64(w.cfg.MaxSteps)*w.h; over >= w.h {
		// Capped: the backlog beyond MaxSteps steps is not simulated. It is skipped
		// before the steps run, so that they end on the frame's clock, as a caller
		// that caps its own frames skips first.
		w.Skip(over)
		for range w.cfg.MaxSteps {
			w.Tick()
		}
		w.acc = 0
		return w.cfg.MaxSteps
	}
	n := 0
	for w.acc >= w.h && n < w.cfg.MaxSteps {
		w.Tick()
		w.acc -= w.h
		n++
	}
	return n
}

// fallClock is the time falls are timed by, s: the frame time given so far up to the
// last step (Time plus what Skip let pass).
func (w *World) fallClock() float64 { return w.Time() + w.skipped }

// Skip lets dt seconds of frame time pass without simulating them: the time a frame
// too late to catch up leaves out (a caller that caps the time it gives Step, or
// Step's own MaxSteps). Bodies stay where they are and keep their velocities, but a
// tank in the air falls on through the skipped time, and one that leaves the ground
// in the step after it falls as if it had left at its start (the frame does not say
// when in it the hull crossed the edge): its fall is timed on the frame clock, not by
// the steps run. Its states are stamped on that clock, and its remote
// copies and a host's movement check hold its fall to gravity on it; timed by the
// steps, a tank on a late host fell as slowly as its frames came (a frame 0.3 s late
// simulates 0.1 s in a game.Match), and the host refused it, hanging in the air
// beside the cliff. A dt that is negative, zero or not finite skips nothing.
func (w *World) Skip(dt float64) {
	if dt > 0 && !math.IsInf(dt, 1) {
		w.skipped += dt
	}
}

// Alpha returns the fraction of a fixed step that Step has accumulated but not yet
// run, in [0, 1): pass it to Tank.Interpolated to draw between steps.
func (w *World) Alpha() float64 { return math.Min(w.acc/w.h, 1) }

// Tick runs exactly one fixed step: the tanks' tracks, the proxies' velocities onto
// their paths, box2d's step, and the tanks' new poses. Ticks of different worlds never
// overlap (see box2dGlobals), so worlds may be stepped from different goroutines.
func (w *World) Tick() {
	box2dGlobals.Lock()
	defer box2dGlobals.Unlock()
	for _, t := range w.tanks {
		t.drive(w.h)
	}
	// After the tanks' own drive: a proxy limits its push by how fast a tank moves
	// away by itself.
	end := float64(w.steps+1) * w.h
	w.keepCalm()
	for i, p := range w.proxies {
		if w.steps < w.quiet[i] && !w.plainWake {
			continue
		}
		awake, quiet := p.wake(w.h, end)
		w.quiet[i] = quiet
		if awake {
			p.drive(w.h, end)
		}
	}
	if w.plainStep {
		w.b2.Step(w.h, velocityIterations, positionIterations)
	} else {
		w.stepB2()
	}
	w.steps++
	for _, p := range w.proxies {
		if len(p.ghosts) > 0 {
			p.dropGhosts(nil, true)
		}
	}
	now := w.Time()
	for _, t := range w.tanks {
		t.settle(w.h, now, w.fallClock())
	}
}

// keepCalm breaks the tanks' calm (World.calm) when a tank moved more than
// maxStride since the last step's wake tests, or the tanks changed, and notes
// where they are now.
func (w *World) keepCalm() {
	if w.repathed.Load() {
		w.calm++
		w.repathed.Store(false)
	}
	if len(w.strideFrom) != len(w.tanks) {
		w.calm++
		w.strideFrom = slices.Grow(w.strideFrom[:0], len(w.tanks))[:len(w.tanks)]
	}
	for i, t := range w.tanks {
		tc := t.body.GetPosition()
		if dx, dy := tc.X-w.strideFrom[i].X, tc.Y-w.strideFrom[i].Y; !(dx*dx+dy*dy <= maxStride*maxStride) {
			w.calm++
		}
		w.strideFrom[i] = tc
	}
	if w.calm != w.calmSeen {
		clear(w.quiet)
		w.calmSeen = w.calm
	}
}

// stepB2 runs one box2d step of w.h seconds, as B2World.Step does, but for its
// time-of-impact pass, which it runs only when that pass finds an event (toiEvent):
// otherwise all the pass does beyond toiEvent's search is make an island (4 kB, a
// garbage allocation at each of a client's steps, whose tank rarely meets anything
// fast enough). It leaves out B2World.Step's profile timers, which nothing reads.
// TestStepB2AsPlain holds it to B2World.Step.
func (w *World) stepB2() {
	b := w.b2
	flags := box2d.B2World_Flags
	if b.M_flags&flags.E_newFixture != 0 {
		b.M_contactManager.FindNewContacts()
		b.M_flags &= ^flags.E_newFixture
	}
	b.M_flags |= flags.E_locked
	step := box2d.MakeB2TimeStep()
	step.Dt = w.h
	step.VelocityIterations = velocityIterations
	step.PositionIterations = positionIterations
	step.Inv_dt = 1 / w.h
	step.DtRatio = b.M_inv_dt0 * w.h
	step.WarmStarting = b.M_warmStarting
	b.M_contactManager.Collide()
	if b.M_stepComplete {
		b.Solve(step)
	}
	if b.M_continuousPhysics && (!b.M_stepComplete || toiEvent(b)) {
		// SolveTOI starts over: it resets what toiEvent set.
		b.SolveTOI(step)
		w.toiSolved++
	}
	b.M_inv_dt0 = step.Inv_dt
	if b.M_flags&flags.E_clearForces != 0 {
		b.ClearForces()
	}
	b.M_flags &= ^flags.E_locked
}

// toiEvent does what B2World.SolveTOI does up to its first event, on a world
// whose last step completed: it resets the bodies' and contacts' time-of-impact
// state and works out each contact's time of impact in the step. It reports
// whether there is an event to solve; if not, the world is as SolveTOI leaves it.
// (Every body's sweep then starts at 0, so none is advanced here.)
func toiEvent(b *box2d.B2World) bool {
	for body := b.M_bodyList; body != nil; body = body.M_next {
		body.M_flags &= ^box2d.B2Body_Flags.E_islandFlag
		body.M_sweep.Alpha0 = 0
	}
	for c := b.M_contactManager.M_contactList; c != nil; c = c.GetNext() {
		c.SetFlags(c.GetFlags() & ^(box2d.B2Contact_Flag.E_toiFlag | box2d.B2Contact_Flag.E_islandFlag))
		c.SetTOICount(0)
		c.SetTOI(1)
	}
	minAlpha := 1.0
	found := false
	for c := b.M_contactManager.M_contactList; c != nil; c = c.GetNext() {
		if !c.IsEnabled() {
			continue
		}
		fA, fB := c.GetFixtureA(), c.GetFixtureB()
		if fA.IsSensor() || fB.IsSensor() {
			continue
		}
		bA, bB := fA.GetBody(), fB.GetBody()
		static, dynamic := box2d.B2BodyType.B2_staticBody, box2d.B2BodyType.B2_dynamicBody
		if !(bA.IsAwake() && bA.M_type != static) && !(bB.IsAwake() && bB.M_type != static) {
			continue
		}
		if !(bA.IsBullet() || bA.M_type != dynamic) && !(bB.IsBullet() || bB.M_type != dynamic) {
			continue
		}
		input := box2d.MakeB2TOIInput()
		input.ProxyA.Set(fA.GetShape(), c.GetChildIndexA())
		input.ProxyB.Set(fB.GetShape(), c.GetChildIndexB())
		input.SweepA = bA.M_sweep
		input.SweepB = bB.M_sweep
		input.TMax = 1
		output := box2d.MakeB2TOIOutput()
		box2d.B2TimeOfImpact(&output, &input)
		alpha := 1.0
		if output.State == box2d.B2TOIOutput_State.E_touching {
			alpha = math.Min(output.T, 1)
		}
		c.SetTOI(alpha)
		c.SetFlags(c.GetFlags() | box2d.B2Contact_Flag.E_toiFlag)
		if alpha < minAlpha {
			minAlpha, found = alpha, true
		}
	}
	return found && !(1-10*box2d.B2_epsilon < minAlpha)
}

// contactListener counts contacts beginning and ending on tanks and proxies.
type contactListener struct{}

// BeginContact counts a contact that began.
func (contactListener) BeginContact(c box2d.B2ContactInterface) { countContact(c, 1) }

// EndContact counts a contact that ended.
func (contactListener) EndContact(c box2d.B2ContactInterface) { countContact(c, -1) }

// PreSolve disables the contacts of proxies with their ghosts: every other contact is
// solved.
func (contactListener) PreSolve(c box2d.B2ContactInterface, _ box2d.B2Manifold) {
	a := c.GetFixtureA().GetBody().GetUserData()
	b := c.GetFixtureB().GetBody().GetUserData()
	if haunted(a, b) || haunted(b, a) {
		c.SetEnabled(false)
	}
}

// haunted reports whether body data a is a proxy and b one of its ghosts.
func haunted(a, b any) bool {
	p, ok := a.(*Proxy)
	if !ok || len(p.ghosts) == 0 {
		return false
	}
	t, ok := b.(*Tank)
	return ok && p.haunts(t)
}

// PostSolve does nothing.
func (contactListener) PostSolve(box2d.B2ContactInterface, *box2d.B2ContactImpulse) {}

func countContact(c box2d.B2ContactInterface, d int) {
	a := c.GetFixtureA().GetBody().GetUserData()
	b := c.GetFixtureB().GetBody().GetUserData()
	switch x := a.(type) {
	case *Tank:
		x.touch(b, d)
	case *Proxy:
		x.touch(d)
	}
	switch x := b.(type) {
	case *Tank:
		x.touch(a, d)
	case *Proxy:
		x.touch(d)
	}
}

// flatGround is the plane Y = 0, unbounded.
type flatGround struct{}

// HeightAt is 0 everywhere.
func (flatGround) HeightAt(x, z float64) (float64, bool) { return 0, true }

// NormalAt is +Y everywhere.
func (flatGround) NormalAt(x, z float64) (mgl64.Vec3, bool) { return mgl64.Vec3{0, 1, 0}, true }

// RayDown hits the plane from above.
func (flatGround) RayDown(x, y, z float64) (float64, bool) { return 0, y >= 0 }

// box2dGlobals serializes the box2d calls that count into box2d's package-level
// statistics (B2Distance, B2TimeOfImpact: tanks are bullets), so that worlds stepped by
// different goroutines (a client and the host it runs in-process) do not race on them.
var box2dGlobals sync.Mutex

// unlink takes the body of a proxy that fell asleep (already inactive: out of the
// broad phase, its contacts destroyed) out of box2d's body list. box2d walks that
// whole list several times a step whether a body is active or not, and a client of
// a 512-tank match has 511 proxies, nearly all asleep: most of a step went to
// walking them. The body is kept, so it wakes as it was.
func (w *World) unlink(b *box2d.B2Body) {
	if b.M_prev != nil {
		b.M_prev.M_next = b.M_next
	}
	if b.M_next != nil {
		b.M_next.M_prev = b.M_prev
	}
	if b == w.b2.M_bodyList {
		w.b2.M_bodyList = b.M_next
	}
	b.M_prev, b.M_next = nil, nil
	w.b2.M_bodyCount--
}

// link puts body b, made seq-th, back into box2d's body list where it would be had
// it never left (box2d adds each new body at the head, so the list runs from the
// newest to the oldest), and as box2d's steps leave an inactive body of the list
// (no island mark, no TOI progress, no force): the steps then do exactly what they
// did with it there. The order matters: box2d builds and solves its islands in
// list order.
func (w *World) link(b *box2d.B2Body, seq uint64) {
	var prev *box2d.B2Body
	next := w.b2.M_bodyList
	for next != nil && bodySeq(next) > seq {
		prev, next = next, next.M_next
	}
	b.M_prev, b.M_next = prev, next
	if prev != nil {
		prev.M_next = b
	} else {
		w.b2.M_bodyList = b
	}
	if next != nil {
		next.M_prev = b
	}
	w.b2.M_bodyCount++
	b.M_flags &= ^box2d.B2Body_Flags.E_islandFlag
	b.M_sweep.Alpha0 = 0
	b.M_force.SetZero()
	b.M_torque = 0
}

// bodySeq returns when body b was made (Tank.seq, Proxy.seq); the static bodies of
// the rocks and the border, made with the world, are the oldest.
func bodySeq(b *box2d.B2Body) uint64 {
	switch o := b.GetUserData().(type) {
	case *Tank:
		return o.seq
	case *Proxy:
		return o.seq
	}
	return 0
}
