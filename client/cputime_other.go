//go:build !linux

package client

import "time"

// threadCPU returns 0: the thread's CPU time is read on Linux only, and the
// benchmark then leaves its CPU line out.
func threadCPU() time.Duration { return 0 }
