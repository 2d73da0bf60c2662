package lab

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
)

// stopsLeg is one drive of the stops scenario: from rest to speed and back to rest,
// then a stand.
type stopsLeg struct {
	speed  float64 // top speed, m/s; negative drives in reverse
	accel  float64 // m/s²
	cruise float64 // s at top speed
	brake  float64 // m/s²
	stand  float64 // s at rest after the leg
}

// stopsLegs returns the stops scenario's drives, repeated in turn: slow and fast,
// gentle and hard, forward and in reverse, with stands from half a second (a stop
// that is barely one) to six (long enough that only heartbeats are sent before the
// next start).
func stopsLegs() [7]stopsLeg {
	return [7]stopsLeg{
		{4, 2, 1, 3, 1},
		{12, 4, 1.5, 6, 0.5},
		{8, 6, 0.5, 8, 2},
		{-4, 3, 1, 4, 1.5},
		{15, 3, 2, 5, 6},
		{6, 5, 0, 4, 1.5},
		{10, 2.5, 1, 7, 0.8},
	}
}

// stopsTurn is the stops scenario's yaw rate while it moves, rad/s per m/s of speed
// (a gentle left curve, so that the drive stays near its start).
const stopsTurn = 0.01

// buildStops drives the stops legs in turn on flat ground.
func buildStops(fps, duration float64) *Path {
	legs := stopsLegs()
	speed := func(t float64) float64 {
		period := 0.0
		for _, l := range legs {
			period += l.length()
		}
		u := math.Mod(t, period)
		for _, l := range legs {
			if u < l.length() {
				return l.speedAt(u)
			}
			u -= l.length()
		}
		return 0
	}
	// speed is negative in reverse: the heading stays, the travel turns round.
	yawRate := func(t float64) float64 { return stopsTurn * speed(t) }
	return integrate("stops", fps, duration, mgl64.Vec3{-40, 0, 20}, 0, speed, yawRate)
}

// length returns how long the leg lasts, s.
func (l stopsLeg) length() float64 {
	v := math.Abs(l.speed)
	return v/l.accel + l.cruise + v/l.brake + l.stand
}

// speedAt returns the signed speed u seconds into the leg, m/s.
func (l stopsLeg) speedAt(u float64) float64 {
	v := math.Abs(l.speed)
	up, down := v/l.accel, v/l.brake
	s := 0.0
	switch {
	case u < up:
		s = l.accel * u
	case u < up+l.cruise:
		s = v
	case u < up+l.cruise+down:
		s = v - l.brake*(u-up-l.cruise)
	}
	return math.Copysign(s, l.speed)
}

// parkedHeading is where the parked tank faces, rad.
const parkedHeading = 0.7

// buildParked stands still for the whole run: only heartbeats are published, and a
// lossy link loses some of them.
func buildParked(fps, duration float64) *Path {
	n := frames(fps, duration)
	p := &Path{Name: "parked", FrameInterval: 1 / fps, Poses: make([]Pose, n)}
	for i := range p.Poses {
		p.Poses[i] = Pose{Time: float64(i) / fps, Position: mgl64.Vec3{12, 0, -7}, Orientation: geom.YawQuat(parkedHeading)}
	}
	return p
}

// wanderSeeds returns the seeds of the wander scenarios' drives. They were chosen
// once, before any run, and are never changed to suit a result: the wander drives
// are the paths no tuning has seen.
func wanderSeeds() [3]uint64 { return [3]uint64{1, 2, 3} }

// Wander drive parameters.
const (
	// wanderMinLeg and wanderMaxLeg bound how long a player holds one set of keys, s.
	wanderMinLeg, wanderMaxLeg = 0.3, 3.0
	// wanderHome is how far from the map's centre, as a share of its half-size, the
	// drive turns back toward the centre.
	wanderHome = 0.6
)

// wanderName returns the name of the wander scenario driven with seed number i.
func wanderName(i int) string { return fmt.Sprintf("wander%d", i+1) }

// buildWander returns the builder of a random wandering drive through package
// physics over the whole generated map, hills included: every 0.3 s to 3 s new keys
// (wanderInput) drawn from seed, and a turn back toward the centre near the border.
func buildWander(name string, seed uint64) func(fps, duration float64) (*Path, error) {
	return func(fps, duration float64) (*Path, error) {
		m, wc, w, err := valleyWorld(name)
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(seed, 0x77616e646572)) // "wander"
		lo, hi := m.Min(), m.Max()
		centre := mgl64.Vec2{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}
		half := math.Min(hi[0]-lo[0], hi[1]-lo[1]) / 2
		start := centre.Add(mgl64.Vec2{(rng.Float64() - 0.5) * half, (rng.Float64() - 0.5) * half})
		tank, err := w.AddTank(physics.TankSpec{}, start[0], start[1], rng.Float64()*2*math.Pi)
		if err != nil {
			return nil, fmt.Errorf("%s scenario: %w", name, err)
		}
		n := frames(fps, duration)
		p := &Path{Name: name, FrameInterval: 1 / fps, Poses: make([]Pose, n), Ground: m,
			Clamp: deadreckon.ClampAlways, Footprint: tank.Spec().Footprint(),
			Collide: deadreckon.Collide{Obstacles: wc.Walls(), Hull: physics.Hull(tank.Spec().Spec)}}
		var in physics.Input
		next := 0.0
		for i := range p.Poses {
			t := float64(i) / fps
			if i > 0 {
				if t >= next {
					in, next = wanderInput(rng), t+wanderMinLeg+rng.Float64()*(wanderMaxLeg-wanderMinLeg)
				}
				tank.SetInput(homeward(in, tank.Pose(), centre, wanderHome*half))
				w.Step(1 / fps)
			}
			pose := tank.Pose()
			p.Poses[i] = Pose{Time: t, Position: pose.Position, Orientation: pose.Orientation}
		}
		return p, nil
	}
}

// wanderInput draws the keys a player holds next: the client reads a keyboard, so
// throttle and steer are each −1, 0 or +1. Ahead is held most of the time, reverse
// sometimes; steering left, right or not at all alike.
func wanderInput(rng *rand.Rand) physics.Input {
	var in physics.Input
	switch r := rng.Float64(); {
	case r < 0.2:
		in.Throttle = 0 // coast to a stop
	case r < 0.3:
		in.Throttle = -1
	default:
		in.Throttle = 1
	}
	in.Steer = float64(rng.IntN(3) - 1)
	return in
}

// homeward returns in, steered toward centre when the tank is more than radius from
// it and heading away.
func homeward(in physics.Input, pose physics.Pose, centre mgl64.Vec2, radius float64) physics.Input {
	to := centre.Sub(mgl64.Vec2{pose.Position[0], pose.Position[2]})
	if to.Len() <= radius {
		return in
	}
	want := geom.Heading(mgl64.Vec3{to[0], 0, to[1]})
	e := math.Remainder(want-pose.Yaw, 2*math.Pi)
	if math.Abs(e) < math.Pi/6 {
		return in
	}
	// Steer is negative to the left (toward +yaw).
	in.Steer = -math.Copysign(1, e)
	in.Throttle = math.Max(in.Throttle, 0.4)
	return in
}
