// Package net hosts and joins Treadline matches over QUIC.
//
// A host listens with Listen; it makes a self-signed TLS 1.3 certificate at start and
// reports its SHA-256 Fingerprint, which players pin with "-join host:port#fingerprint"
// (or trust on first use, remembered in the user's configuration directory). Each
// client opens one bidirectional stream for control messages (join, spawn, despawn,
// chat, kick) and sends its actors' state updates as QUIC datagrams (package
// net/wire). The host admits players that prove the passphrase, assigns player and
// actor ids, and relays every owner's updates to the other players after checking
// them: ownership, sequence (late and duplicated updates dropped), plausibility (finite,
// on the map, tank-like speed and turn rate, consistent with the previous update) and
// a per-client token bucket. Whatever it drops it counts (HostStats). A client that
// falls silent is dropped after Limits.Timeout and its actors are despawned for
// everyone; it may join again.
//
// Both ends of a match are Peers: a *Client, or the host's own player from
// Host.Local. A game loop uses a Peer the same way on either:
//
//	host, err := net.Listen(ctx, net.HostConfig{Addr: ":7878", Passphrase: "tiger"})
//	if err != nil { … }
//	defer host.Close()
//	fmt.Println("join with", host.Addr(), "#"+host.Fingerprint())
//
//	c, err := net.Dial(ctx, net.ClientConfig{Addr: "192.0.2.7:7878", Fingerprint: fp,
//		Name: "ann", Passphrase: "tiger"})
//	if err != nil { … }
//	defer c.Close()
//	id, err := c.Spawn("ann", 1, deadreckon.NewState(start))
//	for each frame {
//		for _, ev := range c.Poll(events[:0]) { … feed deadreckon.Actor … }
//		if decision != deadreckon.NoUpdate { c.Publish(id, state, decision == deadreckon.FullUpdate) }
//	}
//
// State timestamps on the wire are host-clock seconds: Publish stamps them, and a
// client's clock filter (package net/clock) gives the offset between its clock and
// the host's (Stats.ClockOffset).
//
// Package net/impair adds seeded latency, jitter, loss, duplication and reordering
// under QUIC (HostConfig.Wrap, ClientConfig.Wrap) for tests and the lab.
package net
