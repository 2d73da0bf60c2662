//go:build !linux

package client

import "time"

// threadCPU returns 0: the thread's CPU time is read on Linux only, and the
// benchmark then leaves its CPU line out.
func threadCPU() time.Duration { return 0 }

// threadRunDelay returns 0: the time a thread waited for a CPU is read on Linux only.
func threadRunDelay() time.Duration { return 0 }
