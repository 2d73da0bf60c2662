package deadreckon

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Obstacles are what a reckoned actor's hull cannot drive into: static obstacles that
// the receiver knows as well as the owner, such as a map's rocks and border walls. A
// stop against one is a stop no projection of the owner's motion foresees, yet a
// receiver that knows the obstacle shows it in the frame the truth makes it: the
// projection never carries the hull into what the truth would hit. Implementations
// must be safe for concurrent reads, because a Reckoner may advance actors from
// several goroutines at once.
type Obstacles interface {
	// Push returns the horizontal displacement, m, that moves hull h, centred at pos
	// with unit horizontal forward fwd, out of every obstacle it overlaps; zero when
	// it overlaps none.
	Push(pos, fwd mgl64.Vec3, h Hull) mgl64.Vec3
}

// Hull is the horizontal box of a vehicle's hull about its origin: HalfLength along
// its forward (+X) axis and HalfWidth across (Z), m. The zero value is a point.
type Hull struct {
	HalfLength, HalfWidth float64
}

// Collide says how a reckoned actor is kept out of obstacles. The zero value keeps it
// out of none.
type Collide struct {
	// Obstacles is what the hull cannot be shown driving into; nil for none.
	Obstacles Obstacles
	// Hull is the actor's hull; the zero value is a point.
	Hull Hull
}

// Rock is a static vertical round obstacle: centre (X, Z) and Radius, world m.
type Rock struct {
	X, Z, Radius float64
}

// Walls are Obstacles of round rocks and an optional rectangular border a hull stays
// inside. The zero value holds nothing. Push does not allocate and is safe for
// concurrent use.
type Walls struct {
	// Rocks are the round obstacles.
	Rocks []Rock
	// Min and Max are the (x, z) corners of the border, m; if both are zero, there
	// is no border.
	Min, Max mgl64.Vec2
}

// Push implements Obstacles: the sum of the pushes out of each rock the hull overlaps
// and back inside the border.
func (w *Walls) Push(pos, fwd mgl64.Vec3, h Hull) mgl64.Vec3 {
	side := mgl64.Vec3{-fwd[2], 0, fwd[0]}
	reach := math.Hypot(h.HalfLength, h.HalfWidth)
	var push mgl64.Vec3
	for _, r := range w.Rocks {
		dx, dz := r.X-pos[0], r.Z-pos[2]
		if lim := reach + r.Radius; dx*dx+dz*dz >= lim*lim {
			continue
		}
		push = push.Add(rockPush(dx, dz, fwd, side, h, r.Radius))
	}
	if w.Min != (mgl64.Vec2{}) || w.Max != (mgl64.Vec2{}) {
		for axis, k := range [2]int{0, 2} {
			ext := h.HalfLength*math.Abs(fwd[k]) + h.HalfWidth*math.Abs(side[k])
			if lo := w.Min[axis] - (pos[k] - ext); lo > 0 {
				push[k] += lo
			} else if hi := pos[k] + ext - w.Max[axis]; hi > 0 {
				push[k] -= hi
			}
		}
	}
	return push
}

// rockPush returns the push of a hull (forward fwd, side side, both unit and
// horizontal) out of a rock of radius r whose centre is (dx, dz) from the hull's.
func rockPush(dx, dz float64, fwd, side mgl64.Vec3, h Hull, r float64) mgl64.Vec3 {
	lx := dx*fwd[0] + dz*fwd[2] // the rock's centre in the hull's frame
	lz := dx*side[0] + dz*side[2]
	qx := math.Max(-h.HalfLength, math.Min(h.HalfLength, lx))
	qz := math.Max(-h.HalfWidth, math.Min(h.HalfWidth, lz))
	ex, ez := lx-qx, lz-qz
	if d2 := ex*ex + ez*ez; d2 > 0 {
		d := math.Sqrt(d2)
		if d >= r {
			return mgl64.Vec3{}
		}
		k := (r - d) / d // away from the rock: against (ex, ez)
		return fwd.Mul(-ex * k).Add(side.Mul(-ez * k))
	}
	// The rock's centre is inside the hull: out along the shallower axis.
	px, pz := h.HalfLength-math.Abs(lx)+r, h.HalfWidth-math.Abs(lz)+r
	if px < pz {
		return fwd.Mul(-math.Copysign(px, lx))
	}
	return side.Mul(-math.Copysign(pz, lz))
}

// Blocking's resolution: a move is walked in steps of at most blockStep (m, under
// the narrowest rock a tank meets, so none is stepped over) and in at most
// blockMaxStep steps, a contact is found to within 2^-blockBisect of a step by
// bisection, and a depth of blockSlop (m) is let through as rounding (never added to
// a depth the hull had where the move starts, so the display does not creep in); a
// slide backed out of an obstacle (see sweep) may end slideSlop (m) deeper. A
// blend's path is swept at grid samples sweepStep (s) apart, the first sweepPhase of
// a step after the blend start, at most sweepMaxSamples of them in one Advance. The
// phase keeps frames at the usual rates (30, 60, 120, 144 Hz), which start blends,
// well clear of the samples: a frame whose time rounds a microsecond either way (a
// replay's recorded times) is on the same side of a sample either way.
const (
	blockStep       = 0.5
	blockMaxStep    = 64
	blockBisect     = 12
	blockSlop       = 1e-4
	slideSlop       = 1e-6
	sweepStep       = 1.0 / 30
	sweepPhase      = 0.318
	sweepMaxSamples = 1 << 10
)

// collideShown keeps this frame's reckoned hull (a.rk, just reckoned) out of the
// obstacles. The blending algorithms' shown pose depends on the blend and the time
// since its start alone, not on how frames stepped there, so that a referee's
// rebuild of a view and a replay stepping other frames show what the live view
// showed: the unconstrained path is swept from the blend's start (the shown pose
// there, itself kept out) through samples on a fixed grid of sweepStep, and this
// frame's pose is swept on from the last sample. Delayed reckons from the frame's
// time, not the blend's, and Static never moves: both are swept from the frame
// before (prev).
func (a *Actor) collideShown(prev mgl64.Vec3) {
	if a.alg == Delayed || a.alg == Static {
		at := a.sweep(prev, a.rk.pos, a.rk.rot)
		a.rk.pos[0], a.rk.pos[2] = at[0], at[2]
		return
	}
	c := a.c
	tt, cur := a.tt, a.rk
	n := int(math.Min(math.Max(0, math.Floor(tt/sweepStep-sweepPhase)+1), math.MaxInt32))
	if n-c.sweepK > sweepMaxSamples {
		// Only after a long pause between frames: the display is held where it
		// was, and the path is swept on from there.
		c.sweepK = n - sweepMaxSamples
	}
	for c.sweepK < n {
		c.sweepK++
		a.tt = (float64(c.sweepK) - 1 + sweepPhase) * sweepStep
		a.reckonNow()
		at := a.sweep(c.sweepAt, a.rk.pos, a.rk.rot)
		c.sweepAt = a.rejoin(c.sweepAt, at, c.sweepPath, a.rk.pos)
		c.sweepPath = a.rk.pos
	}
	a.tt, a.rk = tt, cur
	at := a.rejoin(c.sweepAt, a.sweep(c.sweepAt, cur.pos, cur.rot), c.sweepPath, cur.pos)
	a.rk.pos[0], a.rk.pos[2] = at[0], at[2]
}

// rejoin returns to, the display's sweep from from, moved no further from from than
// the unconstrained path moved, from path to pathTo, plus a grid step's catch-up at
// CatchUpSpeed. A display held at an obstacle while its projection ran on (the stop
// lost) rejoins its path as a catch-up once the way is clear, instead of leaping to it
// in a frame (9 m once, after a tank's 1.2 s silence in a loss burst). A slide along an
// obstacle (at most blockStep a sweep) is within it.
func (a *Actor) rejoin(from, to, path, pathTo mgl64.Vec3) mgl64.Vec3 {
	d := mgl64.Vec3{to[0] - from[0], 0, to[2] - from[2]}
	step := mgl64.Vec3{pathTo[0] - path[0], 0, pathTo[2] - path[2]}
	limit := step.Len() + a.c.cfg.CatchUpSpeed*sweepStep
	if withinLen(d.LenSqr(), limit) {
		return to // what the test below finds, without its square root
	}
	if l := d.Len(); l > limit {
		k := limit / l
		return mgl64.Vec3{from[0] + d[0]*k, to[1], from[2] + d[2]*k}
	}
	return to
}

// sweep returns where the hull, oriented by rot, gets to moving horizontally from
// from toward to without going deeper into the obstacles than it was at from: the
// move stops where the hull meets an obstacle, and what is left of it slides along
// the obstacle's surface. A turn in place against an obstacle, or a last-known state
// that reports the hull a little inside one (shapes differ by centimetres between
// the owner's physics and the receiver), is not pushed away. A snap has already
// moved the display (the blend starts where it snapped to), so it is never blocked.
// The result has from's height.
func (a *Actor) sweep(from, to mgl64.Vec3, rot mgl64.Quat) mgl64.Vec3 {
	c := &a.c.cfg.Collide
	fwd := geom.Rotate(rot, mgl64.Vec3{1, 0, 0})
	fwd[1] = 0
	// The heading's length is only needed past the room's test below: whether it
	// is over 1e-9 is read off its square where that is plain (1e-17 is well over
	// 1e-18, rounding and all), and the square root taken only where it is not.
	l2 := fwd[0]*fwd[0] + fwd[1]*fwd[1] + fwd[2]*fwd[2] // fwd.Len()'s sum
	if !(l2 > 1e-17) && !(math.Sqrt(l2) > 1e-9) {
		// Pointing straight up or down: no heading to place the hull by.
		return mgl64.Vec3{to[0], from[1], to[2]}
	}
	to = mgl64.Vec3{to[0], from[1], to[2]}
	move := to.Sub(from)
	// Whether there is a move is read off its length's square (see moves): the
	// square root and the step count are only needed past the room's test.
	m2 := move.LenSqr()
	if !moves(m2) {
		return from // no move, or a non-finite one
	}
	if w, ok := c.Obstacles.(*Walls); ok && a.c.room.holds(w, c.Hull, from, to) {
		// Nothing within the hull's reach of the move: every step below would be
		// at depth zero and the last would end where this does, at from + move.
		return from.Add(move)
	}
	n := math.Ceil(math.Sqrt(m2) / blockStep) // move.Len()'s, at least 1 and finite
	fwd = fwd.Mul(1 / math.Sqrt(l2))
	depth := func(p mgl64.Vec3) float64 { return c.Obstacles.Push(p, fwd, c.Hull).Len() }
	limit := math.Max(depth(from), blockSlop)
	// A display held at an obstacle while its projection runs on (the stop lost)
	// is a long way from where that projection has got to: it is still held (it
	// slides along the obstacle at most blockStep in a sweep).
	n = math.Min(n, blockMaxStep)
	at := from
	for i := 1.0; i <= n; i++ {
		next := from.Add(move.Mul(i / n))
		if depth(next) <= limit {
			at = next
			continue
		}
		lo, hi := at, next
		for k := 0; k < blockBisect; k++ {
			if mid := lo.Add(hi).Mul(0.5); depth(mid) <= limit {
				lo = mid
			} else {
				hi = mid
			}
		}
		at = lo
		// Slide: what is left of the move, less its part into the obstacle.
		if nrm := c.Obstacles.Push(hi, fwd, c.Hull); nrm.Len() > 0 {
			nrm = nrm.Normalize()
			rest := to.Sub(at)
			if into := rest.Dot(nrm); into < 0 {
				rest = rest.Sub(nrm.Mul(into))
			}
			// At most blockStep of it: a display held at an obstacle while its
			// projection runs on far past it (the stop lost) creeps along it no
			// further than that in a sweep.
			if l := rest.Len(); l > blockStep {
				rest = rest.Mul(blockStep / l)
			}
			// Back out along the push by what the slide went deeper than the
			// limit (on a rock's curve, or by rounding): the slid pose then
			// depends smoothly on the move, instead of on which side of the
			// limit rounding left it.
			slid := at.Add(rest)
			if push := c.Obstacles.Push(slid, fwd, c.Hull); push.Len() > limit {
				slid = slid.Add(push.Mul(1 - limit/push.Len()))
			}
			if depth(slid) <= limit+slideSlop {
				at = slid
			}
		}
		break
	}
	return at
}

// withinLen reports, without a square root, that a vector whose length's square is
// l2 (a Vec3's LenSqr) is surely no longer than limit, m: that math.Sqrt(l2) > limit
// is false. It is false where that is not plain. A square root correctly rounded is
// monotonic, and l2 under limit² less a part in 10^12 (far over the product's and
// the root's rounding) has a root under limit: the root of at most limit²·(1 −
// 10^-12) rounds to below limit·(1 − 4·10^-13). Where limit² is subnormal (limit
// under 1.5e-154) its rounded product is no more than half a grid step over limit²
// and l2 is on that grid, so l2 under it is under limit² itself; a limit whose
// square overflows (over 1.3e154) is over every finite root; a limit not over zero
// (a negative catch-up) or NaN gives false.
func withinLen(l2, limit float64) bool {
	return limit > 0 && l2 < limit*limit*(1-1e-12)
}

// moves reports whether a move whose length's square is l2 (a Vec3's LenSqr) is
// walked, that is whether math.Ceil(math.Sqrt(l2)/blockStep) is at least 1 and
// finite, without the square root: the root is positive exactly where l2 is, and
// finite wherever l2 is (under 1.4e154, so that twice it is finite too).
func moves(l2 float64) bool {
	return l2 > 0 && !math.IsInf(l2, 1)
}

// room is a disc of the ground where a hull centred anywhere is clear of every rock of
// a Walls and inside its border, so that a sweep from one point of it to another meets
// nothing. A tank in the open is most tanks most of the time: a sweep within its room
// costs two distance tests instead of a pass over every rock at each step. A room is
// found by one pass over the rocks, at a move's end, when a move leaves the last one.
// An Actor keeps its own, so actors advanced on several goroutines share nothing.
type room struct {
	// What it was found for: a Walls changed since (its rocks replaced, added to or
	// removed, its border moved) or another hull is looked at again.
	walls    *Walls
	first    *Rock
	rocks    int
	min, max mgl64.Vec2
	hull     Hull

	x, z float64 // centre, m
	// r is the radius, m: the distance from the centre to the nearest rock's edge or
	// to the border, less the hull's reach and roomMargin. Not positive (or NaN): no
	// room there.
	r float64
}

// roomMargin (m) keeps a room's edge clear of where a hull would first touch an
// obstacle by far more than rounding, so that a room holds only moves whose every
// step Walls.Push finds at depth zero, to the bit. roomMin (m) is the radius below
// which a room is not worth looking for: after finding one smaller, a move looks
// again only once it is far enough from there for a room of roomMin to be possible.
const (
	roomMargin = 1e-3
	roomMin    = 2 * blockStep
)

// holds reports whether the room for hull h in w holds both ends of a move (only their
// x and z count), looking for a new one at to if the move left the last.
func (r *room) holds(w *Walls, h Hull, from, to mgl64.Vec3) bool {
	var first *Rock
	if len(w.Rocks) > 0 {
		first = &w.Rocks[0]
	}
	switch {
	case r.walls != w || r.first != first || r.rocks != len(w.Rocks) || r.min != w.Min || r.max != w.Max || r.hull != h:
		r.walls, r.first, r.rocks, r.min, r.max, r.hull = w, first, len(w.Rocks), w.Min, w.Max, h
		r.find(to)
	case r.inside(from) && r.inside(to):
		return true
	default:
		// The clearance changes no faster than the distance moved: a room found
		// closer to the last centre than this would be smaller than roomMin.
		dx, dz := to[0]-r.x, to[2]-r.z
		if need := roomMin - r.r; !(need > 0 && dx*dx+dz*dz < need*need) {
			r.find(to)
		}
	}
	return r.inside(from) && r.inside(to)
}

// inside reports whether p's (x, z) is in the room.
func (r *room) inside(p mgl64.Vec3) bool {
	dx, dz := p[0]-r.x, p[2]-r.z
	return r.r > 0 && dx*dx+dz*dz <= r.r*r.r
}

// find makes the room centred at p's (x, z).
func (r *room) find(p mgl64.Vec3) {
	w := r.walls
	d := math.Inf(1)
	for _, rk := range w.Rocks {
		dx, dz := rk.X-p[0], rk.Z-p[2]
		d = math.Min(d, math.Sqrt(dx*dx+dz*dz)-rk.Radius)
	}
	if w.Min != (mgl64.Vec2{}) || w.Max != (mgl64.Vec2{}) {
		d = math.Min(d, math.Min(p[0]-w.Min[0], w.Max[0]-p[0]))
		d = math.Min(d, math.Min(p[2]-w.Min[1], w.Max[1]-p[2]))
	}
	r.x, r.z = p[0], p[2]
	r.r = d - math.Hypot(r.hull.HalfLength, r.hull.HalfWidth) - roomMargin
}
