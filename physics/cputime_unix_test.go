//go:build unix

package physics

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used so far, user and system:
// unlike wall time it does not grow when other programs share the machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
