package net

import (
	"sync"

	"github.com/quic-go/quic-go"
)

// joinQueue holds the connections that finished the QUIC handshake but have not
// joined yet (half-open joins), at most maxTotal of them and maxPer from one address
// prefix. Under pressure it makes room for a newcomer by closing the oldest
// half-open connection (of the newcomer's prefix when that prefix is full, of all
// when the queue is full) rather than refusing the newcomer: an attacker who keeps
// reopening half-open joins from one prefix only evicts its own, and one spread over
// many prefixes cannot keep an honest join out for longer than its own join takes,
// since every newcomer gets in. Safe for concurrent use.
type joinQueue struct {
	mu      sync.Mutex
	set     evictingSet[*quic.Conn]
	evicted uint64
}

func newJoinQueue(maxTotal, maxPer int) *joinQueue {
	return &joinQueue{set: newEvictingSet[*quic.Conn](maxTotal, maxPer)}
}

// add admits conn and closes the connection it evicted to make room, if any.
func (q *joinQueue) add(conn *quic.Conn) {
	q.mu.Lock()
	old, evicted := q.set.add(conn, addrPrefix(conn.RemoteAddr()))
	if evicted {
		q.evicted++
	}
	q.mu.Unlock()
	if evicted {
		old.CloseWithError(codeRefused, "host busy: too many players joining at once; try again")
	}
}

// done removes conn: it joined, was refused or closed.
func (q *joinQueue) done(conn *quic.Conn) {
	q.mu.Lock()
	q.set.remove(conn)
	q.mu.Unlock()
}

// counts returns the half-open connections now and those evicted so far; a nil
// queue (a host without a socket, in tests) has none.
func (q *joinQueue) counts() (joining int, evicted uint64) {
	if q == nil {
		return 0, 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.set.len(), q.evicted
}
