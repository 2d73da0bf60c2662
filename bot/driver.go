package bot

import (
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// Defaults for the bots.
const (
	// DefaultMargin keeps bot waypoints this far inside the map border, m.
	DefaultMargin = 32.0
	// DefaultArrive is the distance at which a bot counts a waypoint as reached, m.
	DefaultArrive = 10.0
	// DefaultSight is how far a bot notices another tank and trains its turret on
	// it, m.
	DefaultSight = 140.0
	// DefaultPauseChance is the chance that a bot stops for a while at a waypoint.
	DefaultPauseChance = 0.4
)

// Off turns off the Config features whose fields say they may be Off: the stops at
// waypoints. Zero never means off: a zero field takes its default.
const Off = -1

// Config sets up a bot.
type Config struct {
	// Map is the battlefield the bot patrols. Required.
	Map *terrain.Map
	// Seed makes the bot's choices deterministic.
	Seed uint64
	// Margin keeps waypoints this far inside the border, m. If zero, defaults to
	// DefaultMargin.
	Margin float64
	// Arrive is the distance at which a waypoint counts as reached, m. If zero,
	// defaults to DefaultArrive.
	Arrive float64
	// Sight is how far the bot notices other tanks, m. If zero, defaults to
	// DefaultSight.
	Sight float64
	// PauseChance is the chance (0..1) of a stop at each reached waypoint. If zero,
	// defaults to DefaultPauseChance; Off (or any negative) never stops.
	PauseChance float64
	// Patrol says the bot patrols a route (SetRoute) wherever it is put: its owner
	// gives it one through its spawn place (PatrolRoute) at each spawn.
	Patrol bool
}

// driveMode is what a bot is doing.
type driveMode uint8

const (
	botDrive   driveMode = iota // heading for the waypoint
	botPause                    // standing still for a while
	botReverse                  // backing out of a place it got stuck in
)

// Driver drives a tank like a player would, producing a physics.Input each tick: it
// patrols waypoints across the map (every other one the highest of a few candidates,
// so it climbs), turns toward them (in place when the turn is sharp), slows for turns
// and arrivals, stops now and then, backs out when stuck, and swings its turret: onto
// the nearest tank in sight, or in a slow sweep. Everything random comes from its
// seed, so the same seed and the same poses give the same inputs.
//
// A Driver is not safe for concurrent use.
type Driver struct {
	cfg    Config
	rng    *rand.Rand
	lo, hi mgl64.Vec2 // waypoint area

	mode     driveMode
	until    float64 // end of a pause or of reversing, s
	waypoint mgl64.Vec2
	legs     int     // waypoints chosen so far
	cruise   float64 // throttle on this leg
	reverseS float64 // steer while reversing

	progressAt   float64    // last time progress was checked, s
	progressFrom mgl64.Vec3 // position at that time
	turnFrom     float64    // |heading error| at that time, rad
	started      bool

	sweepPhase, sweepRate, gunPhase float64

	// Patrolling a route (SetRoute).
	route      *deadreckon.Route
	routeFound bool    // routeS has been found on the route once
	routeS     float64 // arc length at the last Drive, m
	routeTurn  float64 // heading error toward the pursued point, rad
	nextStop   int     // the next waypoint, where the bot may stop
	routeState RouteState
	engaged    bool // a tank was in sight at the last Drive
	stuckCount int  // times stuck in a row
}

// NewDriver returns a bot ready to drive on cfg.Map. It panics if cfg.Map is nil.
func NewDriver(cfg Config) *Driver {
	if cfg.Map == nil {
		panic("bot: a bot needs a map")
	}
	if !(cfg.Margin > 0) {
		cfg.Margin = DefaultMargin
	}
	if !(cfg.Arrive > 0) {
		cfg.Arrive = DefaultArrive
	}
	if !(cfg.Sight > 0) {
		cfg.Sight = DefaultSight
	}
	if cfg.PauseChance == 0 {
		cfg.PauseChance = DefaultPauseChance
	}
	b := &Driver{cfg: cfg, rng: rand.New(rand.NewPCG(cfg.Seed, cfg.Seed^0xb07b07b07b07b07))}
	lo, hi := cfg.Map.Min(), cfg.Map.Max()
	margin := math.Min(cfg.Margin, 0.25*math.Min(hi[0]-lo[0], hi[1]-lo[1]))
	b.lo = mgl64.Vec2{lo[0] + margin, lo[1] + margin}
	b.hi = mgl64.Vec2{hi[0] - margin, hi[1] - margin}
	b.sweepPhase = b.rng.Float64() * 2 * math.Pi
	b.sweepRate = 0.25 + 0.3*b.rng.Float64()
	b.gunPhase = b.rng.Float64() * 2 * math.Pi
	return b
}

// Drive returns the bot's input for the tick at time now (s), given its tank's pose
// and the positions of the tanks it might aim at (its own may be among them).
func (b *Driver) Drive(now float64, p physics.Pose, others []mgl64.Vec3) physics.Input {
	pos := p.Position
	if !b.started {
		b.started = true
		b.nextWaypoint(pos)
		b.progressAt, b.progressFrom, b.turnFrom = now, pos, 4
	}
	yaw := geom.Yaw(p.Orientation)
	in := physics.Input{AimYaw: b.aim(now, pos, yaw, others)}
	in.GunElevation = 0.05 + 0.12*math.Sin(0.35*now+b.gunPhase)
	b.routeState = RouteState{Following: b.route != nil && b.mode != botReverse, S: b.routeS}
	if b.route != nil {
		// On patrol the turret holds forward and the gun level until a tank
		// comes in sight: a still turret is one its receivers need not hear of.
		if b.engaged {
			b.routeState.Engaged = true
		} else {
			in.AimYaw, in.GunElevation = yaw, patrolGun
		}
	}

	switch b.mode {
	case botPause:
		if now >= b.until {
			b.mode = botDrive
			b.progressAt, b.progressFrom, b.turnFrom = now, pos, 4
		}
		if b.route != nil && math.Hypot(p.Velocity[0], p.Velocity[2]) > patrolRolling {
			// Rolling to a stop on a bend: keep steering along the route.
			in.Steer = b.driveRoute(now, p, yaw, in).Steer
			in.Throttle = 0
		}
		return in
	case botReverse:
		if now >= b.until {
			b.mode = botDrive
			b.nextWaypoint(pos)
			b.progressAt, b.progressFrom, b.turnFrom = now, pos, 4
			return in
		}
		in.Throttle, in.Steer = -0.7, b.reverseS
		return in
	}

	if b.route != nil {
		in = b.driveRoute(now, p, yaw, in)
		b.routeState.S = b.routeS
		if b.mode == botDrive {
			b.checkStuck(now, pos, b.routeTurn)
		}
		return in
	}
	to := mgl64.Vec2{b.waypoint[0] - pos[0], b.waypoint[1] - pos[2]}
	dist := to.Len()
	if dist < b.cfg.Arrive {
		b.nextWaypoint(pos)
		if b.rng.Float64() < b.cfg.PauseChance {
			b.mode, b.until = botPause, now+1+3*b.rng.Float64()
			return in
		}
		to = mgl64.Vec2{b.waypoint[0] - pos[0], b.waypoint[1] - pos[2]}
		dist = to.Len()
	}
	// A world yaw ψ faces (cos ψ, −sin ψ) on the (x, z) plane.
	want := geom.Heading(mgl64.Vec3{to[0], 0, to[1]})
	turn := geom.WrapAngle(want - yaw)
	in.Steer = math.Max(-1, math.Min(1, turn*1.5*steerLeft))
	switch a := math.Abs(turn); {
	case a > math.Pi/3:
		in.Throttle = 0 // turn in place
	default:
		in.Throttle = b.cruise * (1 - a/(math.Pi/2))
	}
	if dist < 3*b.cfg.Arrive {
		in.Throttle *= 0.4 + 0.6*dist/(3*b.cfg.Arrive)
	}

	b.checkStuck(now, pos, turn)
	return in
}

// checkStuck starts backing out when the bot made little progress over a few seconds
// while trying to drive, or a sharp turn (turn is the heading error, rad) does not
// come round (a slope the tracks cannot skid on).
func (b *Driver) checkStuck(now float64, pos mgl64.Vec3, turn float64) {
	if now-b.progressAt > 4 {
		moved := pos.Sub(b.progressFrom).Len()
		turning := math.Abs(turn) > math.Pi/6 && math.Abs(turn) > b.turnFrom-0.1
		if moved < 3 || turning {
			b.stuckCount++
			if b.route != nil && b.stuckCount >= patrolGiveUp {
				b.route = nil // a route it cannot drive: roam instead
			}
			b.mode, b.until = botReverse, now+1.5+b.rng.Float64()
			b.reverseS = 1
			if b.rng.IntN(2) == 0 {
				b.reverseS = -1
			}
		} else {
			b.stuckCount = 0
		}
		b.progressAt, b.progressFrom, b.turnFrom = now, pos, math.Abs(turn)
	}
}

// Patrols reports whether the bot patrols routes (Config.Patrol).
func (b *Driver) Patrols() bool { return b.cfg.Patrol }

// Sight returns how far the bot notices other tanks, m: Drive looks at none farther.
func (b *Driver) Sight() float64 { return b.cfg.Sight }

// aim returns the world yaw the turret should turn to.
func (b *Driver) aim(now float64, pos mgl64.Vec3, yaw float64, others []mgl64.Vec3) float64 {
	best, bestD := -1, b.cfg.Sight
	defer func() { b.engaged = best >= 0 }()
	for i, o := range others {
		d := o.Sub(pos).Len()
		if d > 1 && d < bestD { // d ≤ 1: its own tank
			best, bestD = i, d
		}
	}
	if best >= 0 {
		d := others[best].Sub(pos)
		return geom.Heading(d)
	}
	return yaw + 1.2*math.Sin(b.sweepRate*now+b.sweepPhase)
}

// nextWaypoint picks the next waypoint: on even legs the highest of a few random
// candidates (a climb), otherwise a random point at least 40 m away; never on a rock.
func (b *Driver) nextWaypoint(from mgl64.Vec3) {
	b.legs++
	climb := b.legs%2 == 0
	best, bestScore := mgl64.Vec2{}, math.Inf(-1)
	for range 12 {
		c := mgl64.Vec2{
			b.lo[0] + b.rng.Float64()*(b.hi[0]-b.lo[0]),
			b.lo[1] + b.rng.Float64()*(b.hi[1]-b.lo[1]),
		}
		if b.onRock(c) {
			continue
		}
		d := mgl64.Vec2{c[0] - from[0], c[1] - from[2]}.Len()
		score := -math.Abs(d - 120) // prefer legs of about 120 m
		if climb {
			h, _ := b.cfg.Map.HeightAt(c[0], c[1])
			score = h - 0.05*d
		}
		if d < 40 {
			score -= 1000
		}
		if score > bestScore {
			best, bestScore = c, score
		}
	}
	if math.IsInf(bestScore, -1) { // every candidate on a rock: head for the middle
		best = mgl64.Vec2{(b.lo[0] + b.hi[0]) / 2, (b.lo[1] + b.hi[1]) / 2}
	}
	b.waypoint = best
	b.cruise = 0.55 + 0.45*b.rng.Float64()
}

// onRock reports whether c lies on or next to a rock.
func (b *Driver) onRock(c mgl64.Vec2) bool {
	for _, o := range b.cfg.Map.Obstacles() {
		dx, dz := c[0]-o.X, c[1]-o.Z
		r := o.Radius + 8
		if dx*dx+dz*dz < r*r {
			return true
		}
	}
	return false
}

// patrolGun is the gun's elevation on patrol, rad: a little above level.
const patrolGun = 0.05

// steerLeft is the physics.Input.Steer sign that turns a tank left (positive yaw):
// physics steers right for positive values.
const steerLeft = -1
