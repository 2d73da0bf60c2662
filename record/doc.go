// Package record writes and reads Treadline match recordings: an append-only file of
// what one peer of a match saw, with the times it saw it, that survives the process
// being killed. RECORDING.md at the repository root documents the format byte by byte;
// this package is its reference implementation.
//
// A recording starts with a header (magic, format version, the protocol version of the
// records, and the match's metadata as JSON: map, rules, names, the dead reckoning in
// force) and goes on in blocks, each one second of the match by default, sealed and
// written with one write, compressed and checked by a CRC. Records reuse the wire
// encoding of package net/wire: a spawn, despawn, chat line, shot, verdict, kill or
// scoreboard is the very message the peers exchange; a state update is a one-update
// StateBatch. Besides what crossed the network, a recording holds the ground truth
// where it exists: the true physics pose of every tank the recorder simulated (its own
// tank, the host's bots), every frame, delta-coded against the pose before.
//
// A process killed mid-match leaves a file that reads up to its last sealed block. A
// truncated or damaged file reads up to the damage, and the Reader says in one line
// (StopError) where it stopped; a file of another format or protocol version is refused
// with both versions named (VersionError). No record kind can hold a passphrase, a
// join proof or a reconnect token: the writer takes only the message types listed in
// RECORDING.md, and so does the reader.
//
// Recording costs the match little. A Writer appends each record to the open block
// under a mutex, without allocating; a goroutine of its own compresses and writes the
// sealed blocks, so a slow or full disk never blocks the caller: a failed write is
// reported once, in one line, to Config.OnError, and recording stops while the match
// goes on. Times are passed in (seconds on the recorder's clock); nothing here reads
// the wall clock.
//
//	w, err := record.Create("match.tread", record.Meta{Perspective: record.Client, Map: "valley"}, record.Config{})
//	if err != nil { … } // report it in one line and play on without recording
//	defer w.Close()
//	w.Frame(now, clockOffset)
//	w.Update(now, arrival, &update) // a *wire.Update received
//	w.Truth(record.Pose{Actor: id, Time: now, Position: p, Orientation: q})
//
// Reading it back:
//
//	r, err := record.Open("match.tread")
//	if err != nil { … } // not a recording, or another version: err says which
//	defer r.Close()
//	var rec record.Record
//	for r.Next(&rec) {
//		switch rec.Kind { … }
//	}
//	if err := r.Err(); err != nil { fmt.Println(err) } // where a damaged file stopped
//
// MatchTap and HostTap connect a Writer to a game.Match (its game.Observer hook) and to
// a net.Host (its net.Tap hook); Taps puts several MatchTaps on one match; UplinkTap,
// on a practice's in-process host, records the player's own updates as they arrive
// there, which the player's client cannot see.
//
// A Ring is a recording kept in memory, of which only the last seconds are kept,
// bounded and reusing its buffers: what the kill camera replays after a death.
//
// A Writer is safe for concurrent use; a Reader is not.
package record
