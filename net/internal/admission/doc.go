// Package admission holds the host's defences that decide who may connect, who may
// try a passphrase and who is thrown out, all keyed by the address prefix a
// connection comes from (Prefix: an IPv4 /24 or an IPv6 /64):
//
//   - Gate, before and during the QUIC handshake: address validation by Retry once
//     handshakes pile up, a handshake rate and a fair share per prefix, and at most
//     so many handshakes in flight, a newcomer to a full gate evicting a stalled or
//     older one rather than being refused;
//   - JoinQueue, between the handshake and the join: half-open joins held under a cap
//     in all and per prefix, the oldest of the crowded prefix evicted for a newcomer
//     (EvictingSet);
//   - GuessLimiter, at the join: wrong passphrases per prefix and globally;
//   - FloodGuard, after the join: a client whose bad traffic stays over a limit is
//     disconnected.
//
// They are one noun, the host's admission control: each answers "may this address do
// this now?", and they share the prefix key and the token buckets of package
// net/internal/rate. Times are seconds on a clock the caller passes in. The host
// (package net) wires them into quic-go's hooks and its run loop:
//
//	gate := admission.NewGate(limits, realTime, closeConn)
//	gate.Install(transport) // before Listen
//	config.GetConfigForClient = gate.ConfigFor(config.Clone(), time.Second)
//	…
//	conn, _ := ln.Accept(ctx) // an early listener: the ClientHello is read
//	gate.Started(conn)        // an eviction may close it from now on
//	<-conn.HandshakeComplete()
//	gate.Accepted(conn.Context()) // the handshake is over
//	joining.Add(conn)             // may evict a half-open join
package admission
