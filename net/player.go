package net

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/net/wire"
)

// Send queue bounds per remote player.
const (
	// controlQueue is how many control frames may wait for a slow player before it
	// is dropped as unresponsive.
	controlQueue = 1024
	// maxPendingBatches is how many full state batches may wait for one player;
	// further relays to it are dropped and counted until it catches up.
	maxPendingBatches = 64
)

// clockProbe is a clock request waiting for its answer.
type clockProbe struct {
	clientSend, received float64
}

// errLeft reports that a player said goodbye.
var errLeft = errors.New("player left")

// player is one participant as the host sees it: a remote connection, or the host's
// own player (local != nil, conn == nil).
type player struct {
	id    wire.PlayerID
	name  string
	h     *Host
	conn  *quic.Conn
	str   *quic.Stream
	local *localPeer
	done  chan struct{} // closed when the player is removed
	token ReconnectToken

	// Guarded by h.mu.
	removed     bool
	lastHeard   float64
	lastPublish float64 // last accepted update or spawn, for the idle kick
	rtt         float64 // QUIC's round trip plus four deviations, s: the stamp window
	flood       floodGuard
	updates     tokenBucket
	control     tokenBucket
	lastRelay   map[wire.ActorID]float64 // thinning: last relay time per actor
	owned       []*hostActor             // the player's actors, for thinning distances

	ctrl     chan []byte     // encoded control frames for writeLoop
	clock    chan clockProbe // clock requests for sendLoop to answer
	clockBuf []byte          // sendLoop's clock answer buffer

	outMu  sync.Mutex
	out    []*wire.BatchWriter // batches waiting to be sent; the last is being filled
	spare  []*wire.BatchWriter
	signal chan struct{}
	logged int // rejections logged, to keep hostile floods out of the log
}

func newPlayer(h *Host, id wire.PlayerID, name string, conn *quic.Conn, str *quic.Stream, now float64) *player {
	return &player{
		id:          id,
		name:        name,
		h:           h,
		conn:        conn,
		str:         str,
		done:        make(chan struct{}),
		lastHeard:   now,
		lastPublish: now,
		flood:       newFloodGuard(h.lim.FloodRate, int(math.Ceil(h.lim.FloodFor.Seconds())), now),
		updates:     newTokenBucket(h.lim.UpdateRate, h.lim.UpdateBurst, now),
		control:     newTokenBucket(h.lim.ControlRate, h.lim.ControlBurst, now),
		lastRelay:   map[wire.ActorID]float64{},
		ctrl:        make(chan []byte, controlQueue),
		clock:       make(chan clockProbe, 4),
		signal:      make(chan struct{}, 1),
	}
}

// queueControl encodes m for the control stream. A player whose queue is full is
// dropped (after h.mu is released, by its write loop noticing). h.mu held.
func (p *player) queueControl(m wire.Message) {
	b, err := wire.AppendFrame(nil, m)
	if err != nil {
		p.h.log.Error("encode control message", "type", m.Type().String(), "err", err)
		return
	}
	select {
	case p.ctrl <- b:
	default:
		// The player is not reading its control stream; its write loop will find the
		// connection closed.
		p.conn.CloseWithError(codeProtocol, "control queue overflow")
	}
}

// queueUpdate adds u to the player's outgoing batch and wakes the send loop. It
// reports false when the player's queue is full and u was dropped.
func (p *player) queueUpdate(u *wire.Update) bool {
	p.outMu.Lock()
	defer p.outMu.Unlock()
	if len(p.out) == 0 || !p.out[len(p.out)-1].Fits(u) {
		if len(p.out) >= maxPendingBatches {
			return false
		}
		var w *wire.BatchWriter
		if n := len(p.spare); n > 0 {
			w = p.spare[n-1]
			p.spare = p.spare[:n-1]
			w.Reset()
		} else {
			w = wire.NewBatchWriter(wire.MaxBatchSize)
		}
		p.out = append(p.out, w)
	}
	if err := p.out[len(p.out)-1].Add(u); err != nil {
		return false
	}
	select {
	case p.signal <- struct{}{}:
	default:
	}
	return true
}

// sendLoop sends the player's batches, gathering relays for the coalescing window
// first.
func (p *player) sendLoop() {
	defer p.h.wg.Done()
	coalesce := p.h.cfg.Coalesce
	var timer *time.Timer
	if coalesce > 0 {
		timer = time.NewTimer(time.Hour)
		timer.Stop()
		defer timer.Stop()
	}
	var sending []*wire.BatchWriter
	for {
		select {
		case <-p.done:
			return
		case cp := <-p.clock:
			ans := wire.ClockAnswer{ClientSend: cp.clientSend, HostReceive: cp.received, HostSend: p.h.Now()}
			if b, err := ans.Append(p.clockBuf[:0]); err == nil {
				p.clockBuf = b
				if err := p.conn.SendDatagram(b); err != nil {
					return
				}
			}
			continue
		case <-p.signal:
		}
		if timer != nil {
			p.outMu.Lock()
			full := len(p.out) > 1
			p.outMu.Unlock()
			if !full {
				timer.Reset(coalesce)
				select {
				case <-p.done:
					return
				case <-timer.C:
				}
			}
		}
		p.outMu.Lock()
		sending = append(sending[:0], p.out...)
		p.out = p.out[:0]
		p.outMu.Unlock()
		for _, w := range sending {
			if w.Count() > 0 {
				if err := p.conn.SendDatagram(w.Bytes()); err != nil {
					var tooLarge *quic.DatagramTooLargeError
					if !errors.As(err, &tooLarge) {
						p.outMu.Lock()
						p.spare = append(p.spare, sending...)
						p.outMu.Unlock()
						return
					}
				}
			}
		}
		p.outMu.Lock()
		p.spare = append(p.spare, sending...)
		p.outMu.Unlock()
	}
}

// writeLoop writes queued control frames to the stream.
func (p *player) writeLoop() {
	defer p.h.wg.Done()
	for {
		select {
		case <-p.done:
			return
		case b := <-p.ctrl:
			p.str.SetWriteDeadline(time.Now().Add(seconds(p.h.lim.Timeout)))
			if _, err := p.str.Write(b); err != nil {
				p.h.dropPlayer(p, codeProtocol, "control stream write failed", wire.LeaveQuit)
				return
			}
		}
	}
}

// datagramLoop reads the player's datagrams until its connection closes.
func (p *player) datagramLoop() {
	defer p.h.wg.Done()
	var buf []wire.Update
	for {
		b, err := p.conn.ReceiveDatagram(p.conn.Context())
		if err != nil {
			return
		}
		buf = p.h.handleDatagram(p, b, buf)
	}
}

// frameReader reads length-prefixed control frames (wire.AppendFrame's format),
// telling framing faults, after which the stream is out of step, from messages that
// fail to parse inside a whole frame.
type frameReader struct {
	r   io.Reader
	buf [wire.MaxFrameSize]byte
}

// next returns the next message. A non-nil streamErr ends the stream; a non-nil
// parseErr reports one bad message, after which reading may go on.
func (f *frameReader) next() (m wire.Message, parseErr, streamErr error) {
	var hdr [wire.FrameHeaderSize]byte
	if _, err := io.ReadFull(f.r, hdr[:]); err != nil {
		return nil, nil, err
	}
	n := int(binary.BigEndian.Uint16(hdr[:]))
	if n > wire.MaxFrameSize {
		return nil, nil, fmt.Errorf("frame of %d bytes, limit %d: %w", n, wire.MaxFrameSize, wire.ErrTooLong)
	}
	body := f.buf[:n]
	if _, err := io.ReadFull(f.r, body); err != nil {
		return nil, nil, fmt.Errorf("read frame: %w", err)
	}
	m, used, err := wire.Parse(body)
	if err != nil {
		return nil, fmt.Errorf("control frame: %w", err), nil
	}
	if used != n {
		return nil, fmt.Errorf("control frame of %d bytes holds %d: %w", n, used, wire.ErrInvalid), nil
	}
	return m, nil, nil
}

// controlLoop reads control messages until the player leaves, breaks the protocol
// or the connection closes. It returns errLeft for a goodbye.
func (p *player) controlLoop(fr *frameReader) error {
	h := p.h
	for {
		m, perr, err := fr.next()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return errLeft
			}
			var appErr *quic.ApplicationError
			if errors.As(err, &appErr) && appErr.Remote && appErr.ErrorCode == codeNormal {
				return errLeft
			}
			if errors.Is(err, wire.ErrTooLong) {
				h.countMalformed()
			}
			return err
		}
		now := h.Now()
		h.mu.Lock()
		p.lastHeard = now
		if !p.control.take(now) {
			h.stats.RateLimited++
			h.mu.Unlock()
			h.dropPlayer(p, codeKicked, "kicked: control message flood", wire.LeaveKicked)
			return nil
		}
		if perr != nil {
			h.stats.Malformed++
			h.mu.Unlock()
			p.logRejectErr("control message dropped", perr)
			continue
		}
		leave := h.handleControl(p, m, now)
		h.mu.Unlock()
		if leave {
			return errLeft
		}
	}
}

// handleControl applies one control message from p; h.mu held. It reports whether
// the player said goodbye.
func (h *Host) handleControl(p *player, m wire.Message, now float64) bool {
	switch m := m.(type) {
	case *wire.Spawn:
		if m.Actor < provisionalBase {
			h.stats.Malformed++
			return false
		}
		s := m.State
		s.Time = unwrapTime(s.Time, now)
		if math.Abs(s.Time-now) > h.lim.TimeSlack {
			s.Time = now // the client's clock is not synchronized yet
		}
		if _, err := h.spawnLocked(p, m.Name, m.Team, m.Seq, s); err != nil {
			p.logRejectErr("spawn refused", err)
			p.queueControl(&wire.Despawn{Actor: m.Actor, Reason: wire.DespawnRemoved})
		}
	case *wire.Despawn:
		a := h.actors[m.Actor]
		if a == nil || a.owner != p.id {
			h.stats.Unauthorized++
			return false
		}
		h.despawnLocked(m.Actor, wire.DespawnRemoved, "removed by its owner")
	case *wire.Chat:
		h.chatLocked(p, m.Text)
	case *wire.Leave:
		return true
	default:
		h.stats.Malformed++
	}
	return false
}

// logReject logs the first few rejected updates of a player.
func (p *player) logReject(u *wire.Update, err error) {
	if p.logged < 10 {
		p.logged++
		p.h.log.Warn("update rejected", "player", p.id, "actor", u.Actor, "err", err)
	}
}

func (p *player) logRejectErr(what string, err error) {
	if p.logged < 10 {
		p.logged++
		p.h.log.Warn(what, "player", p.id, "err", err)
	}
}
