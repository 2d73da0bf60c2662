package net

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/net/wire"
)

// Observers. A client that joins with an ObserveRequest (ClientConfig.Observe) gets
// no tank: the host refuses its spawns, shots and claims, does not count it among
// the players (Limits.MaxPlayers) but among at most Limits.MaxObservers observers,
// never kicks it for publishing nothing, and, once the downlink scheduler is on,
// sends it the tanks near its camera within a budget of its own
// (Limits.ObserverDownlink). Where the camera is, the host decides: from the map's
// centre it follows the tank the observer names, by that tank's accepted state, or
// flies toward the free camera's reported place no faster than observerSpeed, within
// the map. Nothing an observer says can widen its interest or its budget.

const (
	// DefaultMaxObservers is how many observers a host admits at once, besides its
	// players.
	DefaultMaxObservers = 8
	// DefaultObserverDownlink is each observer's budget of state updates from the
	// host, bytes of datagram payload per second, once the downlink scheduler is on.
	DefaultObserverDownlink = 16000
	// observerSpeed is how fast, m/s, the host lets an observer's free camera move
	// its place: faster than the client's free camera flies (client.freeSpeed), so
	// an honest one is never held back.
	observerSpeed = 100.0
)

// observeJoined marks p, just admitted, an observer and tells everyone how many
// watch now.
func (m *match) observeJoined(p *member) {
	p.observing = true
	p.viewAt = p.joinedAt
	m.observers++
	if z := m.zones; z != nil && m.h.lim.ObserverDownlink > 0 {
		p.budget = z.budgetAt(float64(m.h.lim.ObserverDownlink), p.joinedAt)
	}
	m.broadcast(&wire.Observers{Count: uint16(min(m.observers, math.MaxUint16))})
}

// observeLeft counts an observer out.
func (m *match) observeLeft(p *member) {
	if !p.observing {
		return
	}
	m.observers--
	m.broadcast(&wire.Observers{Count: uint16(min(m.observers, math.MaxUint16))})
}

// onView moves an observer's place as its View asks, within what an observer may
// do. It returns how many bad items the datagram was (0 or 1).
func (m *match) onView(p *member, b []byte, now float64) int {
	msg, _, err := wire.Parse(b)
	v, ok := msg.(*wire.View)
	switch {
	case err != nil || !ok:
		m.stats.Malformed++
		return 1
	case !p.observing:
		m.stats.Unauthorized++ // a player watches from its tanks
		return 1
	case !p.trusted && !p.control.Take(now):
		m.stats.RateLimited++
		return 1
	}
	p.place = m.viewPlace(p, v, now)
	p.viewAt = now
	if z := m.zones; z != nil {
		z.ghosts.Move(p, p.place[0], p.place[2])
	}
	return 0
}

// viewPlace returns where the host puts observer p for view v at now: on the tank it
// follows, or from its place toward the free camera by at most observerSpeed since
// its last view, within the map.
func (m *match) viewPlace(p *member, v *wire.View, now float64) mgl64.Vec3 {
	if a := m.actors[v.Follow]; v.Follow != 0 && a != nil {
		return a.state.Position
	}
	to := v.Position
	to[1] = 0
	from := p.place
	from[1] = 0
	step := to.Sub(from)
	if d, most := step.Len(), observerSpeed*math.Max(0, now-p.viewAt); d > most {
		step = step.Mul(most / d)
	}
	next := from.Add(step)
	e := m.h.match.Extent
	next[0] = math.Max(-e, math.Min(e, next[0]))
	next[2] = math.Max(-e, math.Min(e, next[2]))
	return next
}
