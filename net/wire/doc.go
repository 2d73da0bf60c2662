// Package wire is Treadline's binary network protocol: the messages peers exchange,
// their byte layouts and the quantization of actor state. PROTOCOL.md at the
// repository root documents every layout; this package is its reference
// implementation. It does no I/O of its own apart from FrameReader.
//
// Every message starts with the protocol Version byte and a MsgType byte. Control
// messages (Challenge, JoinRequest, JoinAccepted, JoinRefused, Spawn, Despawn, Leave,
// Kick, Chat) travel on a reliable stream, each preceded by a 2-byte length
// (AppendFrame, FrameReader). State travels in StateBatch datagrams of at most
// MaxBatchSize bytes, each holding updates of several actors: one self-describing
// record per update, UpdateSize(n) = 33 + 4n bytes for n articulations. A relay reads
// records with BatchReader and passes their bytes on with BatchWriter.AddRecord,
// never encoding an update twice. ClockRequest and ClockAnswer carry seed 001's clock
// sync; package clock turns their times into an offset.
//
// Each message type has Append(b) ([]byte, error), which appends the encoded message,
// and Length(), its encoded size; Parse decodes any message, dispatching on its type
// in one switch, and reports how many bytes it used. FrameReader tells a bad message
// in an intact frame (ErrBadMessage: read on) from a broken stream (any other error). Decoders never panic, never alias their input, and reject hostile
// input with errors wrapping io.EOF (truncation), ErrVersion, ErrUnknownType,
// ErrTooLong, ErrOutOfRange or ErrInvalid; encoders reject non-finite values with
// ErrNotFinite.
//
// Sending state without allocating:
//
//	w := wire.NewBatchWriter(0) // MaxBatchSize
//	for _, u := range updates {
//		if err := w.Add(&u); errors.Is(err, wire.ErrBatchFull) {
//			conn.SendDatagram(w.Bytes())
//			w.Reset()
//			err = w.Add(&u)
//		}
//	}
//	conn.SendDatagram(w.Bytes())
//
// Receiving it, dropping late and duplicated updates:
//
//	buf, rejected, err := wire.DecodeBatch(buf[:0], datagram) // count rejected; err ends the batch
//	for _, u := range buf {
//		f := seqs[u.Actor] // a *wire.SeqFilter per actor, Set from its Spawn
//		if f != nil && f.Accept(u.Seq) {
//			// feed u.State to the actor's deadreckon.Actor
//		}
//	}
//
// Values of this package's types are not safe for concurrent mutation; the
// functions are safe for concurrent use.
package wire
