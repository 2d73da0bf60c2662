package net

import "time"

// Clock tells a host or client the time. Now returns the time elapsed since some
// fixed instant of the clock's choosing; it must never run backwards. Only
// differences between readings matter. Tests pass a clock they move by hand, so that
// timeouts, token buckets and rates follow the test rather than the wall clock.
// Network deadlines (the QUIC handshake, stream writes) always run in real time.
type Clock interface {
	Now() time.Duration
}

// systemClock is the process's monotonic clock, the default Clock.
type systemClock struct{ start time.Time }

func newSystemClock() systemClock { return systemClock{start: time.Now()} }

// Now returns the time since the clock was made.
func (c systemClock) Now() time.Duration { return time.Since(c.start) }
