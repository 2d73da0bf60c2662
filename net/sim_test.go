package net

import (
	"testing"

	"github.com/treadline/treadline/internal/memnet"
)

// The tests that wait only on timers (heartbeats, timeouts, rejoins, the clock
// sync, rates) run their hosts and clients in a testing/synctest bubble on an
// in-memory network (internal/memnet): QUIC, the run loops and every timer run on
// the bubble's fake clock, which jumps ahead whenever every goroutine waits, so a
// 3 s timeout takes no wall-clock time and a loaded machine cannot make one fire
// early. The bubble also fails a test whose goroutines outlive it. The tests of the
// real socket path (the shared socket, the attacks from several source addresses,
// the delay bounds under floods) stay on UDP sockets in real time.

// simHost starts a host on a new in-memory network, cfg.Wrap (if set) over its
// endpoint; the test, which runs in a bubble, closes it. Clients joined with
// testClient or dialTest are put on the same network.
func simHost(t *testing.T, cfg HostConfig) *Host {
	t.Helper()
	cfg.Wrap = onNetwork(memnet.New(), cfg.Wrap)
	return testHost(t, cfg)
}

// onNetwork returns a WrapConn that stands an endpoint of n in for the socket,
// then wraps that with w, if set.
func onNetwork(n *memnet.Network, w WrapConn) WrapConn { return Chain(n.Wrap, w) }

// networkOf returns the in-memory network h's socket is on, or nil for a UDP socket
// (or one wrapped over the network, which the test passes on itself).
func networkOf(h *Host) *memnet.Network {
	if c, ok := h.pc.(*memnet.Conn); ok {
		return c.Network()
	}
	return nil
}
