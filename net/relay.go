package net

import (
	"errors"
	"fmt"
	"math"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// Reasons an update is dropped; the host counts each in HostStats.
var (
	// ErrNotOwner reports an update or despawn for an actor the sender does not own.
	ErrNotOwner = errors.New("actor not owned by this player")
	// ErrRateLimited reports an update beyond the sender's token bucket.
	ErrRateLimited = errors.New("update rate limit exceeded")
	// ErrLate reports an update whose sequence number is not newer than the last.
	ErrLate = errors.New("late or duplicated update")
	// ErrSuperseded reports an update from where its owner asked to spawn, sent before
	// the owner learned that the host placed the tank elsewhere.
	ErrSuperseded = errors.New("update from before the host's placement")
)

// onDatagram applies one datagram from p: a state batch, a progress or a clock request.
func (m *match) onDatagram(p *member, b []byte, now float64) {
	p.lastHeard = now
	_, t, err := wire.PeekHeader(b)
	bad := 0
	switch {
	case err != nil:
		m.stats.Malformed++
		bad = 1
	case t == wire.MsgStateBatch:
		bad = m.onStateBatch(p, b, now)
	case t == wire.MsgClockRequest:
		bad = m.onClockRequest(p, b, now)
	case t == wire.MsgHitClaim:
		bad = m.onHitClaim(p, b, now)
	case t == wire.MsgView:
		bad = m.onView(p, b, now)
	case t == wire.MsgProgress:
		bad = m.onProgress(p, b, now)
	default:
		m.stats.Malformed++
		bad = 1
	}
	// A client whose bad traffic stays over the flood limit is cut off.
	if bad > 0 && !p.trusted && p.flood.Add(float64(bad), now) {
		m.stats.FloodKicked++
		m.h.log.Warn("client flooding bad traffic", "player", p.id, "name", logText(p.name))
		m.drop(p, codeKicked, "kicked: flood of invalid, unauthorized or malformed updates", wire.LeaveKicked)
	}
}

// onClockRequest queues the answer to a clock probe, which p's send loop stamps as
// it sends it, and refreshes p's round trip for the timestamp window. It returns how
// many bad items the datagram was (0 or 1).
func (m *match) onClockRequest(p *member, b []byte, now float64) int {
	msg, _, err := wire.Parse(b)
	req, ok := msg.(*wire.ClockRequest)
	switch {
	case err != nil || !ok:
		m.stats.Malformed++
		return 1
	case !p.trusted && !m.heldByStall(now) && !p.control.Take(now), !p.out.pushProbe(clockProbe{clientSend: req.ClientSend, received: now}):
		m.stats.RateLimited++
		return 1
	}
	p.rtt = p.conn.rtt().Seconds()
	var ans [64]byte
	if b, err := (&wire.ClockAnswer{}).Append(ans[:0]); err == nil {
		m.chargeDownlink(p, len(b), now)
	}
	return 0
}

// onStateBatch checks every update of a batch from p and relays the accepted ones,
// as the bytes p sent: an update is never encoded again on its way through, only its
// timestamp is rewritten when the host had to clamp it. It returns how many bad items
// (invalid, unauthorized, rate-limited or malformed) the batch held.
func (m *match) onStateBatch(p *member, b []byte, now float64) (bad int) {
	r, err := wire.ReadBatch(b)
	if err != nil {
		m.stats.Malformed++
		return 1
	}
	var (
		u      wire.Update
		recBuf [wire.MaxUpdateSize]byte
		slack  = m.h.lim.TimeSlack.Seconds()
		held   = m.heldByStall(now)
	)
	for r.Next(&u) {
		u.State.Time = unwrapTime(u.State.Time, now)
		rec := r.Record()
		if held && m.staleByStall(p, &u, now) {
			continue
		}
		// Within the slack validation allows, hold the owner's stamp to what its
		// arrival and round trip allow; beyond it, validation refuses it. An update
		// that waited through a stall may be as old as the stall, and keeps its
		// stamp: drawn as if younger, it would be drawn ahead of the tank.
		if !p.trusted && math.Abs(u.State.Time-now) <= slack {
			if t, clamped := clampStamp(u.State.Time, now, p.rtt); clamped && t >= 0 && !(held && t > u.State.Time) {
				rec = append(recBuf[:0], rec...)
				if wire.SetRecordTime(rec, t) == nil {
					u.State.Time = t
					m.stats.StampsClamped++
				}
			}
		}
		a, err := m.accept(p, &u, now)
		if err != nil {
			bad++
			continue
		}
		m.relay(a, rec, now)
		if t := m.h.cfg.Tap; t != nil {
			t.Relayed(rec, now)
		}
		if j := m.h.cfg.Judge; j != nil {
			j.Relayed(uint32(a.id), a.state, now)
		}
	}
	m.stats.Invalid += uint64(r.Rejected())
	bad += r.Rejected()
	if r.Err() != nil {
		m.stats.Malformed++
		bad++
	}
	return bad
}

// staleByStall reports whether u, from p and arriving at host time now after it
// waited through a stall of the host's (heldByStall), is too old to relay (beyond
// Limits.TimeSlack behind the host's clock) but no older than the stall: an honest
// update the stall kept from the host. It is dropped and counted as late, not as
// invalid nor as rate-limited, and never towards the flood limit: a stall of 25 s
// holds hundreds of such updates per tank. One of an actor p does not own, or
// older than the stall, is left for the usual checks.
func (m *match) staleByStall(p *member, u *wire.Update, now float64) bool {
	t := u.State.Time
	lo, _ := stampWindow(m.stall.from, p.rtt)
	if !(t < now-m.h.lim.TimeSlack.Seconds() && t >= lo) {
		return false
	}
	if a := m.actors[u.Actor]; a == nil || a.owner != p.id {
		return false
	}
	m.stats.Late++
	return true
}

// accept runs every check on one update from p and records it. It returns the actor,
// or why the update was dropped (and counts it). u.State.Time must already be
// host-clock seconds.
//
// An update that waited through a stall of the host's (heldByStall) is judged as if
// it had arrived when its owner stamped it, within the stall: it may have been sent
// any time in it, and the updates the stall held arrive together, so their arrival
// would have a tank travel the stall's drive between updates that arrived at once.
// A forged stamp gains no more than the stall's length, once.
func (m *match) accept(p *member, u *wire.Update, now float64) (*hostActor, error) {
	held := m.heldByStall(now)
	at := now // when the update is judged to have arrived
	if held {
		at = math.Min(now, math.Max(m.stall.from, u.State.Time))
	}
	// Every update spends a token, whether it turns out valid or not, so that a
	// flood of foreign or bogus updates is held to the same rate as honest ones.
	if !p.trusted && !held && !p.updates.Take(now) {
		m.stats.RateLimited++
		return nil, ErrRateLimited
	}
	a := m.actors[u.Actor]
	if a == nil || a.owner != p.id {
		m.stats.Unauthorized++
		return nil, fmt.Errorf("actor %d: %w", u.Actor, ErrNotOwner)
	}
	if last, _ := a.seq.Last(); !wire.SeqNewer(u.Seq, last) {
		m.stats.Late++
		return nil, fmt.Errorf("actor %d seq %d after %d: %w", u.Actor, u.Seq, last, ErrLate)
	}
	if held {
		at = math.Max(at, a.pin.At) // never before its anchor: a spawn in the drain
	}
	next := u.State
	err := validateState(&next, m.h.match, &m.h.lim, now)
	mover := m.h.cfg.Mover
	if err == nil {
		// A grounded mover holds the travel (the tank's, in the ground plane) and
		// the height; without one, the generic bound holds the travel in three
		// dimensions.
		if mover != nil && m.h.grounded {
			err = a.pin.CheckStamp(&next)
		} else {
			err = validateStep(&a.pin, &next, at, &m.h.lim)
		}
	}
	if err == nil && mover != nil {
		err = mover.Move(uint32(a.id), &next, &a.pin, at, &m.h.lim)
	}
	if err != nil && a.supersededByPlacement(&u.State, at, &m.h.lim) {
		m.stats.Superseded++
		return nil, fmt.Errorf("actor %d: %w", u.Actor, ErrSuperseded)
	}
	if err != nil {
		if mover != nil {
			mover.Refused(uint32(a.id), &next, &a.pin, at, err, &m.h.lim)
		}
		m.stats.Moves.count(err) // an update superseded by a placement is no refusal
		m.stats.Invalid++
		p.logReject("update rejected", fmt.Errorf("actor %d: %w", u.Actor, err))
		return nil, err
	}
	a.moved = nil // the owner publishes from where the host put it
	a.seq.Set(u.Seq)
	a.state = next
	a.pin.Advance(&next, at)
	m.stats.Accepted++
	p.lastPublish, p.published = now, true
	return a, nil
}

// supersededByPlacement reports whether next, refused against where the host placed
// a, follows instead from where its owner asked to spawn, within the grace after the
// placement: an honest owner's updates until the host's answer reaches it.
func (a *hostActor) supersededByPlacement(next *deadreckon.State, now float64, l *Limits) bool {
	if a.moved == nil {
		return false
	}
	if now > a.moved.until {
		a.moved = nil
		return false
	}
	from := a.moved.asked // a copy: the asked anchor stays where it was asked
	return validateStep(&from, next, now, l) == nil
}

// relay queues the accepted update record rec of actor a for every member but its
// owner, thinning by distance when configured.
func (m *match) relay(a *hostActor, rec []byte, now float64) {
	if m.zonesRelay(a, rec, now) {
		return
	}
	th := m.h.cfg.Thinning
	n := 0
	for _, q := range m.order {
		if q.id == a.owner || q.passive {
			continue
		}
		if th.Enabled() {
			last, seen := q.lastRelay[a.id]
			if d, ok := q.observerDistance(a.state.Position); ok && seen && now-last < th.interval(d) {
				m.stats.Thinned++
				continue
			}
			q.lastRelay[a.id] = now
		}
		n++
		if dropped := m.queueRecord(q, rec); dropped > 0 {
			m.stats.Overflow += uint64(dropped)
		}
	}
	m.stats.Relayed += uint64(n)
	m.relayRate.Add(float64(n), now)
	m.stats.RelayAge.observe(now-a.state.Time, uint64(n))
}

// queueRecord adds rec to q's open batch, handing the batch to q's send loop first
// when rec does not fit. It returns how many relays were dropped because q's queue
// was full.
func (m *match) queueRecord(q *member, rec []byte) (dropped int) {
	if q.open != nil && !q.open.Fits(len(rec)) {
		dropped = q.flush()
	}
	if q.open == nil {
		q.open = q.out.spareBatch()
		if !q.dirty {
			q.dirty = true
			m.dirty = append(m.dirty, q)
		}
	}
	if err := q.open.AddRecord(rec); err != nil {
		// Cannot happen: rec came out of a BatchReader and fits an empty batch.
		m.recordError(fmt.Errorf("relay record: %w", err))
	}
	return dropped
}

// recordError counts a record the host could not queue for a player, which cannot
// happen, and logs the first of the match: a fault on the hot path repeats for every
// player and update, and a log line each would cost more than the relay.
func (m *match) recordError(err error) {
	m.stats.RecordErrors++
	if m.stats.RecordErrors == 1 {
		m.h.log.Error("record not sent (further ones counted in HostStats.RecordErrors)", "err", err)
	}
}

// flushAll hands every open batch to its member's send loop: the coalescing window
// has ended.
func (m *match) flushAll() {
	for _, q := range m.dirty {
		q.dirty = false
		if !q.removed {
			m.stats.Overflow += uint64(q.flush())
		}
	}
	clear(m.dirty)
	m.dirty = m.dirty[:0]
}
