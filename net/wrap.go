package net

import (
	"fmt"
	stdnet "net"

	"github.com/treadline/treadline/net/impair"
)

// Impaired returns a WrapConn that adds link's latency, jitter, loss, duplication and
// reordering to both directions of a socket, seeded with seed: what a client's
// -lag, -jitter and -loss flags set up. Wrapping only one end of a loopback match
// (a client) impairs that player's whole path to the host.
func Impaired(link impair.Link, seed uint64) WrapConn {
	return func(pc stdnet.PacketConn) (stdnet.PacketConn, error) {
		return impair.New(pc, impair.Config{Outbound: link, Inbound: link, Seed: seed})
	}
}

// Chain returns a WrapConn that wraps a socket with inner, then what inner returns
// with outer: outer sees the socket as inner left it (an impairment over an
// in-memory network, say). A nil side is skipped; if outer fails, what inner made is
// closed.
func Chain(inner, outer WrapConn) WrapConn {
	switch {
	case inner == nil:
		return outer
	case outer == nil:
		return inner
	}
	return func(pc stdnet.PacketConn) (stdnet.PacketConn, error) {
		c, err := inner(pc)
		if err != nil {
			return nil, err
		}
		w, err := outer(c)
		if err != nil {
			c.Close()
			return nil, err
		}
		return w, nil
	}
}

// openSocket opens a UDP socket on addr and wraps it with wrap, if set.
func openSocket(addr string, wrap WrapConn) (stdnet.PacketConn, error) {
	udp, err := stdnet.ListenPacket("udp", addr)
	if err != nil {
		return nil, err
	}
	return wrapSocket(udp, wrap)
}

// wrapSocket wraps udp with wrap, if set; it closes udp if wrap fails.
func wrapSocket(udp stdnet.PacketConn, wrap WrapConn) (stdnet.PacketConn, error) {
	if wrap == nil {
		return udp, nil
	}
	pc, err := wrap(udp)
	if err != nil {
		udp.Close()
		return nil, fmt.Errorf("wrap socket: %w", err)
	}
	return pc, nil
}
