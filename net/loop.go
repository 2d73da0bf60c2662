package net

import (
	"errors"
	"fmt"
	"math"
	"net/netip"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/internal/admission"
	"github.com/treadline/treadline/net/internal/rate"
	"github.com/treadline/treadline/net/wire"
)

// Actor id ranges. The host assigns ids in [1, maxAssignedActor]; a client asking for
// a spawn names its request with a provisional id in [provisionalBase, 0xFFFF], which
// the host echoes in a Despawn if it refuses the spawn. A confirmed spawn comes back
// as the Spawn broadcast with the assigned id, in request order.
const (
	maxAssignedActor = 0xEFFF
	provisionalBase  = 0xF000
	maxPlayerID      = 0xFFFF
)

// janitorPeriod is how often the run loop looks for silent players.
const janitorPeriod = 100 * time.Millisecond

// inputQueue is how many inputs may wait for the run loop before the connections'
// readers wait in turn.
const inputQueue = 1024

// How long and for how many names the host remembers the reconnect tokens it gave,
// so that a player who joined in that time skips the guess limiter.
const (
	tokenMemoryTTL   = 10 * time.Minute
	tokenMemoryNames = 1024
)

// errLeft reports that a player said goodbye or closed its connection cleanly.
var errLeft = errors.New("player left")

// inputKind says what an input carries.
type inputKind uint8

const (
	// inDatagram carries a datagram (state batch or clock request) in data.
	inDatagram inputKind = iota + 1
	// inControl carries a control message in msg, or a bad one's error in err.
	inControl
	// inClosed reports that the member's connection ended, with err saying why.
	inClosed
)

// input is one thing a connection hands the run loop.
type input struct {
	from *member
	kind inputKind
	at   float64 // host time of arrival, s
	data []byte
	msg  wire.Message
	err  error
	pipe *pipe // the in-process player's pipe it came through, counted until handled
}

// hostActor is the host's record of one actor.
type hostActor struct {
	id    wire.ActorID
	owner wire.PlayerID
	name  string
	team  uint8
	seq   wire.SeqFilter
	state deadreckon.State // last accepted, host-clock time
	pin   Anchor           // for the plausibility checks of the next updates
	// moved is set while the owner may still publish from where it asked to spawn,
	// not yet knowing that the judge placed the tank elsewhere.
	moved *placement
	// With the downlink budget (zones.go): the accepted updates so far, and the
	// last one's record as its owner sent it.
	count  uint64
	rec    [wire.MaxUpdateSize]byte
	recLen int
	// hist holds the motion of its last histLen accepted states, by count: what a
	// player last sent record n was shown is hist[n%histLen], kept once per tank
	// rather than in every player's slot of it.
	hist  *[histLen]motion
	aim   mgl64.Vec3 // where its gun points in the ground plane
	zi    int        // its index in every member's slots
	fc    int32      // its far cell's index in zones.cells, plus one; 0: none
	route *hostRoute // the route its owner published last (route.go), or nil
	born  float64    // the time of its spawn's state, host clock
}

// placement is where the owner asked a spawn the judge placed elsewhere, and until
// when its updates from there are expected (host-clock seconds).
type placement struct {
	asked Anchor
	until float64
}

// placementGrace is how long after a placed spawn the owner's updates from where it
// asked are dropped as superseded rather than refused as invalid, s: the owner
// publishes from its own spawn until the host's answer reaches it, one round trip
// later, and the client's links reach a 1 s round trip with jitter and loss.
const placementGrace = 3.0

// placedMoved (m) and placedTurned (rad) are how far the judge's place may lie from
// the asked one before the owner's updates from the asked one count as superseded
// while refused: any real move, well above the wire's quantization. The movement check
// (a Mover) refuses a jump of 2 m at once, below the generic PositionSlack. An update
// dropped as superseded is never applied, so the grace moves no tank.
const (
	placedMoved  = 0.05
	placedTurned = 0.05
)

func (a *hostActor) spawnMsg() *wire.Spawn {
	seq, _ := a.seq.Last()
	return &wire.Spawn{Actor: a.id, Owner: a.owner, Team: a.team, Name: a.name, Seq: seq, State: a.state}
}

// match is the state of a hosted match. Only the run loop touches it.
type match struct {
	h          *Host
	implied    *wire.BatchWriter // reused: the record of the state a progress implies (route.go)
	members    map[wire.PlayerID]*member
	order      []*member // members by id, for deterministic fan-out
	services   int       // members that are services (member.service)
	observers  int       // members that are observers (member.observing)
	actors     map[wire.ActorID]*hostActor
	nextPlayer wire.PlayerID
	nextActor  wire.ActorID
	stats      HostStats
	relayRate  rate.Meter
	guesses    *admission.GuessLimiter // wrong passphrases per address prefix
	tokens     tokenMemory             // reconnect tokens given, by name, for the guess limiter
	dirty      []*member               // members with a batch waiting for the coalescing window
	links      []PlayerLink            // reused by linksDue
	linksAt    float64                 // host time the judge last heard of the links
	judgeOut   []JudgeMessage          // reused: the judge's answers
	zones      *zones                  // the downlink scheduler; nil without a budget
	alive      float64                 // host time the run loop last ran, s
	stall      stall                   // the last time it did not run for long
}

func newMatch(h *Host) match {
	return match{
		h:       h,
		members: map[wire.PlayerID]*member{},
		actors:  map[wire.ActorID]*hostActor{},
		guesses: admission.NewGuessLimiter(h.lim.GuessBurst, h.lim.GuessInterval.Seconds(), h.lim.GlobalGuessRate,
			DefaultGlobalGuessBurst, DefaultGuessPrefixes, h.now()),
		tokens:     newTokenMemory(tokenMemoryTTL.Seconds(), tokenMemoryNames),
		nextPlayer: 1,
		nextActor:  1,
		zones:      newZones(&h.lim),
		alive:      h.now(),
	}
}

// run is the host's run loop: it owns the match and applies, one at a time, what
// the connections feed it, the API's calls, the coalescing deadline and the silence
// checks, until the host closes.
func (h *Host) run() {
	defer h.wg.Done()
	janitor := time.NewTicker(janitorPeriod)
	defer janitor.Stop()
	flush := time.NewTimer(time.Hour)
	flush.Stop()
	defer flush.Stop()
	armed := false
	m := &h.m
	var tick <-chan time.Time
	if m.zones != nil && !h.manual { // on a ManualClock, Settle ticks the downlink
		t := time.NewTicker(units.Duration(downlinkTick))
		defer t.Stop()
		tick = t.C
	}
	for {
		var fed *pipe
		select {
		case <-h.ctx.Done():
			m.shutdown()
			h.final = m.statsNow()
			close(h.loopDone)
			h.settle.close()
			return
		case f := <-h.calls:
			m.awake(h.now())
			f()
		case in := <-h.in:
			m.awake(h.now())
			m.handle(in)
			fed = in.pipe
		case <-janitor.C:
			m.awake(h.now())
			m.dropSilent(h.now())
			m.judged(func(j Judge) { j.Tick(h.now()) })
			m.linksDue(h.now())
		case <-flush.C:
			m.awake(h.now())
			armed = false
			m.scheduleDirty(h.now())
			m.flushAll()
		case <-tick:
			m.awake(h.now())
			m.zonesTick(h.now())
			m.flushAll()
		}
		if (len(m.dirty) > 0 || m.zones != nil && len(m.zones.dirty) > 0) && !armed {
			if h.cfg.Coalesce <= 0 {
				m.scheduleDirty(h.now())
				m.flushAll()
			} else {
				flush.Reset(h.cfg.Coalesce)
				armed = true
			}
		}
		if fed != nil {
			fed.handled() // after its relays are queued: Settle waits for them next
		}
	}
}

// runOn runs f on the run loop that reads calls and waits for it. It reports false,
// without running f, once done is closed: the loop has ended. Host and Client post
// their API calls to their loops this way.
func runOn(calls chan<- func(), done <-chan struct{}, f func()) bool {
	ran := make(chan struct{})
	select {
	case calls <- func() { f(); close(ran) }:
		<-ran
		return true
	case <-done:
		return false
	}
}

// handle applies one input. The one dispatch on message types is onControl (stream)
// and onDatagram (datagrams).
func (m *match) handle(in input) {
	p := in.from
	if p.removed {
		return
	}
	switch in.kind {
	case inDatagram:
		m.onDatagram(p, in.data, in.at)
	case inControl:
		m.onControl(p, in.msg, in.err, in.at)
	case inClosed:
		if errors.Is(in.err, errLeft) || in.err == nil {
			m.drop(p, codeNormal, "left", wire.LeaveQuit)
		} else {
			m.drop(p, codeProtocol, "connection lost", wire.LeaveQuit)
		}
	}
}

// onControl applies one control message from p (or counts the bad one err reports).
func (m *match) onControl(p *member, msg wire.Message, err error, now float64) {
	p.lastHeard = now
	// What waited through a stall of the host's came at once, not at its rate.
	if !p.trusted && !m.heldByStall(now) && !p.control.Take(now) {
		m.stats.RateLimited++
		m.drop(p, codeKicked, "kicked: control message flood", wire.LeaveKicked)
		return
	}
	if err != nil {
		m.stats.Malformed++
		p.logReject("control message dropped", err)
		return
	}
	switch msg := msg.(type) {
	case *wire.Spawn:
		m.onSpawn(p, msg, now)
	case *wire.Despawn:
		a := m.actors[msg.Actor]
		if a == nil || a.owner != p.id {
			m.stats.Unauthorized++
			return
		}
		m.despawn(a, wire.DespawnRemoved)
	case *wire.Chat:
		if !p.chat.Take(now) {
			m.stats.RateLimited++
			return
		}
		m.broadcast(&wire.Chat{From: p.id, Text: msg.Text})
	case *wire.Leave:
		m.drop(p, codeNormal, "left", wire.LeaveQuit)
	case *wire.Fire:
		m.onGame(p, msg, now)
	case *wire.Route:
		m.onRoute(p, msg, now)
	default:
		m.stats.Malformed++
	}
}

// onSpawn registers the actor p asks for, or tells p it was refused.
func (m *match) onSpawn(p *member, msg *wire.Spawn, now float64) {
	if p.observing {
		m.stats.Unauthorized++ // an observer has no tank
		p.queueControl(&wire.Despawn{Actor: msg.Actor, Reason: wire.DespawnRemoved})
		return
	}
	if msg.Actor < provisionalBase {
		m.stats.Malformed++
		return
	}
	s := msg.State
	s.Time = unwrapTime(s.Time, now)
	if math.Abs(s.Time-now) > m.h.lim.TimeSlack.Seconds() {
		s.Time = now // the client's clock is not synchronized yet
	}
	if err := m.spawn(p, msg.Name, msg.Team, msg.Seq, s, now); err != nil {
		p.logReject("spawn refused", err)
		p.queueControl(&wire.Despawn{Actor: msg.Actor, Reason: wire.DespawnRemoved})
	}
}

// admitSpawn checks what owner asks before the spawn's state: its count of actors,
// its pace of spawns when paced, the name and the team. It takes nothing: the pace is
// taken once the spawn enters.
func (m *match) admitSpawn(owner *member, name string, team uint8, paced bool, now float64) error {
	if n := len(owner.owned); n >= m.h.lim.MaxActorsPerPlayer && !owner.inProcess {
		return fmt.Errorf("spawn: player %d already has %d actors", owner.id, n)
	}
	if paced && owner.spawns.Wait(now) > 0 {
		// Checked here, taken once the spawn enters: a spawn refused for another
		// reason (a wreck that asks too early, and asks again) costs no budget.
		m.stats.SpawnsThrottled++
		return fmt.Errorf("spawn: player %d spawns more than %d tanks per %v", owner.id,
			m.h.lim.MaxActorsPerPlayer, m.h.lim.RespawnInterval)
	}
	if err := wire.CheckName(name); err != nil {
		m.stats.Invalid++
		return fmt.Errorf("spawn: %w", err)
	}
	if team == wire.TeamDIS && !owner.service {
		m.stats.Invalid++
		return fmt.Errorf("spawn: team %d is kept for DIS entities", team)
	}
	return nil
}

// spawn validates and registers a new actor for owner and announces it to everyone
// (the owner included).
func (m *match) spawn(owner *member, name string, team uint8, seq uint16, s deadreckon.State, now float64) error {
	paced := !owner.inProcess && m.h.lim.RespawnInterval > 0
	if err := m.admitSpawn(owner, name, team, paced, now); err != nil {
		return err
	}
	if !owner.inProcess {
		// The host names a remote player's tanks after the player it admitted: the
		// scoreboard, the chat and the judge know a player by that name, not by one it
		// picks per spawn (a fresh name per spawn was a fresh scoreboard line and
		// fresh combat state, and another player's name was a disguise). A member in
		// the host's process is the host's own code: its bots keep their names, each
		// a player of its own to the judge.
		name = owner.name
	}
	if err := validateState(&s, m.h.match, &m.h.lim, now); err != nil {
		m.stats.Invalid++
		return fmt.Errorf("spawn: %w", err)
	}
	if tm, ok := m.h.cfg.Judge.(Teamer); ok {
		team = uint8(min(max(tm.Team(uint32(owner.id), name, int(team)), 0), math.MaxUint8))
	}
	asked := s
	if pl, ok := m.h.cfg.Judge.(Placer); ok {
		placed, err := pl.Place(uint32(owner.id), name, int(team), s, now)
		if err != nil {
			m.stats.Invalid++
			return fmt.Errorf("spawn: %w", err)
		}
		if placed != s {
			if err := validateState(&placed, m.h.match, &m.h.lim, now); err != nil {
				return fmt.Errorf("spawn: the judge's place: %w", err)
			}
			s = placed
		}
	}
	id, ok := m.allocActor()
	if !ok {
		return errors.New("spawn: no free actor id")
	}
	a := &hostActor{id: id, owner: owner.id, name: name, team: team, state: s, pin: anchorAt(&s, now)}
	if mv := m.h.cfg.Mover; mv != nil {
		mv.Spawned(uint32(id), uint32(owner.id), s, asked, now)
	}
	// A place the owner's updates from where it asked would be refused at: another
	// spot, or the same one facing elsewhere (the judge faces a placed tank toward the
	// nearest enemy, and a ring place can fall within a metre of where it asked).
	d := (mgl64.Vec2{s.Position[0] - asked.Position[0], s.Position[2] - asked.Position[2]}).Len()
	if turn := math.Abs(geom.WrapAngle(geom.Yaw(s.Orientation) - geom.Yaw(asked.Orientation))); d > placedMoved || turn > placedTurned {
		a.moved = &placement{asked: anchorAt(&asked, now), until: now + placementGrace}
	}
	a.seq.Set(seq)
	m.actors[id] = a
	owner.owned = append(owner.owned, a)
	owner.lastPublish, owner.published = now, true
	if paced {
		owner.spawns.Take(now)
	}
	m.zonesSpawned(a, owner, now)
	m.broadcast(a.spawnMsg())
	m.judged(func(j Judge) { j.Spawned(uint32(id), uint32(owner.id), name, int(team), s, now) })
	return nil
}

// despawn removes an actor and tells everyone.
func (m *match) despawn(a *hostActor, reason wire.DespawnReason) {
	delete(m.actors, a.id)
	o := m.members[a.owner]
	if o != nil {
		o.owned = slices.DeleteFunc(o.owned, func(x *hostActor) bool { return x == a })
	}
	m.zonesDespawned(a, o, m.h.now())
	for _, q := range m.order {
		delete(q.lastRelay, a.id)
	}
	if mv := m.h.cfg.Mover; mv != nil {
		mv.Despawned(uint32(a.id), m.h.now())
	}
	m.broadcast(&wire.Despawn{Actor: a.id, Reason: reason})
	m.judged(func(j Judge) { j.Despawned(uint32(a.id), m.h.now()) })
}

// broadcast queues a control message for every member. It is how the host tells
// everyone about spawns, despawns and chat, and how it would pass on any event of
// the game that net carries without knowing its rules.
func (m *match) broadcast(msg wire.Message) {
	b, err := wire.AppendFrame(nil, msg)
	if err != nil {
		m.h.log.Error("encode control message", "type", msg.Type().String(), "err", err)
		return
	}
	for _, q := range m.order {
		q.queueFrame(b)
	}
	if t := m.h.cfg.Tap; t != nil {
		t.Broadcast(msg, m.h.now())
	}
}

// claimName checks that name may join from addr: no look-alike of a present
// player's name, the name free or held by the player whose reconnect token this is
// (replaced, to be dropped), and room for another player from the address.
func (m *match) claimName(name string, token ReconnectToken, addr netip.Prefix) (replaced *member, _ wire.RefuseReason, why string) {
	fromAddr := 0
	skel := wire.Skeleton(name)
	for _, q := range m.order {
		if !q.trusted && q.addr == addr {
			fromAddr++
		}
		if q.name != name {
			if wire.Skeleton(q.name) == skel {
				// A look-alike of a present player's name (a Cyrillic в for a b) would
				// pass for that player in the scoreboard and the chat.
				return nil, wire.RefuseName, fmt.Sprintf("name %s looks like %s, who is playing", logText(name), logText(q.name))
			}
			continue
		}
		if q.trusted || !q.token.matches(token) {
			m.stats.TakeoversRefused++
			return nil, wire.RefuseName, fmt.Sprintf("name %q is in use", name)
		}
		replaced = q
	}
	if replaced == nil && fromAddr >= m.h.lim.MaxPlayersPerAddr {
		m.stats.AddressFull++
		return nil, wire.RefuseFull, fmt.Sprintf("%d players already joined from your address", fromAddr)
	}
	return replaced, 0, ""
}

// admit registers a player joining over conn and queues its welcome: the match
// settings and every actor already in the match. It returns nil and a refusal when it
// cannot.
// A name in use is handed to the new connection only with the reconnect token of its
// holder; addr is the new connection's IP address, for the per-address cap.
// With observe the member joins as an observer, within Limits.MaxObservers.
func (m *match) admit(conn memberConn, name string, token ReconnectToken, addr netip.Prefix, observe bool) (*member, wire.RefuseReason, string) {
	now := m.h.now()
	replaced, reason, why := m.claimName(name, token, addr)
	if reason != 0 {
		return nil, reason, why
	}
	switch {
	case observe && m.observers >= m.h.lim.MaxObservers && (replaced == nil || !replaced.observing):
		return nil, wire.RefuseFull, fmt.Sprintf("the match has its %d observers", m.observers)
	case !observe && replaced == nil && m.players() >= m.h.lim.MaxPlayers:
		return nil, wire.RefuseFull, ""
	}
	id, ok := m.allocPlayer()
	if !ok {
		return nil, wire.RefuseFull, ""
	}
	if replaced != nil {
		m.h.log.Info("player rejoined", "name", logText(name), "old", replaced.id, "new", id)
		m.drop(replaced, codeKicked, "replaced by a new connection with its reconnect token", wire.LeaveQuit)
	}
	p := m.addMember(id, name, conn, now)
	m.stats.Joined++
	if t := m.h.cfg.Tap; t != nil {
		t.Joined(uint32(id), name, now)
	}
	p.addr, p.token = addr, newReconnectToken()
	m.tokens.remember(name, p.token, now)
	hm := m.h.match
	p.queueControl(&wire.JoinAccepted{
		Player:    id,
		Token:     p.token,
		TickRate:  uint16(math.Round(hm.TickRate)),
		Heartbeat: hm.Heartbeat.Seconds(),
		MapExtent: hm.Extent,
		MapSeed:   hm.MapSeed,
		MapName:   hm.Map,
	})
	for _, q := range m.order {
		for _, a := range q.owned {
			p.queueControl(a.spawnMsg())
		}
	}
	m.queueRoutes(p)
	if observe {
		m.observeJoined(p)
	} else if m.observers > 0 {
		p.queueControl(&wire.Observers{Count: uint16(min(m.observers, math.MaxUint16))})
	}
	m.queueZones(p)
	return p, 0, ""
}

// queueZones tells a joining member that the downlink scheduler is on, when it is
// (its owners publish for it, game.ZonedPublishing); a member that joins while it
// is off hears of it when it comes on (engage).
func (m *match) queueZones(p *member) {
	if m.zones != nil && m.zones.on {
		p.queueControl(&wire.Zones{On: true})
	}
}

// addMember registers a member with id; conn may be set later, before it is used.
func (m *match) addMember(id wire.PlayerID, name string, conn memberConn, now float64) *member {
	p := newMember(m.h, id, name, conn, now)
	m.members[id] = p
	i, _ := slices.BinarySearchFunc(m.order, id, func(q *member, id wire.PlayerID) int { return int(q.id) - int(id) })
	m.order = slices.Insert(m.order, i, p)
	m.zonesJoined(p)
	return p
}

// drop removes p from the match, despawns its actors for everyone and closes its
// connection with code and reason. Safe to call more than once.
func (m *match) drop(p *member, code quicCode, reason string, why wire.LeaveReason) {
	if p.removed {
		return
	}
	p.removed = true
	delete(m.members, p.id)
	if p.service {
		m.services--
	}
	m.observeLeft(p)
	m.order = slices.DeleteFunc(m.order, func(q *member) bool { return q == p })
	m.zonesLeft(p)
	owned := p.owned
	p.owned = nil
	for _, a := range owned {
		m.despawn(a, wire.DespawnOwnerGone)
	}
	close(p.done)
	p.conn.close(code, reason)
	if t := m.h.cfg.Tap; t != nil {
		t.Left(uint32(p.id), why, m.h.now())
	}
	m.h.log.Info("player left", "player", p.id, "name", logText(p.name), "reason", reason, "why", why.String())
}

// shutdown drops every member as the host closes.
func (m *match) shutdown() {
	for len(m.order) > 0 {
		m.drop(m.order[len(m.order)-1], codeShutdown, "host closed the match", wire.LeaveQuit)
	}
}

// dropSilent drops the players the host has not heard from for Limits.Timeout, and
// kicks those that published nothing for Limits.IdleKick.
func (m *match) dropSilent(now float64) {
	limit, idle, grace := m.h.lim.Timeout.Seconds(), m.h.lim.IdleKick.Seconds(), m.h.lim.SpawnGrace.Seconds()
	for _, p := range slices.Clone(m.order) {
		switch {
		case p.trusted, p.service:
		case now-p.lastHeard > limit:
			m.stats.TimedOut++
			m.h.log.Info("player timed out", "player", p.id, "name", logText(p.name))
			m.drop(p, codeTimeout, "timed out", wire.LeaveTimeout)
		case p.observing:
			// Never publishes: bounded by Limits.MaxObservers instead.
		case !p.published && grace > 0 && now-p.graceFrom > grace:
			m.stats.IdleKicked++
			m.h.log.Info("player never spawned", "player", p.id, "name", logText(p.name))
			m.drop(p, codeKicked, fmt.Sprintf("kicked: idle, never spawned in %v", m.h.lim.SpawnGrace), wire.LeaveKicked)
		case idle > 0 && now-p.lastPublish > idle:
			m.stats.IdleKicked++
			m.h.log.Info("player idle", "player", p.id, "name", logText(p.name))
			m.drop(p, codeKicked, fmt.Sprintf("kicked: idle, published nothing for %v", m.h.lim.IdleKick), wire.LeaveKicked)
		}
	}
}

// players returns how many members are players: the services and observers not
// counted.
func (m *match) players() int { return len(m.members) - m.services - m.observers }

// statsNow returns the counters with the current sizes and rate.
func (m *match) statsNow() HostStats {
	s := m.stats
	s.Players, s.Services, s.Observers = m.players(), m.services, m.observers
	s.Actors = len(m.actors)
	s.RelayRate = m.relayRate.Value(m.h.now())
	g := m.h.gate.Snapshot()
	s.HandshakesInFlight, s.Retries, s.HandshakesRefused = g.InFlight, g.Retries, g.RefusedTotal+g.RefusedPrefix
	s.HandshakesEvicted, s.HandshakesShed = g.Evicted, g.Shed
	s.Joining, s.JoinsEvicted = m.h.joinQ.Counts()
	if c, ok := m.h.cfg.Judge.(JudgeCounter); ok {
		s.Judged = c.JudgeCounts(nil)
	}
	return s
}

// mayGuess reports whether a join from prefix may have its passphrase proof checked
// now, and if not, how long in seconds it should wait. A join that presents the
// reconnect token its name was given in the last tokenMemoryTTL skips the limiter:
// it proved the passphrase before.
func (m *match) mayGuess(prefix netip.Prefix, name string, token ReconnectToken) (bool, float64) {
	now := m.h.now()
	if m.tokens.knows(name, token, now) {
		return true, 0
	}
	ok, wait := m.guesses.Allow(prefix, now)
	if !ok {
		m.stats.GuessesSlowed++
	}
	return ok, wait
}

// failedGuess records a wrong passphrase from prefix.
func (m *match) failedGuess(prefix netip.Prefix) { m.guesses.Fail(prefix, m.h.now()) }

// allocPlayer returns an unused player id.
func (m *match) allocPlayer() (wire.PlayerID, bool) {
	for range maxPlayerID {
		id := m.nextPlayer
		m.nextPlayer++
		if m.nextPlayer == 0 {
			m.nextPlayer = 1
		}
		if _, used := m.members[id]; !used && id != 0 {
			return id, true
		}
	}
	return 0, false
}

// allocActor returns an unused actor id.
func (m *match) allocActor() (wire.ActorID, bool) {
	for range maxAssignedActor {
		id := m.nextActor
		m.nextActor++
		if m.nextActor > maxAssignedActor {
			m.nextActor = 1
		}
		if _, used := m.actors[id]; !used {
			return id, true
		}
	}
	return 0, false
}
