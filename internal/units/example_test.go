package units_test

import (
	"fmt"
	"time"

	"github.com/treadline/treadline/internal/units"
)

// A flag gives a latency as a Duration; the simulation runs in seconds, and a
// heartbeat read off the wire in seconds goes back into a timer.
func Example() {
	fmt.Println(units.Seconds(150 * time.Millisecond))
	fmt.Println(units.Duration(0.3))
	fmt.Println(units.Duration(1.0 / 60))
	// Output:
	// 0.15
	// 300ms
	// 16.666667ms
}
