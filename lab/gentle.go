package lab

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/physics"
)

// GentlePrefix names a gentle stop-and-go drive of any seed: "gentle:N" is the
// drive buildGentle makes with seed N (a decimal uint64).
const GentlePrefix = "gentle:"

// Gentle drive parameters.
const (
	// gentleMinAccel and gentleMaxAccel bound how fast a start opens the throttle,
	// as the acceleration it asks of the tank, m/s².
	gentleMinAccel, gentleMaxAccel = 0.5, 3.0
	// gentleMinSpeed and gentleMaxSpeed bound a drive's speed ahead, m/s.
	gentleMinSpeed, gentleMaxSpeed = 2.0, 12.0
	// gentleReverse is the share of drives in reverse, at half to full reverse
	// throttle.
	gentleReverse = 0.15
	// gentleMaxSteer is the most steer a drive holds.
	gentleMaxSteer = 0.3
	// gentleMaxCruise is the longest time a drive holds its throttle once it is
	// open, s.
	gentleMaxCruise = 3.0
	// gentleMinStand and gentleMaxStand bound a stand with the throttle closed, s.
	gentleMinStand, gentleMaxStand = 1.5, 5.0
	// gentlePivot is the share of stands that end turning in place (full steer, the
	// throttle closed) for gentleMinPivot to gentleMaxPivot seconds, and of those
	// the share whose drive pulls away out of the turn, the steer held for up to
	// gentleMaxPullOut seconds more.
	gentlePivot, gentlePullOut                       = 0.5, 0.5
	gentleMinPivot, gentleMaxPivot, gentleMaxPullOut = 0.5, 2.0, 1.0
	// gentleCreep is the share of stands in which the driver keeps the throttle
	// barely open, the tank creeping at up to gentleMaxCreep m/s (stop-and-go
	// traffic), instead of closing it.
	gentleCreep, gentleMaxCreep = 0.3, 0.3
	// gentleFirstStand is when the first drive begins, s: after the lab's default
	// warm-up, so the first start is measured.
	gentleFirstStand = 2.5
)

// buildGentle returns the builder of a stop-and-go drive through package physics
// over the generated map's hills whose starts are gentle: from a stand with the
// throttle closed, the driver opens it evenly, asking 0.5 to 3 m/s² of the tank, up
// to a speed of 2 to 12 m/s ahead (or half to full reverse), steering a little,
// holds it for up to 3 s, then closes it at once (the tank brakes to rest) and
// stands 1.5 to 5 s. In three stands of ten the driver does not quite close the
// throttle and the tank creeps at up to 0.3 m/s before the next start; half the
// stands end turning in place, and half of the drives
// after those pull away out of the turn, still steering hard for up to a second: a
// tank turning in place creeps (its hull's centre is not the centre of the turn),
// and such a start begins from that crawl. Everything is drawn from seed.
func buildGentle(name string, seed uint64) func(fps, duration float64) (*Path, error) {
	return func(fps, duration float64) (*Path, error) {
		m, wc, w, err := valleyWorld(name)
		if err != nil {
			return nil, err
		}
		rng := rand.New(rand.NewPCG(seed, 0x67656e746c65)) // "gentle"
		between := func(lo, hi float64) float64 { return lo + rng.Float64()*(hi-lo) }
		lo, hi := m.Min(), m.Max()
		centre := mgl64.Vec2{(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2}
		half := math.Min(hi[0]-lo[0], hi[1]-lo[1]) / 2
		start := centre.Add(mgl64.Vec2{(rng.Float64() - 0.5) * half, (rng.Float64() - 0.5) * half})
		tank, err := w.AddTank(physics.TankSpec{}, start[0], start[1], rng.Float64()*2*math.Pi)
		if err != nil {
			return nil, fmt.Errorf("%s scenario: %w", name, err)
		}
		top := tank.Spec().TopSpeed
		n := frames(fps, duration)
		p := &Path{Name: name, FrameInterval: 1 / fps, Poses: make([]Pose, n), Ground: m,
			Clamp: deadreckon.ClampAlways, Footprint: tank.Spec().Footprint(),
			Collide: deadreckon.Collide{Obstacles: wc.Walls(), Hull: physics.Hull(tank.Spec().Spec)}}
		var in physics.Input
		driving, next := false, gentleFirstStand
		target, rate := 0.0, 0.0           // the throttle opened to, and how fast, per s
		pivotAt, pivot := math.Inf(1), 0.0 // when a stand's turn in place begins, and its steer
		creep := 0.0                       // a stand's throttle
		steer, pullOut := 0.0, 0.0         // a drive's steer, and until when it still turns as it pulls away
		for i := range p.Poses {
			t := float64(i) / fps
			if i > 0 {
				if t >= next {
					driving = !driving
					in = physics.Input{}
					if driving {
						target = between(gentleMinSpeed, gentleMaxSpeed) / top
						if rng.Float64() < gentleReverse {
							target = -between(0.5, 1)
						}
						rate = between(gentleMinAccel, gentleMaxAccel) / top
						steer, pullOut = between(-gentleMaxSteer, gentleMaxSteer), t
						if pivot != 0 && rng.Float64() < gentlePullOut {
							pullOut = t + rng.Float64()*gentleMaxPullOut
						}
						next = t + math.Abs(target)/rate + rng.Float64()*gentleMaxCruise
					} else {
						stand := between(gentleMinStand, gentleMaxStand)
						next, pivotAt, pivot, creep = t+stand, math.Inf(1), 0, 0
						switch r := rng.Float64(); {
						case r < gentleCreep:
							creep = rng.Float64() * gentleMaxCreep / top
						case r < gentleCreep+gentlePivot:
							pivotAt = next - math.Min(stand, between(gentleMinPivot, gentleMaxPivot))
							pivot = float64(2*rng.IntN(2) - 1)
						}
					}
				}
				switch {
				case driving && t < pullOut:
					in.Steer = pivot
				case driving:
					in.Steer = steer
				case t >= pivotAt:
					in.Steer = pivot
				}
				if !driving {
					in.Throttle = creep
				}
				if driving {
					in.Throttle = math.Copysign(math.Min(math.Abs(target), math.Abs(in.Throttle)+rate/fps), target)
					// Near the border the driver turns back toward the centre.
					tank.SetInput(homeward(in, tank.Pose(), centre, wanderHome*half))
				} else {
					tank.SetInput(in)
				}
				w.Step(1 / fps)
			}
			pose := tank.Pose()
			p.Poses[i] = Pose{Time: t, Position: pose.Position, Orientation: pose.Orientation}
		}
		return p, nil
	}
}
