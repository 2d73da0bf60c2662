package game

import (
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
)

// Observer sees what a Match steps on, for recording it (package record's MatchTap).
// Step calls it on the goroutine that steps the match; it must not block, and must
// copy what it keeps: the events and states passed are reused.
type Observer interface {
	// Polled reports a tick at local time now (s) and the events it handles, as the
	// link delivered them, with the link's clock offset (host − local).
	Polled(now float64, events []net.Event, clockOffset time.Duration)
	// Published reports an update of a local tank as the match hands it to the link
	// at local time now, before the link stamps it.
	Published(actor uint32, s deadreckon.State, now float64)
	// Truth reports a local tank's true physics pose, sampled at local time s.Time:
	// the pose its publisher decides on.
	Truth(actor uint32, s *deadreckon.Sample)
}
