package net

import (
	"syscall"
	"time"
)

// threadCPU returns the CPU time the calling OS thread has used, and true; the
// caller locks its goroutine to the thread. On a shared machine the wall time of
// a section counts the other processes' turns on the cores as well; this counts
// only the thread's own.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_THREAD, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
