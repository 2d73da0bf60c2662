package admission

import (
	"sync"

	"github.com/quic-go/quic-go"
)

// JoinQueue holds the connections that finished the QUIC handshake but have not
// joined yet (half-open joins), at most maxTotal of them and maxPer from one address
// prefix. Under pressure it makes room for a newcomer by evicting the oldest
// half-open connection (of the newcomer's prefix when that prefix is full, of all
// when the queue is full) rather than refusing the newcomer: an attacker who keeps
// reopening half-open joins from one prefix only evicts its own, and one spread over
// many prefixes cannot keep an honest join out for longer than its own join takes,
// since every newcomer gets in. Safe for concurrent use.
type JoinQueue struct {
	mu      sync.Mutex
	set     EvictingSet[*quic.Conn]
	evicted uint64
	evict   func(*quic.Conn) // closes an evicted connection, outside the lock
}

// NewJoinQueue returns a queue of at most maxTotal half-open joins, maxPer per
// prefix, that hands the connections it evicts to evict.
func NewJoinQueue(maxTotal, maxPer int, evict func(*quic.Conn)) *JoinQueue {
	return &JoinQueue{set: NewEvictingSet[*quic.Conn](maxTotal, maxPer), evict: evict}
}

// Add admits conn and evicts the connection it made room by, if any.
func (q *JoinQueue) Add(conn *quic.Conn) {
	q.mu.Lock()
	old, evicted := q.set.Add(conn, Prefix(conn.RemoteAddr()))
	if evicted {
		q.evicted++
	}
	q.mu.Unlock()
	if evicted {
		q.evict(old)
	}
}

// Done removes conn: it joined, was refused or closed.
func (q *JoinQueue) Done(conn *quic.Conn) {
	q.mu.Lock()
	q.set.Remove(conn)
	q.mu.Unlock()
}

// Counts returns the half-open connections now and those evicted so far; a nil
// queue (a host without a socket, in tests) has none.
func (q *JoinQueue) Counts() (joining int, evicted uint64) {
	if q == nil {
		return 0, 0
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.set.Len(), q.evicted
}
