//go:build !unix

package render

import "time"

// processCPU is not measured on this system.
func processCPU() time.Duration { return 0 }
