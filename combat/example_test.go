package combat_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
)

// A shell aimed at a point 200 m off on level ground: the elevation that reaches it,
// and where the shell is when it arrives.
func ExampleBallisticElevation() {
	el, ok := combat.BallisticElevation(200, 0)
	s := combat.Shot{Direction: mgl64.Vec3{math.Cos(el), math.Sin(el), 0}, Time: 10}
	flight := 200 / (combat.MuzzleVelocity * math.Cos(el))
	p := s.At(10 + flight)
	fmt.Printf("in reach %v: elevation %.2f°, %.3f s of flight, lands %.1f m off, %.3f m up\n",
		ok, el*180/math.Pi, flight, p[0], math.Abs(p[1]))
	// Output:
	// in reach true: elevation 1.41°, 1.000 s of flight, lands 200.0 m off, 0.000 m up
}
