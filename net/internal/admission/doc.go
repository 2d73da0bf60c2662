// Package admission holds the host's defences that decide who may connect, who may
// try a passphrase and who is thrown out, all keyed by the address prefix a
// connection comes from (Prefix: an IPv4 /24 or an IPv6 /64):
//
//   - Gate, before and during the QUIC handshake: address validation by Retry once
//     handshakes pile up, handshakes in flight capped in all and per prefix (Caps),
//     and a handshake rate per prefix;
//   - JoinQueue, between the handshake and the join: half-open joins held under a cap
//     in all and per prefix, the oldest evicted for a newcomer (EvictingSet);
//   - GuessLimiter, at the join: wrong passphrases per prefix and globally;
//   - FloodGuard, after the join: a client whose bad traffic stays over a limit is
//     disconnected.
//
// They are one noun, the host's admission control: each answers "may this address do
// this now?", and they share the prefix key and the token buckets of package
// net/internal/rate. Times are seconds on a clock the caller passes in. The host
// (package net) wires them into quic-go's hooks and its run loop:
//
//	gate := admission.NewGate(retryAbove, maxHandshakes, perPrefix, rate, realTime)
//	gate.Install(transport) // before Listen
//	…
//	conn, _ := ln.Accept(ctx)
//	gate.Accepted(conn.Context()) // the handshake is over
//	joining.Add(conn)             // may evict the oldest half-open join
package admission
