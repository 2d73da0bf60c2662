package record

import (
	"bufio"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/treadline/treadline/net/wire"
)

// Ring defaults.
const (
	// DefaultRingFlush is the recording time one block of a Ring holds, s: finer
	// than a file's, so that the ring keeps little more than its span.
	DefaultRingFlush = 0.25
	// maxRingBlocks bounds the blocks a Ring keeps, whatever their times say.
	maxRingBlocks = 256
)

// Ring is a recording kept in memory, of which only the last seconds are kept: the
// blocks of its Writer covering the last Span seconds, and, to open them, the spawn
// of every tank still in the match before the first of them (with its last received
// state), so that what a Ring holds plays alone. The kill camera replays it. Its
// memory is bounded by the span: each block's buffer is reused for a later block,
// and appending a record costs what a file's Writer costs, no allocation.
//
// A Ring is safe for concurrent use: its Writer's records come from the match, its
// blocks arrive on the Writer's goroutine, and Reader is called from anywhere.
type Ring struct {
	w    *Writer
	span int64 // µs

	mu     sync.Mutex
	header []byte
	slots  []ringBlock // a circle: the oldest at head
	head   int
	n      int
	// roster holds the tanks in the match before the oldest block kept: each one's
	// spawn, its State the last received.
	roster map[wire.ActorID]*wire.Spawn
	fold   *Reader      // decodes the blocks that leave the ring into the roster
	src    bytes.Reader // fold's source, reused
	err    error        // the first block that did not read
}

// ringBlock is one framed block a Ring keeps.
type ringBlock struct {
	index int
	start int64 // µs
	frame []byte
}

// NewRing returns a ring keeping the last span of a recording with meta's header.
// cfg tunes its Writer; FlushEvery defaults to DefaultRingFlush.
func NewRing(meta Meta, span time.Duration, cfg Config) (*Ring, error) {
	if span <= 0 {
		return nil, fmt.Errorf("record: ring of %v: want a positive span", span)
	}
	if !(cfg.FlushEvery > 0) {
		cfg.FlushEvery = DefaultRingFlush
	}
	if cfg.Name == "" {
		cfg.Name = "memory"
	}
	r := &Ring{span: micros(span.Seconds()), roster: make(map[wire.ActorID]*wire.Spawn),
		fold: &Reader{tracks: make(map[uint16]*truthTrack)}}
	// A block is about FlushEvery long; a few more absorb early seals (Sync).
	r.slots = make([]ringBlock, min(maxRingBlocks, int(span.Seconds()/cfg.FlushEvery)+4))
	w, err := NewWriter(ringOut{r}, meta, cfg)
	if err != nil {
		return nil, err
	}
	r.w = w
	return r, nil
}

// Writer returns the ring's Writer, to record into (a Sink, a tap).
func (r *Ring) Writer() *Writer { return r.w }

// Close closes the ring's Writer. What the ring holds stays readable.
func (r *Ring) Close() error { return r.w.Close() }

// ringOut is the io.Writer a Ring's Writer writes to: the header, then one framed
// block per Write.
type ringOut struct{ r *Ring }

func (o ringOut) Write(p []byte) (int, error) {
	r := o.r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.header == nil {
		r.header = slices.Clone(p)
		return len(p), nil
	}
	if len(p) < blockHeaderSize || !bytes.Equal(p[:4], blockSync[:]) {
		return 0, fmt.Errorf("record: ring: a write of %d bytes is not one block", len(p))
	}
	start := int64(binary.BigEndian.Uint64(p[8:]))
	// The oldest block goes once the next one alone reaches back the span.
	for r.n == len(r.slots) || (r.n >= 2 && r.at(1).start <= start-r.span) {
		r.evict()
	}
	s := r.at(r.n)
	s.index, s.start = int(binary.BigEndian.Uint32(p[4:])), start
	s.frame = append(s.frame[:0], p...)
	r.n++
	return len(p), nil
}

// at returns the i-th block kept, oldest first. r.mu is held.
func (r *Ring) at(i int) *ringBlock { return &r.slots[(r.head+i)%len(r.slots)] }

// evict drops the oldest block kept, folding its spawns, despawns and received
// states into the roster. r.mu is held.
func (r *Ring) evict() {
	s := r.at(0)
	r.foldBlock(s.frame)
	r.head = (r.head + 1) % len(r.slots)
	r.n--
}

// foldBlock reads one framed block into the roster. A block that does not read
// (which the Writer never makes) is kept as the ring's error.
func (r *Ring) foldBlock(frame []byte) {
	f := r.fold
	r.src.Reset(frame)
	f.restart(&r.src)
	var rec Record
	for f.Next(&rec) {
		switch rec.Kind {
		case KindMessage:
			switch m := rec.Message.(type) {
			case *wire.Spawn:
				sp := *m
				r.roster[m.Actor] = &sp
			case *wire.Despawn:
				delete(r.roster, m.Actor)
			}
		case KindState:
			if sp := r.roster[rec.Update.Actor]; sp != nil {
				sp.State = rec.Update.State
			}
		}
	}
	if err := f.Err(); err != nil && r.err == nil {
		r.err = err
	}
}

// Reader seals what the Writer holds, waits for it to reach the ring, and returns a
// reader of everything the ring keeps: a block of the roster's spawns at the time of
// the oldest block kept, then the blocks. Each call reads a copy; recording goes on.
func (r *Ring) Reader() (*Reader, error) {
	if err := r.w.Sync(); err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.header == nil {
		return nil, fmt.Errorf("record: ring: %w", ErrNotRecording)
	}
	var buf bytes.Buffer
	buf.Write(r.header)
	if r.n > 0 && len(r.roster) > 0 && r.at(0).index > 0 {
		if err := r.appendRoster(&buf, r.at(0).start); err != nil {
			return nil, err
		}
	}
	for i := range r.n {
		buf.Write(r.at(i).frame)
	}
	return NewReader(bytes.NewReader(buf.Bytes()))
}

// Span returns the recording time the ring covers now, s: from its oldest record
// kept to its newest block's start (0 when it holds none).
func (r *Ring) Span() float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.n == 0 {
		return 0
	}
	return float64(r.at(r.n-1).start-r.at(0).start) * timeUnit
}

// Blocks returns how many blocks the ring keeps now.
func (r *Ring) Blocks() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

// appendRoster appends block 0: a spawn record per tank of the roster at time us,
// in actor order. r.mu is held.
func (r *Ring) appendRoster(buf *bytes.Buffer, us int64) error {
	ids := make([]wire.ActorID, 0, len(r.roster))
	for id := range r.roster {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	b := &block{index: 0, start: us}
	for _, id := range ids {
		sp := r.roster[id]
		b.raw = append(b.raw, byte(KindMessage))
		b.raw = binary.AppendUvarint(b.raw, 0) // every spawn at the block's start
		b.raw = binary.AppendUvarint(b.raw, uint64(sp.Length()))
		var err error
		if b.raw, err = sp.Append(b.raw); err != nil {
			return fmt.Errorf("record: ring: spawn of actor %d: %w", id, err)
		}
	}
	var out bytes.Buffer
	zw, _ := flate.NewWriter(&out, flate.DefaultCompression) // the level is valid
	frame, err := encodeBlock(&out, zw, b)
	if err != nil {
		return fmt.Errorf("record: ring: %w", err)
	}
	buf.Write(frame)
	return nil
}

// restart makes r read the blocks on src (no header) from their start, reusing its
// buffers.
func (r *Reader) restart(src io.Reader) {
	if r.in == nil {
		r.in = bufio.NewReaderSize(src, 64<<10)
	} else {
		r.in.Reset(src)
	}
	r.off, r.block, r.bstart, r.seen, r.prev = 0, 0, 0, false, 0
	r.raw, r.pos, r.us, r.last = r.raw[:0], 0, 0, 0
	r.err, r.done = nil, false
}
