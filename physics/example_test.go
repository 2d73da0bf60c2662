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
