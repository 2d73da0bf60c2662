package net

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/grid"
)

// Far cells. The tanks beyond interestRadius of a player are most of a large match
// (440 of 512 at 64 tanks' density) and each goes to it about once a second: offered
// and owed one by one, they made the whole-match pass offer every tank to every
// player each second and left hundreds of owed far tanks in each player's backlog
// for every choice to rank. Instead the tanks sit also in coarser cells, farCell
// wide, and the whole-match pass goes over the cells: a cell wholly beyond
// interestRadius of a player is offered and owed to it as one entry, with one
// priority (its centre's relevance), and when that entry is chosen the newer
// records of its tanks go together, within the budget. A cell that reaches into
// the player's interest has its tanks offered one by one, as the near tanks are.
const (
	// farCell is the width of a far cell, m: nine tanks at 64 tanks' density on
	// 512 m, so that the far entries a player ranks are a ninth of its far tanks,
	// while the cells that reach into a player's interest (their tanks offered one
	// by one) stay few.
	farCell = 200.0
	// farCellNews is a far cell's news in its weight (see weight): the news of a
	// tank last sent a second or more before. A cell's entry reads none of its tanks
	// one by one: not their news, their aim, their team or their engagement (a shot
	// engages the tanks within interestRadius of its shooter, which go one by one).
	farCellNews = 2.0
	// cellTie sets a far cell's entries after every tank's among equal priorities.
	cellTie = 1 << 16
)

// farCellOf is one far cell: the tanks in it, by id, and the count of their
// accepted updates (and arrivals), against which a player's cellSlot says what it
// was sent.
type farCellOf struct {
	i, j  int32
	tanks []*hostActor // by id
	n     uint64       // updates accepted of its tanks, and tanks moved in, so far
}

// cellSlot is what one player has been sent of one far cell.
type cellSlot struct {
	sentAt float64 // host time it was last sent whole, or the slot made
	sentN  uint64  // the cell's n then
	owedAt float64 // host time it fell owed: a tank sent since goes no more with it
	pi     int32   // its place in the player's pending list while owed
	owed   bool
	made   bool
}

// cellKey is a far cell's column and row.
type cellKey struct{ i, j int32 }

// placeCell puts a in the far cell of its place; moved says it has a new record,
// which the cell's count then counts. Cells are never removed: their indices are
// every player's cellSlot indices.
func (z *zones) placeCell(a *hostActor, moved bool) {
	k := cellKey{grid.Index(a.state.Position[0], farCell), grid.Index(a.state.Position[2], farCell)}
	if a.fc > 0 {
		if c := z.cells[a.fc-1]; c.i == k.i && c.j == k.j {
			if moved {
				c.n++
			}
			return
		}
		z.unplaceCell(a)
	}
	ci, ok := z.cellAt[k]
	if !ok {
		ci = int32(len(z.cells))
		z.cells = append(z.cells, &farCellOf{i: k.i, j: k.j})
		z.cellAt[k] = ci
	}
	c := z.cells[ci]
	i := len(c.tanks)
	for i > 0 && c.tanks[i-1].id > a.id {
		i--
	}
	c.tanks = append(c.tanks, nil)
	copy(c.tanks[i+1:], c.tanks[i:])
	c.tanks[i] = a
	c.n++ // a tank moved in: its record may be new to a player sent the cell before
	a.fc = ci + 1
}

// unplaceCell takes a out of its far cell.
func (z *zones) unplaceCell(a *hostActor) {
	if a.fc == 0 {
		return
	}
	c := z.cells[a.fc-1]
	for i, b := range c.tanks {
		if b == a {
			copy(c.tanks[i:], c.tanks[i+1:])
			c.tanks[len(c.tanks)-1] = nil // no stale pointer past the end
			c.tanks = c.tanks[:len(c.tanks)-1]
			break
		}
	}
	a.fc = 0
}

// cellFar reports whether every point of far cell c is beyond interestRadius of
// every place q watches from (its tanks, or its place when it has none).
func cellFar(q *member, c *farCellOf) bool {
	x0, z0 := float64(c.i)*farCell, float64(c.j)*farCell
	far := func(p mgl64.Vec3) bool {
		dx := math.Max(0, math.Max(x0-p[0], p[0]-(x0+farCell)))
		dz := math.Max(0, math.Max(z0-p[2], p[2]-(z0+farCell)))
		return dx*dx+dz*dz > interestRadius*interestRadius
	}
	if len(q.owned) == 0 {
		return far(q.place)
	}
	for _, a := range q.owned {
		if !far(a.state.Position) {
			return false
		}
	}
	return true
}

// offerCell marks far cell ci as owed to q when one of its tanks has a record newer
// than q was sent with the cell, weighing it by its centre.
func (m *match) offerCell(q *member, ci int32, now float64) {
	z := m.zones
	if int(ci) >= len(q.cslots) {
		q.cslots = append(q.cslots, make([]cellSlot, len(z.cells)-len(q.cslots))...)
	}
	cs := &q.cslots[ci]
	c := z.cells[ci]
	if !cs.made {
		*cs = cellSlot{made: true, sentAt: math.Min(now, max(z.onAt, q.joinedAt))}
	}
	if cs.owed || cs.sentN == c.n {
		return
	}
	centre := mgl64.Vec3{(float64(c.i) + 0.5) * farCell, 0, (float64(c.j) + 0.5) * farCell}
	me, d := q.observer(centre)
	w := relevance(d)
	if me != nil && facing(me.aim, centre.Sub(me.state.Position)) >= viewConeCos {
		w *= weightViewCone
	}
	w *= 1 + farCellNews
	cs.owed, cs.owedAt = true, now
	cs.pi = int32(len(q.pending))
	z.owes++
	q.pending = append(q.pending, owe{sentAt: cs.sentAt, weight: w, engaged: math.Inf(-1), shown: cs.sentAt, seq: z.owes,
		zi: ci, tie: cellTie + ci, cell: true})
	if !q.zdirty {
		q.zdirty = true
		z.dirty = append(z.dirty, q)
	}
}

// sendCell sends q the records of far cell o.zi's tanks newer than it was sent of
// them, by id, as far as the budget holds them (bypass: all, outside the budget);
// it reports whether all went, and then the cell is sent. A tank owed to q on its
// own (it was near, or its cell reached into q's interest) goes by its own entry,
// and a tank sent to q since the cell fell owed (a cell sent in part before) waits
// for the cell's next offer, as an owed tank is sent once an offer.
func (m *match) sendCell(q *member, o *owe, now float64, bypass bool) bool {
	z := m.zones
	c := z.cells[o.zi]
	cs := &q.cslots[o.zi]
	for _, a := range c.tanks {
		if a.owner == q.id || a.recLen == 0 {
			continue
		}
		s := m.slotFor(q, a)
		if s.owed || s.must || s.sentN == a.count || s.sentAt >= cs.owedAt {
			continue
		}
		if !bypass && !q.budget.TakeN(m.cost(q, s), now) {
			return false
		}
		m.sendSlotOf(q, s, now, bypass, false)
	}
	cs.sentAt, cs.sentN, cs.owed = now, c.n, false
	return true
}

// slotFor returns q's slot of a, made if it has none (see offer).
func (m *match) slotFor(q *member, a *hostActor) *slot {
	if a.zi >= len(q.slots) {
		// Room for every slot index handed out so far: the slice grows seldom.
		q.slots = append(q.slots, make([]slot, max(a.zi+1, m.zones.slots)-len(q.slots))...)
	}
	s := &q.slots[a.zi]
	if s.a == nil {
		// The spawn told q of a, and until the scheduler engaged the relay sent it
		// everything: what q holds is no older than the record before this one.
		// The state it shows is the spawn's, the relay's last before the scheduler
		// engaged, or the one q was told of on joining, whichever is the latest.
		shown := math.Min(a.state.Time, max(a.born, m.zones.onAt, q.joinedAt))
		_, d := q.observer(a.state.Position)
		*s = slot{a: a, sentN: a.count - min(a.count, 1), sentAt: shown, shown: shown, inside: d <= interestRadius}
	}
	return s
}
