package disgate

import (
	"context"
	"fmt"
	stdnet "net"

	"golang.org/x/net/ipv4"
)

// listen opens the gateway's socket for dst: bound to local, or if empty to dst's
// port on every address;
// for a multicast group, joined on the loopback interface and every other
// multicast interface that accepts, sending on loopback-looped multicast so that
// programs on the same machine hear each other (sent on loopback when no other
// interface joins). The port is shared (SO_REUSEADDR) and broadcast allowed.
func listen(dst *stdnet.UDPAddr, local string) (*stdnet.UDPConn, error) {
	lc := stdnet.ListenConfig{Control: control}
	if local == "" {
		local = fmt.Sprintf(":%d", dst.Port)
	}
	c, err := lc.ListenPacket(context.Background(), "udp4", local)
	if err != nil {
		return nil, err
	}
	conn := c.(*stdnet.UDPConn)
	if !dst.IP.IsMulticast() {
		return conn, nil
	}
	pc := ipv4.NewPacketConn(conn)
	ifs, err := stdnet.Interfaces()
	if err != nil {
		conn.Close()
		return nil, err
	}
	joined, other := 0, 0
	var lo *stdnet.Interface
	for i := range ifs {
		ifi := &ifs[i]
		if ifi.Flags&stdnet.FlagUp == 0 || ifi.Flags&(stdnet.FlagMulticast|stdnet.FlagLoopback) == 0 {
			continue
		}
		if pc.JoinGroup(ifi, &stdnet.UDPAddr{IP: dst.IP}) == nil {
			joined++
			if ifi.Flags&stdnet.FlagLoopback == 0 {
				other++
			} else if lo == nil {
				lo = ifi
			}
		}
	}
	if joined == 0 {
		conn.Close()
		return nil, fmt.Errorf("join %v: no interface accepts the group", dst.IP)
	}
	if err := pc.SetMulticastLoopback(true); err != nil {
		conn.Close()
		return nil, err
	}
	_ = pc.SetMulticastTTL(1)
	if lo != nil && other == 0 {
		_ = pc.SetMulticastInterface(lo)
	}
	return conn, nil
}
