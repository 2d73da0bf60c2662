package net

import (
	"sync"
	"time"
)

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

// ManualClock is a Clock that moves only when told: an offline host's (NewOffline),
// a test's or a simulation's. Its zero value reads 0. It never runs backwards: a Set
// to an earlier time and a negative Advance are ignored. It is safe for concurrent use.
type ManualClock struct {
	mu  sync.Mutex
	now time.Duration
}

// Now returns the clock's time.
func (c *ManualClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Set moves the clock to t; a t earlier than the clock is ignored.
func (c *ManualClock) Set(t time.Duration) {
	c.mu.Lock()
	c.now = max(c.now, t)
	c.mu.Unlock()
}

// Advance moves the clock forward by d.
func (c *ManualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now += max(d, 0)
	c.mu.Unlock()
}
