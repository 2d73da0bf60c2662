package physics_test

import (
	"fmt"
	"log"

	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

func Example() {
	m, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		log.Fatal(err)
	}
	w, err := physics.NewWorld(physics.MapConfig(m))
	if err != nil {
		log.Fatal(err)
	}
	s := m.Spawns()[0]
	tank, err := w.AddTank(physics.TankSpec{}, s[0], s[1], 0) // a default 50 t tank
	if err != nil {
		log.Fatal(err)
	}
	tank.SetInput(physics.Input{Throttle: 1, AimYaw: 1.2})
	for frame := 0; frame < 180; frame++ {
		w.Step(1.0 / 60) // frame time in; fixed 60 Hz steps inside
	}
	p := tank.Pose()
	fmt.Printf("t = %.1f s: %.1f m/s, turret %.0f°, on the ground: %v\n",
		p.Time, p.Velocity.Len(), p.Turret*180/3.141592653589793, p.OnGround)
	// Output:
	// t = 3.0 s: 8.7 m/s, turret 69°, on the ground: true
}

// A remote tank stands in the world as a proxy moved to its reckoned pose each frame;
// a local tank driving at it stops against it.
func ExampleWorld_AddProxy() {
	w, err := physics.NewWorld(physics.WorldConfig{}) // flat ground, no border
	if err != nil {
		log.Fatal(err)
	}
	tank, err := w.AddTank(physics.TankSpec{}, 0, 0, 0) // facing +X
	if err != nil {
		log.Fatal(err)
	}
	remote, err := w.AddProxy(physics.TankSpec{}, 30, 0, 0) // 30 m ahead
	if err != nil {
		log.Fatal(err)
	}
	tank.SetInput(physics.Input{Throttle: 1})
	for frame := 0; frame < 600; frame++ {
		// The reckoned pose of the remote tank at the world's present: parked.
		if err := remote.MoveTo(30, 0, 0, 0, 0, 0); err != nil {
			log.Fatal(err)
		}
		w.Step(1.0 / 60)
	}
	x, _, _ := remote.Place()
	p := tank.Pose()
	fmt.Printf("tank at x = %.1f m, %.1f m/s, touching: %v; remote tank still at x = %.1f m\n",
		p.Position[0], p.Velocity.Len(), tank.Touching(), x)
	// Output:
	// tank at x = 23.1 m, 0.0 m/s, touching: true; remote tank still at x = 30.0 m
}
