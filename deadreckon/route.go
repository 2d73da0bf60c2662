package deadreckon

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Route bounds.
const (
	// MaxRouteWaypoints is the most waypoints a Route has.
	MaxRouteWaypoints = 256
	// MinRouteLeg is the shortest horizontal distance between two consecutive
	// waypoints, m: closer ones give no direction to face.
	MinRouteLeg = 0.01
	// MaxRouteLength is the longest a Route may be, m.
	MaxRouteLength = 1e5
)

// routeSampleStep is the longest a spline route's chord between two table samples
// is, m; routeMaxSamples caps the samples per leg.
const (
	routeSampleStep = 0.5
	routeMaxSamples = 64
)

// ErrInvalidRoute is returned (wrapped) for waypoints that make no route: too few or
// too many, not finite, beyond the position limit, or two consecutive ones closer
// than MinRouteLeg.
var ErrInvalidRoute = errors.New("invalid route")

// Route is a path over the ground that an actor's owner and its receivers both know:
// a polyline or a Catmull-Rom spline through waypoints, open or closed. A position on
// it is its arc length S, measured over the ground (horizontally) from the first
// waypoint; the heights of the waypoints are only interpolated, for a receiver that
// does not clamp to the ground. Facing along a route is facing the way S grows. Both
// sides build the same Route from the same waypoints (NewRoute is deterministic), so
// the same S shows the same place. A Route is immutable and safe for concurrent use.
type Route struct {
	waypoints []mgl64.Vec3
	closed    bool
	spline    bool

	wayS []float64    // arc length at each waypoint
	pts  []mgl64.Vec3 // the table: polyline vertices, or dense spline samples
	tan  []mgl64.Vec3 // unit horizontal tangent at each sample
	cum  []float64    // horizontal arc length at each sample, cum[0] = 0
	size float64      // total length, m
}

// NewRoute returns the route through waypoints (world meters): straight legs between
// them, or with spline a centripetal Catmull-Rom curve that passes through every one
// with a continuous heading. A closed route runs from the last waypoint back to the
// first. It needs 2 to MaxRouteWaypoints waypoints (3 when closed), finite, each
// coordinate within DefaultMaxPosition, consecutive ones at least MinRouteLeg apart
// over the ground, and no more than MaxRouteLength in all. The waypoints are copied.
func NewRoute(waypoints []mgl64.Vec3, closed, spline bool) (*Route, error) {
	n := len(waypoints)
	minN := 2
	if closed {
		minN = 3
	}
	if n < minN || n > MaxRouteWaypoints {
		return nil, fmt.Errorf("%w: %d waypoints (need %d to %d)", ErrInvalidRoute, n, minN, MaxRouteWaypoints)
	}
	for i, w := range waypoints {
		if !geom.FiniteVec(w) || math.Abs(w[0]) > DefaultMaxPosition || math.Abs(w[1]) > DefaultMaxPosition || math.Abs(w[2]) > DefaultMaxPosition {
			return nil, fmt.Errorf("%w: waypoint %d at %v", ErrInvalidRoute, i, w)
		}
	}
	legs := n - 1
	if closed {
		legs = n
	}
	for i := 0; i < legs; i++ {
		a, b := waypoints[i], waypoints[(i+1)%n]
		if math.Hypot(b[0]-a[0], b[2]-a[2]) < MinRouteLeg {
			return nil, fmt.Errorf("%w: waypoints %d and %d are %.3g m apart", ErrInvalidRoute, i, (i+1)%n, math.Hypot(b[0]-a[0], b[2]-a[2]))
		}
	}
	r := &Route{waypoints: append([]mgl64.Vec3(nil), waypoints...), closed: closed, spline: spline}
	r.pts = append(r.pts, waypoints[0])
	wayIdx := make([]int, n)
	for i := 0; i < legs; i++ {
		wayIdx[i] = len(r.pts) - 1
		a, b := waypoints[i], waypoints[(i+1)%n]
		if !spline {
			r.pts = append(r.pts, b)
			continue
		}
		p0, p3 := r.neighbours(i)
		k := int(math.Ceil(math.Hypot(b[0]-a[0], b[2]-a[2]) / routeSampleStep))
		k = max(4, min(routeMaxSamples, k))
		for j := 1; j <= k; j++ {
			r.pts = append(r.pts, catmullRom(p0, a, b, p3, float64(j)/float64(k)))
		}
	}
	r.cum = make([]float64, len(r.pts))
	for i := 1; i < len(r.pts); i++ {
		a, b := r.pts[i-1], r.pts[i]
		r.cum[i] = r.cum[i-1] + math.Hypot(b[0]-a[0], b[2]-a[2])
	}
	r.size = r.cum[len(r.cum)-1]
	if !closed {
		wayIdx[n-1] = len(r.pts) - 1
	}
	r.wayS = make([]float64, n)
	for i, k := range wayIdx {
		r.wayS[i] = r.cum[k]
	}
	if !(r.size <= MaxRouteLength) {
		return nil, fmt.Errorf("%w: %.0f m long (at most %.0f m)", ErrInvalidRoute, r.size, float64(MaxRouteLength))
	}
	r.tangents()
	return r, nil
}

// neighbours returns the waypoints before leg i's start and after its end, for the
// spline: on an open route the ends are mirrored, so the curve leaves the first
// waypoint and reaches the last one heading along their legs.
func (r *Route) neighbours(i int) (before, after mgl64.Vec3) {
	w, n := r.waypoints, len(r.waypoints)
	a, b := w[i], w[(i+1)%n]
	switch {
	case r.closed:
		return w[(i+n-1)%n], w[(i+2)%n]
	}
	before, after = a.Mul(2).Sub(b), b.Mul(2).Sub(a)
	if i > 0 {
		before = w[i-1]
	}
	if i+2 < n {
		after = w[i+2]
	}
	return before, after
}

// catmullRom returns the point at u ∈ [0, 1] of the centripetal Catmull-Rom segment
// from p1 to p2 (Barry and Goldman's pyramid, knots spaced by the square root of the
// chord lengths): it passes through both ends and never loops or cusps within a leg.
func catmullRom(p0, p1, p2, p3 mgl64.Vec3, u float64) mgl64.Vec3 {
	knot := func(a, b mgl64.Vec3) float64 { return math.Max(math.Sqrt(b.Sub(a).Len()), 1e-6) }
	t0 := 0.0
	t1 := t0 + knot(p0, p1)
	t2 := t1 + knot(p1, p2)
	t3 := t2 + knot(p2, p3)
	t := t1 + (t2-t1)*u
	lerp := func(a, b mgl64.Vec3, ta, tb float64) mgl64.Vec3 {
		return a.Mul((tb - t) / (tb - ta)).Add(b.Mul((t - ta) / (tb - ta)))
	}
	a1, a2, a3 := lerp(p0, p1, t0, t1), lerp(p1, p2, t1, t2), lerp(p2, p3, t2, t3)
	b1, b2 := lerp(a1, a2, t0, t2), lerp(a2, a3, t1, t3)
	return lerp(b1, b2, t1, t2)
}

// tangents fills r.tan: at a spline sample the mean of its two chords' directions, so
// that the heading turns smoothly between samples; on a polyline each vertex keeps
// its legs' own directions (At reads the leg's).
func (r *Route) tangents() {
	n := len(r.pts)
	r.tan = make([]mgl64.Vec3, n)
	dir := func(i int) mgl64.Vec3 { // direction of the chord from sample i to i+1
		a, b := r.pts[i], r.pts[i+1]
		d := mgl64.Vec3{b[0] - a[0], 0, b[2] - a[2]}
		if l := d.Len(); l > 0 {
			return d.Mul(1 / l)
		}
		return mgl64.Vec3{1, 0, 0}
	}
	for i := range r.tan {
		switch {
		case i == 0 && r.closed:
			r.tan[i] = meanDir(dir(n-2), dir(0))
		case i == 0:
			r.tan[i] = dir(0)
		case i == n-1 && r.closed:
			r.tan[i] = r.tan[0]
		case i == n-1:
			r.tan[i] = dir(n - 2)
		default:
			r.tan[i] = meanDir(dir(i-1), dir(i))
		}
	}
}

// meanDir returns the unit direction halfway between unit directions a and b (a if
// they are opposite).
func meanDir(a, b mgl64.Vec3) mgl64.Vec3 {
	m := a.Add(b)
	if l := m.Len(); l > 1e-9 {
		return m.Mul(1 / l)
	}
	return a
}

// Length returns the route's length over the ground, m.
func (r *Route) Length() float64 { return r.size }

// Closed reports whether the route loops back to its first waypoint.
func (r *Route) Closed() bool { return r.closed }

// Spline reports whether the route is a Catmull-Rom spline (else a polyline).
func (r *Route) Spline() bool { return r.spline }

// Waypoints returns a copy of the waypoints the route was built from, m.
func (r *Route) Waypoints() []mgl64.Vec3 { return append([]mgl64.Vec3(nil), r.waypoints...) }

// WaypointS returns the arc length at waypoint i, m.
func (r *Route) WaypointS(i int) float64 { return r.wayS[i] }

// Wrap returns arc length s on the route: modulo the length on a closed route,
// clamped to [0, Length] on an open one, m.
func (r *Route) Wrap(s float64) float64 {
	if r.closed {
		s = math.Mod(s, r.size)
		if s < 0 {
			s += r.size
		}
		return s
	}
	return math.Max(0, math.Min(r.size, s))
}

// Diff returns b − a in arc length, m: on a closed route the short way round, in
// (−Length/2, Length/2].
func (r *Route) Diff(a, b float64) float64 {
	d := b - a
	if r.closed {
		d = math.Mod(d, r.size)
		if d > r.size/2 {
			d -= r.size
		} else if d <= -r.size/2 {
			d += r.size
		}
	}
	return d
}

// At returns the point of the route at arc length s (wrapped as Wrap does), m, and
// the unit horizontal direction the route runs there.
func (r *Route) At(s float64) (pos, dir mgl64.Vec3) {
	s = r.Wrap(s)
	i := sort.SearchFloat64s(r.cum, s) // first sample at or past s
	if i == 0 {
		return r.pts[0], r.tan[0]
	}
	if i >= len(r.pts) {
		i = len(r.pts) - 1
	}
	a, b := r.pts[i-1], r.pts[i]
	span := r.cum[i] - r.cum[i-1]
	f := 0.0
	if span > 0 {
		f = (s - r.cum[i-1]) / span
	}
	pos = a.Add(b.Sub(a).Mul(f))
	if !r.spline {
		d := mgl64.Vec3{b[0] - a[0], 0, b[2] - a[2]}
		return pos, d.Mul(1 / d.Len())
	}
	return pos, meanDirWeighted(r.tan[i-1], r.tan[i], f)
}

// meanDirWeighted returns the unit direction (1 − f)·a + f·b, normalized.
func meanDirWeighted(a, b mgl64.Vec3, f float64) mgl64.Vec3 {
	m := a.Mul(1 - f).Add(b.Mul(f))
	if l := m.Len(); l > 1e-9 {
		return m.Mul(1 / l)
	}
	return a
}

// Pose returns the position on the route at arc length s, m, and the orientation
// facing along it, level (the ground clamp gives the pitch and roll).
func (r *Route) Pose(s float64) (mgl64.Vec3, mgl64.Quat) {
	p, d := r.At(s)
	return p, geom.YawQuat(geom.Heading(d))
}

// Nearest returns the arc length of the route's point nearest pos over the ground, m,
// and its horizontal distance from pos, m. With within > 0 it looks only at the part
// of the route within that arc length of near (wrapped on a closed route), as an
// owner tracking its actor along the route does each frame, at a cost that grows with
// within rather than with the route; otherwise it looks at the whole route. An owner
// whose actor's own motion (physics, steering) keeps it close to the route publishes
// S = Nearest(...) while the distance stays within what it can afford to show, and
// leaves the route beyond it.
func (r *Route) Nearest(pos mgl64.Vec3, near, within float64) (s, dist float64) {
	lo, hi := 1, len(r.pts)-1
	if within > 0 && within < r.size/2 {
		near = r.Wrap(near)
		a, b := near-within, near+within
		if r.closed && (a < 0 || b > r.size) {
			// The window wraps past the start: search both ends.
			s1, d1 := r.nearestIn(pos, r.Wrap(a), r.size)
			s2, d2 := r.nearestIn(pos, 0, r.Wrap(b))
			if d2 < d1 {
				return s2, d2
			}
			return s1, d1
		}
		return r.nearestIn(pos, math.Max(0, a), math.Min(r.size, b))
	}
	return r.nearestSegments(pos, lo, hi, 0, r.size)
}

// nearestIn searches the samples whose chords overlap arc lengths [a, b].
func (r *Route) nearestIn(pos mgl64.Vec3, a, b float64) (float64, float64) {
	lo := max(1, sort.SearchFloat64s(r.cum, a))
	hi := min(len(r.pts)-1, sort.SearchFloat64s(r.cum, b))
	return r.nearestSegments(pos, lo, hi, a, b)
}

// nearestSegments searches the chords ending at samples lo to hi, within arc lengths
// [a, b].
func (r *Route) nearestSegments(pos mgl64.Vec3, lo, hi int, a, b float64) (float64, float64) {
	best, bestS := math.Inf(1), 0.0
	for i := lo; i <= hi; i++ {
		p0, p1 := r.pts[i-1], r.pts[i]
		dx, dz := p1[0]-p0[0], p1[2]-p0[2]
		px, pz := pos[0]-p0[0], pos[2]-p0[2]
		l2 := dx*dx + dz*dz
		f := 0.0
		if span := r.cum[i] - r.cum[i-1]; l2 > 0 && span > 0 {
			fa, fb := math.Max(0, (a-r.cum[i-1])/span), math.Min(1, (b-r.cum[i-1])/span)
			f = math.Max(fa, math.Min(fb, (px*dx+pz*dz)/l2))
		}
		ex, ez := px-f*dx, pz-f*dz
		if d := ex*ex + ez*ez; d < best {
			best, bestS = d, r.cum[i-1]+f*(r.cum[i]-r.cum[i-1])
		}
	}
	return r.Wrap(bestS), math.Sqrt(best)
}
