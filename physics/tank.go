package physics

import (
	"fmt"
	"math"
	"slices"

	"github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/tank"
)

// Defaults for TankSpec's drive: a 50 t main battle tank. Its shape and speeds are
// tank.Default()'s.
const (
	// DefaultMass is the tank's mass, kg.
	DefaultMass = 50000.0
	// DefaultTrackGauge is the distance between the track centerlines, m.
	DefaultTrackGauge = 2.9
	// DefaultPower is the engine power at the tracks, W.
	DefaultPower = 800e3
	// DefaultTraction is the largest total track force as a fraction of the tank's
	// weight (tracks on dirt): it sets the steepest climb and the hardest stop.
	DefaultTraction = 0.6
	// DefaultRollingResistance is the rolling resistance coefficient (force per weight).
	DefaultRollingResistance = 0.04
	// DefaultLateralGrip is the sideways friction coefficient of the tracks.
	DefaultLateralGrip = 0.8
	// DefaultTurnResistance is the tracks' skid coefficient resisting a turn in place;
	// wider turns meet less (Crolla's fit, μ·0.925 / (0.925 + 0.15·R/gauge)).
	DefaultTurnResistance = 0.25
)

// TankSpec describes a tank's body and drive. The zero value is the default main
// battle tank; every zero field takes its default.
type TankSpec struct {
	// Spec is the tank's shape and the limits of its motion: the hull box that
	// collides, its speeds, and its turret and gun rates and gun limits. Zero fields
	// take tank.Default()'s.
	tank.Spec
	// Mass is the tank's mass, kg. If zero, defaults to DefaultMass.
	Mass float64
	// TrackGauge is the distance between the track centerlines, m. If zero, defaults
	// to DefaultTrackGauge (or 0.8·Width when Width is set and TrackGauge is not).
	TrackGauge float64
	// Power is the engine power delivered to the tracks, W. If zero, defaults to
	// DefaultPower.
	Power float64
	// Traction is the largest total track force per weight. If zero, defaults to
	// DefaultTraction.
	Traction float64
	// RollingResistance is force per weight opposing rolling. If zero, defaults to
	// DefaultRollingResistance.
	RollingResistance float64
	// LateralGrip is the sideways friction coefficient. If zero, defaults to
	// DefaultLateralGrip.
	LateralGrip float64
	// TurnResistance is the skid coefficient resisting yaw. If zero, defaults to
	// DefaultTurnResistance.
	TurnResistance float64
}

// Input is what drives a tank: players, bots and the lab all fill in this struct.
type Input struct {
	// Throttle is −1 (full reverse) … +1 (full ahead).
	Throttle float64
	// Steer is −1 (full left) … +1 (full right): full steer commands TurnRate. With
	// no throttle the tank turns in place; with both it follows an arc. Steer turns
	// the hull the same way going ahead or astern.
	Steer float64
	// AimYaw is the world yaw the turret turns toward, rad (same convention as the
	// hull: 0 faces +X, positive turns toward −Z).
	AimYaw float64
	// GunElevation is the gun elevation the gun moves toward, rad, limited to
	// [GunMin, GunMax].
	GunElevation float64
}

// Pose is a tank's full 3D kinematic state after a physics step.
type Pose struct {
	// Time is the world's simulation time of this pose, s.
	Time float64
	// Position is the middle of the hull's footprint on the ground, world meters.
	Position mgl64.Vec3
	// Orientation rotates the hull's local frame (forward +X, up +Y, right +Z) into
	// the world: yaw from box2d, pitch and roll from the three-point ground clamp.
	Orientation mgl64.Quat
	// Velocity is the hull's velocity along the ground, m/s (Y follows the slope).
	Velocity mgl64.Vec3
	// AngularVelocity is the hull's rotation rate about a world axis, rad/s,
	// including pitch and roll rates from the terrain.
	AngularVelocity mgl64.Vec3
	// Yaw is the hull heading, rad, wrapped to (−π, π].
	Yaw float64
	// Turret is the turret yaw relative to the hull, rad in (−π, π]; TurretRate its
	// rate, rad/s.
	Turret, TurretRate float64
	// Gun is the gun elevation, rad; GunRate its rate, rad/s.
	Gun, GunRate float64
	// GroundNormal is the unit normal of the clamp triangle.
	GroundNormal mgl64.Vec3
	// ClampHits are the three ground points the clamp sampled: front middle, rear
	// left, rear right.
	ClampHits [3]mgl64.Vec3
	// OnGround reports that all three clamp rays found ground. When false (the tank
	// is off the ground's extent) the pose sits level at the ground height under its
	// middle.
	OnGround bool
}

// Articulation indices in the State a Pose converts to: a tank's articulations, in
// this order. Every package that reads a tank's State uses these.
const (
	// ArticulationTurret is the turret yaw relative to the hull, rad.
	ArticulationTurret = 0
	// ArticulationGun is the gun elevation, rad.
	ArticulationGun = 1
	// NumArticulations is how many articulations a tank's State carries.
	NumArticulations = 2
)

// State returns the pose as a dead-reckoning state: position, velocity, orientation,
// angular velocity, and the turret and gun as articulations ArticulationTurret and
// ArticulationGun. Acceleration is left zero: the publisher derives a damped one.
func (p Pose) State() deadreckon.State {
	s := deadreckon.State{
		Time:            p.Time,
		Position:        p.Position,
		Velocity:        p.Velocity,
		Orientation:     p.Orientation,
		AngularVelocity: p.AngularVelocity,
	}
	s.Articulations[ArticulationTurret] = deadreckon.Articulation{Angle: p.Turret, Rate: p.TurretRate}
	s.Articulations[ArticulationGun] = deadreckon.Articulation{Angle: p.Gun, Rate: p.GunRate}
	s.NumArticulations = NumArticulations
	return s
}

// Sample returns the pose as the dead-reckoning publisher takes it: time, position,
// orientation, and the turret and gun angles as articulations ArticulationTurret and
// ArticulationGun. The publisher derives velocity, damped acceleration and rates from
// successive samples itself.
func (p Pose) Sample() deadreckon.Sample {
	s := deadreckon.Sample{Time: p.Time, Position: p.Position, Orientation: p.Orientation, NumArticulations: NumArticulations}
	s.Articulations[ArticulationTurret] = p.Turret
	s.Articulations[ArticulationGun] = p.Gun
	return s
}

// Tank is one tank in a World. Its methods must not be called concurrently with the
// World's Step.
type Tank struct {
	w      *World
	seq    uint64 // the world's count of bodies made when this one was (World.made)
	spec   TankSpec
	radius float64 // of the footprint's bounding circle, m
	in     Input
	body   *box2d.B2Body
	pose   Pose
	prev   Pose            // pose of the step before, for Interpolated
	fall   deadreckon.Fall // the hull's fall off a cliff

	clamp  deadreckon.Clamp
	normal mgl64.Vec3 // ground normal used for the next step's forces

	contacts ContactCounts
	touching int
}

// ContactCounts counts contacts that began between a tank and other bodies.
type ContactCounts struct {
	// Tanks, Rocks and Border count contacts with other tanks (the world's own and
	// proxies of tanks owned elsewhere), rocks and the border.
	Tanks, Rocks, Border uint64
}

// Total returns the number of contacts of every kind.
func (c ContactCounts) Total() uint64 { return c.Tanks + c.Rocks + c.Border }

func (s TankSpec) withDefaults() TankSpec {
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&s.Mass, DefaultMass)
	widthSet := s.Width != 0
	s.Spec = s.Spec.WithDefaults()
	if s.TrackGauge == 0 {
		s.TrackGauge = DefaultTrackGauge
		if widthSet {
			s.TrackGauge = 0.8 * s.Width
		}
	}
	def(&s.Power, DefaultPower)
	def(&s.Traction, DefaultTraction)
	def(&s.RollingResistance, DefaultRollingResistance)
	def(&s.LateralGrip, DefaultLateralGrip)
	def(&s.TurnResistance, DefaultTurnResistance)
	return s
}

func (s TankSpec) validate() error {
	if err := s.Spec.Validate(); err != nil {
		return fmt.Errorf("%w: %w", ErrConfig, err)
	}
	pos := []struct {
		name string
		v    float64
	}{
		{"mass", s.Mass}, {"track gauge", s.TrackGauge}, {"power", s.Power}, {"traction", s.Traction},
		{"rolling resistance", s.RollingResistance}, {"lateral grip", s.LateralGrip},
		{"turn resistance", s.TurnResistance},
	}
	for _, p := range pos {
		if !geom.Finite(p.v) || !(p.v > 0) {
			return fmt.Errorf("%w: tank %s %g, want > 0", ErrConfig, p.name, p.v)
		}
	}
	if s.TrackGauge > s.Width {
		return fmt.Errorf("%w: track gauge %g m wider than the hull's %g m", ErrConfig, s.TrackGauge, s.Width)
	}
	return nil
}

// clampRayHeight is how far above a tank's ground height the clamp rays start, m.
const clampRayHeight = 25.0

// AddTank adds a tank of the given spec (zero fields take defaults) at (x, z), m,
// facing yaw, rad, at rest with its turret forward, and returns it. It fails when the
// spec is invalid or the place is not finite or outside the border.
func (w *World) AddTank(spec TankSpec, x, z, yaw float64) (*Tank, error) {
	spec = spec.withDefaults()
	if err := spec.validate(); err != nil {
		return nil, fmt.Errorf("add tank: %w", err)
	}
	if !geom.Finite(x, z, yaw) {
		return nil, fmt.Errorf("add tank: %w: place (%g, %g) yaw %g", ErrConfig, x, z, yaw)
	}
	if w.cfg.hasBorder() && (x < w.cfg.Min[0] || x > w.cfg.Max[0] || z < w.cfg.Min[1] || z > w.cfg.Max[1]) {
		return nil, fmt.Errorf("add tank: %w: place (%g, %g) outside the border %v…%v", ErrConfig, x, z, w.cfg.Min, w.cfg.Max)
	}
	t := &Tank{w: w, spec: spec, radius: math.Hypot(spec.Length, spec.Width) / 2, in: Input{AimYaw: yaw}}
	t.clamp = deadreckon.Clamp{
		Mode:         deadreckon.ClampAlways,
		Footprint:    spec.Footprint(),
		RayHeight:    clampRayHeight,
		NearDistance: math.Inf(1),
		FarDistance:  math.Inf(1),
	}
	bd := box2d.MakeB2BodyDef()
	bd.Type = box2d.B2BodyType.B2_dynamicBody
	bd.Position = box2d.MakeB2Vec2(x, -z)
	bd.Angle = yaw
	bd.AllowSleep = false
	// Continuous collision: closing at 30 m/s, two tanks move half a meter per
	// step; as bullets they stop at the moment of impact instead of overlapping.
	bd.Bullet = true
	t.body = w.b2.CreateBody(&bd)
	t.body.SetUserData(t)
	w.made++
	t.seq = w.made
	shape := box2d.MakeB2PolygonShape()
	shape.SetAsBox(spec.Length/2, spec.Width/2)
	fd := box2d.MakeB2FixtureDef()
	fd.Shape = &shape
	fd.Density = spec.Mass / (spec.Length * spec.Width)
	fd.Friction = 0.3
	fd.Restitution = 0.05
	fd.Filter = box2d.MakeB2Filter()
	t.body.CreateFixtureFromDef(&fd)
	w.tanks = append(w.tanks, t)
	w.calm++ // the sleeping proxies' skipped tests did not count it
	t.pose.Orientation = mgl64.QuatIdent()
	t.place(w.Time(), 0, w.fallClock())
	t.prev = t.pose
	w.ghostTank(t)
	return t, nil
}

// RemoveTank takes t out of the world. Removing a tank twice, or one of another
// world, does nothing.
func (w *World) RemoveTank(t *Tank) {
	if t == nil || t.w != w || t.body == nil {
		return
	}
	for _, p := range w.proxies {
		p.dropGhosts(t, false)
	}
	w.tanks = removeBody(w, w.tanks, t, &t.body)
	w.calm++ // the others' strides are measured by their places in the list
}

// removeBody returns list without item and takes item's body, *body, out of the
// box2d world, clearing *body so that a second removal finds nothing to do. It is
// the common part of RemoveTank and RemoveProxy.
func removeBody[T comparable](w *World, list []T, item T, body **box2d.B2Body) []T {
	if i := slices.Index(list, item); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	w.b2.DestroyBody(*body)
	*body = nil
	return list
}

// Spec returns the tank's spec with every default filled in.
func (t *Tank) Spec() TankSpec { return t.spec }

// Input returns the input the tank is driving with, as sanitized by SetInput.
func (t *Tank) Input() Input { return t.in }

// Contacts returns how many contacts with other bodies have begun since the tank was
// added.
func (t *Tank) Contacts() ContactCounts { return t.contacts }

// Touching reports whether the tank touches another tank (or a proxy), a rock or the
// border now.
func (t *Tank) Touching() bool { return t.touching > 0 }

func (t *Tank) touch(other any, d int) {
	t.touching += d
	if d < 0 {
		return
	}
	switch other := other.(type) {
	case *Tank, *Proxy:
		t.contacts.Tanks++
	case staticKind:
		if other == kindRock {
			t.contacts.Rocks++
		} else {
			t.contacts.Border++
		}
	}
}

// SetInput sets the input used from the next physics step on. Throttle and Steer are
// clamped to [−1, 1] and read as 0 when not finite; a non-finite AimYaw or
// GunElevation holds the turret's current world aim or the gun's current elevation.
func (t *Tank) SetInput(in Input) {
	clamp1 := func(v float64) float64 {
		if !geom.Finite(v) {
			return 0
		}
		return math.Max(-1, math.Min(1, v))
	}
	in.Throttle, in.Steer = clamp1(in.Throttle), clamp1(in.Steer)
	if !geom.Finite(in.AimYaw) {
		in.AimYaw = t.pose.Yaw + t.pose.Turret
	}
	if !geom.Finite(in.GunElevation) {
		in.GunElevation = t.pose.Gun
	}
	t.in = in
}

// Pose returns the tank's pose after the last physics step.
func (t *Tank) Pose() Pose { return t.pose }

// Teleport moves the tank to (x, z), m, facing yaw, rad, at rest, for a respawn,
// with its turret forward and its gun level, aimed there until the next SetInput
// (a tank comes back ready to fight ahead of it, not looking where its wreck did). A
// place outside the border
// is moved inside it, far enough for the hull to clear the wall at any heading.
// Non-finite arguments are ignored. Call it between steps, never from inside one.
func (t *Tank) Teleport(x, z, yaw float64) {
	if t.body == nil || !geom.Finite(x, z, yaw) {
		return
	}
	if c := &t.w.cfg; c.hasBorder() {
		r := math.Hypot(t.spec.Length, t.spec.Width) / 2
		inside := func(v, lo, hi float64) float64 {
			if hi-lo < 2*r {
				return (lo + hi) / 2
			}
			return math.Max(lo+r, math.Min(hi-r, v))
		}
		if x < c.Min[0] || x > c.Max[0] || z < c.Min[1] || z > c.Max[1] {
			x, z = inside(x, c.Min[0], c.Max[0]), inside(z, c.Min[1], c.Max[1])
		}
	}
	t.body.SetTransform(box2d.MakeB2Vec2(x, -z), yaw)
	t.body.SetLinearVelocity(box2d.MakeB2Vec2(0, 0))
	t.body.SetAngularVelocity(0)
	t.pose.Turret, t.pose.Gun, t.pose.TurretRate, t.pose.GunRate = 0, 0, 0, 0
	t.in.AimYaw, t.in.GunElevation = yaw, 0
	t.place(t.w.Time(), 0, t.w.fallClock())
	t.prev = t.pose
	t.w.ghostTank(t)
}

// Interpolated returns the pose a fraction alpha (0…1) of the way from the previous
// fixed step's pose to the current one: position, velocity and angles blend linearly,
// orientation along the shorter arc. Drawn with alpha = World.Alpha(), tanks move
// smoothly at any frame rate, one fixed step behind the simulation. Alpha outside
// 0…1 is clamped; NaN reads as 1.
func (t *Tank) Interpolated(alpha float64) Pose {
	if !(alpha < 1) {
		return t.pose
	}
	if alpha <= 0 {
		return t.prev
	}
	a, b := t.prev, t.pose
	lerp := func(x, y float64) float64 { return x + (y-x)*alpha }
	lerpV := func(x, y mgl64.Vec3) mgl64.Vec3 { return x.Add(y.Sub(x).Mul(alpha)) }
	p := b
	p.Time = lerp(a.Time, b.Time)
	p.Position = lerpV(a.Position, b.Position)
	p.Velocity = lerpV(a.Velocity, b.Velocity)
	p.AngularVelocity = lerpV(a.AngularVelocity, b.AngularVelocity)
	p.GroundNormal = lerpV(a.GroundNormal, b.GroundNormal).Normalize()
	for i := range p.ClampHits {
		p.ClampHits[i] = lerpV(a.ClampHits[i], b.ClampHits[i])
	}
	qb := b.Orientation
	if a.Orientation.Dot(qb) < 0 {
		qb = qb.Scale(-1)
	}
	p.Orientation = mgl64.QuatNlerp(a.Orientation, qb, alpha)
	p.Yaw = geom.WrapAngle(a.Yaw + geom.WrapAngle(b.Yaw-a.Yaw)*alpha)
	p.Turret = geom.WrapAngle(a.Turret + geom.WrapAngle(b.Turret-a.Turret)*alpha)
	p.TurretRate = lerp(a.TurretRate, b.TurretRate)
	p.Gun = lerp(a.Gun, b.Gun)
	p.GunRate = lerp(a.GunRate, b.GunRate)
	return p
}
