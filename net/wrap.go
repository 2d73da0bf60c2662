package net

import (
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
