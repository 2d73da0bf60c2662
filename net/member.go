package net

import (
	"errors"
	"math"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/net/internal/admission"
	"github.com/treadline/treadline/net/internal/rate"
	"github.com/treadline/treadline/net/wire"
)

// quicCode is a QUIC application error code.
type quicCode = quic.ApplicationErrorCode

// Send queue bounds per member.
const (
	// controlQueue is how many control frames may wait for a slow player before it
	// is dropped as unresponsive.
	controlQueue = 1024
	// maxPendingBatches is how many full state batches may wait for one player;
	// further relays to it are dropped and counted until it catches up.
	maxPendingBatches = 64
	// maxPendingProbes is how many clock answers may wait for one player.
	maxPendingProbes = 4
)

// memberConn is how the host reaches one member: a QUIC connection, or the pipe to
// the host's own player. Only the member's send loop calls the send methods, which
// may block; close is called by the run loop and must not block long.
type memberConn interface {
	sendDatagram(b []byte) error
	writeControl(frame []byte) error
	close(code quicCode, reason string)
	remoteAddr() string
	rtt() time.Duration
}

// member is one player as the host's run loop sees it. Everything but out is owned by
// the run loop.
type member struct {
	h       *Host
	id      wire.PlayerID
	name    string
	conn    memberConn
	trusted bool // the host's own player: no rate limits, no timeout
	// inProcess is whether the member runs in the host's process (the host's own
	// player, or one joined with Host.JoinLocal): the host's own code, whose tanks
	// (its bots) keep the names it gives them. A remote player's tanks are named by
	// the host after the player.
	inProcess bool
	// service is whether the member is a service in the host's process, not a
	// player (LocalConfig.Service): not counted, never dropped for silence, the only
	// one who may spawn tanks of wire.TeamDIS.
	service bool
	// observing is whether the member joined as an observer (observe.go): no tank,
	// a place the host moves as its View datagrams ask, from viewAt (host time).
	observing bool
	viewAt    float64
	passive   bool // receives no state updates (the host's player before Local)
	removed   bool
	done      chan struct{} // closed when the member is removed

	addr        netip.Prefix   // the member's IP address, for the per-address cap
	token       ReconnectToken // hands the member's name to a new connection
	lastHeard   float64
	lastPublish float64 // last accepted update or spawn, for the idle kick
	joinedAt    float64 // host time it joined
	graceFrom   float64 // host time its spawn grace runs from: when it joined, moved on by the host's stalls
	published   bool    // it has spawned or published since it joined
	rtt         float64 // QUIC's smoothed round trip, s, for the timestamp window
	flood       admission.FloodGuard
	updates     rate.Bucket
	control     rate.Bucket
	chat        rate.Bucket              // chat lines passed on (Limits.ChatRate)
	spawns      rate.Bucket              // the spawn budget (Limits.RespawnInterval)
	owned       []*hostActor             // the member's actors
	lastRelay   map[wire.ActorID]float64 // thinning: last relay time per actor
	open        *wire.BatchWriter        // the batch being filled for this member
	dirty       bool                     // open is in match.dirty
	logged      int                      // rejections logged, to keep floods out of the log

	// The downlink scheduler's (zones.go): what the member was sent of each tank,
	// what it is owed, its budget, and where it watches from while tankless.
	slots     []slot // by hostActor.zi; a nil: none
	pending   []owe  // the owed slots
	musts     int    // owed slots with must set
	budget    rate.Budget
	place     mgl64.Vec3 // its last tank's place, the map's centre before it had one
	seen      uint64     // zones.stamp of the last update offered to it
	zdirty    bool       // in zones.dirty
	cursor    int        // next far cell of zones.cells to offer it
	cslots    []cellSlot // by far cell index (zones_cells.go)
	downBytes uint64     // state bytes the scheduler sent it
	bypassed  uint64     // of which outside the budget
	forceAt   float64    // host time from which an owed tank of interest may be forceAge unsent
	kth       float64    // the k-th highest priority at its last choice among part of its backlog; 0: none
	repeats   []repeat   // records due to go again (zones_repeat.go), by due time
	// near lists the slots of the tanks within nearRadius owed to it, by slot
	// index, in the order they fell owed; nearBudget caps what they spend of its
	// budget, and nearAt is when its next datagram of records may go
	// (zones_near.go).
	near       []int32
	nearBudget rate.Bucket
	nearAt     float64
	nearSpent  float64 // bytes its near records took since its last choice

	out outbox // shared with the send loop
}

func newMember(h *Host, id wire.PlayerID, name string, conn memberConn, now float64) *member {
	return &member{
		h:           h,
		id:          id,
		name:        name,
		conn:        conn,
		done:        make(chan struct{}),
		lastHeard:   now,
		lastPublish: now,
		joinedAt:    now,
		graceFrom:   now,
		flood:       admission.NewFloodGuard(h.lim.FloodRate, int(math.Ceil(h.lim.FloodFor.Seconds())), now),
		updates:     rate.NewBucket(h.lim.UpdateRate, h.lim.UpdateBurst, now),
		control:     rate.NewBucket(h.lim.ControlRate, h.lim.ControlBurst, now),
		chat:        rate.NewBucket(h.lim.ChatRate, h.lim.ChatBurst, now),
		spawns:      spawnBudget(&h.lim, now),
		lastRelay:   map[wire.ActorID]float64{},
		out:         outbox{signal: make(chan struct{}, 1)},
	}
}

// spawnBudget returns a remote player's spawn budget, full at now: n =
// l.MaxActorsPerPlayer spawns per l.RespawnInterval, in bursts of 2n+2. A player that
// joins spawns every tank it may own, and a round restart respawns them all at once:
// the burst holds both, and two more (a joining player moves its tank clear of the
// tanks it learns of with its first spawn, and may press respawn). A tank respawns at
// most once per wreck time in honest play: the rate earns a spawn for every tank in
// that time. (An unpaced host never asks it.)
func spawnBudget(l *Limits, now float64) rate.Bucket {
	n := float64(l.MaxActorsPerPlayer)
	return rate.NewBucket(n/max(l.RespawnInterval.Seconds(), 1e-9), 2*n+2, now)
}

// queueControl encodes msg for p's control stream.
func (p *member) queueControl(msg wire.Message) {
	b, err := wire.AppendFrame(nil, msg)
	if err != nil {
		p.h.log.Error("encode control message", "type", msg.Type().String(), "err", err)
		return
	}
	p.queueFrame(b)
}

// queueFrame queues an encoded control frame, shared by every recipient. A player
// whose queue is full is not reading its stream; it is disconnected.
func (p *member) queueFrame(b []byte) {
	if !p.out.pushControl(b) {
		p.conn.close(codeProtocol, "control queue overflow")
		return
	}
	p.h.m.chargeDownlink(p, len(b), p.h.now())
}

// flush hands p's open batch to its send loop and returns how many relays in it were
// dropped because the queue was full.
func (p *member) flush() int {
	w := p.open
	p.open = nil
	if w == nil {
		return 0
	}
	n := len(w.Bytes())
	if p.out.pushBatch(w) {
		p.h.m.stats.Batches++
		p.h.m.stats.BatchBytes += uint64(n)
		return 0
	}
	return w.Count()
}

// observerDistance returns the distance from pos to p's nearest actor; false when p
// has no actor.
func (p *member) observerDistance(pos mgl64.Vec3) (float64, bool) {
	best := math.Inf(1)
	for _, a := range p.owned {
		best = math.Min(best, a.state.Position.Sub(pos).Len())
	}
	return best, len(p.owned) > 0
}

// logText returns s as the log shows it: quoted, and everything that is not
// printable ASCII escaped (\u0432 for a Cyrillic в), so that a look-alike name or a
// control sequence is seen for what it is.
func logText(s string) string { return strconv.QuoteToASCII(s) }

// logReject logs the first few rejections of a member.
func (p *member) logReject(what string, err error) {
	if p.logged < 10 {
		p.logged++
		p.h.log.Warn(what, "player", p.id, "err", err)
	}
}

// sendLoop writes what the run loop queued for p until p is removed.
func (p *member) sendLoop() {
	defer p.h.wg.Done()
	var (
		ctrl    [][]byte
		batches []*wire.BatchWriter
		probes  []clockProbe
		dgrams  [][]byte
		buf     []byte
	)
	for {
		select {
		case <-p.done:
			return
		case <-p.out.signal:
		}
		ctrl, batches, probes = p.out.take(ctrl[:0], batches[:0], probes[:0])
		dgrams = p.out.takeDatagrams(dgrams[:0])
		for _, cp := range probes {
			ans := wire.ClockAnswer{ClientSend: cp.clientSend, HostReceive: cp.received, HostSend: p.h.now()}
			if b, err := ans.Append(buf[:0]); err == nil {
				buf = b
				_ = p.conn.sendDatagram(b)
			}
		}
		for _, b := range ctrl {
			if err := p.conn.writeControl(b); err != nil {
				p.h.feed(input{from: p, kind: inClosed, err: err})
				return
			}
		}
		for _, w := range batches {
			if err := p.conn.sendDatagram(w.Bytes()); err != nil {
				var tooLarge *quic.DatagramTooLargeError
				if !errors.As(err, &tooLarge) {
					return
				}
			}
		}
		for _, b := range dgrams {
			if err := p.conn.sendDatagram(b); err != nil {
				var tooLarge *quic.DatagramTooLargeError
				if !errors.As(err, &tooLarge) {
					return
				}
			}
		}
		p.out.recycle(batches)
		clear(ctrl)
		clear(dgrams)
	}
}

// clockProbe is a clock request waiting for its answer.
type clockProbe struct {
	clientSend, received float64
}

// outbox holds what the run loop queued for one member's send loop.
type outbox struct {
	mu      sync.Mutex
	ctrl    [][]byte
	batches []*wire.BatchWriter
	probes  []clockProbe
	dgrams  [][]byte // relayed as sent (progress)
	spare   []*wire.BatchWriter
	signal  chan struct{}
	pipe    *pipe // an in-process member's pipe, which counts what is queued for it
}

// count adds n to the items queued for an in-process member (see Host.Settle). An
// item is counted before the send loop can see it.
func (o *outbox) count(n int) {
	if p := o.pipe; p != nil {
		s := &p.h.settle
		s.lock()
		p.out += n
		if n < 0 {
			s.wake()
		}
		s.unlock()
	}
}

func (o *outbox) wake() {
	select {
	case o.signal <- struct{}{}:
	default:
	}
}

// pushControl queues a control frame; false when the queue is full.
func (o *outbox) pushControl(b []byte) bool {
	o.count(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.ctrl) >= controlQueue {
		o.count(-1)
		return false
	}
	o.ctrl = append(o.ctrl, b)
	o.wake()
	return true
}

// pushBatch queues a filled batch; when the queue is full it keeps w as a spare and
// returns false.
func (o *outbox) pushBatch(w *wire.BatchWriter) bool {
	o.count(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.batches) >= maxPendingBatches {
		o.count(-1)
		o.spare = append(o.spare, w)
		return false
	}
	o.batches = append(o.batches, w)
	o.wake()
	return true
}

// pushProbe queues a clock answer; false when the queue is full.
func (o *outbox) pushProbe(cp clockProbe) bool {
	o.count(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.probes) >= maxPendingProbes {
		o.count(-1)
		return false
	}
	o.probes = append(o.probes, cp)
	o.wake()
	return true
}

// pushDatagram queues a datagram relayed as its owner sent it (a progress, shared by
// every recipient); false when the queue is full.
func (o *outbox) pushDatagram(b []byte) bool {
	o.count(1)
	o.mu.Lock()
	defer o.mu.Unlock()
	if len(o.dgrams) >= maxPendingBatches {
		o.count(-1)
		return false
	}
	o.dgrams = append(o.dgrams, b)
	o.wake()
	return true
}

// take moves everything queued to the given slices.
func (o *outbox) take(ctrl [][]byte, batches []*wire.BatchWriter, probes []clockProbe) ([][]byte, []*wire.BatchWriter, []clockProbe) {
	o.mu.Lock()
	defer o.mu.Unlock()
	ctrl = append(ctrl, o.ctrl...)
	batches = append(batches, o.batches...)
	probes = append(probes, o.probes...)
	clear(o.ctrl)
	o.ctrl, o.batches, o.probes = o.ctrl[:0], o.batches[:0], o.probes[:0]
	return ctrl, batches, probes
}

// takeDatagrams moves the queued datagrams (pushDatagram) to dgrams.
func (o *outbox) takeDatagrams(dgrams [][]byte) [][]byte {
	o.mu.Lock()
	defer o.mu.Unlock()
	dgrams = append(dgrams, o.dgrams...)
	clear(o.dgrams)
	o.dgrams = o.dgrams[:0]
	return dgrams
}

// spareBatch returns an empty batch writer.
func (o *outbox) spareBatch() *wire.BatchWriter {
	o.mu.Lock()
	defer o.mu.Unlock()
	if n := len(o.spare); n > 0 {
		w := o.spare[n-1]
		o.spare = o.spare[:n-1]
		w.Reset()
		return w
	}
	return wire.NewBatchWriter(wire.MaxBatchSize)
}

// recycle keeps sent batch writers for reuse.
func (o *outbox) recycle(ws []*wire.BatchWriter) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.spare = append(o.spare, ws...)
}

// quicMember is a member's QUIC connection and control stream.
type quicMember struct {
	conn    *quic.Conn
	str     *quic.Stream
	timeout time.Duration // stream write deadline
}

func (q *quicMember) sendDatagram(b []byte) error { return q.conn.SendDatagram(b) }

func (q *quicMember) writeControl(frame []byte) error {
	q.str.SetWriteDeadline(time.Now().Add(q.timeout))
	_, err := q.str.Write(frame)
	return err
}

func (q *quicMember) close(code quicCode, reason string) { q.conn.CloseWithError(code, reason) }

func (q *quicMember) remoteAddr() string { return q.conn.RemoteAddr().String() }

func (q *quicMember) rtt() time.Duration { return q.conn.ConnectionStats().SmoothedRTT }
