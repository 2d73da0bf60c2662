package tank_test

import (
	"fmt"

	"github.com/treadline/treadline/tank"
)

// The default tank's hit box and where its shell leaves with the turret forward and
// the gun level.
func ExampleSpec_Muzzle() {
	s := tank.Default()
	origin, dir := s.Muzzle(0, 0)
	fmt.Printf("hull box %.2f … %.2f m\n", s.HullMin(), s.HullMax())
	fmt.Printf("muzzle %.3f m, pointing %.0f\n", origin, dir)
	// Output:
	// hull box [-3.45 0.00 -1.80] … [3.45 2.30 1.80] m
	// muzzle [4.900 1.925 0.000] m, pointing [1 0 0]
}
