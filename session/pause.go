package session

import (
	"sync"
	"time"

	"github.com/treadline/treadline/net"
)

// PauseClock is a clock that can stand still: a practice match alone with bots runs
// its host, its bots and the player's match on one, so pausing it stops the whole
// match (tanks, shells, reloads, the round's clock and every timeout) and resuming
// goes on from the same instant. It is safe for concurrent use.
type PauseClock struct {
	base net.Clock

	mu       sync.Mutex
	paused   bool
	pausedAt time.Duration // base time the pause began
	held     time.Duration // base time spent paused before the current pause
}

// NewPauseClock returns a running clock that follows base.
func NewPauseClock(base net.Clock) *PauseClock { return &PauseClock{base: base} }

// Now returns base's time less the time spent paused; it stands still while paused.
func (c *PauseClock) Now() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.paused {
		return c.pausedAt - c.held
	}
	return c.base.Now() - c.held
}

// Pause stops the clock (on) or starts it again (off); repeating either does nothing.
func (c *PauseClock) Pause(on bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case on && !c.paused:
		c.paused, c.pausedAt = true, c.base.Now()
	case !on && c.paused:
		c.paused = false
		c.held += c.base.Now() - c.pausedAt
	}
}

// Paused reports whether the clock stands still.
func (c *PauseClock) Paused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused
}
