package lab

import (
	"fmt"
	"math"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// tankMapSeed is the seed of the generated valley the tank scenario drives on.
const tankMapSeed = 1

// tankLeg is one step of the tank scenario's scripted drive.
type tankLeg struct {
	seconds         float64
	throttle, steer float64
}

// tankScript returns the tank scenario's input, repeated every 20 s: a hard left arc, a
// dash, a tighter slow arc, a brake, and a full-power arc away, all turning left so
// that the tank loops round the valley floor.
func tankScript() [5]tankLeg {
	return [5]tankLeg{
		{6, 0.6, -1},
		{3, 1, -0.2},
		{4, 0.35, -1},
		{2, -0.4, 0},
		{5, 1, -0.6},
	}
}

// tankInput returns the scripted input at time t.
func tankInput(t float64) physics.Input {
	script := tankScript()
	period := 0.0
	for _, l := range script {
		period += l.seconds
	}
	u := math.Mod(t, period)
	for _, l := range script {
		if u < l.seconds {
			return physics.Input{Throttle: l.throttle, Steer: l.steer}
		}
		u -= l.seconds
	}
	return physics.Input{}
}

// valleyWorld generates the lab's valley (tankMapSeed) and a physics world on it,
// for the scenarios that drive a tank through package physics; name is the
// scenario's, for errors.
func valleyWorld(name string) (*terrain.Map, physics.WorldConfig, *physics.World, error) {
	m, err := terrain.Generate(terrain.GenerateConfig{Seed: tankMapSeed})
	if err != nil {
		return nil, physics.WorldConfig{}, nil, fmt.Errorf("%s scenario map: %w", name, err)
	}
	wc := physics.MapConfig(m)
	w, err := physics.NewWorld(wc)
	if err != nil {
		return nil, physics.WorldConfig{}, nil, fmt.Errorf("%s scenario world: %w", name, err)
	}
	return m, wc, w, nil
}

// buildTank drives a default tank through package physics on the generated valley,
// from the middle of the valley floor, with a scripted input. The frame rate need not
// match the physics rate: each frame steps the world by one frame interval.
func buildTank(fps, duration float64) (*Path, error) {
	m, wc, w, err := valleyWorld("tank")
	if err != nil {
		return nil, err
	}
	start, ok := m.Landmark(tankStart)
	if !ok {
		return nil, fmt.Errorf("tank scenario: map has no %q landmark", tankStart)
	}
	tank, err := w.AddTank(physics.TankSpec{}, start.X, start.Z, start.Yaw)
	if err != nil {
		return nil, fmt.Errorf("tank scenario: %w", err)
	}
	n := frames(fps, duration)
	p := &Path{Name: "tank", FrameInterval: 1 / fps, Poses: make([]Pose, n), Ground: m,
		Clamp: deadreckon.ClampAlways, Footprint: tank.Spec().Footprint(),
		Collide: deadreckon.Collide{Obstacles: wc.Walls(), Hull: physics.Hull(tank.Spec().Spec)}}
	for i := range p.Poses {
		t := float64(i) / fps
		if i > 0 {
			tank.SetInput(tankInput(t))
			w.Step(1 / fps)
		}
		pose := tank.Pose()
		p.Poses[i] = Pose{Time: t, Position: pose.Position, Orientation: pose.Orientation}
	}
	return p, nil
}

// tankStart is the landmark the tank scenario starts at.
const tankStart = "floor"
