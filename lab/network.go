package lab

import (
	"fmt"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/impair"
)

// arrivalEpsilon absorbs rounding in arrival times, s: a message due within it of a
// frame counts as arriving exactly then, and so waits for the next frame.
const arrivalEpsilon = 1e-9

// message is one state update in flight.
type message struct {
	arrive float64 // local time of arrival, s
	seq    uint64  // send order, breaks ties so delivery is deterministic
	state  deadreckon.State
	brk    bool // a continuity break, applied with Actor.Break
	// path is a Progress or a Route instead of a state (the path algorithm).
	path *pathMessage
}

// pathMessage is a Progress, or a Route with its number, in flight.
type pathMessage struct {
	progress deadreckon.Progress
	route    *deadreckon.Route
	routeID  uint16
}

// before orders messages by arrival, then by send order.
func (m message) before(o message) bool {
	if m.arrive != o.arrive {
		return m.arrive < o.arrive
	}
	return m.seq < o.seq
}

// Network carries state updates from the owner to the remote peer in simulated time:
// the link model of package net/impair (impair.Path: latency, jitter, loss in bursts,
// duplication, reordering), run on a seeded, deterministic event queue with no
// sockets. It is not safe for concurrent use.
type Network struct {
	path      *impair.Path
	latency   time.Duration // the link's base latency, for the reliable route
	q         eventQueue[message]
	seq       uint64
	sent      int
	lost      int
	delivered int
}

// NewNetwork returns a link impaired as l whose random draws come from seed: the same
// seed and the same sends give the same deliveries.
func NewNetwork(l impair.Link, seed uint64) (*Network, error) {
	p, err := impair.NewPath(l, seed)
	if err != nil {
		return nil, fmt.Errorf("network: %w", err)
	}
	return &Network{path: p, latency: l.Latency}, nil
}

// Send puts s on the link at local time now (s); brk marks a continuity break. It may
// be lost, delayed, held back behind later sends or duplicated.
func (n *Network) Send(s deadreckon.State, brk bool, now float64) {
	n.sent++
	d := n.path.Send(units.Duration(now))
	if d.Lost {
		n.lost++
		return
	}
	n.push(s, brk, d.At)
	if d.Duplicated {
		n.push(s, brk, d.DuplicateAt)
	}
}

func (n *Network) push(s deadreckon.State, brk bool, at time.Duration) {
	n.seq++
	n.q.push(message{arrive: at.Seconds(), seq: n.seq, state: s, brk: brk})
}

// SendProgress puts p on the link at local time now (s), as Send puts a state: it
// may be lost, delayed, held back or duplicated.
func (n *Network) SendProgress(p deadreckon.Progress, now float64) {
	n.sent++
	d := n.path.Send(units.Duration(now))
	if d.Lost {
		n.lost++
		return
	}
	pm := &pathMessage{progress: p}
	n.pushPath(pm, d.At)
	if d.Duplicated {
		n.pushPath(pm, d.DuplicateAt)
	}
}

// SendRoute sends route r, numbered id, at local time now (s) as the game sends it:
// on the reliable stream, modelled as arriving after the link's base latency, never
// lost, and drawing nothing from the link's random source.
func (n *Network) SendRoute(id uint16, r *deadreckon.Route, now float64) {
	n.pushPath(&pathMessage{route: r, routeID: id}, units.Duration(now)+n.latency)
}

func (n *Network) pushPath(pm *pathMessage, at time.Duration) {
	n.seq++
	n.q.push(message{arrive: at.Seconds(), seq: n.seq, path: pm})
}

// Delivery is a message handed out by Deliver.
type Delivery struct {
	// State is the update carried.
	State deadreckon.State
	// Break marks a continuity break (a teleport), to apply with Actor.Break.
	Break bool
	// Arrival is the local time it arrived, s.
	Arrival float64
	// IsProgress says the message is Progress (for Actor.ReceiveProgress), not a
	// state; a non-nil Route says it is the route numbered RouteID (Actor.SetRoute).
	IsProgress bool
	Progress   deadreckon.Progress
	Route      *deadreckon.Route
	RouteID    uint16
}

// Deliver appends to buf, in arrival order, every message that arrived before local
// time now (s), removes them from the link and returns the extended buffer. A message
// arriving exactly at now waits for the next call: a frame's updates are sent after it
// is rendered, so a remote frame at the same instant cannot have read them.
func (n *Network) Deliver(buf []Delivery, now float64) []Delivery {
	for len(n.q) > 0 && n.q[0].arrive < now-arrivalEpsilon {
		m := n.q.pop()
		d := Delivery{State: m.state, Break: m.brk, Arrival: m.arrive}
		if m.path != nil {
			d.IsProgress = m.path.route == nil
			d.Progress, d.Route, d.RouteID = m.path.progress, m.path.route, m.path.routeID
		}
		buf = append(buf, d)
		n.delivered++
	}
	return buf
}

// Lost returns how many messages the link dropped.
func (n *Network) Lost() int { return n.lost }

// describeLink says in words how a link is impaired.
func describeLink(l impair.Link) string {
	s := fmt.Sprintf("latency %s, jitter ±%s, loss %.0f%%", ms(l.Latency.Seconds()), ms(l.Jitter.Seconds()), 100*l.Loss)
	if l.LossBurst > 1 {
		s += fmt.Sprintf(" in bursts of %g", l.LossBurst)
	}
	if l.Reorder > 0 {
		s += fmt.Sprintf(", reorder %.0f%%", 100*l.Reorder)
	}
	if l.Duplicate > 0 {
		s += fmt.Sprintf(", duplicate %.0f%%", 100*l.Duplicate)
	}
	return s
}
