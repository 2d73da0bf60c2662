package record

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"github.com/treadline/treadline/net/wire"
)

// Defaults for Config.
const (
	// DefaultFlushEvery is how much recording time one block holds, s: a process
	// killed mid-match loses at most this much.
	DefaultFlushEvery = 1.0
	// DefaultQueue is how many sealed blocks may wait for the disk before the writer
	// drops the oldest news rather than make the match wait.
	DefaultQueue = 8
)

// Config tunes a Writer. The zero value means the defaults.
type Config struct {
	// FlushEvery is the recording time one block holds, s: a block is sealed and
	// handed to the disk when a record comes this long after its first. If zero,
	// defaults to DefaultFlushEvery.
	FlushEvery float64
	// Queue is how many sealed blocks may wait to be written; past it, blocks are
	// dropped and counted (Stats.Dropped). If zero, defaults to DefaultQueue.
	Queue int
	// OnError, if set, is called once, from the writer's goroutine, with the first
	// write error, in one line. Recording stops there; the caller's match goes on.
	OnError func(error)
	// Name is what errors call the destination; Create sets it to the path.
	Name string
}

// Stats are a Writer's counters.
type Stats struct {
	// Records counts records appended; Blocks blocks written.
	Records, Blocks uint64
	// RawBytes counts record bytes before compression; Bytes file bytes written,
	// the header included.
	RawBytes, Bytes uint64
	// Dropped counts records lost: refused (Truth off any map, a message that does
	// not encode), or in blocks dropped because the disk fell behind or failed.
	Dropped uint64
}

// Writer appends records to a recording. Records go into the open block, which is
// sealed FlushEvery seconds of recording time after its first record and written,
// compressed, by the Writer's own goroutine. Appending never allocates once the
// block buffers have grown, and never waits for the disk. A Writer is safe for
// concurrent use.
type Writer struct {
	cfg    Config
	out    io.Writer
	file   *os.File // when the Writer created it
	flushN int64    // FlushEvery in µs

	mu     sync.Mutex
	cur    *block
	last   int64 // µs of the previous record in the open block
	next   int   // index of the next block
	tracks map[uint32]*truthTrack
	closed bool
	stats  Stats // Records, RawBytes, Dropped; the rest are atomics below

	free chan *block        // spare blocks
	full chan *block        // sealed blocks for the disk
	sync chan chan struct{} // Sync's requests: closed once what was sealed before is written
	done chan struct{}

	blocks, bytes atomic.Uint64
	failed        atomic.Bool
	errOnce       sync.Once
	err           error // the first write error; set before failed
}

// block is one block being gathered or written.
type block struct {
	index int
	start int64 // µs, the time of its first record
	raw   []byte
}

// Create creates (or truncates) the file at path and starts a recording in it with
// meta's header. An error (an unwritable path) says so in one line; the caller can
// carry on without recording.
func Create(path string, meta Meta, cfg Config) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("record: create: %w", err)
	}
	if cfg.Name == "" {
		cfg.Name = path
	}
	w, err := newWriter(f, meta, cfg)
	if err != nil {
		f.Close()
		os.Remove(path)
		return nil, err
	}
	w.file = f
	return w, nil
}

// NewWriter starts a recording on out with meta's header. The header is written at
// once: its error is returned. out is not closed by Close.
func NewWriter(out io.Writer, meta Meta, cfg Config) (*Writer, error) {
	return newWriter(out, meta, cfg)
}

func newWriter(out io.Writer, meta Meta, cfg Config) (*Writer, error) {
	if !(cfg.FlushEvery > 0) {
		cfg.FlushEvery = DefaultFlushEvery
	}
	if cfg.Queue <= 0 {
		cfg.Queue = DefaultQueue
	}
	if cfg.Name == "" {
		cfg.Name = "recording"
	}
	js, err := meta.encode()
	if err != nil {
		return nil, err
	}
	hdr := appendHeader(nil, js)
	if _, err := out.Write(hdr); err != nil {
		return nil, fmt.Errorf("record: write %s: %w", cfg.Name, err)
	}
	w := &Writer{
		cfg:    cfg,
		out:    out,
		flushN: micros(cfg.FlushEvery),
		tracks: make(map[uint32]*truthTrack),
		free:   make(chan *block, cfg.Queue),
		full:   make(chan *block, cfg.Queue+1),
		sync:   make(chan chan struct{}),
		done:   make(chan struct{}),
		cur:    &block{raw: make([]byte, 0, 32<<10)},
	}
	w.bytes.Store(uint64(len(hdr)))
	for range cfg.Queue {
		w.free <- &block{raw: make([]byte, 0, 32<<10)}
	}
	go w.run()
	return w, nil
}

// Message appends a wire message received or sent at time t (s): one of the types
// RECORDING.md lists (spawns, despawns, leaves, chat, shots, hit claims, verdicts,
// kills, scores). Any other type, such as the handshake's, is refused.
func (w *Writer) Message(t float64, m wire.Message) error {
	if m == nil || !recordable(m.Type()) {
		return fmt.Errorf("record: %v messages are not recorded", typeOf(m))
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b, mark, ok := w.begin(KindMessage, t, m.Length())
	if !ok {
		return nil
	}
	out, err := m.Append(b)
	if err != nil || len(out)-len(b) != m.Length() {
		w.undo(mark)
		if err == nil {
			err = fmt.Errorf("record: %v: Length and Append disagree", m.Type())
		}
		return err
	}
	w.commit(out, t)
	return nil
}

// typeOf names m's type for an error, nil included.
func typeOf(m wire.Message) string {
	if m == nil {
		return "nil"
	}
	return m.Type().String()
}

// State appends a state update record rec (an encoded update record, as
// wire.BatchReader.Record returns it) that the recorder took in at time t and that
// arrived at arrival (s; a host takes in an update as it arrives).
func (w *Writer) State(t, arrival float64, rec []byte) error {
	if len(rec) < wire.MinUpdateSize || len(rec) > wire.MaxUpdateSize {
		return fmt.Errorf("record: state of %d bytes: %w", len(rec), wire.ErrInvalid)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var lag [binary.MaxVarintLen64]byte
	nl := binary.PutUvarint(lag[:], zigzag(micros(t)-micros(arrival)))
	b, _, ok := w.begin(KindState, t, nl+wire.BatchHeaderSize+len(rec))
	if !ok {
		return nil
	}
	b = append(b, lag[:nl]...)
	b = append(b, wire.Version, byte(wire.MsgStateBatch))
	w.commit(append(b, rec...), t)
	return nil
}

// Update appends a state update u that the recorder took in at time t and that
// arrived at arrival (s), encoding it as the wire does.
func (w *Writer) Update(t, arrival float64, u *wire.Update) error {
	return w.update(KindState, t, arrival, u)
}

// Sent appends a state update u that the recorder's own peer published at time t
// (s). Its State.Time is the publish time on the recorder's clock.
func (w *Writer) Sent(t float64, u *wire.Update) error {
	return w.update(KindSent, t, t, u)
}

func (w *Writer) update(k Kind, t, arrival float64, u *wire.Update) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	var lag [binary.MaxVarintLen64]byte
	nl := 0
	if k == KindState {
		nl = binary.PutUvarint(lag[:], zigzag(micros(t)-micros(arrival)))
	}
	b, mark, ok := w.begin(k, t, nl+wire.BatchHeaderSize+u.Length())
	if !ok {
		return nil
	}
	b = append(b, lag[:nl]...)
	b = append(b, wire.Version, byte(wire.MsgStateBatch))
	out, err := u.Append(b)
	if err != nil {
		w.undo(mark)
		return err
	}
	w.commit(out, t)
	return nil
}

// SentMark appends the mark of an update the recorder's tank actor published at
// time t (s), without the update itself.
func (w *Writer) SentMark(t float64, actor uint32) error {
	if actor > 0xFFFF {
		return fmt.Errorf("record: sent mark of actor %d: %w", actor, wire.ErrOutOfRange)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b, _, ok := w.begin(KindSentMark, t, 2)
	if ok {
		w.commit(binary.BigEndian.AppendUint16(b, uint16(actor)), t)
	}
	return nil
}

// Truth appends a tank's true pose p at p.Time. A pose that is not finite or lies
// off any map is dropped and counted.
func (w *Writer) Truth(p Pose) {
	q, ok := quantize(&p)
	w.mu.Lock()
	defer w.mu.Unlock()
	if !ok || p.Actor > 0xFFFF || w.closed {
		w.stats.Dropped++
		return
	}
	tr := w.tracks[p.Actor]
	if tr == nil {
		tr = &truthTrack{block: -1}
		w.tracks[p.Actor] = tr
	}
	// Seal first, so that the pose lands in the block it is predicted in.
	w.sealIfDue(micros(p.Time))
	var body [3 + 3*binary.MaxVarintLen64 + 12]byte
	var b []byte
	kind := KindTruth
	if tr.block != w.cur.index || tr.n == 0 || p.Break {
		kind = KindTruthKey
		b = appendTruthKey(body[:0], uint16(p.Actor), p.Break, q)
		tr.block, tr.n = w.cur.index, 0
	} else {
		b = appendTruthDelta(body[:0], uint16(p.Actor), residual(q, tr.predict()))
	}
	out, _, ok := w.begin(kind, p.Time, len(b))
	if !ok {
		return
	}
	w.commit(append(out, b...), p.Time)
	tr.push(q)
}

// Frame appends the mark of a step of the recorder's match at time t (s), with the
// clock offset (host clock − recorder's clock, s) in force.
func (w *Writer) Frame(t, clockOffset float64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var body [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(body[:], zigzag(micros(clockOffset)))
	b, _, ok := w.begin(KindFrame, t, n)
	if ok {
		w.commit(append(b, body[:n]...), t)
	}
}

// Join appends a player joining the match at time t: its player id and name.
func (w *Writer) Join(t float64, player uint32, name string) error {
	if player > 0xFFFF {
		return fmt.Errorf("record: join of player %d: %w", player, wire.ErrOutOfRange)
	}
	if err := wire.CheckName(name); err != nil {
		return fmt.Errorf("record: join: %w", err)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	b, _, ok := w.begin(KindJoin, t, 3+len(name))
	if !ok {
		return nil
	}
	b = binary.BigEndian.AppendUint16(b, uint16(player))
	b = append(b, byte(len(name)))
	w.commit(append(b, name...), t)
	return nil
}

// begin starts a record of kind k at time t with a body of n bytes in the open block,
// sealing the block first when it is due, and returns the buffer to append the body
// to and the length to undo to. It reports false (counting the record as dropped)
// once the Writer is closed or has failed. w.mu is held.
func (w *Writer) begin(k Kind, t float64, n int) (b []byte, mark int, ok bool) {
	if w.closed || w.failed.Load() || n > maxBody {
		w.stats.Dropped++
		return nil, 0, false
	}
	us := micros(t)
	w.sealIfDue(us)
	c := w.cur
	if len(c.raw) == 0 {
		c.start, w.last = us, us
	}
	mark = len(c.raw)
	b = append(c.raw, byte(k))
	b = binary.AppendUvarint(b, zigzag(us-w.last))
	b = binary.AppendUvarint(b, uint64(n))
	return b, mark, true
}

// commit ends the record begun in b at time t. w.mu is held.
func (w *Writer) commit(b []byte, t float64) {
	w.stats.RawBytes += uint64(len(b) - len(w.cur.raw))
	w.cur.raw = b
	w.last = micros(t)
	w.stats.Records++
}

// undo drops a record begun at mark. w.mu is held.
func (w *Writer) undo(mark int) {
	w.cur.raw = w.cur.raw[:mark]
	w.stats.Dropped++
}

// sealIfDue seals the open block when a record at us would fall FlushEvery or more
// after its first, or when it is full: a record more could take it past
// MaxBlockSize once stored uncompressed (5 bytes of framing per 64 KiB). w.mu is
// held.
func (w *Writer) sealIfDue(us int64) {
	c := w.cur
	if len(c.raw) > 0 && (us-c.start >= w.flushN || us < c.start-w.flushN || len(c.raw) >= MaxBlockSize-2*maxBody) {
		w.seal()
	}
}

// seal hands the open block to the disk and opens the next. When every spare block
// still waits for the disk, the open block's records are dropped instead: the match
// never waits. w.mu is held.
func (w *Writer) seal() {
	c := w.cur
	if len(c.raw) == 0 {
		return
	}
	select {
	case spare := <-w.free:
		w.full <- c // never blocks: full holds every block there is
		w.cur = spare
	default:
		w.stats.Dropped += uint64(countRecords(c.raw))
		c.raw = c.raw[:0]
	}
	w.next++
	w.cur.index = w.next
	w.cur.raw = w.cur.raw[:0]
}

// countRecords counts the records in a block's raw bytes.
func countRecords(raw []byte) int {
	n := 0
	for off := 0; off < len(raw); n++ {
		_, used, err := splitRecord(raw[off:])
		if err != nil {
			break
		}
		off += used
	}
	return n
}

// Flush seals the open block, so that what was recorded so far reaches the disk
// soon, whatever the time of the next record.
func (w *Writer) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.closed {
		w.seal()
	}
}

// Sync seals the open block and waits until every block sealed so far is written
// (or dropped), and returns the first write error. Unlike Flush it waits for the
// writer's goroutine: it is for a reader of what was written (a Ring), not for the
// match's hot path.
func (w *Writer) Sync() error {
	if !w.sealOpen(false) {
		return w.Err()
	}
	ack := make(chan struct{})
	select {
	case w.sync <- ack:
		<-ack
	case <-w.done:
	}
	return w.Err()
}

// sealOpen seals the open block and, closing, takes no record after it. Once the
// Writer is closed it waits for the writer's goroutine to finish instead, and
// reports false.
func (w *Writer) sealOpen(closing bool) bool {
	w.mu.Lock()
	was := w.closed
	if !was {
		w.seal()
		if closing {
			w.closed = true
			close(w.full)
		}
	}
	w.mu.Unlock()
	if was {
		<-w.done
	}
	return !was
}

// Stats returns the writer's counters.
func (w *Writer) Stats() Stats {
	w.mu.Lock()
	s := w.stats
	w.mu.Unlock()
	s.Blocks, s.Bytes = w.blocks.Load(), w.bytes.Load()
	return s
}

// Err returns the first write error, or nil.
func (w *Writer) Err() error {
	if !w.failed.Load() {
		return nil
	}
	return w.err
}

// Close seals the open block, waits for every block to be written and closes the
// file the Writer created. It returns the first write error. It is safe to call
// more than once.
func (w *Writer) Close() error {
	if !w.sealOpen(true) {
		return w.Err()
	}
	<-w.done
	if w.file != nil {
		err := w.file.Sync()
		if cerr := w.file.Close(); err == nil {
			err = cerr
		}
		if err != nil && !w.failed.Load() {
			w.fail(fmt.Errorf("record: close %s: %w", w.cfg.Name, err))
		}
	}
	return w.Err()
}

// run compresses and writes sealed blocks until Close, and answers Sync once every
// block sealed before it asked is written.
func (w *Writer) run() {
	defer close(w.done)
	var out blockOut
	for {
		select {
		case b, ok := <-w.full:
			if !ok {
				return
			}
			w.write(&out, b)
		case ack := <-w.sync:
			// Sync sealed before it asked: its blocks are in full already.
			for drained := false; !drained; {
				select {
				case b, ok := <-w.full:
					if !ok {
						close(ack)
						return
					}
					w.write(&out, b)
				default:
					drained = true
				}
			}
			close(ack)
		}
	}
}

// blockOut is the writer goroutine's compression state, reused block after block.
type blockOut struct {
	buf bytes.Buffer
	zw  *flate.Writer
}

// write compresses and writes one sealed block, then hands it back to the spares.
func (w *Writer) write(out *blockOut, b *block) {
	if !w.failed.Load() {
		if out.zw == nil {
			out.zw, _ = flate.NewWriter(&out.buf, flate.DefaultCompression) // the level is valid
		}
		frame, err := encodeBlock(&out.buf, out.zw, b)
		if err == nil {
			_, err = w.out.Write(frame)
		}
		if err != nil {
			w.fail(fmt.Errorf("record: write %s: %w", w.cfg.Name, err))
		} else {
			w.blocks.Add(1)
			w.bytes.Add(uint64(len(frame)))
		}
	}
	if w.failed.Load() {
		w.mu.Lock()
		w.stats.Dropped += uint64(countRecords(b.raw))
		w.mu.Unlock()
	}
	b.raw = b.raw[:0]
	w.free <- b
}

// fail records the first write error and reports it once.
func (w *Writer) fail(err error) {
	w.errOnce.Do(func() {
		w.err = err
		w.failed.Store(true)
		if w.cfg.OnError != nil {
			w.cfg.OnError(err)
		}
	})
}

// encodeBlock frames and compresses b into buf and returns the framed block.
func encodeBlock(buf *bytes.Buffer, zw *flate.Writer, b *block) ([]byte, error) {
	buf.Reset()
	var hdr [blockHeaderSize]byte
	buf.Write(hdr[:])
	zw.Reset(buf)
	if _, err := zw.Write(b.raw); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	out := buf.Bytes()
	size := len(out) - blockHeaderSize
	if len(b.raw) > maxRaw(size) {
		// Readers refuse a block that inflates past MaxExpansion: store it.
		buf.Truncate(blockHeaderSize)
		sw, _ := flate.NewWriter(buf, flate.NoCompression) // the level is valid
		if _, err := sw.Write(b.raw); err != nil {
			return nil, err
		}
		if err := sw.Close(); err != nil {
			return nil, err
		}
		out = buf.Bytes()
		size = len(out) - blockHeaderSize
	}
	if size > MaxBlockSize || b.index < 0 {
		return nil, errors.New("block too large")
	}
	copy(out, blockSync[:])
	binary.BigEndian.PutUint32(out[4:], uint32(b.index))
	binary.BigEndian.PutUint64(out[8:], uint64(b.start))
	binary.BigEndian.PutUint32(out[16:], uint32(len(b.raw)))
	binary.BigEndian.PutUint32(out[20:], uint32(size))
	crc := crc32.Checksum(out[4:24], crcTable)
	crc = crc32.Update(crc, crcTable, out[blockHeaderSize:])
	binary.BigEndian.PutUint32(out[24:], crc)
	return out, nil
}

// splitRecord splits the record at the start of raw into its parts, and reports how
// many bytes it takes.
func splitRecord(raw []byte) (r rawRecord, used int, err error) {
	if len(raw) < 1 {
		return r, 0, fmt.Errorf("record kind: %w", io.ErrUnexpectedEOF)
	}
	r.kind = Kind(raw[0])
	off := 1
	dt, n := binary.Uvarint(raw[off:])
	if n <= 0 {
		return r, 0, fmt.Errorf("record time: %w", ErrDamaged)
	}
	off += n
	size, n := binary.Uvarint(raw[off:])
	if n <= 0 || size > maxBody {
		return r, 0, fmt.Errorf("record length: %w", ErrDamaged)
	}
	off += n
	if uint64(len(raw)-off) < size {
		return r, 0, fmt.Errorf("record of %d bytes with %d left: %w", size, len(raw)-off, ErrDamaged)
	}
	r.dt = unzigzag(dt)
	r.body = raw[off : off+int(size)]
	return r, off + int(size), nil
}

// rawRecord is a record split into its parts; body aliases the block.
type rawRecord struct {
	kind Kind
	dt   int64 // µs since the previous record of the block
	body []byte
}
