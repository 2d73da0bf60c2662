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

// ThreadID returns the calling OS thread's id, and true, for OfThread; the caller
// locks its goroutine to the thread (runtime.LockOSThread) for the id to stay its.
func ThreadID() (int, bool) { return unix.Gettid(), true }

// OfThread returns the CPU time the OS thread id of this process has used, and
// true, or 0 and false when it cannot be read (the thread has ended, or id is not
// one of this process's threads). It reads the thread's own CPU clock, as Thread
// does from the thread itself, from any thread.
func OfThread(id int) (time.Duration, bool) {
	if id <= 0 || id >= 1<<28 { // not a thread id, or beyond the clock id's bits
		return 0, false
	}
	// The kernel's clock id of a thread's CPU clock (MAKE_THREAD_CPUCLOCK in
	// linux/posix-timers.h): the id's complement shifted by three, the
	// per-thread bit (4) and the scheduler's clock (CPUCLOCK_SCHED, 2).
	clock := int32(^id<<3 | 4 | 2)
	var ts unix.Timespec
	if unix.ClockGettime(clock, &ts) != nil {
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
