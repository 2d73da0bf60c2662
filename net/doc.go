// Package net hosts and joins Treadline matches over QUIC.
//
// A host listens with Listen; it makes a self-signed TLS 1.3 certificate at start and
// reports its SHA-256 Fingerprint, which players pin with "-join host:port#fingerprint"
// (or trust on first use, remembered in the user's configuration directory, with a
// loud ErrFingerprintMismatch when it changes). Each connection carries one
// bidirectional stream, which the host opens, for control messages (join, spawn,
// despawn, chat) and QUIC datagrams for state updates and clock probes, all in the
// format of package net/wire (see PROTOCOL.md).
//
// Before any of that, the host defends itself (HostConfig.Limits; docs/security.md):
// QUIC Retry once handshakes pile up, handshakes and half-open joins capped in all and
// per /24 or /64 prefix (the oldest half-open join evicted for a newcomer), a 6 s
// handshake deadline and a join deadline of 2 s stretched to ten measured round trips
// (at most 10 s), wrong passphrases limited per prefix and globally, a per-address
// player cap, an idle kick, and a disconnect for floods of bad updates. A player's name
// is handed to a new connection only with the reconnect token its JoinAccepted carried
// (ClientConfig.ReconnectToken). The machinery of these defences lives in
// net/internal/admission, and the token buckets and rate meters they and the stats use
// in net/internal/rate.
//
// Joins hold on the slowest link a player may ask for (500 ms each way, a third of the
// packets lost in bursts): the host sends its challenge with its part of the QUIC
// handshake, a client starts another handshake every second while nothing comes back,
// both ends keep clock probes and answers going while the join waits, and each waits
// for the other in measured round trips (see joining.go and PROTOCOL.md, "Join
// handshake"). A failed join is a *JoinError, whose Sentence tells a player what
// happened and what to try; a link on which nothing comes back fails with ErrNoAnswer
// after ClientConfig.NoAnswerTimeout (8 s).
//
// The host admits players that prove the passphrase, assigns player and actor ids,
// and relays every owner's updates to the other players after checking them:
// ownership, sequence (late and duplicated updates are dropped), plausibility
// (finite, on the map, tank-like speed, acceleration and turn rate, and travel
// consistent with the time since the last check; owner timestamps are held to what
// their arrival and round trip allow) and a per-client token bucket. Match rules
// are not net's: HostConfig.Judge referees the game, and HostConfig.Mover holds each
// update that passed these checks to what its actor can do (package referee
// implements both). Whatever the host drops it counts (HostStats). A client that falls silent is dropped after Limits.Timeout
// and its actors are despawned for everyone; it may join again, at once with its
// reconnect token if its old connection died. Optional Thinning relays far actors'
// updates less often per observer, after seed 004's distance-based tolerance. Past
// Limits.ZonesAbove tanks, each player is sent the latest state of the tanks most
// relevant to it first, within Limits.Downlink bytes a second (zones.go).
//
// Inside, the host is shaped like quic-go's connection: one run loop owns the match
// (players, actors, counters) and applies, one at a time, what the connections feed
// it; each connection only reads into the loop and writes what the loop queued for
// it. Control messages are dispatched in one switch (match.onControl), and a message
// for everyone goes through one broadcast. An accepted update is relayed as the bytes
// its owner sent, appended to each observer's batch: it is encoded once, by its owner.
// A Client has the same shape: its run loop owns the session (actors, pending spawns,
// counters, the events waiting for Poll), its readers feed the loop, a sender writes
// what the loop queues, and every method posts to the loop, so that a Client is safe
// for concurrent use without sharing state between goroutines.
//
// Both ends of a match are a *Client: a player that joined with Dial, or the host's
// own player (id 0) from Host.Local, which joins through an in-process pipe instead of
// QUIC. A game loop uses either the same way:
//
//	host, err := net.Listen(ctx, net.HostConfig{Addr: ":7878", Passphrase: "tiger"})
//	if err != nil { … }
//	defer host.Close()
//	fmt.Println("join with -join", host.JoinAddress())
//
//	c, err := net.Dial(ctx, net.ClientConfig{Addr: "192.0.2.7:7878", Fingerprint: fp,
//		Name: "ann", Passphrase: "tiger"})
//	if err != nil { … }
//	defer c.Close()
//	id, err := c.Spawn("ann", 1, deadreckon.NewState(start)) // waits for the host's id
//	for each frame {
//		for _, ev := range c.Poll(events[:0]) { … feed deadreckon.Actor … }
//		if d, s := pub.Update(sample); d != deadreckon.NoUpdate {
//			c.Publish(id, s) // the whole state, articulations included
//		}
//	}
//
// Units: configuration and reported durations (Stats.RTT, Stats.ClockOffset) are
// time.Duration; match time (state timestamps, Now) is float64 seconds, as in package
// deadreckon. State
// timestamps in a match are host-clock seconds: Publish stamps them with the client's
// estimate of the host clock, kept by a seed-001 clock filter (package net/clock) fed
// by probes every half second; Stats.ClockOffset is that estimate (host − local),
// ready, in seconds (units.Seconds), for deadreckon.Actor.SetClockOffset, and Stats.ClockError how far off the
// filter reckons it may be, the figure to show a player.
//
// Time is passed in: HostConfig.Clock and ClientConfig.Clock tell the time that
// timestamps, timeouts, token buckets and rates use, so tests move it by hand; only
// network deadlines (the QUIC handshake, stream writes) run in real time.
//
// Package net/impair adds seeded latency, jitter, loss, duplication and reordering
// under QUIC; Impaired builds the HostConfig.Wrap or ClientConfig.Wrap for it.
package net
