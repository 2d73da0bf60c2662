package wire

import (
	"fmt"
	"io"
)

// A StateBatch datagram is the 2-byte header followed by one or more update records
// (see Update), back to back to the end of the datagram. Each record's length follows
// from its articulation count. Its total size is at most MaxBatchSize.

// Batch sizes in bytes.
const (
	// MaxBatchSize is the largest StateBatch, header included: under 1200 bytes so
	// that it fits a QUIC datagram at the 1280-byte initial packet size, before any
	// path MTU discovery. Decoders reject larger batches.
	MaxBatchSize = 1199
	// BatchHeaderSize is the version and type bytes that start a batch.
	BatchHeaderSize = HeaderSize
)

// StateBatch is a datagram of state updates of one or more actors. For sending
// without allocating use BatchWriter; for receiving, DecodeBatch or BatchReader.
type StateBatch struct {
	// Updates are the updates in the batch, in order.
	Updates []Update
}

// Type returns MsgStateBatch.
func (m *StateBatch) Type() MsgType { return MsgStateBatch }

// Length returns the encoded size of the batch in bytes.
func (m *StateBatch) Length() int {
	n := BatchHeaderSize
	for i := range m.Updates {
		n += m.Updates[i].Length()
	}
	return n
}

// Append appends the encoded batch. It fails with ErrTooLong past MaxBatchSize, with
// ErrInvalid for a batch without updates, and with the first update's encoding error.
func (m *StateBatch) Append(b []byte) ([]byte, error) {
	if n := m.Length(); n > MaxBatchSize {
		return b, fmt.Errorf("wire: state batch of %d bytes, limit %d: %w", n, MaxBatchSize, ErrTooLong)
	}
	if len(m.Updates) == 0 {
		return b, fmt.Errorf("wire: state batch without updates: %w", ErrInvalid)
	}
	out := appendHeader(b, MsgStateBatch)
	for i := range m.Updates {
		var err error
		if out, err = m.Updates[i].Append(out); err != nil {
			return b, err
		}
	}
	return out, nil
}

func parseStateBatch(b []byte) (*StateBatch, int, error) {
	r, err := ReadBatch(b)
	if err != nil {
		return nil, 0, err
	}
	m := &StateBatch{}
	var u Update
	for r.Next(&u) {
		m.Updates = append(m.Updates, u)
	}
	if r.Err() != nil {
		return nil, 0, r.Err()
	}
	if r.firstReject != nil {
		return nil, 0, r.firstReject
	}
	return m, len(b), nil
}

// DecodeBatch decodes the StateBatch datagram b, appending its updates to dst, and
// returns the extended slice. It allocates nothing when dst has room.
//
// Hostile input is handled per update where possible: an update whose fields are
// invalid (an impossible orientation) is skipped and counted in rejected, and the
// rest of the batch is still decoded. A structural fault (wrong header, truncation,
// an articulation count beyond deadreckon.MaxArticulations, a batch with no updates,
// a batch over MaxBatchSize) stops decoding: out then holds the updates decoded before
// the fault and err says what went wrong (wrapping io.EOF for truncation).
func DecodeBatch(dst []Update, b []byte) (out []Update, rejected int, err error) {
	r, err := ReadBatch(b)
	if err != nil {
		return dst, 0, err
	}
	for {
		if len(dst) < cap(dst) {
			dst = dst[:len(dst)+1]
		} else {
			dst = append(dst, Update{})
		}
		if !r.Next(&dst[len(dst)-1]) {
			return dst[:len(dst)-1], r.Rejected(), r.Err()
		}
	}
}

// BatchReader walks the update records of one StateBatch datagram without copying
// it. A relay uses Record to pass on the exact bytes of an update it decoded and
// checked. Not safe for concurrent use.
type BatchReader struct {
	b        []byte
	off      int
	rec      []byte
	err      error
	rejected int
	// firstReject is why the first skipped record was invalid.
	firstReject error
}

// ReadBatch checks the header and size of the StateBatch datagram b and returns a
// reader of its records. b must stay unchanged while the reader is in use.
func ReadBatch(b []byte) (BatchReader, error) {
	if err := checkHeader(b, MsgStateBatch); err != nil {
		return BatchReader{}, err
	}
	if len(b) > MaxBatchSize {
		return BatchReader{}, fmt.Errorf("wire: state batch of %d bytes, limit %d: %w", len(b), MaxBatchSize, ErrTooLong)
	}
	if len(b) == BatchHeaderSize {
		return BatchReader{}, fmt.Errorf("wire: state batch: no updates: %w", io.EOF)
	}
	return BatchReader{b: b, off: BatchHeaderSize}, nil
}

// Next decodes the next valid record into u and reports whether there was one. A
// record whose fields are invalid is skipped and counted by Rejected; a structural
// fault ends the batch and is reported by Err.
func (r *BatchReader) Next(u *Update) bool {
	for r.err == nil && r.off < len(r.b) {
		start := r.off
		rd := reader{b: r.b, off: start, ctx: "state batch"}
		parseUpdate(&rd, u)
		if rd.err == nil {
			r.off = rd.off
			r.rec = r.b[start:r.off]
			return true
		}
		// Skip a record whose length is readable and fully present.
		n, ok := recordLength(r.b[start:])
		if !ok || len(r.b)-start < n {
			r.err = rd.err
			return false
		}
		if r.rejected == 0 {
			r.firstReject = rd.err
		}
		r.rejected++
		r.off = start + n
	}
	return false
}

// Record returns the encoded bytes of the update the last successful Next decoded.
// It aliases the datagram.
func (r *BatchReader) Record() []byte { return r.rec }

// Err returns the structural fault that ended the batch, or nil.
func (r *BatchReader) Err() error { return r.err }

// Rejected returns how many invalid records Next has skipped.
func (r *BatchReader) Rejected() int { return r.rejected }

// BatchWriter builds StateBatch datagrams without allocating once its buffer has
// grown. Add appends one update and reports ErrBatchFull when it would not fit, so a
// sender fills a batch, sends Bytes, calls Reset and carries on. Not safe for
// concurrent use.
type BatchWriter struct {
	limit int
	buf   []byte
	count int
}

// NewBatchWriter returns an empty writer whose batches are at most limit bytes. A
// limit ≤ 0 or above MaxBatchSize means MaxBatchSize; a limit too small for one
// update with every articulation is raised to fit one.
func NewBatchWriter(limit int) *BatchWriter {
	if limit <= 0 || limit > MaxBatchSize {
		limit = MaxBatchSize
	}
	limit = max(limit, BatchHeaderSize+MaxUpdateSize)
	w := &BatchWriter{limit: limit, buf: make([]byte, 0, limit)}
	w.Reset()
	return w
}

// Reset empties the batch, keeping the buffer.
func (w *BatchWriter) Reset() {
	w.buf = appendHeader(w.buf[:0], MsgStateBatch)
	w.count = 0
}

// Fits reports whether n more bytes fit in the batch now.
func (w *BatchWriter) Fits(n int) bool { return len(w.buf)+n <= w.limit }

// Add appends u. When u would not fit it returns an error wrapping ErrBatchFull;
// when u cannot be encoded it returns that error. In both cases the batch is
// unchanged.
func (w *BatchWriter) Add(u *Update) error {
	if n := u.Length(); !w.Fits(n) {
		return fmt.Errorf("wire: %d + %d bytes past limit %d: %w", len(w.buf), n, w.limit, ErrBatchFull)
	}
	b, err := u.Append(w.buf)
	if err != nil {
		return err
	}
	w.buf = b
	w.count++
	return nil
}

// AddRecord appends one update record already encoded by Update.Append (or taken
// from BatchReader.Record), so that a relay encodes an update once for all its
// recipients. It returns an error wrapping ErrBatchFull when rec does not fit, and
// ErrInvalid when rec is not one whole record; the batch is then unchanged.
func (w *BatchWriter) AddRecord(rec []byte) error {
	if n, ok := recordLength(rec); !ok || n != len(rec) {
		return fmt.Errorf("wire: %d bytes are not one update record: %w", len(rec), ErrInvalid)
	}
	if !w.Fits(len(rec)) {
		return fmt.Errorf("wire: %d + %d bytes past limit %d: %w", len(w.buf), len(rec), w.limit, ErrBatchFull)
	}
	w.buf = append(w.buf, rec...)
	w.count++
	return nil
}

// Bytes returns the encoded batch. It aliases the writer's buffer: it is valid until
// the next Add, AddRecord or Reset.
func (w *BatchWriter) Bytes() []byte { return w.buf }

// Len returns the encoded size of the batch so far, header included.
func (w *BatchWriter) Len() int { return len(w.buf) }

// Count returns how many updates the batch holds.
func (w *BatchWriter) Count() int { return w.count }
