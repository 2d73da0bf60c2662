package net

import (
	"cmp"
	"errors"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/grid"
	"github.com/treadline/treadline/net/internal/rate"
	"github.com/treadline/treadline/net/wire"
)

// Subscription zones and the downlink budget. Once a match holds more than
// Limits.ZonesAbove tanks, the host no longer relays every update to every player.
// Tanks sit in a grid of zoneCell-wide cells; an accepted update is offered at once
// to the players with a tank within zoneCell of it (found in its cell and the cells
// around), or, tankless, their last place there. Every player's tick offers it the
// tanks within interestRadius of it once per coarseCycle, and a few far cells from
// anywhere in turn, each once per farCycle (zones_cells.go: a cell wholly beyond its
// interest as one entry, the far tanks of the others one by one). An offer only
// marks the tank's latest record (or the far cell's) as owed to that player; what
// is owed goes out by priority within the player's budget of Limits.Downlink bytes
// a second, and a newer record replaces an owed one before it goes. The host's
// work per accepted update is the players near the tank; its work per tick is a
// fixed share of the match's cells per player.
const (
	// zoneCell is the width of the grid's cells, m, and the radius within which an
	// update is offered to players at once.
	zoneCell = 100.0
	// interestRadius is the distance within which a tank is of interest to a
	// player, m: its first record inside goes out whatever the budget, and it
	// reaches the player at least every floorAge.
	interestRadius = 300.0
	// floorAge is how old, s, the state a player was last sent of a tank of interest
	// may grow (by the state's own time, so that a parked tank's heartbeat, up to a
	// second old when it goes, counts its age) while the tank has something new:
	// past it, the tank goes before everything but the first records of tanks
	// entering interest, early enough that a datagram lost on the way is made good
	// by the next within 5 s. A tank of interest unsent to a player for forceAge
	// goes whatever the budget (when there is a newer record than the player was
	// sent): every tank within interestRadius reaches every player at least every
	// 5 s. (By the time since sent, not the state's age: when records arrive late,
	// as from a starved owner, forcing by their age would force every one of them.)
	floorAge = 2.0
	forceAge = 4.5
	// farFloorAge is how long, s, any tank may go unsent to a player while it has
	// something new before it goes ahead of the tanks merely relevant: well inside
	// the time after which a game that every update reaches drops a silent tank
	// (game.DefaultRemoveAfter, 15 s). A game told of the zones keeps it, shown
	// stale, four times as long (game.ZonedSilence), since a budget the tanks of
	// interest fill holds even this floor back.
	farFloorAge = 10.0
	// onceRadius is the distance within which an accepted update is offered to a
	// player at once, m: a tank that near is large on the player's screen, and every
	// update of it counts (a meter's error at 200 m is 3.4 pixels at 1280 × 720).
	onceRadius = interestRadius
	// onceMax is how many tanks the circle within which an update is offered at once
	// holds on average, at most: in a denser match the circle shrinks.
	onceMax = 48.0
	// refreshAge is how long, s, a tank of interest may go unsent to a player while
	// it has nothing new before the player is sent its latest record again: the
	// datagram that carried it may have been lost, and a parked tank publishes only a
	// heartbeat a second.
	refreshAge = 1.0
	// coarseCycle is how often, s, a player's tick offers it every tank within
	// interestRadius of it, and farCycle how long it takes to offer it every tank
	// of the match.
	coarseCycle = 0.5
	farCycle    = 1.0 // every far cell in turn (zones_cells.go)
	// downlinkTick is how often, s, the host schedules every player's downlink,
	// besides the coalescing window after each update offered at once.
	downlinkTick = 0.05
	// downlinkBurst is how many seconds of budget a player's bucket holds.
	downlinkBurst = 0.1
	// budgetSwing is the share of a player's budget its bucket does not earn (a
	// datagram a second at most, rate.NewBudget): a choice waits for a datagram's
	// worth and then spends it at once, so that a second may start with the bucket
	// up to a datagram fuller than it ends it.
	budgetSwing = 0.04
	// engageTime is how long, s, firing on or a hit between two tanks makes each
	// more relevant to the other's owner.
	engageTime = 3.0
	// nearRadius is the distance within which a tank's record goes to a player as
	// soon as it is owed, m (zones_near.go).
	nearRadius = 100.0
)

// Relevance weights: a tank's priority for a player grows by its weight each second
// it has something new that the player has not been sent.
const (
	weightViewCone = 2.0 // in front of the player's turret
	viewConeCos    = 0.6 // the client's view spans ±46° across at 16:9
	weightAimed    = 2.0 // its turret points at the player's tank
	aimedCos       = 0.985
	weightEngaged  = 4.0 // fired on, hit or hit by the player within engageTime
	weightTeammate = 1.5
	// A start, stop, braking or turning onset, or a path that has strayed: the
	// record's news against what the player was last sent, up to newsCap.
	newsPerSpeed = 0.5 // per m/s of velocity change
	newsPerAccel = 0.1 // per m/s² of acceleration change
	newsPerTurn  = 1.0 // per rad/s of turn-rate change
	newsPerMeter = 0.5 // per meter between the sent state projected to now and the record
	newsCap      = 4.0
)

// zones is the match's downlink scheduler; nil while the budget is off.
type zones struct {
	on       bool    // the match holds more than ZonesAbove tanks
	onAt     float64 // host time it last came on
	rate     float64
	above    int
	tanks    *grid.Grid[*hostActor]
	cells    []*farCellOf        // the far cells, in the order they were first used (zones_cells.go)
	cellAt   map[cellKey]int32   // a far cell's index in cells
	ghosts   *grid.Grid[*member] // tankless players, at their last tank's place
	list     []*hostActor        // every tank, by id
	dirty    []*member           // players offered something since their last schedule
	stamp    uint64              // dedupes the players an update is offered to
	ticks    int                 // downlink ticks so far
	slots    int                 // slot indices handed out (hostActor.zi)
	free     []int               // slot indices of despawned tanks, for reuse
	near     []*hostActor        // reused
	prio     []float64           // reused by schedule: the priorities of a player's owed slots
	idx      []int32             // reused by schedule: positions in a player's pending list
	vals     []float64           // reused by schedule: the priorities, to select among
	ties     []int32             // reused by schedule
	sent     []int32             // reused by schedule
	keys     []ranked            // reused by schedule: the chosen, to sort
	owes     uint64              // slots fallen owed so far
	nearP    []*member           // reused
	nearKeys []uint64            // reused by zonesRelay and offerNear: ids above places in nearP or near
	warm     uint64              // the sum of what touch read: kept, so that the reads are not compiled away
	// narrowed counts the choices made among the last k-th's candidates alone.
	narrowed uint64
	// offered counts the offers of a tank to a player (offer) and ranked the owed
	// entries the choices ranked: the host's work per update, besides the records
	// it sends, that grows with the match (BenchmarkHostPerUpdate).
	offered, ranked uint64
	// plain turns off the choice's shortcuts (the force check skipped before
	// forceAt, the selection among the last k-th's candidates): the reference that
	// TestZonesShortcutsSame holds them to.
	plain bool
}

// slot is what one player has been sent of one tank: what its schedule needs of the
// pair, and no state. A player's slots sit by value in one slice indexed by
// hostActor.zi: offers allocate nothing. The motion the player was sent is the
// tank's, kept once in its hist by the record's count (sentN), so that a slot is
// 48 bytes (512 players' slots of 512 tanks: 12.6 MB, where a copy of the sent
// motion in each made them 40 MB).
type slot struct {
	a       *hostActor // nil: no slot
	sentAt  float64    // host time it was last sent, or the slot made
	engaged float64
	sentN   uint64  // the tank's update count when it was last sent (0: its spawn)
	shown   float64 // the time of the state last sent, or of the state the slot assumes
	pi      int32
	owed    bool // a newer record than sentN waits in the player's pending list, at pi
	must    bool // the tank entered the player's interest: its next record bypasses the budget
	inside  bool // within interestRadius when last looked at
	known   bool // the scheduler sent the player a record of the tank (sentN's motion in hist)
}

// motion is what a player knows of a tank's motion from a record, for the size of
// news.
type motion struct {
	pos, vel, acc, angVel mgl64.Vec3
}

// histLen is how many of a tank's last records' motions it keeps (hostActor.hist):
// 12.8 s at the 10 updates a second an owner publishes at most. A player last sent
// a record older than that, a far tank waiting past farFloorAge behind a starved
// budget, is taken to have been sent nothing (news at newsCap).
const histLen = 128

// owe is an owed slot in its player's pending list: all that the schedule reads to
// rank it, copied out of the slot, so that ranking a player's whole backlog reads
// one compact slice in order rather than a slot per owed tank.
type owe struct {
	sentAt, weight, engaged float64 // the slot's
	shown                   float64 // the slot's shownAt
	seq                     uint64  // when it fell owed: zones.owes then
	zi                      int32   // the tank's slot index, or the far cell's index
	tie                     int32   // the tank's id, or cellTie + the far cell's index: the order among equal priorities
	must                    bool
	near                    bool // within interestRadius when last offered
	cell                    bool // a far cell (zones_cells.go)
	listed                  bool // in the player's near list (zones_near.go)
}

func newZones(l *Limits) *zones {
	if l.Downlink <= 0 {
		return nil
	}
	return &zones{rate: float64(l.Downlink), above: l.ZonesAbove,
		tanks: grid.New[*hostActor](zoneCell), ghosts: grid.New[*member](zoneCell), cellAt: map[cellKey]int32{}}
}

// budget returns a fresh downlink budget for a player joining at now.
func (z *zones) budget(now float64) rate.Budget { return z.budgetAt(z.rate, now) }

// budgetAt returns a fresh downlink budget of r bytes a second, its bucket full at
// now.
func (z *zones) budgetAt(r, now float64) rate.Budget {
	return rate.NewBudget(r, burstOf(r), math.Min(wire.MaxBatchSize, r*budgetSwing), now)
}

// burstOf returns the bucket's depth of a budget of r bytes a second: downlinkBurst
// of it, a datagram at least.
func burstOf(r float64) float64 { return math.Max(r*downlinkBurst, wire.MaxBatchSize) }

// engage turns the scheduler on or off as the match's size crosses ZonesAbove, and
// tells every player (wire.Zones). Going off, what is owed goes out at once and the
// relay takes over.
func (m *match) engage(now float64) {
	z := m.zones
	if z == nil {
		return
	}
	n := len(m.actors)
	switch {
	case !z.on && (z.above < 0 || n > z.above):
		z.on, z.onAt = true, now
		// Owners publish for a host that rations (game's large-match publishing):
		// they learn it here.
		m.broadcast(&wire.Zones{On: true})
	case z.on && z.above >= 0 && n <= z.above*3/4:
		z.on = false
		m.broadcast(&wire.Zones{On: false})
		for _, q := range m.order {
			slices.SortFunc(q.pending, func(x, y owe) int { return cmp.Compare(x.seq, y.seq) })
			for i := range q.pending {
				if o := &q.pending[i]; o.cell {
					m.sendCell(q, o, now, true)
				} else {
					m.sendSlot(q, &q.slots[o.zi], now, true)
				}
			}
			q.pending = q.pending[:0]
			q.musts, q.zdirty = 0, false
			clear(q.slots)
			q.slots = q.slots[:0]
			clear(q.cslots)
			q.cslots = q.cslots[:0]
			q.near = q.near[:0]
		}
		z.dirty = z.dirty[:0]
		m.flushAll()
	}
}

// zonesSpawned places a new tank.
func (m *match) zonesSpawned(a *hostActor, owner *member, now float64) {
	z := m.zones
	if z == nil {
		return
	}
	z.tanks.Move(a, a.state.Position[0], a.state.Position[2])
	z.placeCell(a, false)
	a.aim = aimOf(&a.state)
	a.born = a.state.Time
	if n := len(z.free); n > 0 {
		a.zi, z.free = z.free[n-1], z.free[:n-1]
	} else {
		a.zi = z.slots
		z.slots++
	}
	i, _ := slices.BinarySearchFunc(z.list, a.id, func(b *hostActor, id wire.ActorID) int { return int(b.id) - int(id) })
	z.list = slices.Insert(z.list, i, a)
	z.ghosts.Remove(owner)
	owner.place = a.state.Position
	m.engage(now)
	m.respawned(owner, now)
}

// zonesDespawned removes a tank; its owner, left without one, watches from its place.
func (m *match) zonesDespawned(a *hostActor, owner *member, now float64) {
	z := m.zones
	if z == nil {
		return
	}
	z.tanks.Remove(a)
	z.unplaceCell(a)
	if i, ok := slices.BinarySearchFunc(z.list, a.id, func(b *hostActor, id wire.ActorID) int { return int(b.id) - int(id) }); ok {
		z.list = slices.Delete(z.list, i, i+1)
	}
	for _, q := range m.order {
		if s := q.slot(a); s != nil {
			if len(q.near) > 0 {
				q.near = slices.DeleteFunc(q.near, func(zi int32) bool { return zi == int32(a.zi) })
			}
			if s.owed {
				q.unowe(int(s.pi))
				if s.must {
					q.musts--
				}
			}
			*s = slot{}
		}
	}
	z.free = append(z.free, a.zi)
	if owner != nil && !owner.removed && len(owner.owned) == 0 {
		z.ghosts.Move(owner, owner.place[0], owner.place[2])
	}
	m.engage(now)
}

// chargeDownlink charges q's downlink budget with n bytes the host sends it besides
// the scheduled states, never held (control frames, clock answers): the budget bounds
// all that the player receives, so the states give way to them. The charge may take
// the budget into debt, but by one burst at most: a storm of control frames (a
// player joining a full match hears of every tank) does not silence the states for
// seconds.
func (m *match) chargeDownlink(q *member, n int, now float64) {
	z := m.zones
	if z == nil || !z.on || q.passive {
		return
	}
	q.budget.Spend(float64(n), now)
	m.stats.DownlinkOther += uint64(n)
}

// zonesJoined and zonesLeft keep a tankless player's place: the map's centre until
// it has had a tank.
func (m *match) zonesJoined(p *member) {
	if z := m.zones; z != nil {
		z.ghosts.Move(p, 0, 0)
		p.budget = z.budget(p.joinedAt)
		p.nearBudget = rate.NewBucket(z.rate*nearShare, burstOf(z.rate*nearShare), p.joinedAt)
	}
}

func (m *match) zonesLeft(p *member) {
	if z := m.zones; z != nil {
		z.ghosts.Remove(p)
		z.dirty = slices.DeleteFunc(z.dirty, func(q *member) bool { return q == p })
	}
}

// zonesRelay offers a's accepted record to the players near it; it reports false,
// doing nothing, while the scheduler is off (the relay sends to everyone).
func (m *match) zonesRelay(a *hostActor, rec []byte, now float64) bool {
	z := m.zones
	if z == nil {
		return false
	}
	a.count++
	a.recLen = copy(a.rec[:], rec)
	if a.hist == nil {
		a.hist = new([histLen]motion)
	}
	st := &a.state
	a.hist[a.count%histLen] = motion{pos: st.Position, vel: st.Velocity, acc: st.Acceleration, angVel: st.AngularVelocity}
	a.aim = aimOf(&a.state)
	z.tanks.Move(a, a.state.Position[0], a.state.Position[2])
	z.placeCell(a, true)
	if o := m.members[a.owner]; o != nil {
		o.place = a.state.Position
	}
	if !z.on {
		return false
	}
	z.stamp++
	x, y := a.state.Position[0], a.state.Position[2]
	r := m.onceRadius()
	z.near = z.tanks.AppendNear(z.near[:0], x, y, r)
	z.nearP = z.ghosts.AppendNear(z.nearP[:0], x, y, r)
	// The players in the order of their ids, whatever order the grid's cells held
	// them in: the schedule depends on the order slots are offered in. Sorted as
	// plain numbers, each its id above its place in nearP (the ids of the tanks'
	// owners as the tanks say them), so that the sort reads no player's record and
	// calls no function to compare.
	keys := z.nearKeys[:0]
	for i, q := range z.nearP {
		keys = append(keys, uint64(q.id)<<32|uint64(i))
	}
	for _, b := range z.near {
		if dx, dz := b.state.Position[0]-x, b.state.Position[2]-y; dx*dx+dz*dz > r*r {
			continue // the interest pass brings it within the second
		}
		if q := m.members[b.owner]; q != nil {
			keys = append(keys, uint64(b.owner)<<32|uint64(len(z.nearP)))
			z.nearP = append(z.nearP, q)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		z.warm += z.nearP[uint32(k)].touch(a)
	}
	for _, k := range keys {
		q := z.nearP[uint32(k)]
		if q.seen == z.stamp || q.id == a.owner || q.passive || q.removed {
			continue
		}
		q.seen = z.stamp
		m.offer(q, a, now)
	}
	clear(z.near)
	clear(z.nearP)
	z.nearKeys = keys[:0]
	return true
}

// onceRadius returns the distance within which an accepted update is offered at once,
// m: onceRadius, shrunk as the match's tanks crowd its map so that about onceMax
// players are offered each update, never below zoneCell. The host's work per update
// stays bounded whatever the density; the interest pass brings the rest.
func (m *match) onceRadius() float64 {
	n := float64(len(m.zones.list))
	side := 2 * m.h.match.Extent
	if n*math.Pi*onceRadius*onceRadius <= onceMax*side*side {
		return onceRadius
	}
	return math.Max(zoneCell, math.Sqrt(onceMax*side*side/(math.Pi*n)))
}

// offer marks a's latest record as owed to q, if q has not been sent it.
func (m *match) offer(q *member, a *hostActor, now float64) {
	m.zones.offered++
	s := m.slotFor(q, a)
	me, d := q.observer(a.state.Position)
	inside := d <= interestRadius
	entering := inside && !s.inside
	if entering && !s.must {
		s.must = true // sent with its next record, or at once if it has one
		if s.owed {
			q.musts++
			q.pending[s.pi].must = true
		}
	}
	s.inside = inside
	// A tank with no accepted update yet has no record: q holds its spawn state, the
	// latest the host knows, which the Spawn carried on the reliable stream. Nothing is
	// owed, not even a refresh, until its first update, which is then owed as any
	// other (its must, if it came into q's interest meanwhile, was met by the Spawn).
	// A tank entering q's interest whose latest record q was sent already, as a far
	// one, is sent it again at once: the datagram that carried it may have been
	// lost, and q (respawned beside it) would show an older state until the next
	// refresh, refreshAge and a coarse tick later.
	if s.sentN == a.count && !(inside && a.count > 0 && (entering || now-s.sentAt >= refreshAge)) {
		// q has the latest already (or is owed it again only as a refresh).
		if s.must && s.owed {
			q.musts--
			o := &q.pending[s.pi]
			o.must = false
			if o.near {
				// No longer a must, it may be forced again: forceAt counts it.
				q.forceAt = math.Min(q.forceAt, o.sentAt+forceAge)
			}
		}
		s.must = false
		return
	}
	if s.owed {
		q.pending[s.pi].near = inside
		if inside {
			q.forceAt = math.Min(q.forceAt, s.sentAt+forceAge)
		}
		// Owed already: the newer record takes the older one's place, and the
		// priority its weight earned goes on growing.
		m.stats.Overwritten++
		m.oweNear(q, s, a, d)
		return
	}
	w := weight(me, a, d, sentMotion(s, a), s.shown)
	s.owed = true
	if s.must {
		q.musts++
	}
	s.pi = int32(len(q.pending))
	m.zones.owes++
	q.pending = append(q.pending, owe{sentAt: s.sentAt, weight: w, engaged: s.engaged, shown: s.shownAt(), seq: m.zones.owes,
		zi: int32(a.zi), tie: int32(a.id), must: s.must, near: inside})
	if inside {
		q.forceAt = math.Min(q.forceAt, s.sentAt+forceAge)
	}
	m.dirtyZones(q)
	m.oweNear(q, s, a, d)
}

// dirtyZones has q scheduled at the end of the coalescing window.
func (m *match) dirtyZones(q *member) {
	if !q.zdirty {
		q.zdirty = true
		m.zones.dirty = append(m.zones.dirty, q)
	}
}

// shownAt returns the time of the state q was last sent of s's tank, host clock, s:
// how old what q shows of it is; before any, that of the tank's state when the slot
// was made (its spawn's, or about the state the relay last sent).
func (s *slot) shownAt() float64 { return s.shown }

// sentMotion returns the motion of the record s's player was last sent of a, or
// nil when it was sent none (or one older than a's hist holds).
func sentMotion(s *slot, a *hostActor) *motion {
	if !s.known || a.hist == nil || a.count-s.sentN >= histLen {
		return nil
	}
	return &a.hist[s.sentN%histLen]
}

// touch reads what an offer of a to q will read first (its slot, q's tanks), and
// returns a number of it that the caller adds to zones.warm, so that the reads
// stay. At 512 tanks a player's slots alone are 24 kB and the match's 12.6 MB: each
// offer's first read misses the caches, and a loop of these reads alone, with
// nothing else between them, has the memory fetch many at once, where the offers
// one by one would wait for each in turn.
func (q *member) touch(a *hostActor) uint64 {
	var n uint64
	if a.zi < len(q.slots) {
		n = q.slots[a.zi].sentN
	}
	// A player's first tanks only: the host's in-process member owns a practice's
	// every bot, and reading all 511 of them for every offer cost the practice more
	// than the offers themselves.
	for _, o := range q.owned[:min(len(q.owned), touchOwned)] {
		n += math.Float64bits(o.state.Position[0])
	}
	return n
}

// touchOwned is how many of a player's tanks touch reads ahead.
const touchOwned = 4

// slot returns what q was sent of a, or nil.
func (q *member) slot(a *hostActor) *slot {
	if a.zi < len(q.slots) && q.slots[a.zi].a == a {
		return &q.slots[a.zi]
	}
	return nil
}

// observer returns where q watches a point p from: its tank nearest p (nil when it
// has none, and then its last tank's place or the map's centre), and the distance.
// It is the host's own view: a client's say never enters it.
func (q *member) observer(p mgl64.Vec3) (*hostActor, float64) {
	var best *hostActor
	d := math.Inf(1)
	for _, a := range q.owned {
		if e := planar(a.state.Position.Sub(p)); e < d {
			best, d = a, e
		}
	}
	if best == nil {
		d = planar(q.place.Sub(p))
	}
	return best, d
}

func planar(v mgl64.Vec3) float64 { return math.Sqrt(v[0]*v[0] + v[2]*v[2]) }

// scheduleDirty schedules the players offered updates since their last schedule.
func (m *match) scheduleDirty(now float64) {
	z := m.zones
	if z == nil || !z.on {
		return
	}
	// What each schedule reads first, read for all of them at once (see touch):
	// most of a large match's players are offered something in every window.
	for _, q := range z.dirty {
		if len(q.pending) > 0 && !q.removed {
			z.warm += uint64(q.pending[0].zi) + math.Float64bits(q.forceAt)
		}
	}
	// A schedule may have its player scheduled again at the next window (its near
	// records waiting, zones_near.go): those it adds stay for then.
	n := len(z.dirty)
	for i := range n {
		q := z.dirty[i]
		q.zdirty = false
		m.schedule(q, now)
	}
	k := copy(z.dirty, z.dirty[n:])
	clear(z.dirty[k:])
	z.dirty = z.dirty[:k]
}

// zonesTick is every player's downlink tick: once per coarseCycle (each player on
// its own tick of the cycle) it offers a player the tanks within interestRadius of
// it, and at every tick its share of all the match's far cells in turn, so that
// every tank is offered to it once per farCycle (a cell wholly beyond its interest
// as one entry, the tanks of the others one by one); then it schedules what each is
// owed.
func (m *match) zonesTick(now float64) {
	z := m.zones
	if z == nil || !z.on || len(z.list) == 0 {
		return
	}
	n := len(z.cells)
	k := min(n, int(math.Ceil(float64(n)*downlinkTick/farCycle)))
	cycle := int(math.Round(coarseCycle / downlinkTick))
	z.ticks++
	for _, q := range m.order {
		if q.passive {
			continue
		}
		if (z.ticks+int(q.id))%cycle == 0 {
			m.offerNear(q, now)
		}
		for range k {
			q.cursor %= n
			ci := int32(q.cursor)
			q.cursor++
			c := z.cells[ci]
			if len(c.tanks) == 0 {
				continue
			}
			if cellFar(q, c) {
				m.offerCell(q, ci, now)
				continue
			}
			// Its tanks beyond q's interest one by one; those within it are
			// offered by offerNear twice a second, and at once on every update
			// within onceRadius.
			for _, a := range c.tanks {
				if a.owner == q.id {
					continue
				}
				if _, d := q.observer(a.state.Position); d > interestRadius {
					m.offer(q, a, now)
				}
			}
		}
	}
	m.scheduleDirty(now)
	for _, q := range m.order {
		if len(q.pending) > 0 && !q.passive {
			m.schedule(q, now)
		}
		m.sendRepeats(q, now)
	}
}

// offerNear offers q every tank within interestRadius of its tanks, or of its place
// when it has none.
func (m *match) offerNear(q *member, now float64) {
	z := m.zones
	z.near = z.near[:0]
	if len(q.owned) == 0 {
		z.near = z.tanks.AppendNear(z.near, q.place[0], q.place[2], interestRadius)
	}
	for _, a := range q.owned {
		z.near = z.tanks.AppendNear(z.near, a.state.Position[0], a.state.Position[2], interestRadius)
	}
	// By id: the grid's cells hold their tanks in no set order. Sorted as plain
	// numbers, as zonesRelay sorts the players.
	keys := z.nearKeys[:0]
	for i, a := range z.near {
		keys = append(keys, uint64(a.id)<<32|uint64(i))
	}
	slices.Sort(keys)
	for _, k := range keys {
		z.warm += q.touch(z.near[uint32(k)])
	}
	var prev *hostActor
	for _, k := range keys {
		// A tank near two of q's tanks is offered once.
		if a := z.near[uint32(k)]; a.owner != q.id && a != prev {
			m.offer(q, a, now)
		}
		prev = z.near[uint32(k)]
	}
	clear(z.near)
	z.nearKeys = keys[:0]
}

// schedule sends q the latest records it is owed, highest priority first, as far as
// its budget goes: a tank's priority is its relevance to q times how long since q
// was last sent it; a tank of interest unsent for floorAge goes before the rest, and
// the first record of a tank entering q's interest goes whatever the budget. While
// the budget is short, what is owed waits until the bucket holds a datagram's worth
// (or all of it), so that a full datagram goes and the choice is made once for it.
func (m *match) schedule(q *member, now float64) {
	if len(q.pending) == 0 || q.removed {
		return
	}
	if len(q.near) > 0 {
		m.sendNear(q, now)
		if len(q.pending) == 0 {
			return
		}
	}
	tokens := q.budget.Tokens(now)
	// What the near records took since the last choice counts towards its
	// datagram's worth: they do not put the choice off.
	need := math.Max(minRecordCost, m.need(q)-q.nearSpent)
	if spaced := q.spaced(now); tokens < need || spaced {
		if now >= q.forceAt {
			m.force(q, now)
		}
		if q.musts > 0 {
			m.sendMusts(q, now)
		}
		if spaced && tokens >= need {
			// The choice goes with q's next datagram (zones_near.go).
			m.dirtyZones(q)
		}
		return
	}
	q.nearSpent = 0
	// The records the bucket may pay for, and one more: chosen by priority (ties by
	// actor id, so that the same inputs give the same datagrams), sorted among
	// themselves; the rest wait. The order is strict (one entry a tank), so the
	// chosen are the same however they are found: those above the k-th priority,
	// found by selecting among the priorities alone, and of those at it the lowest
	// ids. A backlog of hundreds (512 tanks: the far tanks wait) costs a few passes
	// over plain numbers, not a heap's reshuffles through the list.
	z := m.zones
	z.ranked += uint64(len(q.pending))
	k := min(len(q.pending), int(tokens/minRecordCost)+1)
	// The selection is among the priorities at least half the last choice's k-th
	// when they are k or more (the k-th highest is among them: every other is
	// lower), among all of them otherwise. What is owed only grows in priority
	// until it goes, so at 512 tanks, with a backlog of hundreds of far tanks of
	// which a few dozen go, the candidates are a fraction of the backlog. They are
	// gathered in the pass that computes the priorities.
	g := 0.0
	if k < len(q.pending) && !z.plain {
		g = q.kth / 2
	}
	nan := m.prioritize(q, g, now)
	top := z.chooseTop(q, k, nan)
	z.sortTop(top, z.prio, q.pending)
	z.readAhead(q, top, tokens)
	m.sendTop(q, top, now)
	if q.musts > 0 {
		// More tanks entered q's interest than were chosen.
		m.sendMusts(q, now)
	}
}

// prioritize computes the priority of each record owed to q into z.prio, and, when
// g > 0, gathers those at least g into z.vals (the candidates of chooseTop); it
// reports whether a priority is NaN among them (then the candidates are all). When an
// owed tank may be due to be forced, the same pass makes musts of those due and sets
// q.forceAt: one pass over the list, not two.
func (m *match) prioritize(q *member, g, now float64) (nan bool) {
	z := m.zones
	z.prio, z.vals = z.prio[:0], z.vals[:0]
	if now+1e-6 < q.forceAt && !z.plain {
		// No owed tank is due to be forced (q.forceAt is never later than the first
		// that will be; the margin keeps rounding out of it): its priorities alone.
		for i := range q.pending {
			p := priority(&q.pending[i], now)
			z.prio = append(z.prio, p)
			if g > 0 {
				if p >= g {
					z.vals = append(z.vals, p)
				}
				nan = nan || p != p
			}
		}
		return nan
	}
	next := math.Inf(1)
	for i := range q.pending {
		o := &q.pending[i]
		next = m.forceDue(q, o, now, next)
		p := priority(o, now)
		z.prio = append(z.prio, p)
		if g > 0 {
			if p >= g {
				z.vals = append(z.vals, p)
			}
			nan = nan || p != p
		}
	}
	q.forceAt = next
	return nan
}

// chooseTop returns the positions in q.pending of the k records of highest priority
// (z.prio), ties by actor id, unsorted, in z.idx; it sets q.kth to the k-th priority
// for the next choice's candidates (0 when all are chosen, or it is not finite).
// The selection runs among z.vals, the candidates prioritize gathered, when they are
// k or more and none is NaN, among all the priorities otherwise.
func (z *zones) chooseTop(q *member, k int, nan bool) []int32 {
	top := z.idx[:0]
	if k == len(q.pending) {
		for i := range int32(k) {
			top = append(top, i)
		}
		z.idx = top
		return top
	}
	if len(z.vals) < k || nan {
		z.vals = append(z.vals[:0], z.prio...)
	} else {
		z.narrowed++
	}
	t := kthHighest(z.vals, k)
	q.kth = 0
	if !math.IsInf(t, 0) && t == t {
		q.kth = t
	}
	for i, p := range z.prio {
		if p > t {
			top = append(top, int32(i))
		}
	}
	if len(top) < k {
		top = z.appendTies(top, q, t, k)
	}
	z.idx = top
	return top
}

// appendTies appends to top, which holds the positions of fewer than k priorities
// above t, those at t by actor id until it holds k: the lowest ids go, so that the
// same inputs give the same datagrams.
func (z *zones) appendTies(top []int32, q *member, t float64, k int) []int32 {
	ties := z.ties[:0]
	for i, p := range z.prio {
		if p == t {
			ties = append(ties, int32(i))
		}
	}
	slices.SortFunc(ties, func(x, y int32) int { return int(q.pending[x].tie) - int(q.pending[y].tie) })
	top = append(top, ties[:min(len(ties), k-len(top))]...) // fewer only if a priority is NaN
	z.ties = ties
	return top
}

// readAhead reads ahead what the sends of top will read, as far as tokens may pay
// for: the records are minRecordCost bytes at least, and a far cell sends one for
// each of its tanks at most, so that the sends stop (the budget full) no sooner than
// the entries read here run out, but seldom far later. A chosen far cell's tanks are
// read only when the budget may reach them: at 512 tanks the top holds a dozen cells
// of nine tanks each, most of which wait. What it reads goes to z.warm, so that the
// reads are not optimized away.
func (z *zones) readAhead(q *member, top []int32, tokens float64) {
	room := tokens
	for _, i := range top {
		if room < 0 {
			break
		}
		if o := &q.pending[i]; o.cell {
			// A far cell's tanks and q's slots of them, which its send reads.
			for _, a := range z.cells[o.zi].tanks {
				z.warm += a.count + uint64(a.recLen)
				if a.zi < len(q.slots) {
					z.warm += q.slots[a.zi].sentN
				}
				room -= minRecordCost
			}
			continue
		}
		// What sendSlot reads of the tank: its record's length and count, and its
		// state's time, two cache lines apart.
		a := q.slots[q.pending[i].zi].a
		z.warm += uint64(a.recLen) + a.count + math.Float64bits(a.state.Time)
		if !q.pending[i].must {
			room -= minRecordCost
		}
	}
}

// sendTop sends q the records at positions top of q.pending, in that order, as far
// as its budget goes (musts whatever the budget), and drops those sent from what q
// is owed.
func (m *match) sendTop(q *member, top []int32, now float64) {
	z := m.zones
	sent := z.sent[:0]
	full := false
	for _, i := range top {
		o := &q.pending[i]
		if o.cell {
			// Its tanks' records together, as far as the budget goes; a cell
			// sent in part stays owed, and goes on earning priority.
			if full || !m.sendCell(q, o, now, false) {
				full = true
				continue
			}
			sent = append(sent, i)
			continue
		}
		s := &q.slots[o.zi]
		switch {
		case o.must:
			m.sendSlot(q, s, now, true)
		case !full && q.budget.TakeN(m.cost(q, s), now):
			m.sendSlot(q, s, now, false)
		default:
			full = true
			continue
		}
		sent = append(sent, i)
	}
	z.sent = sent
	q.drop(sent)
}

// need returns the bytes q's bucket waits for before a choice: a datagram's worth,
// or what q is owed when less, and at most half a second of its budget (a budget of
// less than a datagram a second never holds one).
func (m *match) need(q *member) float64 {
	return math.Min(math.Min(float64(len(q.pending)*minRecordCost), wire.MaxBatchSize), q.budget.Rate()/2)
}

// sendMusts sends q the first records of the tanks entering its interest, outside
// its budget, in the order they fell owed.
func (m *match) sendMusts(q *member, now float64) {
	z := m.zones
	sent := z.sent[:0]
	for i := range q.pending {
		if q.pending[i].must {
			sent = append(sent, int32(i))
		}
	}
	slices.SortFunc(sent, func(x, y int32) int { return cmp.Compare(q.pending[x].seq, q.pending[y].seq) })
	for _, i := range sent {
		m.sendSlot(q, &q.slots[q.pending[i].zi], now, true)
	}
	z.sent = sent
	q.drop(sent)
}

// force makes a must of every owed tank within interestRadius unsent to q for
// forceAge (it goes whatever the budget), and sets q.forceAt to when the next of
// those owed will be.
func (m *match) force(q *member, now float64) {
	next := math.Inf(1)
	for i := range q.pending {
		next = m.forceDue(q, &q.pending[i], now, next)
	}
	q.forceAt = next
}

// forceDue makes a must of o, owed to q, if it is a tank within interestRadius unsent
// to q for forceAge and a newer record waits; it returns next, or when o will be, if
// sooner.
func (m *match) forceDue(q *member, o *owe, now, next float64) float64 {
	switch {
	case !o.near || o.must:
	case now-o.sentAt >= forceAge:
		if s := &q.slots[o.zi]; s.sentN == s.a.count {
			// Owed only as a refresh: the tank's owner is silent, and sending its
			// record again would make q's state no younger.
			return next
		}
		o.must = true
		q.slots[o.zi].must = true
		q.musts++
		m.stats.DownlinkForced++
	default:
		next = math.Min(next, o.sentAt+forceAge)
	}
	return next
}

// drop removes the entries at positions l (which it sorts) from q's pending list.
func (q *member) drop(l []int32) {
	slices.Sort(l)
	for i := len(l) - 1; i >= 0; i-- {
		q.unowe(int(l[i]))
	}
}

// unowe removes q's pending entry at position i, the last taking its place.
func (q *member) unowe(i int) {
	last := len(q.pending) - 1
	if i != last {
		q.pending[i] = q.pending[last]
		if o := &q.pending[i]; o.cell {
			q.cslots[o.zi].pi = int32(i)
		} else {
			q.slots[o.zi].pi = int32(i)
		}
	}
	q.pending = q.pending[:last]
}

// ranked is a chosen position in a pending list with its priority and tie, so that
// sorting the chosen reads one compact slice rather than two lists at random.
type ranked struct {
	p   float64
	tie int32
	i   int32
}

// sortTop sorts positions top in the pending list pend, of priorities prio,
// highest priority first, then by tie (actor id; a far cell's after).
func (z *zones) sortTop(top []int32, prio []float64, pend []owe) {
	keys := z.keys[:0]
	for _, i := range top {
		keys = append(keys, ranked{p: prio[i], tie: pend[i].tie, i: i})
	}
	nan := false
	for _, k := range keys {
		nan = nan || k.p != k.p
	}
	if nan {
		// Not an order: the generic sort's answer, whatever it is, as before.
		slices.SortFunc(keys, func(x, y ranked) int {
			switch {
			case x.p > y.p:
				return -1
			case x.p < y.p:
				return 1
			}
			return int(x.tie) - int(y.tie)
		})
	} else {
		// A strict order (a tie is one entry's): any sort gives the same.
		sortRanked(keys)
	}
	for j, k := range keys {
		top[j] = k.i
	}
	z.keys = keys
}

// before reports whether x goes before y: a higher priority, or an equal one and a
// lower tie.
func (x ranked) before(y ranked) bool { return x.p > y.p || (x.p == y.p && x.tie < y.tie) }

// sortRanked sorts v by before, which must be a strict order (no NaN): a quicksort
// whose comparisons are inlined, where the generic sort calls a function for each
// (a choice at 512 tanks sorts a few dozen entries, a few times an update).
func sortRanked(v []ranked) {
	for len(v) > 12 {
		// The median of three as the pivot, in the middle.
		a, b, c := 0, len(v)/2, len(v)-1
		if v[b].before(v[a]) {
			v[a], v[b] = v[b], v[a]
		}
		if v[c].before(v[b]) {
			v[b], v[c] = v[c], v[b]
			if v[b].before(v[a]) {
				v[a], v[b] = v[b], v[a]
			}
		}
		p := v[b]
		i, j := -1, len(v)
		for {
			for i++; v[i].before(p); i++ {
			}
			for j--; p.before(v[j]); j-- {
			}
			if i >= j {
				break
			}
			v[i], v[j] = v[j], v[i]
		}
		// v[:j+1] goes before or is p, v[j+1:] after or is p: the smaller part
		// sorted by a call, the larger by the loop.
		if j+1 < len(v)-j-1 {
			sortRanked(v[:j+1])
			v = v[j+1:]
		} else {
			sortRanked(v[j+1:])
			v = v[:j+1]
		}
	}
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && v[j].before(v[j-1]); j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// kthHighest returns the k-th highest of v (1 ≤ k ≤ len(v)), reordering v: a
// selection with three-way partitions, so that runs of equal values (the musts'
// infinities, tanks offered together) cost no more than distinct ones.
func kthHighest(v []float64, k int) float64 {
	lo, hi := 0, len(v) // the k-th highest is within v[lo:hi]
	k--                 // its position in v sorted highest first
	for {
		if hi-lo == 1 {
			return v[lo]
		}
		// The median of three as the pivot.
		a, b, c := v[lo], v[lo+(hi-lo)/2], v[hi-1]
		p := max(min(a, b), min(max(a, b), c))
		// v[lo:gt] > p, v[gt:i] == p, v[lt:hi] < p.
		gt, i, lt := lo, lo, hi
		for i < lt {
			switch x := v[i]; {
			case x > p:
				v[gt], v[i] = v[i], v[gt]
				gt++
				i++
			case x < p:
				lt--
				v[lt], v[i] = v[i], v[lt]
			default:
				i++
			}
		}
		switch {
		case k < gt:
			hi = gt
		case k < lt:
			return p
		default:
			lo = lt
		}
	}
}

// minRecordCost is the smallest record, bytes: a tank without articulations.
const minRecordCost = 33

// cost returns the bytes sending s's record to q takes: the record, and a batch's
// header when it opens a datagram.
func (m *match) cost(q *member, s *slot) float64 {
	n := s.a.recLen
	if q.open == nil || !q.open.Fits(n) {
		n += wire.BatchHeaderSize
	}
	return float64(n)
}

// sendSlot queues s's tank's latest record for q; bypass: outside the budget (which
// is charged all the same, into debt).
func (m *match) sendSlot(q *member, s *slot, now float64, bypass bool) {
	m.sendSlotOf(q, s, now, bypass, true)
}

// sendSlotOf is sendSlot; near false says the tank is beyond interestRadius of q (in
// a far cell), so that its record is never repeated and its distance need not be
// measured again.
func (m *match) sendSlotOf(q *member, s *slot, now float64, bypass, near bool) {
	a := s.a
	if a.recLen == 0 {
		// Cannot happen: offer owes nothing of a tank without a record. Counted,
		// said once a match, and the slot settled, so that it cannot recur each tick.
		m.recordError(errors.New("zones: a slot owed of a tank with no record"))
		if s.must {
			q.musts--
		}
		s.owed, s.must = false, false
		return
	}
	// A new record, not a refresh of the one q holds: repeated when near.
	fresh, gap := s.sentN != a.count, a.state.Time-s.shown
	n := m.cost(q, s)
	if bypass {
		q.budget.Spend(n, now)
		m.stats.DownlinkBypass += uint64(n)
		q.bypassed += uint64(n)
	}
	m.stats.DownlinkBytes += uint64(n)
	q.downBytes += uint64(n)
	if dropped := m.queueRecord(q, a.rec[:a.recLen]); dropped > 0 {
		m.stats.Overflow += uint64(dropped)
	}
	q.nearAt = now + nearSpacing
	st := &a.state
	if w, ok := m.h.cfg.Judge.(Witness); ok {
		w.Sent(uint32(q.id), uint32(a.id), *st, now)
	}
	s.shown, s.known = st.Time, true
	if s.must {
		q.musts--
	}
	s.sentN, s.sentAt, s.owed, s.must = a.count, now, false, false
	m.stats.Relayed++
	m.stats.Scheduled++
	m.relayRate.Add(1, now)
	m.stats.RelayAge.observe(now-st.Time, 1)
	if fresh && near {
		m.noteRepeat(q, s, gap, now)
	}
}

// priority returns an owed slot's priority at now: its weight when last offered,
// for each second since its player was last sent it.
func priority(s *owe, now float64) float64 {
	if s.must {
		return math.Inf(1)
	}
	age := now - s.sentAt
	w := s.weight
	if now-s.engaged < engageTime {
		w *= weightEngaged
	}
	p := w * (age + downlinkTick)
	switch shown := now - s.shown; {
	case s.near && shown >= floorAge:
		p += 1e6 * shown
	case age >= farFloorAge:
		p += 1e3 * age
	}
	return p
}

// weight returns tank a's relevance to a player whose tank nearest a is me (nil:
// none), d away, and that was last sent a record of motion sent, of time sentTime
// (nil: none).
func weight(me, a *hostActor, d float64, sent *motion, sentTime float64) float64 {
	w := relevance(d)
	if me != nil {
		to := a.state.Position.Sub(me.state.Position)
		if facing(me.aim, to) >= viewConeCos {
			w *= weightViewCone
		}
		if facing(a.aim, to.Mul(-1)) >= aimedCos {
			w *= weightAimed
		}
		if me.team == a.team {
			w *= weightTeammate
		}
	}
	return w * (1 + news(sent, sentTime, &a.state))
}

// relevance is a tank's weight by its distance d from the player, m: 1 within a
// cell, falling with the square of the distance beyond, never below 1/64.
func relevance(d float64) float64 {
	if d <= zoneCell {
		return 1
	}
	r := zoneCell / d
	return math.Max(r*r, 1.0/64)
}

// aimOf returns the direction a tank's gun points in the ground plane: its heading
// turned by its turret (articulation 0) when it has one.
func aimOf(s *deadreckon.State) mgl64.Vec3 {
	yaw := geom.Yaw(s.Orientation)
	if s.NumArticulations > 0 {
		yaw += s.Articulations[0].Angle
	}
	return mgl64.Vec3{math.Cos(yaw), 0, -math.Sin(yaw)}
}

// facing returns the cosine between direction dir and the ground-plane vector to; 0
// when to is too short to say.
func facing(dir, to mgl64.Vec3) float64 {
	l := planar(to)
	if l < 1e-6 {
		return 0
	}
	return (dir[0]*to[0] + dir[2]*to[2]) / l
}

// news returns how much an update tells a player that was last sent sent: a start,
// stop, braking or turning onset, or a path that has strayed from the one sent (at
// time sentTime), up to newsCap; newsCap for a player that was sent nothing yet
// (sent nil).
func news(sent *motion, sentTime float64, now *deadreckon.State) float64 {
	if sent == nil {
		return newsCap
	}
	dt := math.Max(0, now.Time-sentTime)
	proj := sent.pos.Add(sent.vel.Mul(dt)).Add(sent.acc.Mul(0.5 * dt * dt))
	n := newsPerSpeed*now.Velocity.Sub(sent.vel).Len() +
		newsPerAccel*now.Acceleration.Sub(sent.acc).Len() +
		newsPerTurn*now.AngularVelocity.Sub(sent.angVel).Len() +
		newsPerMeter*now.Position.Sub(proj).Len()
	return math.Min(n, newsCap)
}

// engaged marks a and b as engaged with each other's owners at now: a shot fired by
// one on the other, or a hit.
func (m *match) engaged(a, b *hostActor, now float64) {
	if m.zones == nil || a == nil || b == nil {
		return
	}
	if q := m.members[b.owner]; q != nil {
		q.engage(a, now)
	}
	if q := m.members[a.owner]; q != nil {
		q.engage(b, now)
	}
}

// engage marks a as engaged with q at now.
func (q *member) engage(a *hostActor, now float64) {
	if s := q.slot(a); s != nil {
		s.engaged = now
		if s.owed {
			q.pending[s.pi].engaged = now
		}
	}
}

// fired marks a shot of shooter along dir from origin as engaging the tanks near its
// line, within zoneCell of the shooter: the host knows the shots net carries.
func (m *match) fired(shooter *hostActor, origin, dir mgl64.Vec3, now float64) {
	z := m.zones
	if z == nil || shooter == nil || planar(dir) < 1e-6 {
		return
	}
	z.near = z.tanks.AppendNear(z.near[:0], origin[0], origin[2], interestRadius)
	l := planar(dir)
	d := mgl64.Vec3{dir[0] / l, 0, dir[2] / l}
	for _, b := range z.near {
		if b != shooter && facing(d, b.state.Position.Sub(origin)) >= aimedCos {
			m.engaged(shooter, b, now)
		}
	}
	clear(z.near)
}
