package net

// Repeats: the downlink scheduler sends a near tank's record to a player a second
// time, a tick after the first, while the budget has room. One datagram in ten lost
// on the way hides a near tank's change of course until its next update, a third of
// a second or more later, and most of the error players see of near tanks comes from
// those losses; a copy a tick later makes good all but about one loss in a hundred,
// for the bytes of the few tanks near each player. A parked tank's heartbeat, the
// only news of it for a second, is repeated likewise out to interestRadius: the
// state a player shows of it grows old only when several heartbeats in a row are
// lost.
//
// A repeat is never a stale record: it goes only while the record the player was
// sent is still the tank's latest (no newer one sent, owed or accepted since), and
// the receiver drops whichever copy comes second as a duplicate. It goes only from
// the budget left once everything owed has gone, never outside it. It is not told
// to the Witness: what the player was shown is the first copy, sent when the
// Witness heard of it (were that one lost, the player is shown the repeat a tick
// later, within the rebuild's allowance for the link's delay).
const (
	// repeatRadius is the distance within which every new record a player is sent
	// of a tank is repeated, m: the lab's near tanks (a meter's error at 100 m is
	// 6.7 pixels at 1280 × 720).
	repeatRadius = 100.0
	// repeatGap is how long, s, a record's state must come after the one the
	// player was sent before for the record to be repeated out to interestRadius: a
	// heartbeat, not the frequent updates of a moving tank farther than
	// repeatRadius.
	repeatGap = 0.5
	// repeatDelay is how long, s, after the first copy the repeat is due: at the
	// next downlink tick, in another datagram.
	repeatDelay = downlinkTick
)

// repeat is a record due to go to a player again.
type repeat struct {
	a   *hostActor
	n   uint64  // the tank's update count when the first copy went
	due float64 // host time
}

// noteRepeat queues a repeat for q of s's tank's record, just sent to it as new
// (not a refresh), if the tank is near enough: within repeatRadius, or within
// interestRadius when gap, the time between the record's state and the one q was
// sent before, is at least repeatGap.
func (m *match) noteRepeat(q *member, s *slot, gap, now float64) {
	z := m.zones
	if z == nil || !z.on {
		return
	}
	a := s.a
	_, d := q.observer(a.state.Position)
	if d > repeatRadius && (d > interestRadius || gap < repeatGap) {
		return
	}
	q.repeats = append(q.repeats, repeat{a: a, n: s.sentN, due: now + repeatDelay})
}

// sendRepeats sends q the repeats due by now, in the order their first copies
// went, while its budget holds them and what it owes besides: a repeat due that
// finds no room, or finds the record no longer the latest, is dropped.
func (m *match) sendRepeats(q *member, now float64) {
	if len(q.repeats) == 0 {
		return
	}
	if q.removed || q.passive {
		q.repeats = q.repeats[:0]
		return
	}
	reserve := m.need(q)
	done := 0
	for _, r := range q.repeats {
		if r.due > now+1e-9 {
			break
		}
		done++
		s := q.slot(r.a)
		if s == nil || s.owed || s.sentN != r.n || r.a.count != r.n || r.a.recLen == 0 {
			continue // gone, or a newer record sent, owed or on its way
		}
		n := m.cost(q, s)
		if q.budget.Tokens(now)-n < reserve || !q.budget.TakeN(n, now) {
			m.stats.RepeatsSkipped++
			continue
		}
		m.stats.DownlinkBytes += uint64(n)
		m.stats.Repeated++
		q.downBytes += uint64(n)
		if dropped := m.queueRecord(q, r.a.rec[:r.a.recLen]); dropped > 0 {
			m.stats.Overflow += uint64(dropped)
		}
	}
	k := copy(q.repeats, q.repeats[done:])
	clear(q.repeats[k:])
	q.repeats = q.repeats[:k]
}

// respawned offers owner, whose new tank just entered the match, every tank within
// interestRadius of it at once, rather than at its next coarse tick up to
// coarseCycle later: a tank respawned elsewhere lands among tanks it was sent only
// as far ones, and those now within interestRadius go to it first, outside the
// budget (their records' musts), a latency after its spawn.
func (m *match) respawned(owner *member, now float64) {
	if z := m.zones; z != nil && z.on && !owner.passive && !owner.removed {
		m.offerNear(owner, now)
	}
}
