package net

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/treadline/treadline/net/wire"
)

// maxPipeDatagrams bounds the datagrams waiting for the host's own player; like a
// socket buffer, the pipe drops what does not fit.
const maxPipeDatagrams = 4096

// pipe joins the host's own player to the run loop in process. What crosses it is
// encoded exactly as on the network, so the player's Client runs the same code as a
// remote one, and the run loop sees one more member.
type pipe struct {
	h      *Host
	m      *member
	ctrl   byteQueue // host → player control frames
	dgrams byteQueue // host → player datagrams
	done   chan struct{}
	once   sync.Once
	reason string // why the pipe closed; set before done is closed
	ending Ending // what reason means for the player; set with it
}

func newPipe(h *Host, m *member) *pipe {
	return &pipe{h: h, m: m, ctrl: newByteQueue(0), dgrams: newByteQueue(maxPipeDatagrams), done: make(chan struct{})}
}

func (p *pipe) shut(reason string, ending Ending) {
	p.once.Do(func() {
		p.reason, p.ending = reason, ending
		close(p.done)
	})
}

// The host's side: a memberConn.

func (p *pipe) sendDatagram(b []byte) error {
	p.dgrams.push(bytes.Clone(b))
	return nil
}

func (p *pipe) writeControl(frame []byte) error {
	if !p.ctrl.push(frame) { // frames are never modified once queued
		return ErrClosed
	}
	return nil
}

func (p *pipe) close(code quicCode, reason string) { p.shut(reason, endingOfCode(code)) }

func (p *pipe) remoteAddr() string { return "" }

func (p *pipe) rtt() time.Duration { return 0 }

// pipeClient is the player's side of a pipe: a clientConn.
type pipeClient struct{ *pipe }

func (p pipeClient) sendDatagram(b []byte) error {
	select {
	case <-p.done:
		return ErrClosed
	default:
	}
	p.h.feed(input{from: p.m, kind: inDatagram, data: bytes.Clone(b), at: p.h.now()})
	return nil
}

func (p pipeClient) receiveDatagram(ctx context.Context) ([]byte, error) {
	return p.dgrams.pop(ctx, p.done)
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
	p.h.feed(input{from: p.m, kind: inControl, msg: msg, err: err, at: p.h.now()})
	return nil
}

func (p pipeClient) readControl() (wire.Message, error) {
	b, err := p.ctrl.pop(context.Background(), p.done)
	if err != nil {
		return nil, err
	}
	msg, _, err := wire.Parse(b[wire.FrameHeaderSize:])
	if err != nil {
		return nil, fmt.Errorf("%w: %w", wire.ErrBadMessage, err)
	}
	return msg, nil
}

func (p pipeClient) close(quicCode, string) {
	p.h.feed(input{from: p.m, kind: inClosed, err: errLeft})
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
