package net

import "github.com/treadline/treadline/net/wire"

// Tap sees what a host accepts and sends, for recording a match (package record's
// HostTap). The host's run loop calls it, one call at a time, with host-clock times
// in seconds; it must not block, and must copy what it keeps. It sees no secret: no
// passphrase, proof or reconnect token passes through it.
type Tap interface {
	// Relayed reports an accepted state update as the encoded update record the host
	// relays (its timestamp clamped where the host had to), arrived at host time at.
	Relayed(rec []byte, at float64)
	// Broadcast reports a message the host sends every player: spawns, despawns,
	// chat, and the judge's shots, hits, kills and scores (not the refusals, which go
	// to their shooter only; see JudgeMessage).
	Broadcast(m wire.Message, at float64)
	// Joined reports a player admitted to the match; Left one leaving it.
	Joined(player uint32, name string, at float64)
	Left(player uint32, reason wire.LeaveReason, at float64)
}
