// Package impair wraps a net.PacketConn to add latency, jitter, loss, duplication and
// reordering, so that a QUIC session (or anything else on UDP) can be tried under a bad
// network on loopback. Random choices come from a seeded generator; delays are real
// time, delivered by a goroutine per impaired direction.
//
// Sketch:
//
//	udp, _ := net.ListenPacket("udp", "127.0.0.1:0")
//	c, err := impair.New(udp, impair.Config{
//		Outbound: impair.Link{Latency: 60 * time.Millisecond, Jitter: 15 * time.Millisecond, Loss: 0.05},
//		Seed:     1,
//	})
//	if err != nil { … }
//	defer c.Close()
//	// hand c to quic.Transport{Conn: c}
//
// Wrapping both ends with Outbound impairment impairs both directions of a path; a
// single end can impair both ways with Outbound and Inbound.
package impair
