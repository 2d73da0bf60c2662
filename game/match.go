package game

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/treadline/treadline/internal/units"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// ErrLinkClosed is wrapped by the error Step and Err return once the link to the
// other peers has closed (the host went away, the player was kicked, or the link was
// closed locally). The wrapping error says why.
var ErrLinkClosed = errors.New("game: link closed")

// Match is one peer's view of a match: its local tanks (the player's and its own bots,
// driven by physics and published through deadreckon.Publishers) and the remote tanks
// of the other peers (dead-reckoned by deadreckon.Actors and clamped to the ground).
// The same code runs in the desktop client, the headless host and tests.
//
// A Match is not safe for concurrent use: one goroutine calls Step and Snapshot.
type Match struct {
	cfg   Config
	link  Link
	terr  *terrain.Map
	world *physics.World
	log   *slog.Logger
	rng   *rand.Rand
	// dr is the dead reckoning in force: local tanks' publishing, and in dr.Reckon
	// how remote tanks are reckoned (SetAlgorithm, SetClamp and
	// SetLatencyCompensation change it).
	dr deadreckon.PublisherConfig
	// collide keeps remote tanks, and local tanks' reckoning of their own updates,
	// out of the map's rocks and border (physics.Collide).
	collide deadreckon.Collide
	// camera is where the viewer stands, for the clamp's level of detail; hasCamera
	// is false until SetCamera, and the player's tank stands in.
	camera    mgl64.Vec3
	hasCamera bool
	// An observer's (observe.go): the tank its camera follows, when it next reports
	// the camera, and the host's count of observers.
	follow    uint32
	nextView  float64
	observers int
	// zoned says the host rations each player's downlink (zones.go); unzonedAt is
	// when it last stopped, match time, s: a tank the host held back until then
	// has been silent only since (removeSilent).
	zoned     bool
	unzonedAt float64
	// stall watches whether the player's tank goes where it is driven (stall.go).
	stall stallWatch
	// view is the camera's view cone (SetCameraView), for the priority modes.
	view viewCone
	// modes counts the remote tanks in each priority mode as of the last Step.
	modes [deadreckon.NumModes]int
	// detail says which of the views' costlier fields are filled (SetViewDetail).
	detail ViewDetail
	// reck holds the remote tanks' actors, in pages, and advances and clamps them in
	// one call: on the caller's goroutine up to largeMatch of them, shared with
	// worker goroutines beyond (Close stops those).
	reck *deadreckon.Reckoner
	// byHandle holds each remote tank under its actor's handle in reck, for the
	// reckoning's hooks (reckonHooks), which are handed the handle.
	byHandle []*tank
	// hooks is the remote tanks' own work in reck's pass (reckonHooks), made once.
	hooks deadreckon.Hooks
	// pass holds this step's figures for the hooks, written before the pass.
	pass reckonPass
	// refused and proxyRefused count, during the pass, the updates the actors
	// refused and the proxy moves the physics refused: the hooks run on several
	// goroutines, and the counts go into counters after it.
	refused, proxyRefused atomic.Uint64
	// workers are the reckoning's worker threads, for WorkerCPU.
	workers workerThreads
	// timer sums the time of each part of the steps, when a benchmark asks
	// (TimeSteps).
	timer stepTimer

	tanks  []*tank          // every tank, in spawn order
	byID   map[uint32]*tank // the same, by actor id
	self   *tank            // the player's tank, or nil
	events []net.Event      // reused Poll buffer
	aims   []mgl64.Vec3     // reused: displayed positions, for bots' turrets
	seen   []mgl64.Vec3     // reused: the positions one bot may notice
	near   tankIndex        // the tanks by shown position, in a large match
	// indexed reports whether near holds this tick's positions (for publish).
	indexed bool
	// locals and localBots count the local tanks, and those a bot drives: the
	// index is built only for the lookups they make (see nearScanLocals).
	locals, localBots int
	// own holds the local tanks in their order in tanks (a local tank is never
	// removed), so that the steps' passes over the local tanks alone do not walk
	// every remote tank's memory to find them.
	own []*tank
	// enemyAt is reused: the enemies' positions, for a respawn's choice of pad.
	enemyAt []mgl64.Vec3
	// others is reused: the other tanks' places, for the choice of a spawn place.
	others []other
	free   []*tank     // removed remote tanks, reused for new ones
	gone   []Departure // remote tanks removed in the last DepartureShown seconds
	// leaving holds leave notices back until no respawn follows them.
	leaving []pendingLeave

	started  bool
	last     float64 // now of the previous Step
	respawn  bool    // the player asked for a respawn
	err      error
	counters counters
	// stats are the link's figures as of this tick, read once per Step: the clock
	// offset every phase uses and the snapshot's NetStats.
	stats net.Stats

	startedAt float64      // now of the first Step
	notices   noticeLog    // the feed's recent notices
	combat    *matchCombat // nil when the link has no referee
}

// counters are the match's own tallies of dropped or refused input.
type counters struct {
	unknownActor  uint64 // state updates for actors never spawned
	earlyProgress uint64 // progress along a route that had not arrived (it follows on the stream)
	rejected      uint64 // updates the remote actor refused (NaN, absurd values)
	publishErr    uint64 // publishes the link refused
	respawns      uint64 // local tanks respawned
	placed        uint64 // local spawns the host put elsewhere than asked, moved there
	proxyRefused  uint64 // proxy moves the physics refused
}

// tank is one tank of the match, local or remote.
type tank struct {
	id    uint32
	owner uint32
	name  string
	team  int
	local bool

	// Remote tanks.
	actor     *deadreckon.Actor // in Match.reck, under handle
	handle    deadreckon.Handle
	route     *deadreckon.Route // the route its owner published last, or nil
	routeID   uint16
	proxy     *physics.Proxy // its stand-in in the physics world, at the reckoned pose
	lastHeard float64        // local time the last update arrived
	// pend holds the indices in Match.events of the state updates that arrived for
	// it this step, in order: they are applied in the reckoning's pass, just before
	// its actor advances (applyPending).
	pend []int32
	// offset is the clock offset its actor was last given (its bits), and
	// offsetSet whether it was given one: setting the same one again changes
	// nothing, and would write to the actor's out-of-line part every frame.
	offset    uint64
	offsetSet bool
	// shownAt is where the actor shows the tank this step (its Reckoned position),
	// kept by readRemote until refreshViews puts it in the view: publish, between
	// them, measures its tanks' nearest others from the last step's views.
	shownAt mgl64.Vec3
	// lastKnownAt is the owner's time of the actor's last-known state as of this
	// step (readRemote), for combat's record of the updates applied, s.
	lastKnownAt float64

	view  TankView // everything but the trail
	trail ring

	// Local tanks.
	body        *physics.Tank
	pub         *deadreckon.Publisher
	bot         *bot.Driver
	path        *deadreckon.PathPublisher // a patrolling bot's publisher on a RouteLink, else nil
	routeSent   bool                      // path's route went out for this actor id
	published   deadreckon.State          // last state handed to the link
	asked       deadreckon.State          // the state its last spawn asked the host for
	placed      bool                      // it moved to where the host put its last spawn, from the host's answer
	pubAt       float64                   // local time it was handed over
	spawnFailed bool                      // a respawn could not re-enter the match; retry
	spawnAt     float64                   // host time it spawned, as its spawn says (-Inf: unknown)
	retryAt     float64                   // local time of the next retry of a failed respawn
	retryWait   float64                   // the wait before that retry, s: doubles per refusal
	sampledAt   float64                   // local time of the last pose given to the publisher
	upsideFor   float64                   // time spent upside down or stuck below the world, s

	// known comes last, and the local tanks' fields after the remote ones': each
	// frame's passes over the remote tanks read their heads, reckoning fields,
	// views and trails, and these lie out of those cache lines. It is the ghost
	// overlay's, filled unless ViewDetail.NoProjection.
	known Known
}

// NewMatch creates a match on link: it builds the physics world on the map and
// spawns the player's tank (unless cfg.NoPlayer) and cfg.Bots bots through the link.
// Spawning waits for the host's answers, so NewMatch may block for a round trip.
func NewMatch(cfg Config, link Link) (*Match, error) {
	if link == nil {
		panic("game: NewMatch with a nil Link")
	}
	if cfg.Bots < 0 || cfg.Bots > MaxBots {
		return nil, fmt.Errorf("game: bot count %d outside 0..%d", cfg.Bots, MaxBots)
	}
	if cfg.Name == "" {
		cfg.Name = DefaultName
	}
	if !(cfg.MaxStep > 0) {
		cfg.MaxStep = DefaultMaxStep
	}
	if cfg.TrailLength == 0 {
		cfg.TrailLength = DefaultTrailLength
	}
	if cfg.TrailLength < 0 {
		cfg.TrailLength = 0
	}
	if !(cfg.TrailInterval > 0) {
		cfg.TrailInterval = DefaultTrailInterval
	}
	if !(cfg.RemoveAfter > 0) {
		cfg.RemoveAfter = DefaultRemoveAfter
	}
	cfg.DeadReckoning = withGameReckoning(cfg.DeadReckoning)
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	m := &Match{
		cfg:  cfg,
		link: link,
		terr: cfg.Map,
		log:  log,
		// Peers with the same seed still choose differently (spawn points).
		rng:  rand.New(rand.NewPCG(cfg.Seed, uint64(link.ID())*0x9e3779b97f4a7c15)),
		dr:   cfg.DeadReckoning,
		byID: make(map[uint32]*tank),
	}
	m.reck = deadreckon.NewReckoner(deadreckon.ReckonerConfig{MinParallel: largeMatch + 1, WorkerStart: m.workers.started})
	m.hooks = m.reckonHooks()
	var err error
	if m.combat, err = newMatchCombat(link, cfg); err != nil {
		return nil, err
	}
	if m.terr == nil {
		t, err := terrain.Generate(terrain.GenerateConfig{Seed: cfg.Seed})
		if err != nil {
			return nil, fmt.Errorf("game: generate map: %w", err)
		}
		m.terr = t
	}
	w, err := physics.NewWorld(physics.MapConfig(m.terr))
	if err != nil {
		return nil, fmt.Errorf("game: physics world: %w", err)
	}
	m.world = w
	m.collide = physics.Collide(m.terr)
	m.last = link.Now()
	m.stats = link.Stats()
	// Learn of the tanks already in the match, so spawns keep clear of them.
	m.receive(m.last, false)
	if m.err != nil {
		return nil, m.err
	}
	if err := m.spawnAll(); err != nil {
		// Take back what did enter the match.
		for _, t := range m.tanks {
			if t.local {
				_ = link.Despawn(t.id)
			}
		}
		return nil, err
	}
	return m, nil
}

// spawnAll spawns the player's tank and the bots. A joining player learns of the
// tanks already in the match only with the host's answer to its first spawn, so that
// tank is moved clear of them once they are known.
func (m *Match) spawnAll() error {
	first := true
	settle := func(t *tank) error {
		if !first {
			return nil
		}
		first = false
		m.receive(m.last, false)
		if m.err != nil {
			return m.err
		}
		m.keepClear(t)
		return nil
	}
	if !m.cfg.NoPlayer && !m.cfg.Observe {
		t, err := m.spawnLocal(m.cfg.Name, m.cfg.Team, nil)
		if err != nil {
			return fmt.Errorf("game: spawn player: %w", err)
		}
		m.self = t
		if err := settle(t); err != nil {
			return err
		}
	}
	id := uint64(m.link.ID())
	for i := range m.cfg.Bots {
		seed := m.cfg.Seed ^ (id<<32+uint64(i)+1)*0x632be59bd9b4e019
		bot := bot.NewDriver(bot.Config{Map: m.terr, Seed: seed, Patrol: patrols(m.cfg.Patrol, i)})
		t, err := m.spawnLocal(botName(int(id), i), 1+i%2, bot)
		if err != nil {
			return fmt.Errorf("game: spawn bot %d: %w", i+1, err)
		}
		if err := settle(t); err != nil {
			return err
		}
	}
	return nil
}

// botNames names the bots; a peer's bots take consecutive names.
const botNames = "Abrams,Leopard,Merkava,Challenger,Leclerc,Ariete,Arjun,Type 10," +
	"Centauro,Sabra,Oplot,Stridsvagn,Scorpion,Rooikat,Olifant,Tiger"

// botName returns the name of a peer's i'th bot.
func botName(peer, i int) string {
	names := strings.Split(botNames, ",")
	n := names[(peer*5+i)%len(names)]
	if i >= len(names) {
		return fmt.Sprintf("%s %d", n, i/len(names)+1)
	}
	return n
}

// Terrain returns the match's map.
func (m *Match) Terrain() *terrain.Map { return m.terr }

// Now returns the link's local clock in seconds: the clock Step expects.
func (m *Match) Now() float64 { return m.link.Now() }

// Err returns nil while the match runs, and an error wrapping ErrLinkClosed once the
// link has closed; the error says why.
func (m *Match) Err() error { return m.err }

// Self returns the actor id of the player's tank, and false when the match has none.
func (m *Match) Self() (uint32, bool) {
	if m.self == nil {
		return 0, false
	}
	return m.self.id, true
}

// DeadReckoning returns the dead reckoning in force: how local tanks publish and,
// in Reckon, how remote tanks are reckoned.
func (m *Match) DeadReckoning() deadreckon.PublisherConfig { return m.dr }

// Algorithm returns the dead-reckoning algorithm remote tanks use now.
func (m *Match) Algorithm() deadreckon.Algorithm { return m.dr.Reckon.Algorithm }

// Clamp returns the ground clamp mode remote tanks use now.
func (m *Match) Clamp() deadreckon.ClampMode { return m.dr.Reckon.Clamp.Mode }

// SetAlgorithm switches every remote tank, present and future, to algorithm a. Each
// tank carries on from what it displays now, without a jump.
func (m *Match) SetAlgorithm(a deadreckon.Algorithm) {
	m.dr.Reckon.Algorithm = a
	m.reconfigure()
}

// SetClamp switches every remote tank, present and future, to ground clamp mode c.
func (m *Match) SetClamp(c deadreckon.ClampMode) {
	m.dr.Reckon.Clamp.Mode = c
	m.reconfigure()
}

// LatencyCompensation reports whether remote tanks are projected from their owners'
// timestamps (deadreckon.Config.CompensateLatency).
func (m *Match) LatencyCompensation() bool { return m.dr.Reckon.CompensateLatency }

// SetLatencyCompensation switches every remote tank, present and future, between
// projecting from owner timestamps (on) and from arrival times (off).
func (m *Match) SetLatencyCompensation(on bool) {
	m.dr.Reckon.CompensateLatency = on
	m.reconfigure()
}

// SetCamera tells the match where the viewer stands, in world meters: remote tanks
// near it are clamped with three rays, far ones more cheaply (deadreckon.Clamp's
// NearDistance and FarDistance). Until it is called, the player's tank stands in.
func (m *Match) SetCamera(p mgl64.Vec3) {
	if geom.FiniteVec(p) {
		m.camera, m.hasCamera = p, true
	}
}

// remoteReckoning returns how remote tanks are reckoned: the reckoning in force, kept out
// of the map's rocks and border, accepting what the wire's rounding adds to a state
// at the bounds (wire.WidenLimits).
func (m *Match) remoteReckoning() deadreckon.Config {
	c := m.reckoning()
	c.Limits = wire.WidenLimits(c.Limits)
	return c
}

// reckoning is the match's reckoning with its collisions.
func (m *Match) reckoning() deadreckon.Config {
	c := m.dr.Reckon
	c.Collide = m.collide
	return c
}

// publishing returns how local tanks publish: reckoning their own updates as remotes
// do, within the match's bounds as they are (the wire's rounding is the remotes' to
// allow for, wire.WidenLimits).
func (m *Match) publishing() deadreckon.PublisherConfig {
	c := m.dr
	c.Reckon = m.reckoning()
	return c
}

// reconfigure applies the reckoning in force to every remote tank.
func (m *Match) reconfigure() {
	for _, t := range m.tanks {
		if t.actor != nil {
			t.actor.SetConfig(m.routeReckoning(t))
		}
	}
}

// Respawn puts the player's tank back on a spawn point at the next Step: a
// continuity break that remote peers see as a jump, not a slide.
func (m *Match) Respawn() { m.respawn = true }

// Step advances the match to local time now (seconds on the link's clock; see Now),
// with the player's input for this tick. One tick runs eight phases, in this order:
//
//  1. the input is applied;
//  2. the events that arrived on the link are handled (spawns, despawns, chat;
//     state updates are queued for their tanks, in order);
//  3. local tanks behave (bots choose their inputs);
//  4. remote tanks are given the state updates queued for them (several for one tank
//     in a tick: the last wins), reckoned to now and clamped to the ground, and their
//     physics proxies are set on the reckoned paths;
//  5. the physics steps, so local tanks collide with remote ones where they are shown;
//  6. local tanks publish what the deadreckon.Publisher decides;
//  7. the views the next Snapshot hands out are refreshed;
//  8. combat: the host's events, shots, shells and claims, on the views just refreshed.
//
// A now earlier than the previous Step's, or not finite, simulates no time. Step returns an error
// wrapping ErrLinkClosed once the link has closed (see Err); the match's state stays
// readable, so a client can show the last frame and the reason.
func (m *Match) Step(now float64, in physics.Input) error {
	if m.err != nil {
		return m.err
	}
	m.timer.begin()
	m.stats = m.link.Stats()
	if !geom.Finite(now) {
		now = m.last // a broken clock reading simulates no time
	}
	dt := 0.0
	if m.started {
		dt = now - m.last
	}
	if !(dt > 0) { // also NaN
		dt = 0
	}
	if dt > m.cfg.MaxStep {
		// The physics skips the rest: its tanks' falls still run through it, on the
		// clock their states are stamped with (physics.World.Skip).
		m.world.Skip(dt - m.cfg.MaxStep)
		dt = m.cfg.MaxStep
	}
	m.timer.end(StepPhysics) // the link's figures, with the skip
	if now > m.last || !m.started {
		m.last = now
	}
	if !m.started {
		m.startedAt = now
		m.notices.restamp(now) // told while joining (the team): shown from the first step
	}
	m.started = true
	now = m.last

	// 1. Input.
	if m.self != nil {
		m.self.body.SetInput(sanitizeInput(in))
	}
	// 2. Network in.
	m.receive(now, true)
	m.flushLeaves(now)
	m.timer.end(StepReceive)
	// 3. Local behaviour.
	m.behave(now, dt)
	m.timer.end(StepBehave)
	// 4. Reckon remote tanks, clamp them to the ground, and put their proxies on the
	// reckoned paths: local tanks collide with remote ones where they are shown.
	m.reckon(now, dt)
	m.timer.end(StepReckon)
	// 5. Physics.
	if dt > 0 && len(m.world.Tanks()) > 0 { // proxies, rocks and border alone need no steps
		m.world.Step(dt)
	}
	m.timer.end(StepPhysics)
	// 6. Publish local tanks (an observer's camera).
	m.publish(now)
	m.sendView(now)
	m.timer.end(StepPublish)
	// 7. Views for the snapshot, and whether the player's tank is stuck.
	m.refreshViews(now)
	if t := m.self; t != nil {
		m.stall.step(stallCause(t.body.Pose(), t.body.Input(), t.body.Touching()), dt)
	}
	m.timer.end(StepViews)
	// 8. Combat: the host's events, shots, shells and claims on the views just shown.
	m.fight(now)
	m.timer.end(StepCombat)
	return m.err
}

// sanitizeInput clamps throttle and steer to −1..1 and replaces non-finite values by 0.
func sanitizeInput(in physics.Input) physics.Input {
	in.Throttle = clampUnit(in.Throttle)
	in.Steer = clampUnit(in.Steer)
	if !geom.Finite(in.AimYaw) {
		in.AimYaw = 0
	}
	if !geom.Finite(in.GunElevation) {
		in.GunElevation = 0
	}
	return in
}

func clampUnit(v float64) float64 {
	switch {
	case !geom.Finite(v):
		return 0
	case v > 1:
		return 1
	case v < -1:
		return -1
	}
	return v
}

// receive handles the events that arrived on the link since the last tick. With
// queue, the state updates are queued for the reckoning's pass (reckon), which
// clears the buffer; without (while the match starts), they are applied at once.
func (m *Match) receive(now float64, queue bool) {
	m.events = m.link.Poll(m.events[:0])
	if o := m.cfg.Observer; o != nil {
		// A step's offset is the one its reckoning uses, read at its start (Step):
		// asking the link again costs a round trip to its goroutine every frame.
		off := m.stats.ClockOffset
		if !queue {
			off = m.link.Stats().ClockOffset // while joining, read afresh
		}
		o.Polled(now, m.events, off)
	}
	me := m.link.ID()
	for i := range m.events {
		ev := &m.events[i]
		switch ev.Kind {
		case net.EventSpawn:
			m.spawnHeard(ev, me, now)
		case net.EventState:
			m.stateHeard(i, now, queue)
		case net.EventRoute, net.EventProgress:
			m.routeEvent(ev, now)
		case net.EventDespawn:
			m.despawnHeard(ev, now)
		case net.EventChat:
			m.chatHeard(ev)
		case net.EventMessage:
			m.combatMessage(ev.Message, now)
		case net.EventClosed:
			m.closedHeard(ev)
		}
	}
	if !queue {
		// Strings in old events would otherwise stay reachable from the buffer.
		// Queued updates are read from it in the reckoning, which clears it.
		clear(m.events)
	}
}

// spawnHeard handles a spawn event ev arrived at local time now: our own (me is the
// link's peer) confirms where the host put it, a known remote tank's is a break, and
// an unknown one's starts reckoning a new remote tank.
func (m *Match) spawnHeard(ev *net.Event, me uint32, now float64) {
	if ev.Owner == me {
		m.spawnConfirmed(ev) // our own: where the host put it
		return
	}
	if t := m.byID[ev.Actor]; t != nil {
		if !t.local {
			m.applyPending(t, now) // the updates before the break come first
			m.breakRemote(t, ev.State, now)
		}
		return
	}
	m.addRemote(ev, now)
}

// stateHeard queues the state update m.events[i] for its remote tank, and with
// queue false applies it at once (at local time now). An update for an unknown actor
// is counted; one for a local tank is ignored.
func (m *Match) stateHeard(i int, now float64, queue bool) {
	t := m.remoteOf(&m.events[i])
	if t == nil {
		return
	}
	// Applied in the reckoning's pass, where the actor's memory is walked
	// anyway, and shared with its workers in a crowd (applyPending).
	t.pend = append(t.pend, int32(i))
	if !queue {
		m.applyPending(t, now)
	}
}

// remoteOf returns the remote tank event ev is about, or nil when its actor is one
// of ours (local: ours are not reckoned from the link) or unknown here, which is
// counted (unknownActor) so that events for tanks never spawned or gone show.
func (m *Match) remoteOf(ev *net.Event) *tank {
	t := m.byID[ev.Actor]
	if t == nil {
		m.counters.unknownActor++
		return nil
	}
	if t.local {
		return nil
	}
	return t
}

// despawnHeard removes the remote tank a despawn event ev names, after the updates
// queued for it, with the reason it gives ("left" when none).
func (m *Match) despawnHeard(ev *net.Event, now float64) {
	t := m.byID[ev.Actor]
	if t == nil || t.local {
		return
	}
	m.applyPending(t, now) // a departure shows whether it was stale
	reason := ev.Text
	if reason == "" {
		reason = "left"
	}
	m.depart(t, now, reason)
	m.removeRemote(t)
}

// closedHeard ends the match with the ending and reason the closed link's event ev
// gives ("connection closed" when none).
func (m *Match) closedHeard(ev *net.Event) {
	reason := ev.Text
	if reason == "" {
		reason = "connection closed"
	}
	m.err = &EndedError{Ending: ev.Ending, Reason: reason}
	m.log.Info("link closed", "reason", reason)
}

// applyPending gives remote tank t's actor the state updates queued for it this step
// (tank.pend), in their order, as arrived at local time now. It runs on the goroutine
// that reckons the tank (the reckoning's Before hook), or on the caller's before
// anything else reads or changes the actor in the step: a break, a route or progress,
// a departure. A refused update is counted in refused, for counters.
func (m *Match) applyPending(t *tank, now float64) {
	for _, i := range t.pend {
		ev := &m.events[i]
		if err := t.actor.Receive(ev.State, now); err != nil {
			m.refused.Add(1)
			m.log.Debug("update refused", "actor", ev.Actor, "err", err)
			continue
		}
		t.lastHeard = now
	}
	t.pend = t.pend[:0]
}

// chatHeard adds a chat line to the feed, named after its sender's tank: the link
// names other players after their tanks, and this one's is known here.
func (m *Match) chatHeard(ev *net.Event) {
	who := ev.Name
	if who == "" && ev.Owner == m.link.ID() && m.self != nil {
		who = m.self.name
	}
	if who == "" {
		who = fmt.Sprintf("player %d", ev.Owner)
	}
	m.notify(Notice{Kind: NoticeChat, Who: who, Team: m.teamOf(ev.Owner), Text: ev.Text})
}

// addRemote starts reckoning a tank another peer owns. A spawn whose state the actor
// refuses (non-finite, absurd) is dropped and counted: the tank would have nowhere to
// be drawn.
func (m *Match) addRemote(ev *net.Event, now float64) {
	h := m.reck.Add(m.remoteReckoning())
	a := m.reck.Actor(h)
	if err := a.Break(ev.State, now); err != nil {
		m.reck.Remove(h)
		m.counters.rejected++
		m.log.Debug("spawn refused", "actor", ev.Actor, "err", err)
		return
	}
	a.SetClampPhase(int(ev.Actor)) // spread far clamps over frames
	x, z, yaw := planar(ev.State)
	proxy, err := m.world.AddProxy(physics.TankSpec{}, x, z, yaw)
	if err != nil {
		m.reck.Remove(h)
		m.counters.rejected++
		m.log.Debug("spawn refused", "actor", ev.Actor, "err", err)
		return
	}
	var t *tank
	if n := len(m.free); n > 0 {
		t = m.free[n-1]
		m.free = m.free[:n-1]
		trail := t.trail
		*t = tank{trail: trail}
		t.trail.reset()
	} else {
		t = &tank{trail: newRing(m.cfg.TrailLength)}
	}
	t.id, t.owner, t.name, t.team = ev.Actor, ev.Owner, ev.Name, ev.Team
	t.spawnAt = m.spawnedAt(ev, now)
	t.actor, t.handle, t.proxy, t.lastHeard = a, h, proxy, now
	if int(h) >= len(m.byHandle) {
		m.byHandle = append(m.byHandle, make([]*tank, int(h)+1-len(m.byHandle))...)
	}
	m.byHandle[h] = t
	// Where its owner last said it is, until the next refresh: a spawn chosen before
	// then keeps clear of it.
	t.view.Position, t.view.Orientation = ev.State.Position, ev.State.Orientation
	m.tanks = append(m.tanks, t)
	m.byID[t.id] = t
	m.log.Debug("remote tank", "actor", t.id, "owner", t.owner, "name", t.name)
	m.announceJoin(t, now)
}

// breakRemote applies a continuity break (a repeated spawn) to a remote tank.
func (m *Match) breakRemote(t *tank, s deadreckon.State, now float64) {
	if err := t.actor.Break(s, now); err != nil {
		m.counters.rejected++
		m.log.Debug("spawn state refused", "actor", t.id, "err", err)
		return
	}
	t.lastHeard = now
	t.trail.reset()
}

// removeRemote drops a remote tank from the match.
func (m *Match) removeRemote(t *tank) {
	delete(m.byID, t.id)
	for i, u := range m.tanks {
		if u == t {
			copy(m.tanks[i:], m.tanks[i+1:])
			m.tanks[len(m.tanks)-1] = nil
			m.tanks = m.tanks[:len(m.tanks)-1]
			break
		}
	}
	m.reck.Remove(t.handle)
	m.byHandle[t.handle] = nil
	t.actor = nil
	t.pend = t.pend[:0]
	m.world.RemoveProxy(t.proxy)
	t.proxy = nil
	m.free = append(m.free, t)
}

// planar returns a state's place on the ground plane: its (x, z), m, and the yaw of
// its forward axis, rad.
func planar(s deadreckon.State) (x, z, yaw float64) {
	return s.Position[0], s.Position[2], geom.Yaw(s.Orientation)
}

// readRemote reads remote tank t's actor a once in a step, just after the reckoning
// (the reckoning's After hook): it puts the tank's physics proxy on its reckoned path
// for the physics step that follows, and fills the tank's view from the actor, all
// but its position, which refreshViews puts in after publish (shownAt). Nothing
// between here and refreshViews changes a remote actor, so the view is what reading
// the actor in refreshViews would give; reading each actor (about 1 kB) while the
// reckoning has it at hand saves a pass over the crowd's memory a frame.
func (m *Match) readRemote(t *tank, a *deadreckon.Actor) {
	r := a.Reckoned()
	m.viewRemote(t, &r, m.pass.now)
	if t.proxy != nil {
		m.moveProxy(t, &r, m.pass.dt)
	}
}

// moveProxy puts remote tank t's physics proxy on its reckoned path r for the
// physics step of dt seconds that follows. The reckoned pose is for now, the end of
// that step; the proxy takes its path as of the world's present, so it is given the
// reckoned pose dt earlier along the reckoned velocity, and the step carries it onto
// the reckoned pose itself.
func (m *Match) moveProxy(t *tank, r *deadreckon.State, dt float64) {
	x, z := r.Position[0], r.Position[2]
	// The actor accepts wilder motion than a proxy can follow; a tank that far
	// off or that fast is beyond meeting anyway.
	v := capLen(mgl64.Vec3{r.Velocity[0], 0, r.Velocity[2]}, physics.MaxProxySpeed)
	vx, vz := v[0], v[2]
	yawRate := math.Max(-physics.MaxProxyYawRate, math.Min(physics.MaxProxyYawRate, r.AngularVelocity[1]))
	lim := physics.MaxProxyCoordinate
	x = math.Max(-lim, math.Min(lim, x-vx*dt))
	z = math.Max(-lim, math.Min(lim, z-vz*dt))
	// Its heading, the reckoned yaw turned back by yawRate × dt, is worked out
	// only if a step needs it: most proxies sleep far from every tank.
	if err := t.proxy.MoveToOriented(x, z, r.Orientation, yawRate*dt, vx, vz, yawRate); err != nil {
		m.proxyRefused.Add(1)
		m.log.Debug("proxy move refused", "actor", t.id, "err", err)
	}
}

// viewRemote fills remote tank t's view, but for its position (kept in shownAt),
// from its actor's reckoned state r at local time now.
func (m *Match) viewRemote(t *tank, r *deadreckon.State, now float64) {
	a := t.actor
	v := &t.view
	t.shownAt = r.Position
	v.Stale = a.Stale(now)
	v.Orientation = r.Orientation
	v.Turret = r.Articulations[physics.ArticulationTurret].Angle
	v.Gun = r.Articulations[physics.ArticulationGun].Angle
	v.Velocity, v.Acceleration = r.Velocity, r.Acceleration
	t.lastKnownAt = a.LastKnown().Time
	if !m.detail.NoProjection {
		// Projecting the last-known state costs about as much as reckoning
		// it; nothing reads the ghost or the error without an overlay.
		t.known = Known{LastKnown: a.LastKnown(), LastKnownProjected: a.LastKnownProjected()}
	}
	c := a.LastClamp()
	v.Clamped = c.Clamped
	v.ClampHits, v.NumClampHits = c.Hits, c.NumHits
	v.GroundNormal = c.Normal
	v.UpdateAge = now - t.lastHeard
	v.Mode = a.Mode()
}

// behave lets every local tank choose its input and handles respawns.
func (m *Match) behave(now, dt float64) {
	// Only a bot looks at the others' positions here: a player's peer in a
	// crowd, whose bots are the host's, spares two walks of every tank.
	large := false
	if m.localBots > 0 {
		m.aims = m.aims[:0]
		for _, t := range m.tanks {
			m.aims = append(m.aims, t.view.Position)
		}
		large = m.near.index(m.tanks)
	}
	if m.combat != nil {
		m.combat.aims.fresh = false // the tick's views and records
	}
	for _, t := range m.own {
		pose := t.body.Pose()
		if t.bot != nil {
			m.seen = m.appendNear(m.seen[:0], large, pose.Position, t.bot.Sight())
			t.body.SetInput(t.bot.Drive(now, pose, m.seen))
		}
		if m.combat != nil {
			t.body.SetInput(m.aim(t, now, pose, t.body.Input()))
		}
		switch {
		case t.spawnFailed && now < t.retryAt:
			// A refused respawn waits before asking again (spawnRetry): the host
			// paces spawns, and a retry every frame would be refused every frame.
		case t.spawnFailed || m.needsRespawn(t, pose, dt) || (t == m.self && m.respawn):
			m.respawnLocal(t)
		}
	}
	m.respawn = false
}

// needsRespawn reports whether a local tank left the world or stayed upside down.
func (m *Match) needsRespawn(t *tank, p physics.Pose, dt float64) bool {
	lo, hi := m.terr.Min(), m.terr.Max()
	minH, _ := m.terr.HeightRange()
	x, y, z := p.Position[0], p.Position[1], p.Position[2]
	if !geom.Finite(x) || !geom.Finite(y) || !geom.Finite(z) || x < lo[0]-1 || x > hi[0]+1 || z < lo[1]-1 || z > hi[1]+1 ||
		y < minH-RespawnBelow {
		return true
	}
	up := p.Orientation.Rotate(mgl64.Vec3{0, 1, 0})
	if up[1] < 0.2 {
		t.upsideFor += dt
	} else {
		t.upsideFor = 0
	}
	return t.upsideFor > RespawnUpsideDown
}

// publish runs every local tank's publisher on this tick's pose.
func (m *Match) publish(now float64) {
	m.indexed = m.locals > nearScanLocals && m.near.index(m.tanks)
	for _, t := range m.own {
		if t.spawnFailed {
			continue
		}
		p := t.body.Pose()
		// The physics runs whole fixed steps: its pose is as of the last one, the
		// time it still owes (Alpha steps) before now. Sampling it at its own time
		// keeps the publisher's velocities exact whatever the frame rate.
		at := now - m.world.Alpha()*m.world.FixedStep()
		if at <= t.sampledAt {
			continue // no physics step ran for it this tick
		}
		t.sampledAt = at
		sample := sampleOf(p, at)
		sample.ObserverDistance = m.nearestOther(t, p.Position)
		if o := m.cfg.Observer; o != nil {
			o.Truth(t.id, &sample)
		}
		if t.path != nil {
			m.publishPath(t, p, sample, now)
			continue
		}
		d, s := t.pub.Update(sample)
		t.view.Acceleration = t.pub.Acceleration()
		if d == deadreckon.NoUpdate {
			continue
		}
		t.published, t.pubAt = s, now
		if o := m.cfg.Observer; o != nil {
			o.Published(t.id, s, now)
		}
		if err := m.link.Publish(t.id, s); err != nil {
			m.counters.publishErr++
			m.log.Debug("publish", "actor", t.id, "err", err)
		}
	}
	m.indexed = false
}

// capLen returns v scaled down to length max when it is longer.
func capLen(v mgl64.Vec3, max float64) mgl64.Vec3 {
	if l := v.Len(); l > max {
		return v.Mul(max / l)
	}
	return v
}

// nearestOther returns the distance from p to the nearest tank other than t, m, or 0
// (unknown) when t is alone. In a large match it looks in the index publish built.
func (m *Match) nearestOther(t *tank, p mgl64.Vec3) float64 {
	if m.indexed {
		return m.nearestIndexed(t, p)
	}
	return m.nearestScan(t, p)
}

// nearestScan is nearestOther by a scan of every tank.
func (m *Match) nearestScan(t *tank, p mgl64.Vec3) float64 {
	best := math.Inf(1)
	for _, u := range m.tanks {
		if u != t {
			best = math.Min(best, u.view.Position.Sub(p).Len())
		}
	}
	if math.IsInf(best, 1) {
		return 0
	}
	return best
}

// sampleOf turns a physics pose into a publisher sample at local time now.
func sampleOf(p physics.Pose, now float64) deadreckon.Sample {
	var s deadreckon.Sample
	s.Time = now
	s.Position = p.Position
	s.Orientation = p.Orientation
	s.Articulations[physics.ArticulationTurret] = p.Turret
	s.Articulations[physics.ArticulationGun] = p.Gun
	s.NumArticulations = physics.NumArticulations
	return s
}

// reckonPass holds a step's figures for the reckoning's hooks, which run on
// several goroutines and only read it.
type reckonPass struct {
	now, dt  float64    // the step's local time and physics step, s
	offset   float64    // host clock minus local clock, s (clockOffset)
	observer mgl64.Vec3 // the viewpoint of the modes and clamps
}

// reckon drops the remote tanks that have been silent too long, then, in one pass
// shared out over the reckoning's goroutines in a large match, gives every remote
// tank its queued updates and its mode, advances it to now, clamps it to the ground
// with the level of detail its distance from the camera calls for, and reads it
// (readRemote) for the physics step of dt seconds that follows.
func (m *Match) reckon(now, dt float64) {
	observer := m.observer()
	// Latency compensation and the Delayed algorithm read owner timestamps on the
	// host's clock; the link's clock sync says how far that is from ours.
	m.pass = reckonPass{now: now, dt: dt, offset: m.clockOffset(), observer: observer}
	m.removeSilent(now)
	// Each hook reads only its own tank and actor, the map and the rocks, and moves
	// only its own proxy.
	m.reck.AdvanceWith(now, m.terr, observer, m.hooks)
	m.counters.rejected += m.refused.Swap(0)
	m.counters.proxyRefused += m.proxyRefused.Swap(0)
	// Strings in old events would otherwise stay reachable from the buffer.
	clear(m.events)
}

// removeSilent removes the remote tanks not heard from for Config.RemoveAfter, and
// says so in the notice feed: where the host relays every update to every player,
// silence means the owner has gone quiet. A host that rations each player's downlink
// (Zoned) may hold a far tank back for longer when the tanks near the player fill
// the budget (a crowd at its spawn), and a tank removed would not come back when the
// host had room for it again: there a silent tank stays, shown stale, ZonedSilence
// times as long, which still drops one whose owner stopped publishing but not
// talking (a game loop that froze while its connection lives).
func (m *Match) removeSilent(now float64) {
	limit := m.cfg.RemoveAfter
	if m.zoned {
		limit *= ZonedSilence
	}
	for i := 0; i < len(m.tanks); i++ {
		t := m.tanks[i]
		if t.local {
			continue
		}
		heard := max(t.lastHeard, m.unzonedAt)
		if now-heard > limit && len(t.pend) > 0 {
			m.applyPending(t, now) // an update this step ends its silence
			heard = max(t.lastHeard, m.unzonedAt)
		}
		if now-heard > limit {
			m.log.Info("remote tank silent, removed", "actor", t.id, "name", t.name)
			m.depart(t, now, "silent")
			m.removeRemote(t)
			i--
		}
	}
}

// reckonHooks returns the remote tanks' own work in the reckoning's pass, on the
// goroutine that advances each: before its actor advances, the updates queued for it,
// the link's clock offset (set only when it changes: it would write to the actor's
// out-of-line part every frame) and its priority mode; after, readRemote.
func (m *Match) reckonHooks() deadreckon.Hooks {
	return deadreckon.Hooks{
		Before: func(h deadreckon.Handle, a *deadreckon.Actor) {
			t := m.byHandle[h]
			if len(t.pend) > 0 {
				m.applyPending(t, m.pass.now)
			}
			if b := math.Float64bits(m.pass.offset); !t.offsetSet || t.offset != b {
				a.SetClockOffset(m.pass.offset)
				t.offset, t.offsetSet = b, true
			}
			m.chooseMode(t, t.view.Position, m.pass.observer)
		},
		After: func(h deadreckon.Handle, a *deadreckon.Actor) {
			m.readRemote(m.byHandle[h], a)
		},
	}
}

// Close stops the goroutines a large match's reckoning started. The match stays
// readable, and a Step after Close reckons on the caller's goroutine. Close is
// idempotent.
func (m *Match) Close() { m.reck.Close() }

// refreshViews rebuilds every tank's view and trail for Snapshot.
func (m *Match) refreshViews(now float64) {
	m.modes = [deadreckon.NumModes]int{}
	for _, t := range m.tanks {
		v := &t.view
		v.ID, v.Name, v.Team, v.Local = t.id, t.name, t.team, t.local
		if t.local {
			// Drawn between the last two fixed steps, so it moves smoothly at any
			// frame rate (one step behind the simulation).
			p := t.body.Interpolated(m.world.Alpha())
			v.Stale, v.Mode = false, deadreckon.ModeHigh
			v.Position, v.Orientation = p.Position, p.Orientation
			v.Turret, v.Gun = p.Turret, p.Gun
			v.Velocity = p.Velocity
			t.known.LastKnown = t.published
			t.known.LastKnownProjected = t.pub.Reckoned()
			if t.path != nil {
				t.known.LastKnownProjected = t.path.Reckoned()
			}
			v.Clamped, v.ClampHits, v.NumClampHits, v.GroundNormal = p.OnGround, p.ClampHits, 3, p.GroundNormal
			if !p.OnGround {
				v.NumClampHits = 0
			}
			v.UpdateAge = now - t.pubAt
			v.Error = v.Position.Sub(t.known.LastKnownProjected.Position).Len()
		} else {
			// The rest of the view was read from the actor with its proxy's path
			// (readRemote).
			v.Position = t.shownAt
			m.modes[v.Mode]++
			v.Error = 0
			if !m.detail.NoProjection {
				v.Error = v.Position.Sub(t.known.LastKnownProjected.Position).Len()
			}
		}
		m.viewCombat(t, v)
		t.trail.add(now, v.Position, m.cfg.TrailInterval)
	}
}

// Snapshot fills dst with the match as it stands after the last Step. It reuses dst's
// slices (the tank list and each tank's trail), so a caller that keeps one Snapshot
// and passes it every frame causes no allocation once the match has stopped growing.
func (m *Match) Snapshot(dst *Snapshot) {
	m.timer.begin()
	defer m.timer.end(StepSnapshot)
	dst.Time = m.last
	dst.Algorithm = m.dr.Reckon.Algorithm
	dst.Clamp = m.dr.Reckon.Clamp.Mode
	dst.LatencyCompensation = m.dr.Reckon.CompensateLatency
	dst.Heartbeat, dst.StaleAfter = m.dr.Reckon.Heartbeat, m.dr.Reckon.StaleAfter()
	if !(dst.Heartbeat > 0) {
		dst.Heartbeat = deadreckon.DefaultHeartbeat
	}
	dst.Self = -1
	dst.Observing, dst.Observers = m.cfg.Observe, m.observers
	dst.Stall = m.stall.shown
	dst.Modes = m.modes
	n := len(m.tanks)
	if cap(dst.Tanks) < n {
		grown := make([]TankView, n, n+n/2+4)
		copy(grown, dst.Tanks[:cap(dst.Tanks)])
		dst.Tanks = grown
	}
	dst.Tanks = dst.Tanks[:n]
	dst.Known = dst.Known[:0]
	if !m.detail.NoProjection {
		dst.Known = slices.Grow(dst.Known, n)[:n]
	}
	dst.Notices = m.notices.appendTo(dst.Notices[:0])
	dst.Departures = m.departures(dst.Departures[:0])
	dst.Ghosts = dst.Ghosts[:0]
	for i, t := range m.tanks {
		trail := dst.Tanks[i].Trail[:0]
		dst.Tanks[i] = t.view
		if !m.detail.NoTrails {
			trail = t.trail.appendTo(trail)
		}
		dst.Tanks[i].Trail = trail
		if len(dst.Known) > 0 {
			dst.Known[i] = t.known
		}
		if t == m.self {
			dst.Self = i
		}
	}
	m.snapshotCombat(&dst.Combat)
	dst.Net = netStatsOf(m.stats)
	// An update can outrun its actor's spawn (datagrams versus the stream).
	dst.Net.Dropped += m.counters.unknownActor + m.counters.earlyProgress
	dst.Net.Refused = m.counters.rejected
	dst.Net.SendErrors += m.counters.publishErr
	dst.Net.ProxyRefused = m.counters.proxyRefused
	dst.Net.Lag, dst.Net.Jitter, dst.Net.Loss = m.cfg.Impairment.Latency.Seconds(), m.cfg.Impairment.Jitter.Seconds(), m.cfg.Impairment.Loss
}

// clockOffset returns host clock minus local clock as the link's clock sync estimates
// it as of this tick, s: the unit of state timestamps and of the host's combat times.
func (m *Match) clockOffset() float64 { return units.Seconds(m.stats.ClockOffset) }
