package bot

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// Patrol route parameters.
const (
	// patrolMinWaypoints and patrolMaxWaypoints bound a patrol route's waypoints.
	patrolMinWaypoints, patrolMaxWaypoints = 6, 10
	// patrolLook is how far off its route a patrolling bot heads for a point on it
	// (and that far ahead), m, rather than steering along it; patrolLookPerSpeed, s,
	// times its speed is how far ahead it reads the route's heading, for the hull's
	// lag in turning; patrolCrossGain, 1/s, turns it toward the route's line by the
	// cross-track error (Stanley's controller).
	patrolLook, patrolLookPerSpeed, patrolCrossGain = 4.0, 0.3, 1.5
	// patrolSearch is the arc length either side of its last place within which a
	// patrolling bot looks for itself on the route each tick, m.
	patrolSearch = 30.0
	// patrolCurveAhead is how far ahead a patrolling bot looks for bends to slow
	// for, m.
	patrolCurveAhead = 20.0
	// patrolRolling is the speed, m/s, above which a pausing bot still steers along
	// its route as it rolls to a stop.
	patrolRolling = 0.3
)

// PatrolRoute returns a closed route for a bot at start (on the ground plane: x, z)
// facing yaw to patrol on m, drawn from seed: a Catmull-Rom spline through 6 to 10
// waypoints on a wobbly loop 20 to 45 m from its centre, the first waypoint at
// start and the loop leaving it the way the bot faces. Of several loops drawn it
// keeps the one whose steepest grade is least and that passes clear of rocks and
// inside the map, so a tank drives it without stalling on a slope; where no loop
// drawn is clear of all three, it returns an error (the bot roams instead). Both sides of a
// match build the same route from its waypoints (deadreckon.NewRoute), so a bot
// publishes it once and then its progress along it.
func PatrolRoute(m *terrain.Map, seed uint64, start mgl64.Vec2, yaw float64) (*deadreckon.Route, error) {
	if m == nil {
		return nil, fmt.Errorf("bot: patrol route: no map")
	}
	rng := rand.New(rand.NewPCG(seed, 0x726f757465)) // "route"
	var best *deadreckon.Route
	bestScore := math.Inf(1)
	for range patrolCandidates {
		r, err := patrolLoop(m, rng, start, yaw)
		if err != nil {
			continue
		}
		if score := routeCost(m, r); score < bestScore {
			best, bestScore = r, score
		}
	}
	if best == nil || bestScore >= routeBad {
		return nil, fmt.Errorf("bot: patrol route from (%.0f, %.0f): no loop clear of steep ground and rocks: %w",
			start[0], start[1], deadreckon.ErrInvalidRoute)
	}
	return best, nil
}

// patrolCandidates is how many loops PatrolRoute draws; routeMargin is how far
// inside the map's border a route keeps, m.
const (
	patrolCandidates = 24
	routeMargin      = 8.0
	// routeMaxGrade is the steepest grade a route should climb: tanks stall on
	// steeper ground.
	routeMaxGrade = 0.3
	// patrolGiveUp is how many times in a row a patrolling bot may get stuck
	// before it gives its route up and roams.
	patrolGiveUp = 3
	// routeBad is the cost of one bad step of a route (routeCost); a route with
	// one is not patrolled.
	routeBad = 100.0
)

// patrolLoop draws one loop through start, leaving it along yaw (turning left or
// right round the centre at random).
func patrolLoop(m *terrain.Map, rng *rand.Rand, start mgl64.Vec2, yaw float64) (*deadreckon.Route, error) {
	n := patrolMinWaypoints + rng.IntN(patrolMaxWaypoints-patrolMinWaypoints+1)
	radius := 20 + 25*rng.Float64()
	side := 1.0 // +1: the centre on the left, the loop turning left
	if rng.IntN(2) == 0 {
		side = -1
	}
	// Forward is (cos ψ, −sin ψ) on (x, z); left of it is (−sin ψ, −cos ψ).
	cx := start[0] + side*radius*-math.Sin(yaw)
	cz := start[1] + side*radius*-math.Cos(yaw)
	a0 := math.Atan2(-(start[1] - cz), start[0]-cx) // the angle of start about the centre
	ways := make([]mgl64.Vec3, n)
	for i := range ways {
		a, r := a0, radius
		if i > 0 {
			a = a0 + side*(float64(i)+0.4*(rng.Float64()-0.5))*2*math.Pi/float64(n)
			r = radius * (0.8 + 0.4*rng.Float64())
		}
		x, z := cx+r*math.Cos(a), cz-r*math.Sin(a)
		h, _ := m.HeightAt(x, z)
		ways[i] = mgl64.Vec3{x, h, z}
	}
	return deadreckon.NewRoute(ways, true, true)
}

// routeCost scores a route for patrolling: its steepest grade over 2 m steps, plus
// a large cost for each step steeper than routeMaxGrade, beside a rock or within
// routeMargin of the border.
func routeCost(m *terrain.Map, r *deadreckon.Route) float64 {
	lo, hi := m.Min(), m.Max()
	const step = 2.0
	cost, steep := 0.0, 0.0
	prev, _ := r.At(0)
	hPrev, _ := m.HeightAt(prev[0], prev[2])
	for s := step; s <= r.Length(); s += step {
		p, _ := r.At(s)
		h, ok := m.HeightAt(p[0], p[2])
		if !ok || p[0] < lo[0]+routeMargin || p[0] > hi[0]-routeMargin ||
			p[2] < lo[1]+routeMargin || p[2] > hi[1]-routeMargin || onRock(m, mgl64.Vec2{p[0], p[2]}) {
			cost += routeBad
		}
		grade := math.Abs(h-hPrev) / step
		if grade > routeMaxGrade {
			cost += routeBad
		}
		steep = math.Max(steep, grade)
		hPrev = h
	}
	return cost + steep
}

// SetRoute makes the bot patrol route r: it drives along it the way the route's arc
// length grows, round and round on a closed one, slowing for bends, stopping now and
// then at waypoints, and holding its turret forward while no tank is in sight. A nil
// r sends it back to roaming between random waypoints.
func (b *Driver) SetRoute(r *deadreckon.Route) {
	b.route, b.routeFound, b.stuckCount = r, false, 0
}

// Route returns the route the bot patrols, or nil.
func (b *Driver) Route() *deadreckon.Route { return b.route }

// RouteState says where a patrolling bot was at its last Drive.
type RouteState struct {
	// Following says it drives along its route (not backing out of a place it got
	// stuck in, and with a route set).
	Following bool
	// Engaged says a tank was in sight: its turret left the patrol's forward hold.
	Engaged bool
	// S is the arc length of the route's point nearest the tank, m; Off the
	// horizontal distance from it, m.
	S, Off float64
}

// RouteState returns where the bot was on its route at its last Drive.
func (b *Driver) RouteState() RouteState { return b.routeState }

// driveRoute is Drive's part for a patrolling bot in botDrive mode: steering along
// the route, toward its line.
func (b *Driver) driveRoute(now float64, p physics.Pose, yaw float64, in physics.Input) physics.Input {
	r := b.route
	pos := p.Position
	if !b.routeFound {
		b.routeS, _ = r.Nearest(pos, 0, 0)
		b.routeFound = true
		b.nextStop = b.waypointAfter(b.routeS)
	}
	s, off := r.Nearest(pos, b.routeS, patrolSearch)
	b.routeS = s
	b.routeState.S, b.routeState.Off = s, off

	// A stop now and then where a waypoint is passed.
	if w := r.WaypointS(b.nextStop); b.mode == botDrive && r.Diff(s, w) <= 0 && r.Diff(s, w) > -patrolSearch {
		b.nextStop = (b.nextStop + 1) % len(r.Waypoints())
		if b.rng.Float64() < b.cfg.PauseChance {
			b.mode, b.until = botPause, now+1+3*b.rng.Float64()
			return in
		}
		b.cruise = 0.7 + 0.3*b.rng.Float64()
	}

	// Stanley's steering: face the way the route runs a little ahead, turned toward
	// its line by the cross-track error, so the hull faces along the route as its
	// receivers show it rather than along a chord.
	speed := math.Hypot(p.Velocity[0], p.Velocity[2])
	_, ahead := r.At(s + patrolLookPerSpeed*speed)
	want := geom.Heading(ahead)
	if near, _ := r.At(s); off > 1e-3 {
		toward := geom.WrapAngle(geom.Heading(near.Sub(pos)) - want)
		want += math.Copysign(math.Atan(patrolCrossGain*off/(speed+1)), toward)
	}
	if off > patrolLook {
		// Far off it (put back after being stuck): head for a point on it.
		target, _ := r.At(s + patrolLook)
		want = geom.Heading(target.Sub(pos))
	}
	turn := geom.WrapAngle(want - yaw)
	in.Steer = math.Max(-1, math.Min(1, turn*3*steerLeft))
	b.routeTurn = turn
	// Slow for the sharpest bend ahead: the route's heading change over the next
	// stretch.
	_, d0 := r.At(s)
	bend := 0.0
	for k := 1; k <= 4; k++ {
		_, d := r.At(s + patrolCurveAhead*float64(k)/4)
		bend = math.Max(bend, math.Abs(geom.WrapAngle(geom.Heading(d)-geom.Heading(d0))))
	}
	switch a := math.Abs(turn); {
	case a > math.Pi/3:
		in.Throttle = 0 // off the route's line: turn in place toward it
	default:
		in.Throttle = math.Max(0.7, b.cruise) * (1 - a/(math.Pi/2)) * math.Max(0.3, 1-bend/(math.Pi/3))
	}
	return in
}

// waypointAfter returns the index of the first waypoint past arc length s.
func (b *Driver) waypointAfter(s float64) int {
	r := b.route
	best, bestD := 0, math.Inf(1)
	for i := range r.Waypoints() {
		if d := r.Diff(s, r.WaypointS(i)); d > 0 && d < bestD {
			best, bestD = i, d
		}
	}
	return best
}

// onRock reports whether c lies on or next to one of m's rocks.
func onRock(m *terrain.Map, c mgl64.Vec2) bool {
	for _, o := range m.Obstacles() {
		dx, dz := c[0]-o.X, c[1]-o.Z
		r := o.Radius + 8
		if dx*dx+dz*dz < r*r {
			return true
		}
	}
	return false
}
