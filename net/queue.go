package net

import "errors"

// maxQueuedEvents bounds the events a Client holds between Polls; state updates
// beyond it are dropped and counted, so a stalled game cannot exhaust memory.
const maxQueuedEvents = 1 << 16

// ErrClosed reports a call on a Client whose session has ended, or on a closed Host.
var ErrClosed = errors.New("session closed")

// eventQueue is a Client's inbox, owned by its run loop.
type eventQueue struct {
	events  []Event
	closed  bool // EventClosed queued; nothing more is queued
	dropped uint64
}

// push queues ev; state and progress events beyond the bound are dropped and counted. It reports
// whether ev was queued.
func (q *eventQueue) push(ev Event) bool {
	if q.closed {
		return false
	}
	if len(q.events) >= maxQueuedEvents && (ev.Kind == EventState || ev.Kind == EventProgress) {
		q.dropped++
		return false
	}
	q.events = append(q.events, ev)
	return true
}

// close queues EventClosed with reason and why, once.
func (q *eventQueue) close(reason string, why Ending) {
	if q.closed {
		return
	}
	q.closed = true
	q.events = append(q.events, Event{Kind: EventClosed, Text: reason, Ending: why})
}

// poll appends the queued events to buf and empties the queue.
func (q *eventQueue) poll(buf []Event) []Event {
	buf = append(buf, q.events...)
	clear(q.events)
	q.events = q.events[:0]
	return buf
}
