package cputime

import (
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"
)

// Thread returns the CPU time the calling OS thread has used, and true; the caller
// locks its goroutine to the thread (runtime.LockOSThread, or GLFW's main thread).
// It is the scheduler's own count, to the nanosecond, not the timer tick's samples
// that Process reports.
func Thread() (time.Duration, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}

// ThreadRunDelay returns the time the calling thread has spent ready to run but
// waiting for a CPU (the second field of /proc/thread-self/schedstat), or 0 if it
// cannot be read: a wall-clock interval less this is what the thread itself took,
// whatever else the machine was running.
func ThreadRunDelay() time.Duration {
	b, err := os.ReadFile("/proc/thread-self/schedstat")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return 0
	}
	ns, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil || ns < 0 {
		return 0
	}
	return time.Duration(ns)
}
