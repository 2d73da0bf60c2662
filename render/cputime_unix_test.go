//go:build unix

package render

import (
	"syscall"
	"time"
)

// processCPU returns the CPU time the process has used so far, user and system. With
// LP_NUM_THREADS=0 Mesa's software renderer draws on the calling thread, so this
// counts the drawing too, and unlike wall time it does not grow when other programs
// share the machine.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
