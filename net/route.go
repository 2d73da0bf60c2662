package net

import (
	"fmt"
	"math"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/wire"
)

// Routes (path-based dead reckoning, PROTOCOL.md section 4). An owner publishes the
// route an actor follows on the control stream, then Progress datagrams along it.
// The host checks a route as it checks any state (finite, within the map, a route
// deadreckon builds), keeps the last one of each actor and sends it to every other
// player, and to each that joins later, before any progress on it. A progress is
// the state it implies (the route's point at its arc length, facing along it, at
// its rate), and passes every check an update passes, the Mover's included: it is
// relayed as the datagram its owner sent while every player hears every update, and
// as the update record of the state it implies once the downlink scheduler
// rations them (zones.go), since a player the scheduler resamples hears of the tank
// when its turn comes, in the one record format the scheduler sends.

// Grounder is a Mover that knows the ground's height, which the host gives the
// state a progress implies: a route's waypoints lie on the ground, the curve between
// them need not.
type Grounder interface {
	// GroundHeight returns the ground's height at (x, z), m, and false off the map.
	GroundHeight(x, z float64) (float64, bool)
}

// RouteJudge is a Judge that hears routes and progress along them, to reckon what
// each player was shown of a tank on a route as the players do. The run loop calls
// it, as it calls the Judge; Relayed still reports the state a progress implies.
type RouteJudge interface {
	// Routed reports the route numbered id an actor's owner published, at host time at.
	Routed(actor uint32, id uint16, r *deadreckon.Route, at float64)
	// Progressed reports an accepted progress of an actor (its Time host-clock
	// seconds), relayed at host time at.
	Progressed(actor uint32, p deadreckon.Progress, at float64)
}

// ProgressTap is a Tap that records progress datagrams as the host relays them.
type ProgressTap interface {
	// RelayedProgress reports an accepted progress datagram, as its owner sent it,
	// arrived at host time at. Routes reach the Tap through Broadcast.
	RelayedProgress(b []byte, at float64)
}

// hostRoute is the route an actor's owner published last.
type hostRoute struct {
	id    uint16
	r     *deadreckon.Route
	frame []byte // the Route message as a control frame, for players who join later
}

// onRoute checks and stores the route p publishes for one of its actors and sends
// it to every other player.
func (m *match) onRoute(p *member, msg *wire.Route, now float64) {
	a := m.actors[msg.Actor]
	if a == nil || a.owner != p.id {
		m.stats.Unauthorized++
		p.logReject("route dropped", fmt.Errorf("actor %d: %w", msg.Actor, ErrNotOwner))
		return
	}
	for i, w := range msg.Waypoints {
		if !geom.FiniteVec(w) || math.Abs(w[0]) > m.h.match.Extent || math.Abs(w[2]) > m.h.match.Extent ||
			math.Abs(w[1]) > m.h.lim.HeightRange {
			m.stats.Invalid++
			p.logReject("route dropped", fmt.Errorf("actor %d: waypoint %d at %.1f outside the map: %w", msg.Actor, i, w,
				deadreckon.ErrInvalidRoute))
			return
		}
	}
	r, err := RouteOf(msg)
	if err != nil {
		m.stats.Invalid++
		p.logReject("route dropped", fmt.Errorf("actor %d: %w", msg.Actor, err))
		return
	}
	frame, err := wire.AppendFrame(nil, msg)
	if err != nil {
		m.stats.Invalid++
		return
	}
	a.route = &hostRoute{id: msg.Route, r: r, frame: frame}
	m.stats.Routes++
	for _, q := range m.order {
		if q.id != a.owner {
			q.queueFrame(frame)
		}
	}
	if t := m.h.cfg.Tap; t != nil {
		t.Broadcast(msg, now)
	}
	if rj, ok := m.h.cfg.Judge.(RouteJudge); ok {
		rj.Routed(uint32(a.id), msg.Route, r, now)
	}
}

// queueRoutes queues for p the routes of every actor that has one (after their
// spawns): a player who joins hears a tank's route before its progress.
func (m *match) queueRoutes(p *member) {
	for _, q := range m.order {
		for _, a := range q.owned {
			if a.route != nil && q.id != p.id {
				p.queueFrame(a.route.frame)
			}
		}
	}
}

// onProgress checks a progress datagram from p as the update of the state it
// implies and relays it. It returns how many bad items it was (0 or 1).
func (m *match) onProgress(p *member, b []byte, now float64) int {
	msg, _, err := wire.Parse(b)
	pm, ok := msg.(*wire.Progress)
	if err != nil || !ok {
		m.stats.Malformed++
		return 1
	}
	a := m.actors[pm.Actor]
	if a != nil && a.owner == p.id && (a.route == nil || a.route.id != pm.Progress.Route) {
		// Before its route (lost, or a forgery): there is no state to check it as.
		if !p.trusted && !p.updates.Take(now) {
			m.stats.RateLimited++
			return 1
		}
		m.stats.Invalid++
		p.logReject("progress dropped", fmt.Errorf("actor %d: route %d not published", pm.Actor, pm.Progress.Route))
		return 1
	}
	prog := pm.Progress
	prog.Time = unwrapTime(prog.Time, now)
	u := wire.Update{Actor: pm.Actor, Seq: pm.Seq}
	if a != nil && a.owner == p.id {
		u.State = m.impliedState(a.route.r, &prog)
	}
	acc, err := m.accept(p, &u, now) // ownership, sequence, bounds and the Mover
	if err != nil {
		return 1
	}
	if m.implied == nil {
		m.implied = wire.NewBatchWriter(wire.MaxBatchSize)
	}
	rec, err := impliedRecord(m.implied, &u)
	if err != nil {
		m.stats.Invalid++ // cannot happen: accept held the state to the wire's bounds
		return 1
	}
	if !m.zonesRelay(acc, rec, now) {
		m.relayProgress(acc, b, now)
	}
	if t := m.h.cfg.Tap; t != nil {
		if pt, ok := t.(ProgressTap); ok {
			pt.RelayedProgress(b, now)
		} else {
			t.Relayed(rec, now)
		}
	}
	if j := m.h.cfg.Judge; j != nil {
		j.Relayed(uint32(acc.id), acc.state, now)
		if rj, ok := j.(RouteJudge); ok {
			rj.Progressed(uint32(acc.id), prog, now)
		}
	}
	return 0
}

// impliedState returns the state progress p on route r implies: the route's point
// at its arc length (on the ground where the Mover knows it), facing along the
// route, moving along it at its rate and acceleration, with its joints.
func (m *match) impliedState(r *deadreckon.Route, p *deadreckon.Progress) deadreckon.State {
	pos, dir := r.At(p.S)
	if g, ok := m.h.cfg.Mover.(Grounder); ok {
		if h, ok := g.GroundHeight(pos[0], pos[2]); ok {
			pos[1] = h
		}
	}
	s := deadreckon.State{Time: p.Time, Position: pos, Velocity: dir.Mul(p.Rate), Acceleration: dir.Mul(p.Accel),
		Orientation: geom.YawQuat(geom.Heading(dir)), NumArticulations: p.NumArticulations}
	for i := 0; i < p.NumArticulations && i < deadreckon.MaxArticulations; i++ {
		s.Articulations[i] = p.Articulations[i]
	}
	return s
}

// impliedRecord encodes u as an update record, in w (reset first); the record stays
// valid until w's next use.
func impliedRecord(w *wire.BatchWriter, u *wire.Update) ([]byte, error) {
	w.Reset()
	if err := w.Add(u); err != nil {
		return nil, err
	}
	r, err := wire.ReadBatch(w.Bytes())
	if err != nil {
		return nil, err
	}
	var got wire.Update
	if !r.Next(&got) {
		return nil, fmt.Errorf("implied record: %w", wire.ErrInvalid)
	}
	return r.Record(), nil
}

// relayProgress queues progress datagram b of actor a for every member but its owner.
func (m *match) relayProgress(a *hostActor, b []byte, now float64) {
	n := 0
	for _, q := range m.order {
		if q.id == a.owner || q.passive {
			continue
		}
		n++
		if !q.out.pushDatagram(b) {
			m.stats.Overflow++
		}
	}
	m.stats.Relayed += uint64(n)
	m.relayRate.Add(float64(n), now)
	m.stats.RelayAge.observe(now-a.state.Time, uint64(n))
}
