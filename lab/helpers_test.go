package lab

import "time"

// sec converts seconds to a Duration.
func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }
