//go:build !linux

package cputime

import "time"

// Thread reports false: a thread's CPU time is read on Linux only.
func Thread() (time.Duration, bool) { return 0, false }

// ThreadRunDelay returns 0: the time a thread waited for a CPU is read on Linux only.
func ThreadRunDelay() time.Duration { return 0 }

// ThreadID reports false: threads' CPU clocks are read on Linux only.
func ThreadID() (int, bool) { return 0, false }

// OfThread reports false: a thread's CPU time is read on Linux only.
func OfThread(id int) (time.Duration, bool) { return 0, false }
