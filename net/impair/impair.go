package impair

import (
	"container/heap"
	"errors"
	"fmt"
	"math"
	stdnet "net"
	"os"
	"sync"
	"time"
)

// Defaults for a Link's derived settings.
const (
	// DefaultReorderDelay is how long a reordered packet is held back beyond its normal
	// delay when Link.ReorderDelay is zero.
	DefaultReorderDelay = 20 * time.Millisecond
	// DefaultDuplicateDelay is how long after the original a duplicate leaves when
	// Link.DuplicateDelay is zero.
	DefaultDuplicateDelay = time.Millisecond
	// DefaultQueueLimit is how many packets one direction holds in flight when
	// Config.QueueLimit is zero; beyond it new packets are dropped, as a router would.
	DefaultQueueLimit = 4096
	// MaxPacketSize is the largest datagram the wrapper carries, in bytes.
	MaxPacketSize = 65536
	// pooledSize is the size of the recycled packet buffers; bigger packets get their own.
	pooledSize = 2048
)

// Link describes the impairment of one direction. Its zero value passes packets
// through untouched.
type Link struct {
	// Latency is the base one-way delay added to every packet.
	Latency time.Duration
	// Jitter is the largest deviation from Latency: each packet's delay is drawn
	// uniformly from [Latency−Jitter, Latency+Jitter] (never below zero). Jitter alone
	// never reorders packets: a packet leaves no earlier than the one sent before it.
	Jitter time.Duration
	// Loss is the probability in [0, 1] that a packet is dropped: the long-run
	// fraction of packets lost.
	Loss float64
	// LossBurst is the mean length, in packets, of a run of lost packets. If zero or
	// one, losses are independent; above one, they come in bursts (a two-state
	// Gilbert model whose long-run loss is still Loss), as on congested or wireless
	// links.
	LossBurst float64
	// Duplicate is the probability in [0, 1] that a packet is delivered twice.
	Duplicate float64
	// Reorder is the probability in [0, 1] that a packet is held back by ReorderDelay
	// so that packets sent after it overtake it.
	Reorder float64
	// ReorderDelay is the extra hold for a reordered packet. If zero, defaults to
	// DefaultReorderDelay.
	ReorderDelay time.Duration
	// DuplicateDelay is the gap between a packet and its duplicate. If zero, defaults
	// to DefaultDuplicateDelay.
	DuplicateDelay time.Duration
}

// Active reports whether the link changes anything.
func (l Link) Active() bool {
	return l != Link{}
}

func (l Link) validate() error {
	for _, p := range []struct {
		name string
		v    float64
	}{{"loss", l.Loss}, {"duplicate", l.Duplicate}, {"reorder", l.Reorder}} {
		if !(p.v >= 0 && p.v <= 1) {
			return fmt.Errorf("impair: %s probability %v outside [0, 1]", p.name, p.v)
		}
	}
	if !(l.LossBurst >= 0) || math.IsInf(l.LossBurst, 0) {
		return fmt.Errorf("impair: loss burst %v is not a non-negative finite length", l.LossBurst)
	}
	if l.LossBurst > 1 && l.Loss >= 1 {
		return errors.New("impair: bursty loss needs Loss below 1")
	}
	if l.Latency < 0 || l.Jitter < 0 || l.ReorderDelay < 0 || l.DuplicateDelay < 0 {
		return errors.New("impair: negative duration")
	}
	return nil
}

// Config sets up a Conn. The zero value passes everything through.
type Config struct {
	// Outbound impairs packets written with WriteTo.
	Outbound Link
	// Inbound impairs packets before ReadFrom returns them.
	Inbound Link
	// Seed seeds the random generator; the same seed and the same traffic give the
	// same drops, duplicates and delays.
	Seed uint64
	// QueueLimit caps the packets in flight per direction. If zero, defaults to
	// DefaultQueueLimit.
	QueueLimit int
}

// Stats counts what a Conn did to the traffic.
type Stats struct {
	// Sent and Received count packets handed to the network and to the reader.
	Sent, Received uint64
	// Lost counts packets dropped by the Loss probability or a full queue.
	Lost uint64
	// Duplicated and Reordered count the extra copies and the held-back packets.
	Duplicated, Reordered uint64
}

// Conn is a stdnet.PacketConn that adds latency, jitter, loss, duplication and
// reordering to another one. Delayed packets are delivered in real time by a
// goroutine per impaired direction; Close stops them and closes the wrapped conn.
// Conn is safe for concurrent use.
type Conn struct {
	inner stdnet.PacketConn
	cfg   Config

	epoch    time.Time // the Paths' zero time
	mu       sync.Mutex
	out, in  dir
	ready    []packet // inbound packets due for ReadFrom
	deadline time.Time
	waiting  int // ReadFrom calls waiting for a packet, which tests wait for
	closed   bool
	stats    Stats
	wake     chan struct{} // readers wait on it; replaced on each wake-up
	done     chan struct{} // closed by Close; never reassigned
	once     sync.Once
	closeErr error
	wg       sync.WaitGroup
	outDone  chan struct{} // closed when the outbound delivery goroutine has stopped
	limit    int
	pool     sync.Pool
}

type packet struct {
	at   time.Time
	seq  uint64 // tie-break keeps equal times in send order
	buf  *[]byte
	n    int
	addr stdnet.Addr
}

// dir is one direction's schedule: a min-heap on delivery time, fed by the
// direction's Path.
type dir struct {
	path   *Path
	q      pq
	seq    uint64
	signal chan struct{}
}

type pq []packet

func (q pq) Len() int { return len(q) }
func (q pq) Less(i, j int) bool {
	if q[i].at.Equal(q[j].at) {
		return q[i].seq < q[j].seq
	}
	return q[i].at.Before(q[j].at)
}
func (q pq) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *pq) Push(x any)   { *q = append(*q, x.(packet)) }
func (q *pq) Pop() any {
	old := *q
	p := old[len(old)-1]
	old[len(old)-1] = packet{}
	*q = old[:len(old)-1]
	return p
}

// New wraps inner. It returns an error for probabilities outside [0, 1] or negative
// durations. The Conn owns inner from then on: Close closes it, and nothing else may
// read from or write to it.
func New(inner stdnet.PacketConn, cfg Config) (*Conn, error) {
	if inner == nil {
		return nil, errors.New("impair: nil PacketConn")
	}
	out, err := NewPath(cfg.Outbound, cfg.Seed)
	if err != nil {
		return nil, fmt.Errorf("outbound: %w", err)
	}
	in, err := NewPath(cfg.Inbound, cfg.Seed^0x5bd1e995)
	if err != nil {
		return nil, fmt.Errorf("inbound: %w", err)
	}
	c := &Conn{
		inner: inner,
		cfg:   cfg,
		epoch: time.Now(),
		wake:  make(chan struct{}),
		done:  make(chan struct{}),
		limit: cfg.QueueLimit,
	}
	if c.limit <= 0 {
		c.limit = DefaultQueueLimit
	}
	c.pool.New = func() any { b := make([]byte, pooledSize); return &b }
	c.out = dir{path: out, signal: make(chan struct{}, 1)}
	c.in = dir{path: in, signal: make(chan struct{}, 1)}
	c.outDone = make(chan struct{})
	if cfg.Outbound.Active() {
		go func() {
			defer close(c.outDone)
			c.run(&c.out, c.deliverOut)
		}()
	} else {
		close(c.outDone)
	}
	if cfg.Inbound.Active() {
		c.wg.Add(2)
		go func() {
			defer c.wg.Done()
			c.run(&c.in, c.deliverIn)
		}()
		go c.readLoop()
	}
	return c, nil
}

// schedule decides a packet's fate under c.mu and queues zero, one or two copies.
func (c *Conn) schedule(d *dir, b []byte, addr stdnet.Addr, now time.Time) {
	fate := d.path.Send(now.Sub(c.epoch))
	if fate.Lost || d.q.Len() >= c.limit {
		c.stats.Lost++
		return
	}
	if fate.Reordered {
		c.stats.Reordered++
	}
	c.push(d, b, addr, c.epoch.Add(fate.At))
	if fate.Duplicated {
		c.push(d, b, addr, c.epoch.Add(fate.DuplicateAt))
		c.stats.Duplicated++
	}
	select {
	case d.signal <- struct{}{}:
	default:
	}
}

func (c *Conn) push(d *dir, b []byte, addr stdnet.Addr, at time.Time) {
	var buf *[]byte
	if len(b) <= pooledSize {
		buf = c.pool.Get().(*[]byte)
	} else {
		big := make([]byte, len(b))
		buf = &big
	}
	n := copy(*buf, b)
	d.seq++
	heap.Push(&d.q, packet{at: at, seq: d.seq, buf: buf, n: n, addr: addr})
}

func (c *Conn) recycle(b *[]byte) {
	if len(*b) == pooledSize {
		c.pool.Put(b)
	}
}

// run delivers d's packets when they fall due, until Close.
func (c *Conn) run(d *dir, deliver func(packet)) {
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	var due []packet
	for {
		c.mu.Lock()
		now := time.Now()
		due = due[:0]
		for d.q.Len() > 0 && !d.q[0].at.After(now) {
			due = append(due, heap.Pop(&d.q).(packet))
		}
		wait := time.Hour
		if d.q.Len() > 0 {
			wait = d.q[0].at.Sub(now)
		}
		c.mu.Unlock()
		for _, p := range due {
			deliver(p)
		}
		timer.Reset(wait)
		select {
		case <-c.done:
			return
		case <-d.signal:
		case <-timer.C:
		}
	}
}

func (c *Conn) deliverOut(p packet) {
	c.mu.Lock()
	c.stats.Sent++
	c.mu.Unlock()
	if _, err := c.inner.WriteTo((*p.buf)[:p.n], p.addr); err != nil {
		c.mu.Lock()
		c.stats.Sent--
		c.stats.Lost++
		c.mu.Unlock()
	}
	c.recycle(p.buf)
}

func (c *Conn) deliverIn(p packet) {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		c.recycle(p.buf)
		return
	}
	c.ready = append(c.ready, p)
	c.wakeReaders()
	c.mu.Unlock()
}

// wakeReaders releases every ReadFrom waiting; c.mu must be held.
func (c *Conn) wakeReaders() {
	close(c.wake)
	c.wake = make(chan struct{})
}

// readLoop feeds inbound packets from the wrapped conn into the inbound schedule.
func (c *Conn) readLoop() {
	defer c.wg.Done()
	buf := make([]byte, MaxPacketSize)
	for {
		n, addr, err := c.inner.ReadFrom(buf)
		if err != nil {
			var ne stdnet.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			c.mu.Lock()
			c.closed = true
			c.wakeReaders()
			c.mu.Unlock()
			return
		}
		c.mu.Lock()
		c.schedule(&c.in, buf[:n], addr, time.Now())
		c.mu.Unlock()
	}
}

// ReadFrom reads the next packet, honouring the read deadline. Inbound impairment, if
// any, has already been applied.
func (c *Conn) ReadFrom(b []byte) (int, stdnet.Addr, error) {
	if !c.cfg.Inbound.Active() {
		n, addr, err := c.inner.ReadFrom(b)
		if err == nil {
			c.mu.Lock()
			c.stats.Received++
			c.mu.Unlock()
		}
		return n, addr, err
	}
	for {
		c.mu.Lock()
		if len(c.ready) > 0 {
			p := c.ready[0]
			copy(c.ready, c.ready[1:])
			c.ready[len(c.ready)-1] = packet{}
			c.ready = c.ready[:len(c.ready)-1]
			c.stats.Received++
			c.mu.Unlock()
			n := copy(b, (*p.buf)[:p.n])
			c.recycle(p.buf)
			return n, p.addr, nil
		}
		if c.closed {
			c.mu.Unlock()
			return 0, nil, stdnet.ErrClosed
		}
		wake, deadline := c.wake, c.deadline
		var timer *time.Timer
		var timeout <-chan time.Time
		if !deadline.IsZero() {
			d := time.Until(deadline)
			if d <= 0 {
				c.mu.Unlock()
				return 0, nil, os.ErrDeadlineExceeded
			}
			timer = time.NewTimer(d)
			timeout = timer.C
		}
		c.waiting++
		c.mu.Unlock()
		select {
		case <-wake:
		case <-timeout:
		}
		if timer != nil {
			timer.Stop()
		}
		c.mu.Lock()
		c.waiting--
		c.mu.Unlock()
	}
}

// WriteTo queues b for addr after the outbound impairment. It never blocks on the
// delay and, like UDP, reports success for packets it then drops.
func (c *Conn) WriteTo(b []byte, addr stdnet.Addr) (int, error) {
	if len(b) > MaxPacketSize {
		return 0, fmt.Errorf("impair: packet of %d bytes exceeds %d", len(b), MaxPacketSize)
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return 0, stdnet.ErrClosed
	}
	if !c.cfg.Outbound.Active() {
		c.stats.Sent++
		c.mu.Unlock()
		return c.inner.WriteTo(b, addr)
	}
	c.schedule(&c.out, b, addr, time.Now())
	c.mu.Unlock()
	return len(b), nil
}

// Close stops the delivery goroutines, sends the outbound packets still delayed at
// once, in order, drops the inbound ones and closes the wrapped conn. Sending the
// outbound queue keeps the last words of a connection, written just before Close (a
// QUIC CONNECTION_CLOSE, a Leave message), from being lost to the added latency: the
// peer hears the goodbye instead of timing the connection out. It is safe to call more
// than once.
func (c *Conn) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.closed = true
		c.wakeReaders()
		c.mu.Unlock()
		close(c.done)
		<-c.outDone
		c.flushOut()
		c.closeErr = c.inner.Close()
		c.wg.Wait()
		c.mu.Lock()
		for _, q := range []*pq{&c.out.q, &c.in.q} {
			for _, p := range *q {
				c.recycle(p.buf)
			}
			*q = nil
		}
		c.ready = nil
		c.mu.Unlock()
	})
	return c.closeErr
}

// flushOut sends every packet of the outbound queue now, in delivery order.
func (c *Conn) flushOut() {
	for {
		c.mu.Lock()
		if c.out.q.Len() == 0 {
			c.mu.Unlock()
			return
		}
		p := heap.Pop(&c.out.q).(packet)
		c.mu.Unlock()
		c.deliverOut(p)
	}
}

// Stats returns the counts so far.
func (c *Conn) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stats
}

// LocalAddr returns the wrapped conn's local address.
func (c *Conn) LocalAddr() stdnet.Addr { return c.inner.LocalAddr() }

// SetDeadline sets the read deadline and the wrapped conn's write deadline.
func (c *Conn) SetDeadline(t time.Time) error {
	if err := c.SetReadDeadline(t); err != nil {
		return err
	}
	return c.SetWriteDeadline(t)
}

// SetReadDeadline sets the deadline for ReadFrom; a zero t means none. Setting it
// wakes a blocked ReadFrom so that it sees the new deadline.
func (c *Conn) SetReadDeadline(t time.Time) error {
	if !c.cfg.Inbound.Active() {
		return c.inner.SetReadDeadline(t)
	}
	c.mu.Lock()
	c.deadline = t
	c.wakeReaders()
	c.mu.Unlock()
	return nil
}

// SetWriteDeadline sets the wrapped conn's write deadline.
func (c *Conn) SetWriteDeadline(t time.Time) error { return c.inner.SetWriteDeadline(t) }

// SetReadBuffer passes a socket receive-buffer size to the wrapped conn when it
// supports one, and otherwise does nothing.
func (c *Conn) SetReadBuffer(bytes int) error {
	if s, ok := c.inner.(interface{ SetReadBuffer(int) error }); ok {
		return s.SetReadBuffer(bytes)
	}
	return nil
}

// SetWriteBuffer passes a socket send-buffer size to the wrapped conn when it supports
// one, and otherwise does nothing.
func (c *Conn) SetWriteBuffer(bytes int) error {
	if s, ok := c.inner.(interface{ SetWriteBuffer(int) error }); ok {
		return s.SetWriteBuffer(bytes)
	}
	return nil
}
