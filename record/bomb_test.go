package record

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"os"
	"strings"
	"testing"
)

// header returns the header of an empty recording.
func header(t testing.TB) []byte {
	t.Helper()
	var out bytes.Buffer
	w, err := NewWriter(&out, Meta{}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

// appendBlock appends block index holding stored, claiming rawLen raw bytes, with a
// good checksum.
func appendBlock(b []byte, index int, stored []byte, rawLen int) []byte {
	var hdr [blockHeaderSize]byte
	copy(hdr[:], blockSync[:])
	binary.BigEndian.PutUint32(hdr[4:], uint32(index))
	binary.BigEndian.PutUint32(hdr[16:], uint32(rawLen))
	binary.BigEndian.PutUint32(hdr[20:], uint32(len(stored)))
	crc := crc32.Update(crc32.Checksum(hdr[4:24], crcTable), crcTable, stored)
	binary.BigEndian.PutUint32(hdr[24:], crc)
	return append(append(b, hdr[:]...), stored...)
}

// frames returns n frame records of 4 bytes and their deflated form.
func frames(n int) (raw, stored []byte) {
	raw = bytes.Repeat([]byte{byte(KindFrame), 0, 1, 0}, n)
	var z bytes.Buffer
	zw, _ := flate.NewWriter(&z, flate.BestCompression)
	zw.Write(raw)
	zw.Close()
	return raw, z.Bytes()
}

// bomb returns a recording of n valid blocks, each at MaxBlockSize raw: frame
// records of 4 bytes, which deflate packs about a thousand to one, after the
// writer's header, so that the file is a recording in every other respect.
func bomb(t testing.TB, n int) []byte {
	t.Helper()
	out := header(t)
	raw, stored := frames(MaxBlockSize / 4)
	for i := range n {
		out = appendBlock(out, i, stored, len(raw))
	}
	return out
}

// atExpansionLimit returns a recording of one valid block of frames whose raw size
// is exactly maxRaw of its stored size, or nil if none was found.
func atExpansionLimit(t testing.TB) []byte {
	n := expansionSlack / 4
	for range 32 {
		raw, stored := frames(n)
		if len(raw) == maxRaw(len(stored)) {
			return appendBlock(header(t), 0, stored, len(raw))
		}
		n = maxRaw(len(stored)) / 4
	}
	return nil
}

// TestBombRefused: a block that claims to expand past MaxExpansion times its stored
// size stops the reader at that block, before it is inflated, with an error that
// names the block and the sizes.
func TestBombRefused(t *testing.T) {
	data := bomb(t, 40)
	if path := os.Getenv("TREADLINE_BOMB"); path != "" { // the file for measuring loaders
		os.WriteFile(path, data, 0o644)
	}
	r, err := NewReader(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	n := 0
	for r.Next(&rec) {
		n++
	}
	t.Logf("%d bytes of file, %d records read: %v", len(data), n, r.Err())
	var se *StopError
	if !errors.As(r.Err(), &se) || se.Block != 0 || !errors.Is(se, ErrDamaged) || n != 0 {
		t.Fatalf("read %d records of a %d-byte bomb, stopped by %v; want none, stopped at block 0", n, len(data), r.Err())
	}
	if msg := se.Error(); !strings.Contains(msg, "block 0") || !strings.Contains(msg, "expand") {
		t.Errorf("error %q does not name the block and its expansion", msg)
	}
}

// TestWriterStaysWithinExpansion: a block the writer compresses past MaxExpansion
// is stored instead, so whatever the writer writes reads back.
func TestWriterStaysWithinExpansion(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewWriter(&buf, Meta{}, Config{FlushEvery: 1e6})
	if err != nil {
		t.Fatal(err)
	}
	// Every frame alike, a long quiet stretch: each record here is 4 bytes (kind, a
	// time step of 1 µs, length, an offset of zero), so these fill one block to its
	// limit (sealed full, then stored at nearly MaxBlockSize) and start a second,
	// sealed by Close. A second full block would be the first again.
	const frames = (MaxBlockSize + MaxBlockSize/8) / 4
	for i := range frames {
		w.Frame(float64(i)*1e-6, 0)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if s := w.Stats(); s.Blocks != 2 || s.RawBytes != 4*frames {
		t.Fatalf("%d blocks of %d raw bytes written, want 2 blocks of %d", s.Blocks, s.RawBytes, 4*frames)
	}
	r, err := NewReader(bytes.NewReader(buf.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	n := 0
	for r.Next(&rec) {
		n++
	}
	if n != frames || r.Err() != nil {
		t.Fatalf("read %d of %d frames from %d bytes: %v", n, frames, buf.Len(), r.Err())
	}
}
