package wire

import (
	"fmt"
	"io"

	"github.com/treadline/treadline/deadreckon"
)

// A StateBatch datagram is the 2-byte header followed by one or more sections:
//
//	kind u8 | count u8 (1…255) | count updates of that kind
//
// It extends to the end of the datagram (or frame). Its total size is at most
// MaxBatchSize.

// Batch sizes in bytes.
const (
	// MaxBatchSize is the largest StateBatch, header included: under 1200 bytes so
	// that it fits a QUIC datagram at the 1280-byte initial packet size, before any
	// path MTU discovery. Decoders reject larger batches.
	MaxBatchSize = 1199
	// BatchHeaderSize is the version and type bytes that start a batch.
	BatchHeaderSize = HeaderSize
	// SectionHeaderSize is the kind and count bytes before each run of updates of
	// one kind.
	SectionHeaderSize = 2
	// maxSectionCount is the most updates one section holds.
	maxSectionCount = 255
)

// StateBatch is a datagram of state updates of one or more actors. Append groups
// consecutive updates of the same kind into sections. For sending without
// allocating use BatchWriter; for receiving, DecodeBatch.
type StateBatch struct {
	// Updates are the updates in the batch, in order.
	Updates []Update
}

// Type returns MsgStateBatch.
func (m *StateBatch) Type() MsgType { return MsgStateBatch }

// Length returns the encoded size of the batch in bytes.
func (m *StateBatch) Length() int {
	n := BatchHeaderSize
	var kind UpdateKind
	count := 0
	for i := range m.Updates {
		u := &m.Updates[i]
		if i == 0 || u.Kind != kind || count == maxSectionCount {
			n += SectionHeaderSize
			kind, count = u.Kind, 0
		}
		count++
		n += u.Length()
	}
	return n
}

// Append appends the encoded batch. It fails with ErrTooLong past MaxBatchSize and
// with the first update's encoding error.
func (m *StateBatch) Append(b []byte) ([]byte, error) {
	if n := m.Length(); n > MaxBatchSize {
		return b, fmt.Errorf("wire: state batch of %d bytes, limit %d: %w", n, MaxBatchSize, ErrTooLong)
	}
	w := BatchWriter{limit: MaxBatchSize, buf: appendHeader(b, MsgStateBatch), start: len(b), section: -1}
	for i := range m.Updates {
		if err := w.Add(&m.Updates[i]); err != nil {
			return b, err
		}
	}
	return w.buf, nil
}

func parseStateBatch(b []byte) (*StateBatch, int, error) {
	updates, _, err := decodeBatch(nil, b, true)
	if err != nil {
		return nil, 0, err
	}
	return &StateBatch{Updates: updates}, len(b), nil
}

// DecodeBatch decodes the StateBatch datagram b, appending its updates to dst, and
// returns the extended slice. It allocates nothing when dst has room.
//
// Hostile input is handled per update where possible: an update whose fields are
// invalid (an impossible orientation) is skipped and counted in rejected, and the
// rest of the batch is still decoded. A structural fault (wrong header, unknown kind,
// empty section, truncation, a batch with no updates, a batch over MaxBatchSize) stops decoding: out then holds
// the updates decoded before the fault and err says what went wrong (wrapping io.EOF
// for truncation).
func DecodeBatch(dst []Update, b []byte) (out []Update, rejected int, err error) {
	return decodeBatch(dst, b, false)
}

// decodeBatch is DecodeBatch; when strict, an invalid update fails the batch.
func decodeBatch(dst []Update, b []byte, strict bool) (out []Update, rejected int, err error) {
	if err := checkHeader(b, MsgStateBatch); err != nil {
		return dst, 0, err
	}
	if len(b) > MaxBatchSize {
		return dst, 0, fmt.Errorf("wire: state batch of %d bytes, limit %d: %w", len(b), MaxBatchSize, ErrTooLong)
	}
	r := reader{b: b, off: BatchHeaderSize, ctx: "state batch"}
	if r.off == len(b) {
		return dst, 0, fmt.Errorf("wire: state batch: no updates: %w", io.EOF)
	}
	for r.off < len(b) {
		kind := UpdateKind(r.u8())
		count := int(r.u8())
		if r.err != nil {
			return dst, rejected, r.err
		}
		if kind < KindPartial || kind > KindArticulation {
			return dst, rejected, fmt.Errorf("wire: state batch: update kind %d: %w", kind, ErrUnknownType)
		}
		if count == 0 {
			return dst, rejected, fmt.Errorf("wire: state batch: empty %v section: %w", kind, ErrInvalid)
		}
		for i := 0; i < count; i++ {
			if len(dst) < cap(dst) {
				dst = dst[:len(dst)+1]
			} else {
				dst = append(dst, Update{})
			}
			u := &dst[len(dst)-1]
			start := r.off
			parseUpdate(&r, kind, u)
			if r.err == nil {
				continue
			}
			dst = dst[:len(dst)-1]
			if strict || !skippable(&r, kind, start) {
				return dst, rejected, r.err
			}
			rejected++
		}
	}
	return dst, rejected, nil
}

// skippable reports whether the update that failed at start has a length that can be
// read and is fully present, so decoding can resume after it; it then moves r past it.
func skippable(r *reader, kind UpdateKind, start int) bool {
	n := PartialUpdateSize
	switch kind {
	case KindPartial:
	case KindFull:
		if len(r.b)-start <= PartialUpdateSize {
			return false
		}
		count := int(r.b[start+PartialUpdateSize])
		if count > deadreckon.MaxArticulations {
			return false
		}
		n = FullUpdateSize(count)
	default:
		return false
	}
	if len(r.b)-start < n {
		return false
	}
	r.err = nil
	r.off = start + n
	return true
}

// BatchWriter builds StateBatch datagrams without allocating once its buffer has
// grown. Add appends one update and reports ErrBatchFull when it would not fit, so a
// sender fills a batch, sends Bytes, calls Reset and carries on. Not safe for
// concurrent use.
type BatchWriter struct {
	limit   int
	buf     []byte
	start   int // offset of the batch header in buf
	section int // offset of the current section's count byte, or −1
	kind    UpdateKind
	inSect  int
	count   int
}

// NewBatchWriter returns an empty writer whose batches are at most limit bytes. A
// limit ≤ 0 or above MaxBatchSize means MaxBatchSize; a limit too small for one
// partial update is raised to fit one.
func NewBatchWriter(limit int) *BatchWriter {
	if limit <= 0 || limit > MaxBatchSize {
		limit = MaxBatchSize
	}
	limit = max(limit, BatchHeaderSize+SectionHeaderSize+PartialUpdateSize)
	w := &BatchWriter{limit: limit, buf: make([]byte, 0, limit)}
	w.Reset()
	return w
}

// Reset empties the batch, keeping the buffer.
func (w *BatchWriter) Reset() {
	w.buf = appendHeader(w.buf[:0], MsgStateBatch)
	w.start, w.section, w.kind, w.inSect, w.count = 0, -1, 0, 0, 0
}

// Cost returns how many bytes adding u would take now: its size, plus a section
// header when it starts a new section.
func (w *BatchWriter) Cost(u *Update) int {
	n := u.Length()
	if w.section < 0 || u.Kind != w.kind || w.inSect == maxSectionCount {
		n += SectionHeaderSize
	}
	return n
}

// Fits reports whether u would fit in the batch now.
func (w *BatchWriter) Fits(u *Update) bool { return w.Len()+w.Cost(u) <= w.limit }

// Add appends u. When u would not fit it returns an error wrapping ErrBatchFull;
// when u cannot be encoded it returns that error. In both cases the batch is
// unchanged.
func (w *BatchWriter) Add(u *Update) error {
	if !w.Fits(u) {
		return fmt.Errorf("wire: %d + %d bytes past limit %d: %w", w.Len(), w.Cost(u), w.limit, ErrBatchFull)
	}
	before, section, kind, inSect := len(w.buf), w.section, w.kind, w.inSect
	if w.section < 0 || u.Kind != w.kind || w.inSect == maxSectionCount {
		w.buf = append(w.buf, byte(u.Kind), 0)
		w.section, w.kind, w.inSect = len(w.buf)-1, u.Kind, 0
	}
	b, err := appendUpdate(w.buf, u)
	if err != nil {
		w.buf = w.buf[:before]
		w.section, w.kind, w.inSect = section, kind, inSect
		return err
	}
	w.buf = b
	w.inSect++
	w.buf[w.section] = byte(w.inSect)
	w.count++
	return nil
}

// Bytes returns the encoded batch. It aliases the writer's buffer: it is valid until
// the next Add or Reset.
func (w *BatchWriter) Bytes() []byte { return w.buf[w.start:] }

// Len returns the encoded size of the batch so far, header included.
func (w *BatchWriter) Len() int { return len(w.buf) - w.start }

// Count returns how many updates the batch holds.
func (w *BatchWriter) Count() int { return w.count }

// Limit returns the writer's size limit in bytes.
func (w *BatchWriter) Limit() int { return w.limit }
