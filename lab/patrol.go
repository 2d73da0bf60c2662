package lab

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// PatrolPrefix names a patrol of any seed: "patrol:N" is the patrol the patrol
// scenario drives, on a route and a speed plan drawn from seed N (a decimal uint64).
const PatrolPrefix = "patrol:"

// patrolSeed is the seed of the patrol scenario's route and plan.
const patrolSeed = 1

// Patrol parameters.
const (
	// patrolMinWaypoints and patrolMaxWaypoints bound the route's waypoints.
	patrolMinWaypoints, patrolMaxWaypoints = 8, 12
	// patrolMinSpeed and patrolMaxSpeed bound a leg's cruising speed, m/s.
	patrolMinSpeed, patrolMaxSpeed = 3.0, 12.0
	// patrolMinAccel and patrolMaxAccel bound the acceleration toward it, m/s²;
	// patrolMinBrake and patrolMaxBrake the braking, m/s².
	patrolMinAccel, patrolMaxAccel = 1.0, 3.0
	patrolMinBrake, patrolMaxBrake = 2.0, 5.0
	// patrolStopShare is the share of waypoints the tank stops at.
	patrolStopShare = 0.4
	// patrolMinStand and patrolMaxStand bound a stop's length, s.
	patrolMinStand, patrolMaxStand = 0.5, 4.0
	// patrolCreep is the speed at which a braking tank reaches its stop, m/s: it
	// halts from there in one step, a change well under any threshold.
	patrolCreep = 0.1
)

// patrolLeg is the plan for one leg, from waypoint i to i+1: its cruising speed, the
// acceleration and braking toward it, and the stand at its end (0: no stop).
type patrolLeg struct {
	speed, accel, brake, stand float64
}

// buildPatrol returns the builder of a patrol: a closed spline route through 8 to 12
// waypoints round the generated map's centre, over its hills, driven with a cruising
// speed per leg, stops at some waypoints, all drawn from seed. The truth follows the
// route exactly (its Path.Route and Path.RouteS), sitting on the ground as the
// remote's clamp sits a tank; the map's rocks are not in its way (no Collide).
func buildPatrol(name string, seed uint64) func(fps, duration float64) (*Path, error) {
	return func(fps, duration float64) (*Path, error) {
		m, err := terrain.Generate(terrain.GenerateConfig{Seed: tankMapSeed})
		if err != nil {
			return nil, fmt.Errorf("%s scenario map: %w", name, err)
		}
		rng := rand.New(rand.NewPCG(seed, 0x706174726f6c)) // "patrol"
		route, legs, err := patrolRoute(m, rng)
		if err != nil {
			return nil, fmt.Errorf("%s scenario: %w", name, err)
		}
		footprint := tank.Default().Footprint()
		clamp := groundClamp(deadreckon.ClampAlways, footprint)
		n := frames(fps, duration)
		p := &Path{Name: name, FrameInterval: 1 / fps, Poses: make([]Pose, n), Ground: m,
			Clamp: deadreckon.ClampAlways, Footprint: footprint, Route: route, RouteS: make([]float64, n)}
		d := patrolDriver{r: route, legs: legs}
		for i := range p.Poses {
			t := float64(i) / fps
			d.run(t)
			s := route.Wrap(d.s)
			pos, rot := route.Pose(s)
			if h, ok := m.HeightAt(pos[0], pos[2]); ok {
				pos[1] = h
			}
			c := deadreckon.ClampPose(m, pos, rot, clamp)
			p.Poses[i] = Pose{Time: t, Position: c.Position, Orientation: c.Orientation}
			p.RouteS[i] = s
		}
		return p, nil
	}
}

// patrolRoute draws the route (waypoints at the ground's height on a wobbly loop of
// 35 % to 55 % of the map's half-size round its centre) and each leg's plan.
func patrolRoute(m *terrain.Map, rng *rand.Rand) (*deadreckon.Route, []patrolLeg, error) {
	lo, hi := m.Min(), m.Max()
	cx, cz := (lo[0]+hi[0])/2, (lo[1]+hi[1])/2
	half := math.Min(hi[0]-lo[0], hi[1]-lo[1]) / 2
	n := patrolMinWaypoints + rng.IntN(patrolMaxWaypoints-patrolMinWaypoints+1)
	radius := half * (0.35 + 0.2*rng.Float64())
	phase := rng.Float64() * 2 * math.Pi
	ways := make([]mgl64.Vec3, n)
	legs := make([]patrolLeg, n)
	for i := range ways {
		a := phase + (float64(i)+0.6*(rng.Float64()-0.5))*2*math.Pi/float64(n)
		r := radius * (0.75 + 0.5*rng.Float64())
		x, z := cx+r*math.Cos(a), cz-r*math.Sin(a)
		h, _ := m.HeightAt(x, z)
		ways[i] = mgl64.Vec3{x, h, z}
		legs[i] = patrolLeg{
			speed: patrolMinSpeed + (patrolMaxSpeed-patrolMinSpeed)*rng.Float64(),
			accel: patrolMinAccel + (patrolMaxAccel-patrolMinAccel)*rng.Float64(),
			brake: patrolMinBrake + (patrolMaxBrake-patrolMinBrake)*rng.Float64(),
		}
		if rng.Float64() < patrolStopShare {
			legs[i].stand = patrolMinStand + (patrolMaxStand-patrolMinStand)*rng.Float64()
		}
	}
	r, err := deadreckon.NewRoute(ways, true, true)
	return r, legs, err
}

// patrolDriver drives a route leg by leg: toward each leg's cruising speed at its
// acceleration, braking at its rate to stop exactly at the waypoints it stands at,
// and from one leg's speed to the next's at the waypoint between them.
type patrolDriver struct {
	r     *deadreckon.Route
	legs  []patrolLeg
	leg   int     // the leg driven
	laps  int     // whole laps done
	s, v  float64 // unwrapped arc length, m, and speed, m/s
	t     float64 // time reached, s
	stand float64 // time left standing, s
}

// legEnd returns the unwrapped arc length where the current leg ends, m.
func (d *patrolDriver) legEnd() float64 {
	n := len(d.legs)
	next := (d.leg + 1) % n
	end := d.r.WaypointS(next) + float64(d.laps)*d.r.Length()
	if next == 0 {
		end += d.r.Length()
	}
	return end
}

// run drives on to time t in steps of substep.
func (d *patrolDriver) run(t float64) {
	for d.t < t-1e-12 {
		h := math.Min(substep, t-d.t)
		d.t += h
		if d.stand > 0 {
			d.stand -= h
			continue
		}
		l := d.legs[d.leg]
		next := d.legs[(d.leg+1)%len(d.legs)]
		left := d.legEnd() - d.s
		// The speed allowed here: the leg's own, and what still brakes to the
		// stand (or to the next leg's lower speed) at the leg's end.
		end := next.speed
		if l.stand > 0 {
			end = 0
		}
		target := math.Min(l.speed, math.Sqrt(end*end+2*l.brake*math.Max(0, left)))
		if l.stand > 0 {
			target = math.Max(target, patrolCreep) // arrive, rather than approach for ever
		}
		if d.v < target {
			d.v = math.Min(target, d.v+l.accel*h)
		} else {
			d.v = math.Max(target, d.v-l.brake*h)
		}
		d.s += d.v * h
		if d.s >= d.legEnd()-1e-9 {
			if l.stand > 0 {
				d.s = d.legEnd() // at rest on the waypoint
				d.stand, d.v = l.stand, 0
			}
			if d.leg+1 == len(d.legs) {
				d.laps++
			}
			d.leg = (d.leg + 1) % len(d.legs)
		}
	}
}
