package net

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
)

// maxPipeDatagrams bounds the datagrams waiting for the host's own player; like a
// socket buffer, the pipe drops what does not fit.
const maxPipeDatagrams = 4096

// pipe joins a player in process to the run loop: the host's own player, or one
// joined with Host.JoinLocal. What crosses it is encoded exactly as on the network,
// so the player's Client runs the same code as a remote one, and the run loop sees one
// more member. A pipe with a link delays what the host sends on the host's clock
// (see LocalConfig); Settle delivers it when it is due.
type pipe struct {
	h      *Host
	m      *member
	ctrl   byteQueue // host → player control frames
	dgrams byteQueue // host → player datagrams
	done   chan struct{}
	once   sync.Once
	reason string // why the pipe closed; set before done is closed
	ending Ending // what reason means for the player; set with it

	link  *impair.Path // the host → player path of datagrams; nil: none
	delay float64      // control frames' latency, s

	// Guarded by h.settle.mu: what is in flight, for Settle.
	in   int        // fed to the run loop, not yet handled
	out  int        // queued for the player (outbox and queues), not yet handled
	late []lateItem // delayed by the link, not yet due
	// What the player's own run loop has yet to do (see Client.track): inputs its
	// readers and sender fed it, and sends it queued for its sender, not yet handled.
	// Counted here, Settle waits for them on the settler's condition, where asking
	// the loop would take a round trip to it per player, many times a frame.
	work     int
	loopDone bool // the player's run loop has ended: what it holds is never handled

	heldCtrl, heldDgram bool // the player's reader holds an item it is handling

	probed    chan struct{} // closed when the player sends its first datagram: a clock probe
	probeOnce sync.Once
}

// lateItem is something the host sent a player that its link delays.
type lateItem struct {
	due  float64 // host time it arrives, s
	seq  uint64  // order among items due at once
	b    []byte
	ctrl bool
}

func newPipe(h *Host, m *member) *pipe {
	p := &pipe{h: h, m: m, ctrl: newByteQueue(0), dgrams: newByteQueue(maxPipeDatagrams), done: make(chan struct{}),
		probed: make(chan struct{})}
	m.out.pipe = p
	h.settle.add(p)
	return p
}

func (p *pipe) shut(reason string, ending Ending) {
	p.once.Do(func() {
		p.reason, p.ending = reason, ending
		close(p.done)
		p.h.settle.changed()
	})
}

// shutNow reports whether the pipe has closed.
func (p *pipe) shutNow() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// The host's side: a memberConn. Each item the send loop writes here was counted in
// out when it was queued; it stays counted while it waits for the player, and leaves
// the count when it is dropped or delayed (release counts it again).

func (p *pipe) sendDatagram(b []byte) error {
	b = bytes.Clone(b)
	if p.link == nil || isClockAnswer(b) {
		// The clocks are one clock: an answer to a probe is never delayed.
		p.deliver(b, false)
		return nil
	}
	d := p.link.Send(units.Duration(p.h.now()))
	p.h.settle.lock()
	defer p.h.settle.unlock()
	p.out--
	if !d.Lost {
		p.h.settle.park(p, lateItem{due: units.Seconds(d.At), b: b})
		if d.Duplicated {
			p.h.settle.park(p, lateItem{due: units.Seconds(d.DuplicateAt), b: bytes.Clone(b)})
		}
	}
	p.h.settle.wake()
	return nil
}

func (p *pipe) writeControl(frame []byte) error {
	if p.delay == 0 {
		p.deliver(frame, true)
		return nil
	}
	s := &p.h.settle
	if p.answersOwnSpawn(frame) {
		// Spawn waits for its answer in real time, and a stream keeps its order: the
		// answer, and every frame queued before it, arrive at once.
		s.lock()
		for _, it := range p.late {
			if it.ctrl {
				p.out++
				p.push(it.b, true)
			}
		}
		p.late = slices.DeleteFunc(p.late, func(it lateItem) bool { return it.ctrl })
		s.unlock()
		p.deliver(frame, true)
		return nil
	}
	s.lock()
	p.out--
	s.park(p, lateItem{due: p.h.now() + p.delay, b: frame, ctrl: true})
	s.wake()
	s.unlock()
	return nil
}

// answersOwnSpawn reports whether frame answers a spawn this pipe's player asked
// for: the confirming Spawn of an actor it owns, or the Despawn of a refused one.
func (p *pipe) answersOwnSpawn(frame []byte) bool {
	if len(frame) < wire.FrameHeaderSize {
		return false
	}
	switch m, _, err := wire.Parse(frame[wire.FrameHeaderSize:]); x := m.(type) {
	case *wire.Spawn:
		return err == nil && x.Owner == p.m.id
	case *wire.Despawn:
		return err == nil && x.Actor >= provisionalBase
	}
	return false
}

// deliver queues b for the player now; the item stays counted unless the queue drops
// it.
func (p *pipe) deliver(b []byte, ctrl bool) {
	s := &p.h.settle
	s.lock()
	defer s.unlock()
	p.push(b, ctrl)
}

// push queues b for the player's reader; a dropped item leaves the count. The caller
// holds h.settle.mu.
func (p *pipe) push(b []byte, ctrl bool) {
	q := &p.dgrams
	if ctrl {
		q = &p.ctrl
	}
	if !q.push(b) {
		p.out--
		p.h.settle.wake()
	}
}

// isClockAnswer reports whether datagram b is a clock answer.
func isClockAnswer(b []byte) bool {
	_, t, err := wire.PeekHeader(b)
	return err == nil && t == wire.MsgClockAnswer
}

func (p *pipe) close(code quicCode, reason string) { p.shut(reason, endingOfCode(code)) }

func (p *pipe) remoteAddr() string { return "" }

// rtt is the round trip of the pipe's link: its latency each way.
func (p *pipe) rtt() time.Duration { return 2 * units.Duration(p.delay) }

// feed hands one of the player's inputs to the run loop, counted until it is handled.
func (p *pipe) feed(in input) {
	if p.h.pause.hold(p, in) {
		return
	}
	s := &p.h.settle
	s.lock()
	p.in++
	s.unlock()
	in.pipe = p
	if !p.h.feed(in) {
		s.lock()
		p.in--
		s.wake()
		s.unlock()
	}
}

// handled tells the pipe the run loop has handled one of its inputs.
func (p *pipe) handled() {
	s := &p.h.settle
	s.lock()
	p.in--
	s.wake()
	s.unlock()
}

// taken tells the pipe its player's reader has handled the item it held, if any.
func (p *pipe) taken(held *bool) {
	if !*held {
		return
	}
	*held = false
	s := &p.h.settle
	s.lock()
	p.out--
	s.wake()
	s.unlock()
}

// track adds n to the work the player's run loop has yet to do (pipe.work); it does
// nothing once the loop has ended.
func (p *pipe) track(n int) {
	s := &p.h.settle
	s.lock()
	if !p.loopDone {
		p.work += n
		if n < 0 {
			s.wake()
		}
	}
	s.unlock()
}

// loopEnded tells the pipe the player's run loop has ended: what it held will never
// be handled, and Settle no longer waits for it.
func (p *pipe) loopEnded() {
	s := &p.h.settle
	s.lock()
	p.loopDone, p.work = true, 0
	s.wake()
	s.unlock()
}

// pipeClient is the player's side of a pipe: a clientConn.
type pipeClient struct{ *pipe }

func (p pipeClient) sendDatagram(b []byte) error {
	select {
	case <-p.done:
		return ErrClosed
	default:
	}
	p.feed(input{from: p.m, kind: inDatagram, data: bytes.Clone(b), at: p.h.now()})
	p.probeOnce.Do(func() { close(p.probed) })
	return nil
}

func (p pipeClient) receiveDatagram(ctx context.Context) ([]byte, error) {
	// The reader asks for the next datagram once it has handled the last.
	p.taken(&p.heldDgram)
	b, err := p.dgrams.pop(ctx, p.done)
	p.heldDgram = err == nil
	return b, err
}

func (p pipeClient) writeControl(frame []byte) error {
	select {
	case <-p.done:
		return ErrClosed
	default:
	}
	if len(frame) < wire.FrameHeaderSize {
		return fmt.Errorf("pipe: short frame: %w", wire.ErrInvalid)
	}
	msg, _, err := wire.Parse(frame[wire.FrameHeaderSize:])
	p.feed(input{from: p.m, kind: inControl, msg: msg, err: err, at: p.h.now()})
	return nil
}

func (p pipeClient) readControl() (wire.Message, error) {
	// The reader asks for the next frame once it has handled the last.
	p.taken(&p.heldCtrl)
	b, err := p.ctrl.pop(context.Background(), p.done)
	if err != nil {
		return nil, err
	}
	p.heldCtrl = true
	msg, _, err := wire.Parse(b[wire.FrameHeaderSize:])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", wire.ErrBadMessage, err)
	}
	return msg, nil
}

func (p pipeClient) close(quicCode, string) {
	p.feed(input{from: p.m, kind: inClosed, err: errLeft})
	p.shut("left the match", EndLeft)
}

func (p pipeClient) cause(err error) error {
	select {
	case <-p.done:
		return &closedError{p.reason, p.ending}
	default:
		return err
	}
}

// byteQueue is a queue of byte slices with a wake-up signal. Safe for concurrent use.
type byteQueue struct {
	mu     sync.Mutex
	items  [][]byte
	limit  int // 0: unbounded
	signal chan struct{}
}

func newByteQueue(limit int) byteQueue {
	return byteQueue{limit: limit, signal: make(chan struct{}, 1)}
}

// push queues b; it reports false, dropping b, when the queue is full.
func (q *byteQueue) push(b []byte) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.limit > 0 && len(q.items) >= q.limit {
		return false
	}
	q.items = append(q.items, b)
	select {
	case q.signal <- struct{}{}:
	default:
	}
	return true
}

// pop waits for the next item until ctx ends or done is closed. Items queued before
// done closed are still delivered.
func (q *byteQueue) pop(ctx context.Context, done <-chan struct{}) ([]byte, error) {
	for {
		q.mu.Lock()
		if len(q.items) > 0 {
			b := q.items[0]
			q.items[0] = nil
			q.items = q.items[1:]
			q.mu.Unlock()
			return b, nil
		}
		q.mu.Unlock()
		select {
		case <-q.signal:
		case <-done:
			q.mu.Lock()
			empty := len(q.items) == 0
			q.mu.Unlock()
			if empty {
				return nil, ErrClosed
			}
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
