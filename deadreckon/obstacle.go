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

// Blocking's resolution: the display's move in a frame is walked in steps of at
// most blockStep (m, under the narrowest rock a tank meets, so none is stepped
// over) and in at most blockMaxStep steps, a contact is found to within 2^-blockBisect of a step by bisection, and
// a depth of blockSlop (m) is let through as rounding (never added to a depth the
// frame before had, so the display does not creep in).
const (
	blockStep    = 0.5
	blockMaxStep = 64
	blockBisect  = 12
	blockSlop    = 1e-4
)

// block keeps this frame's reckoned hull out of the obstacles: the move from where it
// was shown the frame before (prev) goes no deeper into them than it was there. The
// move stops where the hull meets an obstacle, and what is left of it slides along
// the obstacle's surface; a turn in place against an obstacle, or a last-known
// state that reports the hull a little inside one (shapes differ by centimetres
// between the owner's physics and the receiver), is not pushed away. A snap has
// already moved the display (prev is where it snapped to), so it is never blocked.
func (a *Actor) block(prev mgl64.Vec3) {
	c := &a.c.cfg.Collide
	fwd := geom.Rotate(a.rk.rot, mgl64.Vec3{1, 0, 0})
	fwd[1] = 0
	if l := fwd.Len(); l > 1e-9 {
		fwd = fwd.Mul(1 / l)
	} else {
		return // pointing straight up or down: no heading to place the hull by
	}
	depth := func(p mgl64.Vec3) float64 { return c.Obstacles.Push(p, fwd, c.Hull).Len() }
	to := mgl64.Vec3{a.rk.pos[0], prev[1], a.rk.pos[2]}
	limit := math.Max(depth(prev), blockSlop)
	move := to.Sub(prev)
	n := math.Ceil(move.Len() / blockStep)
	if !(n >= 1) || math.IsInf(n, 1) {
		return // no move, or a non-finite one
	}
	// A display held at an obstacle while its projection runs on (the stop lost)
	// is a long way from where that projection has got to: it is still held.
	n = math.Min(n, blockMaxStep)
	at := prev
	for i := 1.0; i <= n; i++ {
		next := prev.Add(move.Mul(float64(i) / n))
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
			if slid := at.Add(rest); rest.Len() <= blockStep && depth(slid) <= limit {
				at = slid
			}
		}
		break
	}
	a.rk.pos[0], a.rk.pos[2] = at[0], at[2]
}
