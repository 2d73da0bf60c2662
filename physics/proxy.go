package physics

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Defaults for the proxies of tanks owned elsewhere (WorldConfig.ProxyJump,
// WorldConfig.ProxyPushSpeed and WorldConfig.ProxyCatchUp).
const (
	// DefaultProxyJump is how far a proxy may be from its path, m, before it jumps
	// onto it instead of driving there: a gap that wide is a break in the reckoning
	// (a snap), not motion.
	DefaultProxyJump = 3.0
	// DefaultProxyPushSpeed is the fastest a proxy advances into a tank it meets,
	// m/s, unless the tank moves away faster by itself. A remote tank's owner meets
	// this peer's tank as an immovable proxy, so the remote tank stops against it
	// there; what the proxy here advances beyond that stop is the reckoning's
	// overshoot over the latency. Kept gentle, it nudges the tank instead of flinging
	// it, and the nudge, sent back and reckoned on the other peer, lets the remote
	// tank advance less than it pushed: the exchange dies out instead of turning into
	// an endless shove. (Two peers 50–100 ms apart, one tank rammed at 10 m/s: at
	// 0.5 m/s it is nudged 0.2 m and both settle; at 1 m/s the exchange keeps
	// shoving it, 2 m in 8 s.)
	DefaultProxyPushSpeed = 0.5
	// DefaultProxyCatchUp is how much faster than its path a proxy may move to get
	// back onto it, m/s: a proxy a meter off takes a tenth of a second to get back
	// rather than moving at 60 m/s for one step.
	DefaultProxyCatchUp = 10.0
	// DefaultProxyWake is how near a tank of the world, m (hull to hull, roughly: the
	// gap between their bounding circles), a proxy must come to be in box2d at all. A
	// proxy farther from every tank sleeps: out of box2d's broadphase and solver, it
	// costs nothing per step however many there are (a client of a 512-tank match
	// has 511). One step closes at most (MaxProxySpeed + a tank's top speed) / rate
	// ≈ 2 m of that gap at 60 Hz, so a proxy is awake well before it can touch a
	// tank.
	DefaultProxyWake = 10.0
)

// Limits on what MoveTo accepts; anything beyond them is refused with ErrBadMove.
const (
	// MaxProxyCoordinate is the largest |x| or |z| of a proxy's place, m.
	MaxProxyCoordinate = 1e5
	// MaxProxySpeed is the largest speed of a proxy's path, m/s.
	MaxProxySpeed = 100.0
	// MaxProxyYawRate is the largest |yaw rate| of a proxy's path, rad/s.
	MaxProxyYawRate = 10.0
)

// proxyJumpYaw is how far a proxy's heading may be off its path's, rad, before it
// jumps onto it instead of turning there.
const proxyJumpYaw = math.Pi / 4

// ErrBadMove reports a proxy path that MoveTo refused (not finite or beyond the
// MaxProxy limits); the proxy keeps its previous path.
var ErrBadMove = errors.New("physics: bad proxy move")

// Proxy stands in a World for a tank owned elsewhere (a remote peer's, shown by dead
// reckoning): a kinematic box2d body with the tank's footprint that the World's tanks
// collide with. It is not simulated: it follows the path MoveTo gives it (the
// reckoned pose and velocity), nothing pushes it back, and it passes through rocks,
// the border and other proxies as its reckoning says. The World's tanks stop against
// it.
//
// A proxy moves by velocity, never by teleporting: each fixed step its velocity is
// set so the step ends on its path, and the contact solver moves tanks in the way as
// it moves them out of another tank. Into a tank it advances no faster than
// ProxyPushSpeed (and, below that, half as fast as its path, the share of one of two
// equal masses), unless the tank moves away faster by itself; meanwhile it trails
// its path, and regains it once the tank has made way. (Its turning is not limited:
// a hull swinging round sweeps tanks aside at its own rate.) When the path runs away from
// it (a snap in the reckoning), it catches up at most ProxyCatchUp faster than the
// path; beyond ProxyJump meters or 45° it jumps, unless a tank holds it.
//
// A proxy that appears or jumps onto a tank, or a tank that appears on a proxy (a
// spawn or a respawn), does not fling it out: the two pass through each other until
// they part, and collide from then on. Two peers whose tanks spawned on one spot
// would otherwise each push their own tank out of the other's proxy, both the same
// way, and chase each other across the map.
//
// Its methods must not be called concurrently with the World's Step.
type Proxy struct {
	w      *World
	spec   TankSpec
	radius float64 // of the footprint's bounding circle, m
	body   *box2d.B2Body

	// The path: at world time t0 the proxy is at (x, z) heading yaw, moving at
	// (vx, vz) and yawRate.
	t0, x, z, yaw, vx, vz, yawRate float64
	// lazyYaw says that yaw is still to be worked out from the orientation q
	// turned back by yawBack (MoveToOriented, heading).
	lazyYaw bool
	q       mgl64.Quat
	yawBack float64

	// ghosts are the tanks the proxy overlapped when it appeared or jumped (or that
	// appeared on it): it passes through them until they part.
	ghosts []*Tank

	held     bool   // a tank limited its advance in the last step
	asleep   bool   // out of box2d: no tank within ProxyWake (wake)
	seq      uint64 // the world's count of bodies made when this one was (World.made)
	touching int
	contacts uint64
	jumps    uint64
}

// AddProxy adds a proxy with the footprint of spec (zero fields take defaults; only
// Length and Width matter) at (x, z), m, heading yaw, rad, at rest, and returns it.
// Unlike AddTank it accepts a place outside the border: a remote tank is where its
// owner says. It fails with ErrConfig when the spec is invalid or the place is not
// finite or beyond MaxProxyCoordinate.
func (w *World) AddProxy(spec TankSpec, x, z, yaw float64) (*Proxy, error) {
	spec = spec.withDefaults()
	if err := spec.validate(); err != nil {
		return nil, fmt.Errorf("add proxy: %w", err)
	}
	if !geom.Finite(x, z, yaw) || math.Abs(x) > MaxProxyCoordinate || math.Abs(z) > MaxProxyCoordinate {
		return nil, fmt.Errorf("add proxy: %w: place (%g, %g) yaw %g", ErrConfig, x, z, yaw)
	}
	yaw = geom.WrapAngle(yaw)
	p := &Proxy{w: w, spec: spec, radius: math.Hypot(spec.Length, spec.Width) / 2, t0: w.FrameTime(), x: x, z: z, yaw: yaw}
	bd := box2d.MakeB2BodyDef()
	bd.Type = box2d.B2BodyType.B2_kinematicBody
	bd.Position = box2d.MakeB2Vec2(x, -z)
	bd.Angle = yaw
	bd.AllowSleep = false
	p.body = w.b2.CreateBody(&bd)
	p.body.SetUserData(p)
	w.made++
	p.seq = w.made
	shape := box2d.MakeB2PolygonShape()
	shape.SetAsBox(spec.Length/2, spec.Width/2)
	fd := box2d.MakeB2FixtureDef()
	fd.Shape = &shape
	fd.Friction = 0.3
	fd.Restitution = 0.05
	fd.Filter = box2d.MakeB2Filter()
	p.body.CreateFixtureFromDef(&fd)
	w.proxies = append(w.proxies, p)
	w.quiet = append(w.quiet, 0)
	box2dGlobals.Lock()
	p.findGhosts()
	box2dGlobals.Unlock()
	return p, nil
}

// RemoveProxy takes p out of the world; tanks touching it stop touching it.
// Removing a proxy twice, or one of another world, does nothing.
func (w *World) RemoveProxy(p *Proxy) {
	if p == nil || p.w != w || p.body == nil {
		return
	}
	if p.asleep {
		w.link(p.body, p.seq) // box2d destroys bodies of its list
	}
	if i := slices.Index(w.proxies, p); i >= 0 && i < len(w.quiet) {
		w.quiet = slices.Delete(w.quiet, i, i+1)
	}
	w.proxies = removeBody(w, w.proxies, p, &p.body)
	p.touching = 0
	clear(p.ghosts)
	p.ghosts = nil
}

// Proxies returns the proxies in the order they were added. The slice is shared: do
// not modify it.
func (w *World) Proxies() []*Proxy { return w.proxies }

// MoveTo sets the proxy's path: at the world's present, FrameTime (the time Step has
// been given so far), it is at (x, z), m, heading yaw, rad, moving at (vx, vz), m/s,
// and turning at yawRate, rad/s (positive turns toward −Z, as yaw does). The fixed
// steps that follow carry it along that path by velocity (see Proxy) until the next
// MoveTo, so call it every frame, before Step, with the reckoned pose. MoveTo and
// MoveToOriented of different proxies may run at the same time on several
// goroutines, while nothing else uses the world: a client sets its remote tanks'
// proxies in the pass that reckons them, shared out over goroutines.
//
// A path that is not finite, lies beyond MaxProxyCoordinate, or moves faster than
// MaxProxySpeed or MaxProxyYawRate is refused with an error wrapping ErrBadMove, and
// the proxy keeps its previous path. On a removed proxy MoveTo does nothing.
func (p *Proxy) MoveTo(x, z, yaw, vx, vz, yawRate float64) error {
	if p.body == nil {
		return nil
	}
	if err := checkPath(x, z, yaw, vx, vz, yawRate); err != nil {
		return err
	}
	p.setPath(x, z, vx, vz, yawRate)
	p.yaw, p.lazyYaw = geom.WrapAngle(yaw), false
	return nil
}

// MoveToOriented is MoveTo with the heading given as orientation q, a quaternion
// as deadreckon.State's, turned back by back, rad: the path heads geom.Yaw(q) −
// back, to the bit, worked out only when a step or Place needs it. A sleeping
// proxy needs no heading until it wakes, and a client's world gives hundreds of
// them a path every frame.
func (p *Proxy) MoveToOriented(x, z float64, q mgl64.Quat, back, vx, vz, yawRate float64) error {
	if p.body == nil {
		return nil
	}
	// geom.Yaw is finite for any q, so the heading is finite when back is.
	if !geom.Finite(back) {
		return checkPath(x, z, geom.Yaw(q)-back, vx, vz, yawRate)
	}
	if err := checkPath(x, z, 0, vx, vz, yawRate); err != nil {
		return checkPath(x, z, geom.Yaw(q)-back, vx, vz, yawRate) // the same error, its heading told
	}
	p.setPath(x, z, vx, vz, yawRate)
	p.q, p.yawBack, p.lazyYaw = q, back, true
	return nil
}

// checkPath returns MoveTo's error for a path it refuses, else nil.
func checkPath(x, z, yaw, vx, vz, yawRate float64) error {
	switch {
	case !geom.Finite(x, z, yaw, vx, vz, yawRate):
		return fmt.Errorf("%w: not finite: (%g, %g) yaw %g, velocity (%g, %g) yaw rate %g", ErrBadMove, x, z, yaw, vx, vz, yawRate)
	case math.Abs(x) > MaxProxyCoordinate || math.Abs(z) > MaxProxyCoordinate:
		return fmt.Errorf("%w: place (%g, %g) beyond %g m", ErrBadMove, x, z, MaxProxyCoordinate)
	case math.Hypot(vx, vz) > MaxProxySpeed || math.Abs(yawRate) > MaxProxyYawRate:
		return fmt.Errorf("%w: velocity (%g, %g) m/s, yaw rate %g rad/s", ErrBadMove, vx, vz, yawRate)
	}
	return nil
}

// setPath sets the path's place and velocities as of the world's present, all but
// its heading.
func (p *Proxy) setPath(x, z, vx, vz, yawRate float64) {
	p.t0 = p.w.FrameTime()
	p.x, p.z = x, z
	p.vx, p.vz, p.yawRate = vx, vz, yawRate
	// The sleepers' skipped tests were worked out on the old paths: the next
	// step's keepCalm breaks the calm. Several goroutines may set paths at once, and
	// once one has said so the others only read the flag, so its cache line is not
	// passed between the cores at every proxy.
	if !p.w.repathed.Load() {
		p.w.repathed.Store(true)
	}
}

// heading returns the path's heading at its start, rad, working it out from the
// orientation MoveToOriented gave if it has not been yet.
func (p *Proxy) heading() float64 {
	if p.lazyYaw {
		p.yaw, p.lazyYaw = geom.WrapAngle(geom.Yaw(p.q)-p.yawBack), false
	}
	return p.yaw
}

// Spec returns the spec the proxy was added with, every default filled in.
func (p *Proxy) Spec() TankSpec { return p.spec }

// Place returns where the proxy is after the last step: the middle of its footprint
// (x, z), m, and its heading yaw, rad in (−π, π]. A removed proxy returns where it
// was last told to be.
func (p *Proxy) Place() (x, z, yaw float64) {
	if p.body == nil {
		return p.x, p.z, p.heading()
	}
	if p.asleep {
		x, z, yaw := p.along(p.w.Time())
		return x, z, geom.WrapAngle(yaw)
	}
	b := p.body.GetPosition()
	return b.X, -b.Y, geom.WrapAngle(p.body.GetAngle())
}

// Velocity returns the velocity the proxy moved at in the last step, catching up
// included: (vx, vz), m/s, and the yaw rate, rad/s.
func (p *Proxy) Velocity() (vx, vz, yawRate float64) {
	if p.body == nil {
		return 0, 0, 0
	}
	if p.asleep {
		return p.vx, p.vz, p.yawRate
	}
	v := p.body.GetLinearVelocity()
	return v.X, -v.Y, p.body.GetAngularVelocity()
}

// Touching reports whether a tank of the world touches the proxy now.
func (p *Proxy) Touching() bool { return p.touching > 0 }

// Contacts returns how many contacts with the world's tanks have begun since the
// proxy was added.
func (p *Proxy) Contacts() uint64 { return p.contacts }

// Jumps returns how many times the proxy jumped onto its path (it was more than
// ProxyJump meters or 45° off it) instead of driving there.
func (p *Proxy) Jumps() uint64 { return p.jumps }

func (p *Proxy) touch(d int) {
	p.touching += d
	if d > 0 {
		p.contacts++
	}
}

// Asleep reports whether the proxy sleeps: no tank of the world is within ProxyWake
// of it, so it is out of box2d until one comes near (then it wakes on its path, as
// a jump does).
func (p *Proxy) Asleep() bool { return p.asleep }

// along returns where the proxy's path puts it at world time t: (x, z), m, and yaw,
// rad (not wrapped).
func (p *Proxy) along(t float64) (x, z, yaw float64) {
	ahead := t - p.t0
	return p.x + p.vx*ahead, p.z + p.vz*ahead, p.heading() + p.yawRate*ahead
}

// placeAt returns where the proxy's path puts it at world time t: (x, z), m, as
// along does, without its heading.
func (p *Proxy) placeAt(t float64) (x, z float64) {
	ahead := t - p.t0
	return p.x + p.vx*ahead, p.z + p.vz*ahead
}

// wake puts the proxy to sleep or wakes it for the fixed step of h seconds that ends
// at world time end, and reports whether it is awake. It sleeps once every tank is
// beyond twice ProxyWake (the margin keeps a tank at the edge from waking and
// sleeping it step after step), and wakes once one comes within ProxyWake of its
// path: on its path as of the step's start, through the tanks it overlaps there
// (ghosts, as after a jump). For a proxy that sleeps on, it also returns the step
// count before which its test may be skipped (quietFor), else 0.
func (p *Proxy) wake(h, end float64) (awake bool, quiet uint64) {
	x, z := p.placeAt(end)
	if p.asleep {
		if !p.nearTank(x, z, p.w.cfg.ProxyWake) {
			return false, p.quietFor(x, z)
		}
		x0, z0, yaw0 := p.along(end - h)
		p.w.link(p.body, p.seq)
		p.body.SetTransform(box2d.MakeB2Vec2(x0, -z0), geom.WrapAngle(yaw0))
		p.body.SetActive(true)
		p.asleep = false
		p.findGhosts()
		return true, 0
	}
	b := p.body.GetPosition()
	if p.nearTank(x, z, 2*p.w.cfg.ProxyWake) || p.nearTank(b.X, -b.Y, 2*p.w.cfg.ProxyWake) {
		return true, 0
	}
	p.body.SetActive(false) // its contacts end (EndContact counts them off)
	p.w.unlink(p.body)
	p.asleep, p.held = true, false
	clear(p.ghosts)
	p.ghosts = p.ghosts[:0]
	return false, 0
}

// quietFor works out, for the asleep proxy that the wake test just found at (x, z)
// with no tank within ProxyWake, how many of the steps that follow cannot wake it
// either, and returns the world's step count before which they skip its test
// (World.quiet; 0: none do): a client's world holds hundreds of
// sleeping proxies and runs up to six steps a frame. Its path moves it at most
// speed × step a step, and no tank moves more than maxStride a step while the
// world's calm holds (World.keepCalm), so the gap of their bounding circles closes
// by at most their sum a step; a step is skipped only while what is left of the
// gap stays beyond ProxyWake by quietMargin, far more than rounding can take.
func (p *Proxy) quietFor(x, z float64) uint64 {
	gap := math.Inf(1)
	for _, t := range p.w.tanks {
		tc := t.body.GetPosition()
		gap = math.Min(gap, math.Hypot(tc.X-x, -tc.Y-z)-p.radius-t.radius)
	}
	closing := math.Hypot(p.vx, p.vz)*p.w.h + maxStride
	k := math.Floor((gap - p.w.cfg.ProxyWake - quietMargin) / closing)
	if !(k >= 1) {
		return 0
	}
	return p.w.steps + 1 + uint64(math.Min(k, quietSteps))
}

// maxStride is the most a tank may move in one step, m, for the sleeping proxies'
// tests to be skipped (quietFor): box2d moves no body more than 2 m a step
// (b2_maxTranslation), and a tank that moves more (placed anew) breaks the world's
// calm (World.keepCalm).
const maxStride = 2.0

// quietMargin is how far beyond ProxyWake, m, the gap a sleeping proxy's test is
// skipped for must stay: far more than the rounding of the tests' arithmetic.
const quietMargin = 1e-3

// quietSteps caps how many steps a sleeping proxy's test is skipped for, so that a
// far proxy's count stays small.
const quietSteps = 1 << 20

// nearTank reports whether a tank of the world lies within gap meters of a proxy at
// (x, z), m, their bounding circles' gap.
func (p *Proxy) nearTank(x, z, gap float64) bool {
	for _, t := range p.w.tanks {
		tc := t.body.GetPosition()
		r := p.radius + t.radius + gap
		dx, dz := tc.X-x, -tc.Y-z
		if dx*dx+dz*dz < r*r {
			return true
		}
	}
	return false
}

// drive sets the proxy's velocity for the fixed step of h seconds that ends at world
// time end, so that the step ends on its path, advancing into tanks no faster than
// the push speed.
func (p *Proxy) drive(h, end float64) {
	ahead := end - p.t0
	tx, tz := p.x+p.vx*ahead, p.z+p.vz*ahead
	tyaw := p.heading() + p.yawRate*ahead
	b := p.body.GetPosition()
	ang := p.body.GetAngle()
	ex, ez := tx-b.X, tz+b.Y
	eyaw := geom.WrapAngle(tyaw - ang)
	// What the step needs beyond the path's own velocity, capped at the catch-up
	// speed (at the hull's corners, for the turn). Velocities here are box2d's:
	// (x, −z).
	catch := p.w.cfg.ProxyCatchUp
	radius := p.radius
	cx, cz := ex/h-p.vx, ez/h-p.vz
	if l := math.Hypot(cx, cz); l > catch {
		cx, cz = cx*catch/l, cz*catch/l
	}
	cyaw := math.Max(-catch/radius, math.Min(catch/radius, eyaw/h-p.yawRate))
	u := box2d.MakeB2Vec2(p.vx+cx, -(p.vz + cz))
	spin := p.yawRate + cyaw
	p.held = p.limitPush(&u, &spin, h)
	if !p.held && (math.Hypot(ex, ez) > p.w.cfg.ProxyJump || math.Abs(eyaw) > proxyJumpYaw) {
		// Placed one step back along the path, so the step's own motion lands on it.
		p.body.SetTransform(box2d.MakeB2Vec2(tx-p.vx*h, -(tz-p.vz*h)), ang+eyaw-p.yawRate*h)
		p.body.SetLinearVelocity(box2d.MakeB2Vec2(p.vx, -p.vz))
		p.body.SetAngularVelocity(p.yawRate)
		p.jumps++
		p.findGhosts()
		return
	}
	p.body.SetLinearVelocity(u)
	p.body.SetAngularVelocity(spin)
}

// pushMargin is how close, m, beyond what a step can close, a tank must be for the
// proxy's advance toward it to be limited.
const pushMargin = 0.05

// limitPush slows the velocity u (box2d's frame) and the spin, rad/s, of the coming
// step of h seconds so that the proxy advances into no tank it meets (within reach
// this step) faster than the push speed, or half its own advance below that, unless
// the tank moves away faster by itself. The advance is the hull's at the point of
// contact, so a spin counts: a corner sweeping at spin × 3.9 m would otherwise fling a
// resting tank at that speed (a remote tank spun by a collision is reckoned spinning
// at up to 6 rad/s). It reports whether any tank limited it. Ghosts do not count.
func (p *Proxy) limitPush(u *box2d.B2Vec2, spin *float64, h float64) bool {
	push := p.w.cfg.ProxyPushSpeed
	pc := p.body.GetPosition()
	pr := p.radius
	held := false
	own := math.Hypot(u.X, u.Y) + math.Abs(*spin)*pr // the proxy's advance, m/s
	for _, t := range p.w.tanks {
		tc := t.body.GetPosition()
		tv := t.body.GetLinearVelocity()
		tr := t.radius
		// Most of a crowd's tanks are far: a bound with neither square root (the
		// larger offset is no farther, the sum of the speed's components no
		// slower), and a micrometre to spare for rounding, passes them by.
		if bound := pr + tr + (own+(math.Abs(tv.X)+math.Abs(tv.Y)))*h + pushMargin; math.Max(math.Abs(tc.X-pc.X), math.Abs(tc.Y-pc.Y)) > bound+1e-6 {
			continue
		}
		reach := (own+math.Hypot(tv.X, tv.Y))*h + pushMargin
		if math.Hypot(tc.X-pc.X, tc.Y-pc.Y) > pr+tr+reach || p.haunts(t) {
			continue
		}
		out := p.distance(t, true)
		if out.Distance > reach {
			continue
		}
		// The direction from the proxy into the tank.
		nx, ny := out.PointB.X-out.PointA.X, out.PointB.Y-out.PointA.Y
		if l := math.Hypot(nx, ny); l > 1e-6 {
			nx, ny = nx/l, ny/l
		} else if l := math.Hypot(tc.X-pc.X, tc.Y-pc.Y); l > 1e-9 {
			nx, ny = (tc.X-pc.X)/l, (tc.Y-pc.Y)/l
		} else {
			continue
		}
		// The advance at the contact point: the linear one and the spin's (ω × r, r
		// from the proxy's middle). Equal masses share it (the tank takes
		// m_p / (m_p + m_t) of it); the push speed caps it; a tank driving away faster is
		// not held back. The linear advance gives way first, then the spin.
		into := u.X*nx + u.Y*ny
		rx, ry := out.PointA.X-pc.X, out.PointA.Y-pc.Y
		turn := *spin * (rx*ny - ry*nx)
		share := p.spec.Mass / (p.spec.Mass + t.spec.Mass)
		limit := math.Max(math.Min(share*(into+turn), push), tv.X*nx+tv.Y*ny)
		excess := into + turn - limit
		if excess <= 0 {
			continue
		}
		held = true
		if cut := math.Min(excess, math.Max(into, 0)); cut > 0 {
			u.X -= cut * nx
			u.Y -= cut * ny
			excess -= cut
		}
		if excess > 0 && turn > 0 {
			*spin *= math.Max(0, turn-excess) / turn
		}
		own = math.Hypot(u.X, u.Y) + math.Abs(*spin)*pr
	}
	return held
}

// distance returns the distance between the proxy's hull and the tank's, m (0 when
// they overlap), with the closest points, in box2d's frame; with skin, box2d's
// polygon skin counts as part of each hull.
func (p *Proxy) distance(t *Tank, skin bool) box2d.B2DistanceOutput {
	in := box2d.MakeB2DistanceInput()
	in.ProxyA.Set(p.body.GetFixtureList().GetShape(), 0)
	in.ProxyB.Set(t.body.GetFixtureList().GetShape(), 0)
	in.TransformA, in.TransformB = p.body.GetTransform(), t.body.GetTransform()
	in.UseRadii = skin
	var out box2d.B2DistanceOutput
	cache := box2d.MakeB2SimplexCache()
	box2d.B2Distance(&out, &cache, &in)
	return out
}

// overlaps reports whether the proxy's hull overlaps the tank's now, beyond the
// skins of a resting contact.
func (p *Proxy) overlaps(t *Tank) bool { return p.distance(t, false).Distance < 1e-9 }

// findGhosts makes every tank the proxy overlaps now one of its ghosts.
func (p *Proxy) findGhosts() {
	p.ghosts = p.ghosts[:0]
	for _, t := range p.w.tanks {
		if p.overlaps(t) {
			p.ghosts = append(p.ghosts, t)
		}
	}
}

// haunts reports whether t is one of the proxy's ghosts.
func (p *Proxy) haunts(t *Tank) bool {
	for _, g := range p.ghosts {
		if g == t {
			return true
		}
	}
	return false
}

// dropGhosts forgets the ghosts the proxy no longer overlaps (keep false) or t.
func (p *Proxy) dropGhosts(t *Tank, keep bool) {
	n := 0
	for _, g := range p.ghosts {
		if g != t && (!keep || p.overlaps(g)) {
			p.ghosts[n] = g
			n++
		}
	}
	clear(p.ghosts[n:])
	p.ghosts = p.ghosts[:n]
}

// ghostTank makes t a ghost of every proxy it overlaps now (it was just placed). Its
// overlap tests count into box2d's package-level statistics, hence the lock: a client
// places tanks while the host it runs in-process ticks its own world.
func (w *World) ghostTank(t *Tank) {
	box2dGlobals.Lock()
	defer box2dGlobals.Unlock()
	for _, p := range w.proxies {
		if !p.haunts(t) && p.overlaps(t) {
			p.ghosts = append(p.ghosts, t)
		}
	}
}
