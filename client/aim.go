package client

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// aimer maps the mouse and the aiming keys to the turret and the gun, as World of
// Tanks does. With the mouse (the default) the camera orbits with the mouse and the
// turret and gun traverse, at the tank's own rates (tank.Spec), toward the point the
// camera looks at (sightPoint): the aim marker at the middle of the screen is where
// the player aims, the gun marker where the gun lies now, and the two meet when the
// gun has caught up. With the keys (Settings.KeyAim) the turret turns and the gun
// rises only while a key is held and stays put on the hull when it is released, and
// the camera looks along the turret.
//
// An aimer holds no window and draws nothing: the match screen feeds it each frame,
// and the tests and BenchmarkMouseAim drive it headless. Its zero value aims with the
// mouse at the default tank's rates, and is set on the first frame (reset).
type aimer struct {
	// keys aims with the keys instead of the mouse.
	keys bool
	// spec is the player's tank, for its rates, limits and muzzle; zero fields take
	// tank.Default's values.
	spec tank.Spec
	// camYaw is the world yaw the camera looks along under mouse aim, rad.
	camYaw float64
	// point is where the player aims, world m: it stays while the camera looks
	// around freely (the right button held).
	point mgl64.Vec3
	// hullYaw is the hull's yaw at the last frame, rad (key aim: its turn).
	hullYaw float64
	// ready reports that the aimer is set for the player's current tank.
	ready bool
	in    physics.Input
}

// gunPose is what an aimer needs of the player's tank: the hull's pose, the turret's
// yaw relative to it and the gun's elevation (rad).
type gunPose struct {
	Position    mgl64.Vec3
	Orientation mgl64.Quat
	Turret, Gun float64
}

// aimKeys are the aiming keys held this frame.
type aimKeys struct{ left, right, up, down bool }

// reset sets a for a tank just placed (the first frame, a respawn): the turret and
// the camera forward along the hull, the gun level.
func (a *aimer) reset(me gunPose) {
	a.spec = a.spec.WithDefaults()
	yaw := geom.Yaw(me.Orientation)
	a.camYaw, a.hullYaw, a.ready = yaw, yaw, true
	a.in = physics.Input{AimYaw: yaw}
	a.point = me.Position.Add(mgl64.Vec3{math.Cos(yaw), 0, -math.Sin(yaw)}.Mul(combat.AimRange))
}

// look turns the mouse-aim camera by a mouse move of dx pixels (right turns right);
// perPx is the turn per pixel, rad. Key aim's camera follows the turret instead.
func (a *aimer) look(dx, perPx float64) {
	if !a.keys {
		a.camYaw = geom.WrapAngle(a.camYaw - dx*perPx)
	}
}

// orbit returns the chase camera's orbit angle around a hull (render.Chase.Yaw) for
// this frame: under mouse aim the camera keeps its own yaw whatever the hull does;
// under key aim it looks along the turret.
func (a *aimer) orbit(me gunPose) float64 {
	if a.keys {
		return me.Turret
	}
	return geom.WrapAngle(a.camYaw - geom.Yaw(me.Orientation))
}

// update returns the player's aim for this frame of dt seconds (AimYaw and
// GunElevation; the rest of the input is zero). sight is where the camera looks
// (sightPoint), which becomes the aim point unless free keeps the last one while the
// camera looks around. Under key aim, held turns the turret and moves the gun at the
// tank's rates instead, and the aim point only sets the gun marker's reach.
func (a *aimer) update(me gunPose, sight mgl64.Vec3, free bool, held aimKeys, dt float64) physics.Input {
	if !a.ready {
		a.reset(me)
	}
	dt = math.Min(math.Max(dt, 0), 0.1)
	if !free && geom.FiniteVec(sight) {
		a.point = sight
	}
	if a.keys {
		a.in = a.keyAim(me, held, dt)
	} else {
		yaw, gun := aimAt(me, a.point, a.spec)
		a.in = physics.Input{AimYaw: yaw, GunElevation: gun}
	}
	a.hullYaw = geom.Yaw(me.Orientation)
	return a.in
}

// keyAim is update under key aim: the turret holds its place on the hull (the
// hull's turn since the last frame carried on, since the match turns the hull before
// it turns the turret) and turns by one frame of its traverse rate toward a held key;
// the gun likewise.
func (a *aimer) keyAim(me gunPose, held aimKeys, dt float64) physics.Input {
	hull := geom.Yaw(me.Orientation)
	yaw := hull + me.Turret + geom.WrapAngle(hull-a.hullYaw)
	turn := a.spec.TurretRate * dt
	if held.left {
		yaw += turn
	}
	if held.right {
		yaw -= turn
	}
	gun := me.Gun
	if held.up {
		gun += a.spec.GunRate * dt
	}
	if held.down {
		gun -= a.spec.GunRate * dt
	}
	return physics.Input{AimYaw: geom.WrapAngle(yaw), GunElevation: math.Max(a.spec.GunMin, math.Min(a.spec.GunMax, gun))}
}

// aimAt returns the aim that sends a shell from the tank me to point p on the low
// ballistic arc: the world yaw to turn the turret to (physics.Input.AimYaw) and the
// gun's elevation relative to the hull, within spec's limits. On a tilted hull both
// are taken in the hull's frame, so the barrel lies on the arc. A point beyond the
// gun's reach gets its farthest throw (45°, then the gun's limit).
func aimAt(me gunPose, p mgl64.Vec3, spec tank.Spec) (yaw, gun float64) {
	spec = spec.WithDefaults()
	q := geom.QuatNormalize(me.Orientation)
	hull := geom.Yaw(q)
	turret, gun := me.Turret, me.Gun
	// The muzzle moves with the aim; three rounds bring it within millimetres.
	for range 3 {
		local, _ := spec.Muzzle(turret, gun)
		d := p.Sub(me.Position.Add(q.Rotate(local)))
		flat := math.Hypot(d[0], d[2])
		if flat < 1e-6 {
			break
		}
		pitch, ok := combat.BallisticElevation(flat, d[1])
		if !ok {
			pitch = math.Pi / 4
		}
		sp, cp := math.Sincos(pitch)
		w := mgl64.Vec3{cp * d[0] / flat, sp, cp * d[2] / flat}
		l := q.Conjugate().Rotate(w)
		turret, gun = math.Atan2(-l[2], l[0]), math.Atan2(l[1], math.Hypot(l[0], l[2]))
	}
	return geom.WrapAngle(hull + turret), math.Max(spec.GunMin, math.Min(spec.GunMax, gun))
}

// raycaster intersects the ray origin + t·dir (0 ≤ t ≤ maxDist) with the ground, as
// terrain.Map.Raycast does.
type raycaster func(origin, dir mgl64.Vec3, maxDist float64) (hit mgl64.Vec3, ok bool)

// rangeNear is how near the line of sight must pass a tank's middle for the aim to
// range on that tank, m: a player leading a moving tank looks ahead of it (11 m for
// a tank crossing at its top speed 150 m off), and the shell must drop as far as the
// tank is, not as the ground or sky behind it.
const rangeNear = 12.0

// sightPoint returns where the player aims along the line of sight from eye along
// dir: where it first meets the ground (ray; nil: none) or a tank's hull other than
// self's, or, nearer, the point of it closest to a tank's middle it passes within
// rangeNear of; with none of these within combat.AimRange, the point
// combat.AimRange along it (the sky, the horizon, or ground too far to mark). A line
// that meets the ground just short of a tank whose middle shows over it (a crest in
// front of the tank, the line passing within rangeNear of its middle and above the
// ground there) ranges on the tank too: the player points at the tank seen over the
// crest, and the gun marker then tells whether the shell clears it. A zero dir gives
// eye.
//
// The line starts at the camera, behind and above self's tank: a hull it meets before
// it is level with that tank, or a tank it passes within rangeNear of before it is
// rangeNear past it, is beside or behind the turret (a crowd at its spawn), and
// aiming there would swing the gun round toward the camera; such tanks are passed
// over (behindSelf).
func sightPoint(eye, dir mgl64.Vec3, ray raycaster, hulls []combat.HullPose, self uint32) mgl64.Vec3 {
	if dir.Len() == 0 || !geom.FiniteVec(dir) {
		return eye
	}
	dir = dir.Normalize()
	level := behindSelf(eye, dir, hulls, self)
	ground := groundAlong(eye, dir, ray)
	best := math.Min(combat.AimRange, ground)
	over := math.Inf(1) // the nearest tank seen over the ground the line meets
	spec := tank.Default()
	lo, hi := spec.HullMin(), spec.HullMax()
	// Every point of a hull's box is within boxR of its position, and its middle
	// within hi[1]/2: a tank whose position is farther than reach from the line
	// (or behind the eye, or past combat.AimRange, by more) can neither be met nor
	// be passed within rangeNear of, and its three rotations are skipped. The
	// metre over is for rounding: the answer is the same to the bit.
	boxR := math.Sqrt(math.Max(lo[0]*lo[0], hi[0]*hi[0]) + math.Max(lo[1]*lo[1], hi[1]*hi[1]) + math.Max(lo[2]*lo[2], hi[2]*hi[2]))
	reach := math.Max(boxR, rangeNear+math.Abs(hi[1])/2) + 1
	for _, h := range hulls {
		if h.Actor == self {
			continue
		}
		if beyondReach(h.Position.Sub(eye), dir, reach) {
			continue
		}
		inv := h.Orientation.Conjugate()
		if t, ok := rayBox(inv.Rotate(eye.Sub(h.Position)), inv.Rotate(dir), lo, hi); ok && t < best && t > level {
			best = t
		}
		mid := h.Position.Add(h.Orientation.Rotate(mgl64.Vec3{0, hi[1] / 2, 0}))
		t, p, near := passesNear(eye, dir, mid)
		if !near || t <= level+rangeNear {
			continue
		}
		switch {
		case t < best:
			best = t
		case t > ground && t < over && seenOver(eye, mid, p, ray):
			over = t
		}
	}
	if best == ground && over < math.Inf(1) {
		best = over
	}
	return eye.Add(dir.Mul(best))
}

// behindSelf returns how far along the line of sight from eye along unit dir it is
// level with the tank of actor self among hulls, m (0 when that tank is not there
// or is behind the eye): the hulls met nearer are behind the turret.
func behindSelf(eye, dir mgl64.Vec3, hulls []combat.HullPose, self uint32) float64 {
	for _, h := range hulls {
		if h.Actor == self {
			return math.Max(0, h.Position.Sub(eye).Dot(dir))
		}
	}
	return 0
}

// groundAlong returns how far along the line of sight from eye along unit dir it
// first meets the ground (ray; nil: none) within combat.AimRange, m; +Inf when it
// does not.
func groundAlong(eye, dir mgl64.Vec3, ray raycaster) float64 {
	if ray == nil {
		return math.Inf(1)
	}
	if hit, ok := ray(eye, dir, combat.AimRange); ok {
		return hit.Sub(eye).Len()
	}
	return math.Inf(1)
}

// beyondReach reports whether a tank at c from the eye (m) lies farther than reach
// from the line of sight along unit dir, behind the eye or past combat.AimRange by
// more than reach: such a tank can neither be met nor be passed near.
func beyondReach(c, dir mgl64.Vec3, reach float64) bool {
	tc := c.Dot(dir)
	return tc < -reach || tc > combat.AimRange+reach || c.Sub(dir.Mul(tc)).LenSqr() > reach*reach
}

// passesNear returns how far along the line of sight from eye along unit dir (m)
// its point p nearest a tank's middle mid lies, and whether that point is in front
// of the eye, within combat.AimRange and within rangeNear of mid.
func passesNear(eye, dir, mid mgl64.Vec3) (t float64, p mgl64.Vec3, near bool) {
	t = mid.Sub(eye).Dot(dir)
	p = eye.Add(dir.Mul(t))
	// Negated as a whole, not term by term: a NaN distance passes, as it always has.
	return t, p, !(t <= 0 || t >= combat.AimRange || mid.Sub(p).Len() >= rangeNear)
}

// seenOver reports whether a tank's middle mid shows from eye over the ground (ray)
// and the point p of the line of sight nearest it lies above the ground too (the
// ground does not rise between them).
func seenOver(eye, mid, p mgl64.Vec3, ray raycaster) bool {
	if _, hidden := ray(eye, mid.Sub(eye), mid.Sub(eye).Len()); hidden {
		return false
	}
	if d := p.Sub(mid); d.Len() > 0 {
		if _, under := ray(mid, d, d.Len()); under {
			return false
		}
	}
	return true
}

// rayBox returns the distance along the ray o + t·d (t ≥ 0) to where it enters the
// axis-aligned box lo..hi (slab method), 0 when o is inside.
func rayBox(o, d, lo, hi mgl64.Vec3) (float64, bool) {
	t0, t1 := 0.0, math.Inf(1)
	for i := range 3 {
		if d[i] == 0 {
			if o[i] < lo[i] || o[i] > hi[i] {
				return 0, false
			}
			continue
		}
		a, b := (lo[i]-o[i])/d[i], (hi[i]-o[i])/d[i]
		if a > b {
			a, b = b, a
		}
		t0, t1 = math.Max(t0, a), math.Min(t1, b)
		if t0 > t1 {
			return 0, false
		}
	}
	return t0, true
}

// markStep is the step of the gun marker's ballistic path, s: 10 m of flight, an arc
// within 3 mm of its chords (as the match's own aim point).
const markStep = 0.05

// blockSlack is how much nearer than the aim point the ground or a rock must stop
// a shell for the gun marker to show the shot blocked, m: a rock at a target's side
// or a crest a few metres before it stops the shell as surely as one far off, while
// the gun settling on a point on the ground (its marker within centimetres of it)
// and a shell striking a tank (never blocked) are left alone.
const blockSlack = 1.5

// gunMarker is where the gun marker goes and what it shows.
type gunMarker struct {
	// Point is the marker's place, world m.
	Point mgl64.Vec3
	// Hit reports that a shell fired now strikes something (the map or a hull) at
	// Point; otherwise Point is a point of its flight.
	Hit bool
	// Blocked reports that it strikes the ground or a rock more than blockSlack
	// nearer the muzzle than the aim point: a crest or a rock between the gun and
	// what the player aims at, which the camera, higher than the muzzle, sees over.
	// On the screen the marker may sit on the target; it is drawn blocked so that a
	// player does not fire into the crest.
	Blocked bool
}

// gunMark returns where the gun marker goes for the tank me aiming at aim: where a
// shell fired now would first strike the map (its ground and rocks, as the match
// sweeps shells; without mp, the ground ray alone) or a hull other than self's, or,
// when it strikes nothing as far out as aim lies from the muzzle (the sky, a point
// led ahead of a moving tank), the point of its flight that far out, which is on
// the aim marker once the gun has caught up.
func gunMark(me gunPose, aim mgl64.Vec3, mp *terrain.Map, ray raycaster, hulls []combat.HullPose, self uint32) gunMarker {
	o, d := combat.Muzzle(me.Position, me.Orientation, me.Turret, me.Gun)
	s := combat.Shot{Shooter: self, Origin: o, Direction: d}
	reach := math.Min(aim.Sub(o).Len(), combat.AimRange)
	struck := func(p mgl64.Vec3, tank bool) gunMarker {
		return gunMarker{Point: p, Hit: true, Blocked: !tank && p.Sub(o).Len() < reach-blockSlack}
	}
	for f := 0.0; f < combat.ShellLifetime; f += markStep {
		if mp != nil {
			if imp := combat.Sweep(mp, s, f, f+markStep, hulls); imp.Kind != combat.ImpactNone && imp.Kind != combat.ImpactSpent {
				return struck(imp.Point, imp.Kind == combat.ImpactTank)
			}
		} else if p, tank, ok := raySweep(s, f, f+markStep, ray, hulls); ok {
			return struck(p, tank)
		}
		if a, b := s.At(f), s.At(f+markStep); b.Sub(o).Len() >= reach {
			for range 30 { // the point of the chord at reach
				mid := a.Add(b).Mul(0.5)
				if mid.Sub(o).Len() < reach {
					a = mid
				} else {
					b = mid
				}
			}
			return gunMarker{Point: b}
		}
	}
	return gunMarker{Point: s.At(combat.ShellLifetime)}
}

// raySweep follows shot s from t0 to t1 along its chord and returns where it first
// meets the ground (ray) or a hull other than its shooter's (onHull).
func raySweep(s combat.Shot, t0, t1 float64, ray raycaster, hulls []combat.HullPose) (p mgl64.Vec3, onHull, hit bool) {
	a, b := s.At(t0), s.At(t1)
	seg := b.Sub(a)
	l := seg.Len()
	best := l
	if ray != nil {
		if p, ok := ray(a, seg, l); ok {
			best, hit = p.Sub(a).Len(), true
		}
	}
	spec := tank.Default()
	lo, hi := spec.HullMin(), spec.HullMax()
	for _, h := range hulls {
		if h.Actor == s.Shooter {
			continue
		}
		inv := h.Orientation.Conjugate()
		if t, ok := rayBox(inv.Rotate(a.Sub(h.Position)), inv.Rotate(seg.Mul(1/l)), lo, hi); ok && t <= best {
			best, hit, onHull = t, true, true
		}
	}
	return a.Add(seg.Mul(best / l)), onHull, hit
}
