package combat

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// Ballistics of a tank shell. Every peer computes a shell's path from its Shot alone, so
// no per-frame shell state crosses the wire.
const (
	// MuzzleVelocity is a shell's speed leaving the barrel, m/s. A real tank round
	// (1,500–1,700 m/s) crosses a 150 m engagement in a tenth of a second: three frames,
	// nothing a player could see or dodge. At 200 m/s a shot at the bots' 140 m sight
	// range flies 0.7 s and drops 2.4 m, so the tracer is visible for a third of a
	// second or more, moving targets must be led, and the gun's elevation (and the
	// crosshair's ballistic impact point) matters; at 400 m it arcs like artillery.
	MuzzleVelocity = 200.0
	// Gravity is the downward acceleration of a shell in flight, m/s².
	Gravity = 9.81
	// ShellLifetime is how long a shell flies before it is spent, s (about 900 m at
	// the gun's highest elevation).
	ShellLifetime = 5.0
)

// Muzzle returns where a shell leaves the barrel of a tank (tank.Default()) at
// position pos and hull orientation q with the given turret yaw and gun elevation
// (rad), and the unit direction it leaves in.
func Muzzle(pos mgl64.Vec3, q mgl64.Quat, turret, gun float64) (origin, dir mgl64.Vec3) {
	local, axis := tank.Default().Muzzle(turret, gun)
	return pos.Add(q.Rotate(local)), q.Rotate(axis).Normalize()
}

// Shot is one fired shell: everything any peer needs to compute its whole flight.
type Shot struct {
	// ID numbers the shot among its shooter's shots.
	ID uint32
	// Shooter is the actor id of the tank that fired.
	Shooter uint32
	// Origin is the muzzle position at firing, world meters.
	Origin mgl64.Vec3
	// Direction is the unit direction of the barrel at firing.
	Direction mgl64.Vec3
	// Time is the firing time on the host's clock, s.
	Time float64
}

// At returns the shell's position at host time t (s): the ballistic path from the
// muzzle at MuzzleVelocity under Gravity, without drag. Times before firing give the
// origin.
func (s Shot) At(t float64) mgl64.Vec3 {
	f := math.Max(0, t-s.Time)
	p := s.Origin.Add(s.Direction.Mul(MuzzleVelocity * f))
	p[1] -= 0.5 * Gravity * f * f
	return p
}

// Velocity returns the shell's velocity at host time t, m/s.
func (s Shot) Velocity(t float64) mgl64.Vec3 {
	f := math.Max(0, t-s.Time)
	v := s.Direction.Mul(MuzzleVelocity)
	v[1] -= Gravity * f
	return v
}

// Valid reports whether the shot's fields are finite and its direction is a unit vector.
func (s Shot) Valid() bool {
	l := s.Direction.Len()
	return geom.FiniteVec(s.Origin) && geom.Finite(s.Time) && l > 0.999 && l < 1.001
}

// ImpactKind says what a shell struck.
type ImpactKind uint8

// What a shell may strike.
const (
	ImpactNone   ImpactKind = iota // still flying
	ImpactGround                   // the terrain
	ImpactRock                     // a rock
	ImpactTank                     // a tank's hull
	ImpactSpent                    // flew its lifetime out, or left the map
)

// Impact is where and when a shell's flight ended.
type Impact struct {
	Kind ImpactKind
	// Time is the host time of the impact, s.
	Time float64
	// Point is the impact point, world meters.
	Point mgl64.Vec3
	// Target is the actor struck (ImpactTank only); Local the impact point in its
	// hull frame and Normal the outward normal of the face struck, hull frame.
	Target uint32
	Local  mgl64.Vec3
	Normal mgl64.Vec3
}

// HullPose is a tank's hull where some peer shows it, for hit tests.
type HullPose struct {
	// Actor is the tank's actor id.
	Actor uint32
	// Position and Orientation are the displayed pose (hull frame origin and rotation).
	Position    mgl64.Vec3
	Orientation mgl64.Quat
}

// rockScale shrinks a rock's collision cylinder to the boulder drawn on it: the
// boulder is rounded, so its box is a little inside the footprint.
const rockScale = 0.85

// Sweep follows shot s from host time t0 to t1 (a frame's step) and returns the first
// thing it strikes on that stretch: terrain (ray cast against the map's triangles),
// a rock (a box around its boulder) or one of the hulls (boxes at the given poses,
// the shooter's own excluded). The stretch is a straight segment: over a 0.1 s frame
// the arc departs from its chord by g·dt²/8 ≈ 1 cm. Past ShellLifetime or off the map
// the shell is spent. ImpactNone means it is still flying at t1.
func Sweep(m *terrain.Map, s Shot, t0, t1 float64, hulls []HullPose) Impact {
	end := s.Time + ShellLifetime
	spent := false
	if t1 >= end {
		t1, spent = end, true
	}
	if !(t1 > t0) {
		if spent {
			return Impact{Kind: ImpactSpent, Time: end, Point: s.At(end)}
		}
		return Impact{}
	}
	a, b := s.At(t0), s.At(t1)
	seg := b.Sub(a)
	length := seg.Len()
	best := Impact{}
	bestF := math.Inf(1)
	if length > 0 {
		if hit, ok := m.Raycast(a, seg, length); ok {
			f := hit.Sub(a).Len() / length
			best, bestF = Impact{Kind: ImpactGround, Point: hit}, f
		}
	}
	// The segment's box on the ground plane (and in height, for hulls): rocks and hulls
	// beyond it by more than their own reach cannot be struck, and are passed over
	// before the costlier tests (a large match has hundreds of hulls, and the
	// crosshair sweeps a shell's whole flight every frame).
	lo3, hi3 := corners(a, b)
	best, bestF = sweepRocks(m, a, b, lo3, hi3, best, bestF)
	best, bestF = sweepHulls(s.Shooter, a, b, lo3, hi3, hulls, best, bestF)
	if best.Kind != ImpactNone {
		best.Time = t0 + bestF*(t1-t0)
		return best
	}
	if spent {
		return Impact{Kind: ImpactSpent, Time: end, Point: b}
	}
	lo, hi := m.Min(), m.Max()
	if b[0] < lo[0] || b[0] > hi[0] || b[2] < lo[1] || b[2] > hi[1] {
		return Impact{Kind: ImpactSpent, Time: t1, Point: b}
	}
	return Impact{}
}

// sweepRocks returns the first rock the segment a→b (its box lo3..hi3) strikes
// before fraction bestF along it, or best, bestF when none does.
func sweepRocks(m *terrain.Map, a, b, lo3, hi3 mgl64.Vec3, best Impact, bestF float64) (Impact, float64) {
	seg := b.Sub(a)
	for _, o := range m.Obstacles() {
		r := o.Radius * rockScale
		if o.X+r < lo3[0] || o.X-r > hi3[0] || o.Z+r < lo3[2] || o.Z-r > hi3[2] {
			continue
		}
		h, _ := m.HeightAt(o.X, o.Z)
		lo := mgl64.Vec3{o.X - r, h - 1, o.Z - r}
		hi := mgl64.Vec3{o.X + r, h + o.Height, o.Z + r}
		if f, _, ok := segmentBox(a, b, lo, hi); ok && f < bestF {
			best, bestF = Impact{Kind: ImpactRock, Point: a.Add(seg.Mul(f))}, f
		}
	}
	return best, bestF
}

// sweepHulls returns the first hull but the shooter's that the segment a→b (its box
// lo3..hi3) strikes before fraction bestF along it, or best, bestF when none does.
func sweepHulls(shooter uint32, a, b, lo3, hi3 mgl64.Vec3, hulls []HullPose, best Impact, bestF float64) (Impact, float64) {
	seg := b.Sub(a)
	spec := tank.Default()
	hullMin, hullMax := spec.HullMin(), spec.HullMax()
	reach := HullReach()
	lo3, hi3 = lo3.Sub(mgl64.Vec3{reach, reach, reach}), hi3.Add(mgl64.Vec3{reach, reach, reach})
	for _, hp := range hulls {
		if hp.Actor == shooter {
			continue
		}
		// Written as "inside" so that a hull at a NaN position is passed over: every
		// comparison with NaN is false, and the slab test below would take such a hull
		// as struck at the segment's start.
		if p := hp.Position; !(p[0] >= lo3[0] && p[0] <= hi3[0] && p[1] >= lo3[1] && p[1] <= hi3[1] && p[2] >= lo3[2] && p[2] <= hi3[2]) {
			continue
		}
		inv := hp.Orientation.Conjugate()
		la := inv.Rotate(a.Sub(hp.Position))
		lb := inv.Rotate(b.Sub(hp.Position))
		if f, n, ok := segmentBox(la, lb, hullMin, hullMax); ok && f < bestF {
			local := la.Add(lb.Sub(la).Mul(f))
			best = Impact{Kind: ImpactTank, Point: a.Add(seg.Mul(f)), Target: hp.Actor, Local: local, Normal: n}
			bestF = f
		}
	}
	return best, bestF
}

// HullReach returns the distance, m, from a hull's origin within which every point
// of its box lies, whatever its orientation (a hair more, for rounding): a shell's
// path that passes farther from a hull's origin strikes nothing of it.
func HullReach() float64 {
	spec := tank.Default()
	_, far := corners(spec.HullMin().Mul(-1), spec.HullMax())
	return far.Len() + 1e-6
}

// corners returns the lower and upper corners of the axis-aligned box around a and b.
func corners(a, b mgl64.Vec3) (lo, hi mgl64.Vec3) {
	for i := range 3 {
		lo[i], hi[i] = math.Min(a[i], b[i]), math.Max(a[i], b[i])
	}
	return lo, hi
}

// SweepPath is Sweep over a longer stretch of flight, t0 to t1, in frame-sized steps
// (sweepStep), so that the chords follow the arc as a peer's frames do.
func SweepPath(m *terrain.Map, s Shot, t0, t1 float64, hulls []HullPose) Impact {
	for t := t0; t < t1; t += sweepStep {
		if imp := Sweep(m, s, t, math.Min(t+sweepStep, t1), hulls); imp.Kind != ImpactNone {
			return imp
		}
	}
	return Impact{}
}

// sweepStep is SweepPath's step, s: a 60 Hz frame, whose chord departs from the arc
// by g·dt²/8 ≈ 0.3 mm.
const sweepStep = 1.0 / 60

// segmentBox intersects the segment a→b with the axis-aligned box lo..hi (slab
// method). It returns the fraction along the segment where it enters the box and the
// outward normal of the face entered; a segment starting inside enters at 0 with a
// zero normal.
func segmentBox(a, b, lo, hi mgl64.Vec3) (f float64, normal mgl64.Vec3, ok bool) {
	t0, t1 := 0.0, 1.0
	axis, sign := -1, 0.0
	d := b.Sub(a)
	for i := 0; i < 3; i++ {
		if d[i] == 0 {
			if a[i] < lo[i] || a[i] > hi[i] {
				return 0, mgl64.Vec3{}, false
			}
			continue
		}
		inv := 1 / d[i]
		ta, tb := (lo[i]-a[i])*inv, (hi[i]-a[i])*inv
		s := -1.0 // entering through the lo face
		if ta > tb {
			ta, tb = tb, ta
			s = 1
		}
		if ta > t0 {
			t0, axis, sign = ta, i, s
		}
		t1 = math.Min(t1, tb)
		if !(t0 <= t1) { // NaN (a non-finite segment or box) strikes nothing
			return 0, mgl64.Vec3{}, false
		}
	}
	if axis >= 0 {
		normal[axis] = sign
	}
	return t0, normal, true
}

// OnHull reports whether p (hull frame, m) lies on or in the hull box of a tank
// (tank.Default()) grown by tol meters on every side.
func OnHull(p mgl64.Vec3, tol float64) bool {
	s := tank.Default()
	lo, hi := s.HullMin(), s.HullMax()
	for i := 0; i < 3; i++ {
		if !(p[i] >= lo[i]-tol && p[i] <= hi[i]+tol) {
			return false
		}
	}
	return true
}
