package net

// The near tanks. A tank within nearRadius of a player is large on its screen and
// close enough to fight: its every update counts, and what counts is how soon it
// arrives. The priority choice alone holds a near tank's record back while the
// budget is full: the record waits for the bucket to hold a datagram's worth, and
// then for its priority (its weight times the time since the tank was last sent,
// a tenth of a second for a tank sent at every update) to top those of the tanks
// that waited longer. So a near tank's record goes as soon as it is owed, ahead of
// the choice, at the end of the coalescing window it was offered in: from the
// budget (never outside it, but for the musts, which go whatever the budget
// anyway), at most nearShare of it, and, for each player, at most one datagram of
// them every nearSpacing, so that a player's datagrams stay few (each costs the
// host and the player a packet's encryption and system calls, and half an
// acknowledgement back) while the near records wait no more than that. The choice
// keeps the same spacing (spaced): what it sends goes in the near records'
// datagram, or in one of its own nearSpacing after the last, never in a second
// datagram between two near ones: a choice free to send between them nearly
// doubles a player's datagrams (at 256 tanks, 155 a second of 195 bytes against
// 89 of 340 on simulated time; docs/network.md) and spends the budget the near
// records then wait for. What does not go waits, owed as any other, and goes by
// priority or with the next near datagram. The bytes the near records take count
// towards the datagram's worth the next choice waits for, so that they do not put
// the choice, and the floors it keeps, off.
const (
	// nearShare is the share of a player's budget its near tanks' records may take
	// ahead of the choice: the rest goes by priority, so that the near tanks of a
	// crowd cannot starve the farther ones.
	nearShare = 0.75
	// nearSpacing is the least time, s, between two datagrams of records to a
	// player, but for the musts and the heartbeats' repeats. 10 ms rather than 8:
	// on simulated time a player of 256 tanks is sent 89 datagrams a second rather
	// than 110, and its near records wait no longer at the 99th percentile (10 ms:
	// the windows are 2 ms).
	nearSpacing = 0.010
)

// oweNear lists s, owed to q of tank a d away, as near when it is.
func (m *match) oweNear(q *member, s *slot, a *hostActor, d float64) {
	if d > nearRadius {
		return
	}
	if o := &q.pending[s.pi]; !o.listed {
		o.listed = true
		q.near = append(q.near, int32(a.zi))
	}
	m.dirtyZones(q)
}

// sendNear sends q the records of its near list, in order, while its budget, and
// the near tanks' share of it, hold them, if nearSpacing has passed since the last;
// those that do not fit stay listed, and q is scheduled again at the next window. A
// listed slot no longer owed (the choice sent it) leaves the list, and so does a
// second entry of a slot (listed, sent by the choice, owed and listed again).
func (m *match) sendNear(q *member, now float64) {
	if q.spaced(now) {
		m.dirtyZones(q)
		return
	}
	kept, full := q.near[:0], false
	for _, zi := range q.near {
		s := &q.slots[zi]
		if !s.owed || !q.pending[s.pi].listed {
			continue
		}
		if !s.must {
			n := m.cost(q, s)
			if full || q.nearBudget.Tokens(now) < n || !q.budget.TakeN(n, now) {
				// Unlisted while the pass lasts, so that a second entry of it is
				// dropped; listed again below.
				full = true
				q.pending[s.pi].listed = false
				kept = append(kept, zi)
				continue
			}
			q.nearBudget.Spend(n, now)
			q.nearSpent += n
		}
		pi := s.pi
		m.sendSlot(q, s, now, s.must)
		q.unowe(int(pi))
	}
	for _, zi := range kept {
		q.pending[q.slots[zi].pi].listed = true
	}
	clear(q.near[len(kept):])
	q.near = kept
	if len(q.near) > 0 {
		m.dirtyZones(q)
	}
}

// spaced reports whether q's records wait for its next datagram: one went within
// nearSpacing and none goes in this window.
func (q *member) spaced(now float64) bool { return now < q.nearAt && q.open == nil }
