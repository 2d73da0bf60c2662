// Package memnet is an in-memory packet network for tests: endpoints that are
// net.PacketConns and hand datagrams to each other by address, with no socket
// between them. Code under test that speaks UDP (QUIC connections, and the
// run loops above them) runs on it inside a testing/synctest bubble, on the bubble's
// fake clock: a read waits on channels and a time.Timer only, which the bubble counts
// as durably blocked, so the fake clock moves on as soon as every goroutine waits,
// and a test's timeouts, heartbeats and deadlines take no wall-clock time.
//
// Delivery is immediate and in order; a receive queue that is full drops, as a
// socket's buffer does. Latency, jitter and loss come from wrapping an endpoint
// (net/impair), as they do on a real socket.
package memnet

import (
	"fmt"
	stdnet "net"
	"net/netip"
	"os"
	"slices"
	"sync"
	"time"
)

// QueueLimit is how many datagrams an endpoint holds unread before it drops new
// ones: about what a default Linux socket buffer holds of full-sized QUIC packets.
const QueueLimit = 4096

// Network is a set of endpoints that reach each other by port. The zero value is
// not usable: make one with New, inside the bubble of the test that uses it (its
// channels belong to that bubble).
type Network struct {
	mu    sync.Mutex
	conns map[netip.AddrPort]*Conn // open endpoints, by address
}

// New returns an empty network.
func New() *Network { return &Network{conns: map[netip.AddrPort]*Conn{}} }

// Wrap stands an endpoint in for the socket pc at the same address (127.0.0.1 for
// an unspecified one), pc's port being held by the system for as long as the
// endpoint is open (Close closes both), so that no two endpoints of a network share
// an address. Tests that bind sockets to several loopback addresses (127.0.0.2, …)
// keep those addresses on the network. Its type is that of the
// transport's socket wrappers (net.WrapConn): a host or client configured with
// Wrap: network.Wrap speaks to the others on the network and to no socket.
func (n *Network) Wrap(pc stdnet.PacketConn) (stdnet.PacketConn, error) {
	ap, ok := addrPort(pc.LocalAddr())
	if !ok || ap.Port() == 0 {
		return nil, fmt.Errorf("memnet: wrap %v: not a bound UDP socket", pc.LocalAddr())
	}
	c, err := n.listen(ap)
	if err != nil {
		return nil, err
	}
	c.under = pc
	return c, nil
}

// Listen returns a new endpoint at addr (host:port, the port not 0: Wrap takes its
// ports from real sockets), which must be free on the network.
func (n *Network) Listen(addr string) (*Conn, error) {
	ua, err := stdnet.ResolveUDPAddr("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("memnet: listen: %w", err)
	}
	ap, _ := addrPort(ua)
	if ap.Port() == 0 {
		return nil, fmt.Errorf("memnet: listen on %s: no port", addr)
	}
	return n.listen(ap)
}

func (n *Network) listen(ap netip.AddrPort) (*Conn, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if _, taken := n.conns[ap]; taken {
		return nil, fmt.Errorf("memnet: listen on %v: address in use", ap)
	}
	c := &Conn{
		net:      n,
		ap:       ap,
		addr:     stdnet.UDPAddrFromAddrPort(ap),
		ready:    make(chan struct{}, 1),
		closed:   make(chan struct{}),
		deadline: make(chan struct{}),
	}
	n.conns[ap] = c
	return c, nil
}

// deliver hands b from from to the endpoint at to, if any: a datagram to nobody is
// lost, as UDP's is.
func (n *Network) deliver(from *stdnet.UDPAddr, to stdnet.Addr, b []byte) {
	ap, ok := addrPort(to)
	if !ok {
		return
	}
	n.mu.Lock()
	c := n.conns[ap]
	n.mu.Unlock()
	if c != nil {
		c.push(datagram{from: from, data: slices.Clone(b)})
	}
}

// addrPort returns a UDP address (or any written host:port) as the network keys
// it: IPv4 unmapped, and an unspecified address (a socket bound to every
// interface) as 127.0.0.1, where the loopback reaches it.
func addrPort(a stdnet.Addr) (netip.AddrPort, bool) {
	ua, ok := a.(*stdnet.UDPAddr)
	if !ok {
		var err error
		if ua, err = stdnet.ResolveUDPAddr("udp", a.String()); err != nil {
			return netip.AddrPort{}, false
		}
	}
	ap := ua.AddrPort()
	ip := ap.Addr().Unmap()
	if !ip.IsValid() || ip.IsUnspecified() {
		ip = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	return netip.AddrPortFrom(ip, ap.Port()), true
}

// datagram is one packet in an endpoint's receive queue.
type datagram struct {
	from *stdnet.UDPAddr
	data []byte
}

// Conn is one endpoint of a Network: a net.PacketConn whose reads wait durably in a
// synctest bubble.
type Conn struct {
	net   *Network
	ap    netip.AddrPort
	addr  *stdnet.UDPAddr
	under stdnet.PacketConn // the socket whose port it holds (Wrap), or nil

	mu       sync.Mutex
	queue    []datagram
	dropped  int
	isClosed bool
	readBy   time.Time     // the read deadline; zero: none
	ready    chan struct{} // a token when the queue gains a datagram
	closed   chan struct{} // closed by Close
	deadline chan struct{} // closed and replaced when the read deadline changes
}

var _ stdnet.PacketConn = (*Conn)(nil)

func (c *Conn) push(d datagram) {
	c.mu.Lock()
	if c.isClosed || len(c.queue) >= QueueLimit {
		c.dropped++
		c.mu.Unlock()
		return
	}
	c.queue = append(c.queue, d)
	c.mu.Unlock()
	select {
	case c.ready <- struct{}{}:
	default:
	}
}

// ReadFrom waits for a datagram until the read deadline, and copies it into p (the
// rest of a datagram longer than p is lost, as recvfrom loses it).
func (c *Conn) ReadFrom(p []byte) (int, stdnet.Addr, error) {
	for {
		c.mu.Lock()
		if c.isClosed {
			c.mu.Unlock()
			return 0, nil, c.opError("read", stdnet.ErrClosed)
		}
		if len(c.queue) > 0 {
			d := c.queue[0]
			c.queue[0] = datagram{}
			c.queue = c.queue[1:]
			c.mu.Unlock()
			return copy(p, d.data), d.from, nil
		}
		by, changed := c.readBy, c.deadline
		c.mu.Unlock()
		if !c.wait(by, changed) {
			return 0, nil, c.opError("read", os.ErrDeadlineExceeded)
		}
	}
}

// wait waits for a datagram, Close or a new deadline (true), or for the deadline by,
// if set, to pass (false). A timer, not a poll: a bubble's fake clock jumps to it.
func (c *Conn) wait(by time.Time, changed <-chan struct{}) bool {
	var expired <-chan time.Time
	if !by.IsZero() {
		left := time.Until(by)
		if left <= 0 {
			return false
		}
		t := time.NewTimer(left)
		defer t.Stop()
		expired = t.C
	}
	select {
	case <-c.ready:
	case <-c.closed:
	case <-changed:
	case <-expired:
		return false
	}
	return true
}

// WriteTo sends p to addr's port on the network. It never blocks: a full queue at
// the other end drops the datagram.
func (c *Conn) WriteTo(p []byte, addr stdnet.Addr) (int, error) {
	c.mu.Lock()
	closed := c.isClosed
	c.mu.Unlock()
	if closed {
		return 0, c.opError("write", stdnet.ErrClosed)
	}
	c.net.deliver(c.addr, addr, p)
	return len(p), nil
}

// Close takes the endpoint off the network, wakes its reader and closes the socket
// it stands in for. It is safe to call more than once.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.isClosed {
		c.mu.Unlock()
		return nil
	}
	c.isClosed = true
	c.queue = nil
	close(c.closed)
	c.mu.Unlock()
	c.net.mu.Lock()
	delete(c.net.conns, c.ap)
	c.net.mu.Unlock()
	if c.under != nil {
		return c.under.Close()
	}
	return nil
}

// LocalAddr returns the endpoint's address.
func (c *Conn) LocalAddr() stdnet.Addr { return c.addr }

// SetDeadline sets the read deadline; writes never wait.
func (c *Conn) SetDeadline(t time.Time) error { return c.SetReadDeadline(t) }

// SetReadDeadline sets when a read waiting for a datagram gives up, and wakes a
// waiting read to look at it (QUIC stops its reader by setting it to now).
func (c *Conn) SetReadDeadline(t time.Time) error {
	c.mu.Lock()
	c.readBy = t
	close(c.deadline)
	c.deadline = make(chan struct{})
	c.mu.Unlock()
	return nil
}

// SetWriteDeadline does nothing: writes never wait.
func (c *Conn) SetWriteDeadline(time.Time) error { return nil }

// Dropped returns how many datagrams arrived to a full queue and were lost.
func (c *Conn) Dropped() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.dropped
}

func (c *Conn) opError(op string, err error) error {
	return &stdnet.OpError{Op: op, Net: "udp", Addr: c.addr, Err: err}
}

// Network returns the network the endpoint is on.
func (c *Conn) Network() *Network { return c.net }
