package replay

import (
	"errors"
	"math"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// ErrReadOnly is returned by a Link's sending methods: a replay cannot change what
// happened.
var ErrReadOnly = errors.New("replay: a recording cannot be played in")

// Nobody is the player id a Link reports: no tank of the recording is its own, so a
// game.Match on it shows every tank as a remote one, reckoned from its updates.
const Nobody = math.MaxUint32

// Link is a game.Link that plays a Recording back: Poll hands out each event once
// the link's clock (SetNow) reaches the time the recorder handled it. State updates
// may be handed out Lead seconds early (never before their tank's spawn), which a
// delayed reckoner turns into a view of the present (see Player). A Link is not safe
// for concurrent use.
type Link struct {
	rec  *Recording
	now  float64
	lead float64
	next int // the first event not yet handed out
	// early holds the events handed out ahead of their time (Lead), by index.
	early map[int]bool
	// spawned holds the tanks whose spawn has been handed out and not their despawn.
	spawned map[uint32]bool
}

// NewLink returns a link at the start of rec.
func NewLink(rec *Recording) *Link {
	return &Link{rec: rec, now: rec.Start, early: make(map[int]bool), spawned: make(map[uint32]bool)}
}

// SetLead hands state updates out up to lead seconds before their time from now on
// (negative: zero).
func (l *Link) SetLead(lead float64) { l.lead = math.Max(0, lead) }

// SetNow moves the link's clock to t seconds; an earlier t is ignored.
func (l *Link) SetNow(t float64) {
	if t > l.now {
		l.now = t
	}
}

// ID returns Nobody.
func (l *Link) ID() uint32 { return Nobody }

// Now returns the link's clock, s on the recorder's clock.
func (l *Link) Now() float64 { return l.now }

// Spawn refuses: a replay spawns nothing.
func (l *Link) Spawn(string, int, deadreckon.State) (uint32, error) { return 0, ErrReadOnly }

// Despawn refuses.
func (l *Link) Despawn(uint32) error { return ErrReadOnly }

// Publish refuses.
func (l *Link) Publish(uint32, deadreckon.State) error { return ErrReadOnly }

// Chat refuses.
func (l *Link) Chat(string) error { return ErrReadOnly }

// Send drops a game message: the recording's own answers come in its events.
func (l *Link) Send(wire.Message) error { return nil }

// Refereed reports true: the recording carries the host's verdicts.
func (l *Link) Refereed() bool { return true }

// Stats returns the recording's clock offset at the link's clock; the rest is zero.
func (l *Link) Stats() net.Stats {
	return net.Stats{ClockOffset: units.Duration(l.rec.ClockOffset(l.now))}
}

// Poll appends the events due by the link's clock, in order, and returns buf.
func (l *Link) Poll(buf []net.Event) []net.Event {
	ev := l.rec.Events
	for l.next < len(ev) && ev[l.next].Time <= l.now {
		e := &ev[l.next].Event
		switch e.Kind {
		case net.EventSpawn:
			l.spawned[e.Actor] = true
		case net.EventDespawn:
			delete(l.spawned, e.Actor)
		}
		if !l.early[l.next] {
			buf = append(buf, *e)
		}
		delete(l.early, l.next)
		l.next++
	}
	if l.lead <= 0 {
		return buf
	}
	for i := l.next; i < len(ev) && ev[i].Time <= l.now+l.lead; i++ {
		e := &ev[i].Event
		if e.Kind == net.EventState && l.spawned[e.Actor] && !l.early[i] {
			l.early[i] = true
			buf = append(buf, *e)
		}
	}
	return buf
}

// Done reports whether every event has been handed out.
func (l *Link) Done() bool { return l.next >= len(l.rec.Events) }
