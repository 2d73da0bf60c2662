package record

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"

	"github.com/treadline/treadline/net/wire"
)

// Record is one record read back, decoded. Which fields are set depends on Kind.
type Record struct {
	// Kind says what the record holds.
	Kind Kind
	// Time is when the recorder took the record in (received, relayed, published,
	// sampled or stepped), seconds on the recorder's clock.
	Time float64
	// Message is the wire message of a KindMessage record.
	Message wire.Message
	// Update is the state update of a KindState or KindSent record. Its State.Time
	// is the owner's timestamp on the host clock (KindState) or the publish time on
	// the recorder's clock (KindSent).
	Update wire.Update
	// Arrival is when a KindState update arrived, s on the recorder's clock (Time for
	// a host, which takes an update in as it arrives).
	Arrival float64
	// Truth is the true pose of a KindTruthKey or KindTruth record.
	Truth Pose
	// ClockOffset is the host clock minus the recorder's clock at a KindFrame, s.
	ClockOffset float64
	// Player and Name are the player of a KindJoin record.
	Player uint32
	Name   string
	// Actor is the tank of a KindSentMark record.
	Actor uint32
}

// Reader reads a recording record by record. It is not safe for concurrent use.
type Reader struct {
	in     *bufio.Reader
	file   *os.File
	meta   Meta
	off    int64 // file offset of the next block
	block  int   // index of the block being read
	bstart int64 // its file offset
	seen   bool  // a block has been read
	prev   int   // the index of the last block read
	raw    []byte
	pos    int
	us     int64 // µs time of the previous record
	last   float64
	tracks map[uint16]*truthTrack
	err    error
	done   bool
	zr     io.ReadCloser
	stored []byte
	state  []wire.Update
	proto  uint8  // the recording's protocol version
	msg    []byte // reused: a message of an older protocol, restamped
}

// Open opens the recording at path and reads its header. It refuses a file that is
// not a recording (ErrNotRecording) or of another version (*VersionError).
func Open(path string) (*Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	r, err := NewReader(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.file = f
	return r, nil
}

// NewReader reads the header of the recording on in and returns a reader of its
// records.
func NewReader(in io.Reader) (*Reader, error) {
	r := &Reader{in: bufio.NewReaderSize(in, 64<<10), tracks: make(map[uint16]*truthTrack)}
	if err := r.readHeader(); err != nil {
		return nil, err
	}
	return r, nil
}

// readHeader reads and checks the header and decodes the metadata.
func (r *Reader) readHeader() error {
	var fixed [headerFixed]byte
	n, err := io.ReadFull(r.in, fixed[:])
	if n < len(Magic) || string(fixed[:len(Magic)]) != Magic {
		return ErrNotRecording
	}
	if err != nil {
		return fmt.Errorf("record: header: %w", io.ErrUnexpectedEOF)
	}
	format, proto := fixed[len(Magic)], fixed[len(Magic)+1]
	if format != FormatVersion || proto < MinProtocol || proto > wire.Version {
		return &VersionError{Format: format, Protocol: proto}
	}
	r.proto = proto
	size := binary.BigEndian.Uint32(fixed[len(Magic)+2:])
	if size > MaxMetaSize {
		return fmt.Errorf("record: metadata of %d bytes, limit %d: %w", size, MaxMetaSize, ErrDamaged)
	}
	rest := make([]byte, int(size)+4)
	if _, err := io.ReadFull(r.in, rest); err != nil {
		return fmt.Errorf("record: header: %w", io.ErrUnexpectedEOF)
	}
	js := rest[:size]
	crc := crc32.Update(crc32.Checksum(fixed[:], crcTable), crcTable, js)
	if crc != binary.BigEndian.Uint32(rest[size:]) {
		return fmt.Errorf("record: header checksum: %w", ErrDamaged)
	}
	if err := json.Unmarshal(js, &r.meta); err != nil {
		return fmt.Errorf("record: metadata: %v: %w", err, ErrDamaged)
	}
	r.off = int64(headerFixed) + int64(len(rest))
	return nil
}

// Meta returns the recording's metadata.
func (r *Reader) Meta() Meta { return r.meta }

// Err returns nil when the recording was read to its clean end (or not yet to its
// end), and otherwise a *StopError saying in one line where and why reading stopped.
func (r *Reader) Err() error { return r.err }

// Block returns the index of the block being read (or that stopped reading).
func (r *Reader) Block() int { return r.block }

// Offset returns the file offset reading has reached: the end of the last block read.
func (r *Reader) Offset() int64 { return r.off }

// Close closes the file Open opened.
func (r *Reader) Close() error {
	if r.file != nil {
		return r.file.Close()
	}
	return nil
}

// Next decodes the next record into rec and reports whether there was one. At the
// end, or at damage, it returns false; Err says which.
func (r *Reader) Next(rec *Record) bool {
	for !r.done {
		if r.pos >= len(r.raw) {
			if !r.nextBlock() {
				return false
			}
			continue
		}
		raw, used, err := splitRecord(r.raw[r.pos:])
		if err == nil {
			err = r.decode(rec, raw)
		}
		if err != nil {
			r.stop(r.bstart, fmt.Errorf("record at byte %d of block %d: %w", r.pos, r.block, err))
			return false
		}
		r.pos += used
		r.last = rec.Time
		return true
	}
	return false
}

// stop ends reading with a StopError at offset off.
func (r *Reader) stop(off int64, err error) {
	r.done = true
	r.err = &StopError{Offset: off, Block: r.block, Time: r.last, Err: err}
}

// nextBlock reads, checks and decompresses the next block. It reports false at the
// end of the file or at damage (setting Err).
func (r *Reader) nextBlock() bool {
	var hdr [blockHeaderSize]byte
	n, err := io.ReadFull(r.in, hdr[:])
	if n == 0 && errors.Is(err, io.EOF) {
		r.done = true
		return false
	}
	start := r.off
	if r.seen {
		r.block = r.prev + 1 // until its header says
	}
	if err != nil {
		r.stop(start, fmt.Errorf("truncated block header: %d of %d bytes: %w", n, blockHeaderSize, io.ErrUnexpectedEOF))
		return false
	}
	if !bytes.Equal(hdr[:4], blockSync[:]) {
		r.stop(start, fmt.Errorf("no block starts here: %w", ErrDamaged))
		return false
	}
	index := int(binary.BigEndian.Uint32(hdr[4:]))
	begin := int64(binary.BigEndian.Uint64(hdr[8:]))
	rawLen := binary.BigEndian.Uint32(hdr[16:])
	size := binary.BigEndian.Uint32(hdr[20:])
	if rawLen > MaxBlockSize || size > MaxBlockSize || (r.seen && index <= r.prev) {
		r.stop(start, fmt.Errorf("block %d of %d bytes (%d raw): %w", index, size, rawLen, ErrDamaged))
		return false
	}
	r.block = index
	if int(rawLen) > maxRaw(int(size)) {
		r.stop(start, fmt.Errorf("block %d claims to expand %d stored bytes to %d, past %d× and %d bytes: %w",
			index, size, rawLen, MaxExpansion, expansionSlack, ErrDamaged))
		return false
	}
	r.stored = grow(r.stored, int(size))
	if n, err := io.ReadFull(r.in, r.stored); err != nil {
		r.stop(start, fmt.Errorf("truncated block: %d of %d bytes: %w", n, size, io.ErrUnexpectedEOF))
		return false
	}
	crc := crc32.Update(crc32.Checksum(hdr[4:24], crcTable), crcTable, r.stored)
	if crc != binary.BigEndian.Uint32(hdr[24:]) {
		r.stop(start, fmt.Errorf("block checksum: %w", ErrDamaged))
		return false
	}
	if err := r.inflate(int(rawLen)); err != nil {
		r.stop(start, err)
		return false
	}
	r.seen, r.prev = true, index
	r.bstart = start
	r.off = start + blockHeaderSize + int64(size)
	r.pos, r.us = 0, begin
	return true
}

// inflate decompresses the stored block into r.raw, which must come to exactly n
// bytes.
func (r *Reader) inflate(n int) error {
	src := bytes.NewReader(r.stored)
	if r.zr == nil {
		r.zr = flate.NewReader(src)
	} else if err := r.zr.(flate.Resetter).Reset(src, nil); err != nil {
		return fmt.Errorf("block: %v: %w", err, ErrDamaged)
	}
	r.raw = grow(r.raw, n)
	if _, err := io.ReadFull(r.zr, r.raw); err != nil {
		return fmt.Errorf("block does not inflate to %d bytes: %v: %w", n, err, ErrDamaged)
	}
	var one [1]byte
	if m, _ := r.zr.Read(one[:]); m != 0 {
		return fmt.Errorf("block inflates past %d bytes: %w", n, ErrDamaged)
	}
	return nil
}

// grow returns b resized to n bytes, reusing its array when it is large enough.
func grow(b []byte, n int) []byte {
	if cap(b) < n {
		return make([]byte, n)
	}
	return b[:n]
}

// decode fills rec from the raw record: one switch on the kind, one method a kind.
func (r *Reader) decode(rec *Record, raw rawRecord) error {
	r.us += raw.dt
	*rec = Record{Kind: raw.kind, Time: float64(r.us) * timeUnit}
	b := raw.body
	switch raw.kind {
	case KindMessage:
		return decodeMessage(rec, r.restamp(b))
	case KindState, KindSent:
		return r.decodeState(rec, raw.kind, b)
	case KindTruthKey:
		return r.decodeTruthKey(rec, b)
	case KindTruth:
		return r.decodeTruth(rec, b)
	case KindFrame:
		return decodeFrame(rec, b)
	case KindSentMark:
		return decodeSentMark(rec, b)
	case KindJoin:
		return decodeJoin(rec, b)
	}
	return fmt.Errorf("unknown record kind %v: %w", raw.kind, ErrDamaged)
}

// restamp returns wire message b of a recording of an older protocol (MinProtocol and
// on) with this program's version byte, in a buffer the next call reuses; b itself
// when it is of this version.
func (r *Reader) restamp(b []byte) []byte {
	if r.proto == wire.Version || len(b) == 0 || b[0] != r.proto {
		return b
	}
	if r.proto < 5 && len(b) == oldClaimSize && wire.MsgType(b[1]) == wire.MsgHitClaim {
		// Before version 5 a claim named four applied updates; the other four read as
		// none, as a shooter's that had applied only four would.
		r.msg = append(append(r.msg[:0], wire.Version), b[1:oldClaimApplied]...)
		r.msg = append(r.msg, make([]byte, (wire.ClaimApplied-4)*8)...)
		r.msg = append(r.msg, b[oldClaimApplied:]...)
		return r.msg
	}
	r.msg = append(append(r.msg[:0], wire.Version), b[1:]...)
	return r.msg
}

// A HitClaim before protocol version 5: 93 bytes, its four applied updates ending at
// byte 71.
const (
	oldClaimSize    = 93
	oldClaimApplied = 71
)

// decodeMessage decodes a recorded wire message, which must fill the record.
func decodeMessage(rec *Record, b []byte) error {
	m, used, err := wire.Parse(b)
	if err != nil {
		return err
	}
	if used != len(b) || !recordable(m.Type()) {
		return fmt.Errorf("%v message in %d bytes: %w", m.Type(), len(b), ErrDamaged)
	}
	rec.Message = m
	return nil
}

// decodeState decodes a received (KindState, with its arrival lag) or sent update.
func (r *Reader) decodeState(rec *Record, kind Kind, b []byte) error {
	rec.Arrival = rec.Time
	if kind == KindState {
		lag, n := binary.Uvarint(b)
		if n <= 0 {
			return fmt.Errorf("arrival: %w", ErrDamaged)
		}
		rec.Arrival = float64(r.us-unzigzag(lag)) * timeUnit
		b = b[n:]
	}
	return r.decodeUpdate(rec, b)
}

// decodeTruthKey decodes a whole true pose, which starts its actor's deltas again.
func (r *Reader) decodeTruthKey(rec *Record, b []byte) error {
	actor, brk, q, err := parseTruthKey(b)
	if err != nil {
		return err
	}
	r.track(actor).reset(r.block, q)
	rec.Truth = q.pose(uint32(actor), rec.Time, brk)
	return nil
}

// decodeTruth decodes a true pose as a residual from its actor's prediction.
func (r *Reader) decodeTruth(rec *Record, b []byte) error {
	actor, res, err := parseTruthDelta(b)
	if err != nil {
		return err
	}
	tr := r.track(actor)
	if tr.block != r.block || tr.n == 0 {
		return fmt.Errorf("truth delta of actor %d without its key: %w", actor, ErrDamaged)
	}
	q := apply(tr.predict(), res)
	if err := q.check(); err != nil {
		return err
	}
	tr.push(q)
	rec.Truth = q.pose(uint32(actor), rec.Time, false)
	return nil
}

// decodeFrame decodes a frame mark with the recorder's clock offset.
func decodeFrame(rec *Record, b []byte) error {
	off, n := binary.Uvarint(b)
	if n <= 0 || n != len(b) {
		return fmt.Errorf("frame: %w", ErrDamaged)
	}
	rec.ClockOffset = float64(unzigzag(off)) * timeUnit
	return nil
}

// decodeSentMark decodes the mark of an update sent by the actor it names.
func decodeSentMark(rec *Record, b []byte) error {
	if len(b) != 2 {
		return fmt.Errorf("sent mark of %d bytes: %w", len(b), ErrDamaged)
	}
	rec.Actor = uint32(binary.BigEndian.Uint16(b))
	return nil
}

// decodeJoin decodes a player's join with the name it joined under.
func decodeJoin(rec *Record, b []byte) error {
	if len(b) < 3 || int(b[2]) != len(b)-3 {
		return fmt.Errorf("join of %d bytes: %w", len(b), ErrDamaged)
	}
	rec.Player, rec.Name = uint32(binary.BigEndian.Uint16(b)), string(b[3:])
	if err := wire.CheckName(rec.Name); err != nil {
		return fmt.Errorf("join: %v: %w", err, ErrDamaged)
	}
	return nil
}

// decodeUpdate decodes a one-update StateBatch into rec.Update.
func (r *Reader) decodeUpdate(rec *Record, b []byte) error {
	out, rejected, err := wire.DecodeBatch(r.state[:0], r.restamp(b))
	r.state = out
	if err != nil {
		return err
	}
	if rejected != 0 || len(out) != 1 {
		return fmt.Errorf("state batch of %d updates, %d rejected: %w", len(out), rejected, ErrDamaged)
	}
	rec.Update = out[0]
	return nil
}

// track returns actor's truth track, creating it.
func (r *Reader) track(actor uint16) *truthTrack {
	t := r.tracks[actor]
	if t == nil {
		t = &truthTrack{block: -1}
		r.tracks[actor] = t
	}
	return t
}

// reset starts the track afresh in block at pose q.
func (t *truthTrack) reset(block int, q qpose) {
	t.block, t.n = block, 0
	t.push(q)
}
