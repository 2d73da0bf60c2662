package net

import (
	"errors"
	"fmt"
	stdnet "net"
	"sync"

	"github.com/quic-go/quic-go"
)

// Socket is a UDP socket under QUIC that many clients of one process dial from
// (ClientConfig.Socket): one socket, read in batches by one goroutine, in place of a
// socket, a reader and a system call a datagram for each client. Each client keeps
// its own QUIC connection, keys and identity; the socket tells their packets apart
// by connection id, as a host's socket tells its players'. A program that runs many
// clients at once (tankload's bots) opens one; a game's client needs none.
type Socket struct {
	pc     stdnet.PacketConn
	tr     *quic.Transport
	shared bool // opened by OpenSocket: its clients leave it open
	once   sync.Once
	err    error
}

// socketBuffer is the receive and send buffer, bytes, asked of a shared socket's
// kernel: a burst of every client's datagrams at once waits there, not dropped,
// while the reader catches up. The kernel may grant less (net.core.rmem_max);
// quic-go asks for as much itself, and raises it past that limit when it may.
const socketBuffer = 8 << 20

// OpenSocket opens a UDP socket on addr (":0" for any port) for clients to share,
// wrapped with wrap if set (the same wrap for every client on it).
func OpenSocket(addr string, wrap WrapConn) (*Socket, error) {
	udp, err := stdnet.ListenPacket("udp", addr)
	if err != nil {
		return nil, fmt.Errorf("open socket: %w", err)
	}
	if u, ok := udp.(*stdnet.UDPConn); ok {
		// Best effort: a smaller buffer only drops more under a burst.
		_ = u.SetReadBuffer(socketBuffer)
		_ = u.SetWriteBuffer(socketBuffer)
	}
	pc, err := wrapSocket(udp, wrap)
	if err != nil {
		return nil, fmt.Errorf("open socket: %w", err)
	}
	return newSocket(pc, true), nil
}

// openOwnSocket opens the socket of one client, which closes it with its session.
func openOwnSocket(wrap WrapConn) (*Socket, error) {
	pc, err := openSocket(":0", wrap)
	if err != nil {
		return nil, err
	}
	return newSocket(pc, false), nil
}

// newSocket puts a QUIC transport on pc. A transport made by hand, not by
// quic.Dial, gives its connections ids of their own (4 bytes), so that clients can
// share it.
func newSocket(pc stdnet.PacketConn, shared bool) *Socket {
	return &Socket{pc: pc, tr: &quic.Transport{Conn: pc}, shared: shared}
}

// LocalAddr returns the socket's local address.
func (s *Socket) LocalAddr() stdnet.Addr { return s.pc.LocalAddr() }

// Close closes the socket, ending the connections of any client still on it. It is
// safe to call more than once.
func (s *Socket) Close() error {
	s.once.Do(func() { s.err = errors.Join(s.tr.Close(), s.pc.Close()) })
	return s.err
}

// release closes a client's own socket as its session ends; a shared one stays open
// for the other clients on it.
func (s *Socket) release() {
	if !s.shared {
		s.Close()
	}
}
