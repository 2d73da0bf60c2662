package net

import (
	"errors"
	"fmt"
	"sync"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// maxQueuedEvents bounds the events a Peer holds between Polls; state updates
// beyond it are dropped and counted, so a stalled game cannot exhaust memory.
const maxQueuedEvents = 1 << 16

// ErrClosed reports a call on a Peer whose session has ended.
var ErrClosed = errors.New("session closed")

// eventQueue is a Peer's inbox. Safe for concurrent use.
type eventQueue struct {
	mu      sync.Mutex
	events  []Event
	closed  bool // EventClosed queued; nothing more is queued
	dropped uint64
}

// push queues ev; state events beyond the bound are dropped and counted. It reports
// whether ev was queued.
func (q *eventQueue) push(ev Event) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return false
	}
	if len(q.events) >= maxQueuedEvents && ev.Kind == EventState {
		q.dropped++
		return false
	}
	q.events = append(q.events, ev)
	return true
}

// close queues EventClosed with reason, once.
func (q *eventQueue) close(reason string, why Ending) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.closed {
		return
	}
	q.closed = true
	q.events = append(q.events, Event{Kind: EventClosed, Text: reason, Ending: why})
}

// poll appends the queued events to buf and empties the queue.
func (q *eventQueue) poll(buf []Event) []Event {
	q.mu.Lock()
	defer q.mu.Unlock()
	buf = append(buf, q.events...)
	clear(q.events)
	q.events = q.events[:0]
	return buf
}

func (q *eventQueue) isClosed() bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.closed
}

func (q *eventQueue) droppedCount() uint64 {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.dropped
}

// localPeer is the host's own player: actors it publishes go straight into the
// host's relay, and events reach it without a network hop.
type localPeer struct {
	h *Host
	q eventQueue

	// Guarded by h.mu.
	seqs       map[wire.ActorID]uint16
	rejected   uint64
	updatesOut rateMeter
	updatesIn  rateMeter
	left       bool
}

func newLocalPeer(h *Host) *localPeer {
	return &localPeer{h: h, seqs: map[wire.ActorID]uint16{}}
}

// push queues ev for the host's player; h.mu held.
func (l *localPeer) push(ev Event) {
	if !l.h.localActive {
		return
	}
	if l.q.push(ev) && ev.Kind == EventState {
		l.updatesIn.add(1, l.h.Now())
	}
}

func (l *localPeer) closeWith(reason string, why Ending) { l.q.close(reason, why) }

// ID returns 0, the host's own player id.
func (l *localPeer) ID() uint32 { return 0 }

// Now returns the host clock in seconds.
func (l *localPeer) Now() float64 { return l.h.Now() }

// Match returns the host's match settings.
func (l *localPeer) Match() MatchSettings { return l.h.match }

func (l *localPeer) self() (*player, error) {
	p := l.h.players[0]
	if p == nil || l.left || l.h.closed {
		return nil, ErrClosed
	}
	return p, nil
}

// Spawn registers an actor owned by the host's player and announces it.
func (l *localPeer) Spawn(name string, team int, s deadreckon.State) (uint32, error) {
	if team < 0 || team > 255 {
		return 0, fmt.Errorf("spawn: team %d outside [0, 255]", team)
	}
	h := l.h
	h.mu.Lock()
	defer h.mu.Unlock()
	p, err := l.self()
	if err != nil {
		return 0, fmt.Errorf("spawn: %w", err)
	}
	s.Time = h.Now()
	id, err := h.spawnLocked(p, name, uint8(team), 0, s)
	if err != nil {
		l.rejected++
		return 0, err
	}
	l.seqs[id] = 0
	return uint32(id), nil
}

// Despawn removes one of the host player's actors.
func (l *localPeer) Despawn(actor uint32) error {
	h := l.h
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, err := l.self(); err != nil {
		return fmt.Errorf("despawn: %w", err)
	}
	a := h.actors[wire.ActorID(actor)]
	if actor > maxAssignedActor || a == nil || a.owner != 0 {
		return fmt.Errorf("despawn: actor %d: %w", actor, ErrNotOwner)
	}
	delete(l.seqs, a.id)
	h.despawnLocked(a.id, wire.DespawnRemoved, "removed by its owner")
	return nil
}

// Publish validates the update, stamps it with the host clock and relays it.
func (l *localPeer) Publish(actor uint32, s deadreckon.State, full bool) error {
	h := l.h
	h.mu.Lock()
	defer h.mu.Unlock()
	p, err := l.self()
	if err != nil {
		return fmt.Errorf("publish: %w", err)
	}
	id := wire.ActorID(actor)
	if actor > maxAssignedActor {
		return fmt.Errorf("publish: actor %d: %w", actor, ErrNotOwner)
	}
	now := h.Now()
	s.Time = now
	u := wire.Update{Kind: wire.KindPartial, Actor: id, Seq: l.seqs[id] + 1, State: s}
	if full || s.NumArticulations > 0 {
		u.Kind = wire.KindFull
	}
	if err := h.acceptUpdate(p, &u, now); err != nil {
		l.rejected++
		return fmt.Errorf("publish: %w", err)
	}
	l.seqs[id] = u.Seq
	l.updatesOut.add(1, now)
	h.relayLocked(h.actors[id], &u, now)
	return nil
}

// Chat sends a line to every player.
func (l *localPeer) Chat(text string) error {
	if err := checkChat(text); err != nil {
		return err
	}
	h := l.h
	h.mu.Lock()
	defer h.mu.Unlock()
	p, err := l.self()
	if err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	h.chatLocked(p, text)
	return nil
}

// checkChat reports whether text can be sent as a chat line.
func checkChat(text string) error {
	if text == "" {
		return errors.New("chat: empty line")
	}
	if len(text) > wire.MaxTextLen {
		return fmt.Errorf("chat: %d bytes, limit %d", len(text), wire.MaxTextLen)
	}
	if _, err := (&wire.Chat{From: 0, Text: text}).Append(nil); err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	return nil
}

// Poll appends the events since the last call.
func (l *localPeer) Poll(buf []Event) []Event { return l.q.poll(buf) }

// Stats returns the host player's figures: no round trip or clock offset, updates
// per second each way, and its own rejected publishes.
func (l *localPeer) Stats() Stats {
	h := l.h
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.Now()
	return Stats{
		UpdatesIn:  l.updatesIn.value(now),
		UpdatesOut: l.updatesOut.value(now),
		Dropped:    l.q.droppedCount(),
		Rejected:   l.rejected,
	}
}

// Close despawns the host player's actors and ends its event stream with an
// EventClosed. The host keeps serving the other players.
func (l *localPeer) Close() error {
	h := l.h
	h.mu.Lock()
	if !l.left {
		l.left = true
		for id, a := range h.actors {
			if a.owner == 0 {
				h.despawnLocked(id, wire.DespawnOwnerGone, "host player left")
			}
		}
	}
	h.mu.Unlock()
	l.q.close("left the match", EndLeft)
	return nil
}
