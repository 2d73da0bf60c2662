// Package gametest provides an in-memory match host for tests and headless runs of
// package game: links that deliver spawns, updates and despawns after the delays of
// an impaired link (net/impair's model), on a clock the test moves.
package gametest

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
)

// DefaultUpdateBytes is the size a Loopback counts for one state update in its byte
// rates: a batched tank update with its share of datagram overhead.
const DefaultUpdateBytes = 40

// LoopbackConfig sets up a Loopback. The zero value delivers everything at once.
type LoopbackConfig struct {
	// Link is the impairment on the way from the host to each player: state updates
	// take its latency, jitter, loss, duplication and reordering (late ones are
	// dropped as the real client does); spawns and despawns take its latency only,
	// as on the reliable control stream.
	Link impair.Link
	// Seed drives the link's random draws.
	Seed uint64
	// UpdateBytes is the size counted per state update in Stats. If zero, defaults to
	// DefaultUpdateBytes.
	UpdateBytes int
	// Judge, when set, referees the game as on the real host: it hears every spawn,
	// update, despawn and game message (LoopLink.Send) at once (the hub is the host),
	// and its answers reach every link after the link's latency, as EventMessage
	// events. Nil: links refuse game messages.
	Judge net.Judge
}

// Loopback is an in-memory match host for tests and headless use: every LoopLink
// joined to it sees the others' spawns, updates and despawns, after the configured
// link's delays, with seeded jitter, loss, duplication and reordering, and no sockets. Its clock is a parameter: SetNow
// moves it, and messages become pollable once their delivery time has come. The host
// clock and every link's clock are the same clock, so clock offsets are zero.
//
// A Loopback and its links are safe for concurrent use.
type Loopback struct {
	mu       sync.Mutex
	cfg      LoopbackConfig
	delay    float64 // the link's latency, s
	now      float64
	seq      uint64
	nextID   uint32
	nextAct  uint32
	links    []*LoopLink
	actors   map[uint32]*loopActor
	closed   bool
	closeWhy string
	out      []wire.Message // reused: the judge's answers
}

// loopActor is the hub's record of one spawned actor.
type loopActor struct {
	owner uint32
	name  string
	team  int
	state deadreckon.State
}

// NewLoopback returns an empty in-memory host at time 0. It returns an error for an
// invalid link.
func NewLoopback(cfg LoopbackConfig) (*Loopback, error) {
	if cfg.UpdateBytes <= 0 {
		cfg.UpdateBytes = DefaultUpdateBytes
	}
	if _, err := impair.NewPath(cfg.Link, cfg.Seed); err != nil {
		return nil, fmt.Errorf("gametest: %w", err)
	}
	return &Loopback{
		cfg:     cfg,
		delay:   cfg.Link.Latency.Seconds(),
		nextID:  1,
		nextAct: 1,
		actors:  make(map[uint32]*loopActor),
	}, nil
}

// SetNow moves the shared clock to t seconds. A t earlier than the current time is
// ignored: the clock never runs backwards.
func (h *Loopback) SetNow(t float64) {
	h.mu.Lock()
	if t > h.now {
		h.now = t
	}
	if j := h.cfg.Judge; j != nil {
		j.Tick(h.now)
		h.flushJudge()
	}
	h.mu.Unlock()
}

// flushJudge sends the judge's answers to every link after its latency. The caller
// holds h.mu.
func (h *Loopback) flushJudge() {
	h.out = h.cfg.Judge.Outbox(h.out[:0])
	for _, m := range h.out {
		for _, l := range h.links {
			if !l.closed {
				l.push(h.now+h.delay, net.Event{Kind: net.EventMessage, Message: m}, h.nextSeq())
			}
		}
	}
	clear(h.out)
}

// Refereed reports whether the hub has a Judge: whether game messages are heard.
func (l *LoopLink) Refereed() bool { return l.hub.cfg.Judge != nil }

// Send hands a game message (wire.Fire, wire.HitClaim) to the hub's Judge at once,
// with the link's latency as the player's.
func (l *LoopLink) Send(m wire.Message) error {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := l.usable(); err != nil {
		return fmt.Errorf("send: %w", err)
	}
	if h.cfg.Judge == nil || !net.IsGameMessage(m.Type()) {
		return fmt.Errorf("send %v: no judge for it on this hub", m.Type())
	}
	h.cfg.Judge.Message(l.id, m, h.now, net.JudgeLink{Latency: h.delay})
	h.flushJudge()
	return nil
}

// Now returns the shared clock, s.
func (h *Loopback) Now() float64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.now
}

// Join adds a player and returns its link. The new link learns of every actor
// already in the match through spawn events.
func (h *Loopback) Join() *LoopLink {
	h.mu.Lock()
	defer h.mu.Unlock()
	// The link was checked by NewLoopback.
	path, _ := impair.NewPath(h.cfg.Link, h.cfg.Seed+uint64(h.nextID)*0x9e3779b97f4a7c15)
	l := &LoopLink{hub: h, id: h.nextID, path: path, last: make(map[uint32]float64)}
	h.nextID++
	if h.closed {
		l.push(h.now, net.Event{Kind: net.EventClosed, Text: h.closeWhy}, h.nextSeq())
	}
	ids := make([]uint32, 0, len(h.actors))
	for id := range h.actors {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	for _, id := range ids {
		a := h.actors[id]
		l.push(h.now+h.delay, net.Event{Kind: net.EventSpawn, Actor: id, Owner: a.owner,
			Name: a.name, Team: a.team, State: a.state}, h.nextSeq())
	}
	h.links = append(h.links, l)
	return l
}

// Close ends the match: every link yields an EventClosed with reason, at once.
func (h *Loopback) Close(reason string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return
	}
	h.closed, h.closeWhy = true, reason
	for _, l := range h.links {
		if !l.closed {
			l.push(h.now, net.Event{Kind: net.EventClosed, Text: reason}, h.nextSeq())
		}
	}
}

func (h *Loopback) nextSeq() uint64 { h.seq++; return h.seq }

// LoopLink is one player's link to a Loopback. It implements game.Link.
type LoopLink struct {
	hub    *Loopback
	id     uint32
	path   *impair.Path       // host → this player, guarded by hub.mu
	queue  []loopPending      // guarded by hub.mu
	last   map[uint32]float64 // newest delivered state time per actor
	closed bool

	in, out   loopRate
	dropped   uint64
	window    float64 // start of the current rate window, s
	lastStats net.Stats
}

// loopPending is an event waiting for its delivery time.
type loopPending struct {
	at  float64
	seq uint64
	ev  net.Event
}

// loopRate counts traffic in the current one-second window.
type loopRate struct{ bytes, updates float64 }

// push queues ev for delivery at time at. The caller holds hub.mu.
func (l *LoopLink) push(at float64, ev net.Event, seq uint64) {
	l.queue = append(l.queue, loopPending{at: at, seq: seq, ev: ev})
}

// ID returns the player's id.
func (l *LoopLink) ID() uint32 { return l.id }

// Now returns the shared clock, s.
func (l *LoopLink) Now() float64 { return l.hub.Now() }

// Spawn registers a new actor owned by this player and announces it to every link,
// this one included, after the configured delay.
func (l *LoopLink) Spawn(name string, team int, s deadreckon.State) (uint32, error) {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := l.usable(); err != nil {
		return 0, fmt.Errorf("spawn: %w", err)
	}
	id := h.nextAct
	h.nextAct++
	s.Time = h.now
	h.actors[id] = &loopActor{owner: l.id, name: name, team: team, state: s}
	if j := h.cfg.Judge; j != nil {
		j.Spawned(id, l.id, name, team, s, h.now)
		defer h.flushJudge()
	}
	for _, o := range h.links {
		if !o.closed {
			o.push(h.now+h.delay, net.Event{Kind: net.EventSpawn, Actor: id, Owner: l.id,
				Name: name, Team: team, State: s}, h.nextSeq())
		}
	}
	return id, nil
}

// Chat sends a chat line to every link, this one included, after the configured
// delay. The sender is named after its first actor, or "player N" before it has one.
func (l *LoopLink) Chat(text string) error {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := l.usable(); err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	name := fmt.Sprintf("player %d", l.id)
	first := uint32(0)
	for id, a := range h.actors {
		if a.owner == l.id && (first == 0 || id < first) {
			first, name = id, a.name
		}
	}
	for _, o := range h.links {
		if !o.closed {
			o.push(h.now+h.delay, net.Event{Kind: net.EventChat, Owner: l.id, Name: name, Text: text}, h.nextSeq())
		}
	}
	return nil
}

// Despawn removes one of this player's actors and tells the other links.
func (l *LoopLink) Despawn(actor uint32) error {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := l.usable(); err != nil {
		return fmt.Errorf("despawn: %w", err)
	}
	a := h.actors[actor]
	if a == nil || a.owner != l.id {
		return fmt.Errorf("despawn %d: %w", actor, net.ErrNotOwner)
	}
	l.despawnLocked(actor)
	return nil
}

func (l *LoopLink) despawnLocked(actor uint32) {
	h := l.hub
	delete(h.actors, actor)
	if j := h.cfg.Judge; j != nil {
		j.Despawned(actor, h.now)
		defer h.flushJudge()
	}
	for _, o := range h.links {
		if o != l && !o.closed {
			o.push(h.now+h.delay, net.Event{Kind: net.EventDespawn, Actor: actor, Owner: l.id}, h.nextSeq())
		}
	}
}

// Publish stamps s with the shared clock and sends it to every other link, through
// each one's impaired path.
func (l *LoopLink) Publish(actor uint32, s deadreckon.State) error {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if err := l.usable(); err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	a := h.actors[actor]
	if a == nil || a.owner != l.id {
		return fmt.Errorf("publish %d: %w", actor, net.ErrNotOwner)
	}
	s.Time = h.now
	a.state = s
	if j := h.cfg.Judge; j != nil {
		j.Relayed(actor, s, h.now)
	}
	l.rollWindow()
	l.out.bytes += float64(h.cfg.UpdateBytes)
	l.out.updates++
	for _, o := range h.links {
		if o == l || o.closed {
			continue
		}
		d := o.path.Send(time.Duration(h.now * float64(time.Second)))
		if d.Lost {
			continue
		}
		ev := net.Event{Kind: net.EventState, Actor: actor, Owner: l.id, State: s, Arrival: d.At.Seconds()}
		o.push(d.At.Seconds(), ev, h.nextSeq())
		if d.Duplicated {
			o.push(d.DuplicateAt.Seconds(), ev, h.nextSeq())
		}
	}
	return nil
}

// Poll appends the events whose delivery time has come, in delivery order, and
// returns the extended slice. State updates older than one already delivered for the
// same actor are dropped and counted, as the real host does.
func (l *LoopLink) Poll(buf []net.Event) []net.Event {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if l.closed {
		return buf
	}
	l.rollWindow()
	// Move the due events to the front, in delivery order.
	due := 0
	for i := range l.queue {
		if l.queue[i].at <= h.now {
			l.queue[due], l.queue[i] = l.queue[i], l.queue[due]
			due++
		}
	}
	ready := l.queue[:due]
	slices.SortFunc(ready, func(a, b loopPending) int {
		if c := cmp.Compare(a.at, b.at); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	for i := range ready {
		ev := ready[i].ev
		switch ev.Kind {
		case net.EventState:
			if t, ok := l.last[ev.Actor]; ok && ev.State.Time <= t {
				l.dropped++
				continue
			}
			l.last[ev.Actor] = ev.State.Time
			l.in.bytes += float64(h.cfg.UpdateBytes)
			l.in.updates++
		case net.EventSpawn:
			l.last[ev.Actor] = ev.State.Time
		case net.EventDespawn:
			delete(l.last, ev.Actor)
		case net.EventClosed:
			l.closed = true
		}
		buf = append(buf, ev)
		if l.closed {
			break
		}
	}
	n := copy(l.queue, l.queue[due:])
	clear(l.queue[n:])
	l.queue = l.queue[:n]
	return buf
}

// rollWindow closes the one-second rate window when it is over. The caller holds
// hub.mu.
func (l *LoopLink) rollWindow() {
	now := l.hub.now
	if span := now - l.window; span >= 1 {
		l.lastStats.BytesIn, l.lastStats.UpdatesIn = l.in.bytes/span, l.in.updates/span
		l.lastStats.BytesOut, l.lastStats.UpdatesOut = l.out.bytes/span, l.out.updates/span
		l.in, l.out = loopRate{}, loopRate{}
		l.window = now
	}
}

// Stats returns the link's rates over the last full second and its drop count. RTT
// is twice the link's latency; the clock offset is zero.
func (l *LoopLink) Stats() net.Stats {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	l.rollWindow()
	s := l.lastStats
	s.RTT = 2 * h.cfg.Link.Latency
	s.Dropped = l.dropped
	return s
}

// Close leaves the match: the link's actors are despawned for everyone else. It is
// safe to call more than once.
func (l *LoopLink) Close() error {
	h := l.hub
	h.mu.Lock()
	defer h.mu.Unlock()
	if l.closed {
		return nil
	}
	var mine []uint32
	for id, a := range h.actors {
		if a.owner == l.id {
			mine = append(mine, id)
		}
	}
	slices.Sort(mine) // deterministic event order
	for _, id := range mine {
		l.despawnLocked(id)
	}
	l.closed = true
	clear(l.queue)
	l.queue = l.queue[:0]
	return nil
}

// usable reports why the link cannot send, or nil. The caller holds hub.mu.
func (l *LoopLink) usable() error {
	switch {
	case l.closed:
		return net.ErrClosed
	case l.hub.closed:
		return fmt.Errorf("%w: %s", net.ErrClosed, l.hub.closeWhy)
	}
	return nil
}
