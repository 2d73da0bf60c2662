package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

func partial(actor ActorID, seq uint16) Update {
	return Update{Actor: actor, Seq: seq, State: partialOf(stateA())}
}

func TestBatchWriterFills(t *testing.T) {
	w := NewBatchWriter(0)
	// 2-byte header + 36 × 33 = 1190 ≤ 1199; a 37th would need 1223.
	const fit = (MaxBatchSize - BatchHeaderSize) / MinUpdateSize
	if fit != 36 {
		t.Fatalf("updates without articulations per batch = %d, want 36", fit)
	}
	for i := 0; i < fit; i++ {
		u := partial(ActorID(i+1), uint16(i))
		if !w.Fits(u.Length()) {
			t.Fatalf("update %d does not fit at %d bytes", i, w.Len())
		}
		if err := w.Add(&u); err != nil {
			t.Fatalf("Add %d: %v", i, err)
		}
	}
	if w.Len() != 1190 || w.Count() != fit {
		t.Fatalf("Len = %d, Count = %d; want 1190, %d", w.Len(), w.Count(), fit)
	}
	before := bytes.Clone(w.Bytes())
	u := partial(99, 1)
	if w.Fits(u.Length()) {
		t.Errorf("a 37th update fits in %d bytes", w.Len())
	}
	if err := w.Add(&u); !errors.Is(err, ErrBatchFull) {
		t.Errorf("Add past limit: %v, want ErrBatchFull", err)
	}
	if err := w.AddRecord(before[BatchHeaderSize : BatchHeaderSize+MinUpdateSize]); !errors.Is(err, ErrBatchFull) {
		t.Errorf("AddRecord past limit: %v, want ErrBatchFull", err)
	}
	if !bytes.Equal(w.Bytes(), before) {
		t.Error("failed Add changed the batch")
	}
	got, rejected, err := DecodeBatch(nil, w.Bytes())
	if err != nil || rejected != 0 || len(got) != fit {
		t.Fatalf("DecodeBatch: %d updates, %d rejected, %v", len(got), rejected, err)
	}
	for i := 0; i < fit; i++ {
		if got[i].Actor != ActorID(i+1) || got[i].Seq != uint16(i) {
			t.Errorf("update %d: actor %d seq %d", i, got[i].Actor, got[i].Seq)
		}
	}
	w.Reset()
	if w.Len() != BatchHeaderSize || w.Count() != 0 {
		t.Errorf("after Reset: Len %d, Count %d", w.Len(), w.Count())
	}
}

// TestBatchRecordsRelay checks that records read from one batch and added to another
// with AddRecord give the bytes Add gives: a relay encodes nothing.
func TestBatchRecordsRelay(t *testing.T) {
	seq := []Update{partial(1, 1), {Actor: 3, Seq: 2, State: stateA()}, partial(5, 1)}
	w := NewBatchWriter(0)
	for i := range seq {
		if err := w.Add(&seq[i]); err != nil {
			t.Fatal(err)
		}
	}
	m := StateBatch{Updates: seq}
	want := BatchHeaderSize + 2*UpdateSize(0) + UpdateSize(2)
	if w.Len() != want || m.Length() != want {
		t.Errorf("Len = %d, StateBatch.Length = %d; want %d", w.Len(), m.Length(), want)
	}
	b, err := m.Append(nil)
	if err != nil || !bytes.Equal(b, w.Bytes()) {
		t.Errorf("StateBatch.Append = % x, %v; want the writer's bytes", b, err)
	}
	r, err := ReadBatch(b)
	if err != nil {
		t.Fatal(err)
	}
	relay := NewBatchWriter(0)
	var u Update
	for i := 0; r.Next(&u); i++ {
		if u.Actor != seq[i].Actor || len(r.Record()) != seq[i].Length() {
			t.Errorf("record %d: actor %d, %d bytes; want %d, %d", i, u.Actor, len(r.Record()), seq[i].Actor, seq[i].Length())
		}
		if err := relay.AddRecord(r.Record()); err != nil {
			t.Fatal(err)
		}
	}
	if r.Err() != nil || r.Rejected() != 0 || !bytes.Equal(relay.Bytes(), b) {
		t.Errorf("relayed batch % x (%v, %d rejected), want % x", relay.Bytes(), r.Err(), r.Rejected(), b)
	}
	for _, bad := range [][]byte{nil, b[2:10], b[2 : 2+MinUpdateSize+1]} {
		if err := relay.AddRecord(bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("AddRecord(% x): %v, want ErrInvalid", bad, err)
		}
	}
}

func TestBatchWriterRejectsBadUpdate(t *testing.T) {
	w := NewBatchWriter(0)
	good := partial(1, 1)
	if err := w.Add(&good); err != nil {
		t.Fatal(err)
	}
	before := bytes.Clone(w.Bytes())
	bad := Update{Actor: 2, State: stateA()}
	bad.State.Velocity[0] = mgl64.Vec3{}[0] / mgl64.Vec3{}[1] // NaN
	if err := w.Add(&bad); !errors.Is(err, ErrNotFinite) {
		t.Errorf("Add NaN: %v, want ErrNotFinite", err)
	}
	if !bytes.Equal(w.Bytes(), before) || w.Count() != 1 {
		t.Error("failed Add changed the batch")
	}
	if err := w.Add(&good); err != nil {
		t.Fatal(err)
	}
	if got := w.Len(); got != BatchHeaderSize+2*MinUpdateSize {
		t.Errorf("after a rejected update, two updates take %d bytes", got)
	}
}

func TestNewBatchWriterLimits(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{-1, MaxBatchSize}, {0, MaxBatchSize}, {5000, MaxBatchSize}, {500, 500}, {10, 51}} {
		w := NewBatchWriter(tc.in)
		if got := cap(w.buf); got != tc.want || !w.Fits(tc.want-BatchHeaderSize) || w.Fits(tc.want-BatchHeaderSize+1) {
			t.Errorf("NewBatchWriter(%d) holds %d bytes, want %d", tc.in, got, tc.want)
		}
	}
}

// TestDecodeBatchKeepsGoodUpdates checks that a bad update is dropped and counted while
// the others are kept, and that a structural fault keeps what came before it.
func TestDecodeBatchKeepsGoodUpdates(t *testing.T) {
	w := NewBatchWriter(0)
	updates := []Update{partial(1, 1), partial(2, 1), {Actor: 3, State: stateA()}, {Actor: 4, State: stateA()}, partial(5, 1)}
	for i := range updates {
		if err := w.Add(&updates[i]); err != nil {
			t.Fatal(err)
		}
	}
	b := bytes.Clone(w.Bytes())
	// Corrupt actor 2's orientation and actor 3's (with articulations) to an impossible one.
	breakQuat := func(at int) {
		copy(b[at+UpdateHeaderSize+8:], packBits(t, field{6, 0}, field{2, 3}, field{10, 1022}, field{10, 1022}, field{4, 0}))
	}
	breakQuat(BatchHeaderSize + MinUpdateSize)
	breakQuat(BatchHeaderSize + 2*MinUpdateSize)
	got, rejected, err := DecodeBatch(make([]Update, 0, 8), b)
	if err != nil || rejected != 2 {
		t.Fatalf("DecodeBatch: rejected %d, err %v; want 2, nil", rejected, err)
	}
	var actors []ActorID
	for _, u := range got {
		actors = append(actors, u.Actor)
	}
	if len(actors) != 3 || actors[0] != 1 || actors[1] != 4 || actors[2] != 5 {
		t.Errorf("kept actors %v, want [1 4 5]", actors)
	}
	if _, _, err := Parse(b); !errors.Is(err, ErrInvalid) {
		t.Errorf("strict Parse of the same batch: %v, want ErrInvalid", err)
	}

	// Truncated in the last update: the ones before it are kept.
	got, _, err = DecodeBatch(nil, b[:len(b)-1])
	if !errors.Is(err, io.EOF) || len(got) != 2 {
		t.Errorf("truncated: %d updates, %v; want 2 (actors 1, 4), io.EOF", len(got), err)
	}
	// An articulation count past the limit ends the batch: the record's length is
	// unknown.
	c := bytes.Clone(w.Bytes())
	c[BatchHeaderSize+MinUpdateSize-1] = deadreckon.MaxArticulations + 1
	if got, _, err := DecodeBatch(nil, c); !errors.Is(err, ErrOutOfRange) || len(got) != 0 {
		t.Errorf("count past the limit: %d updates, %v; want 0, ErrOutOfRange", len(got), err)
	}
}

func TestDecodeBatchNoAlloc(t *testing.T) {
	w := NewBatchWriter(0)
	for i := 0; i < 30; i++ {
		u := partial(ActorID(i+1), 1)
		_ = w.Add(&u)
	}
	buf := make([]Update, 0, 64)
	allocs := testing.AllocsPerRun(100, func() {
		buf, _, _ = DecodeBatch(buf[:0], w.Bytes())
	})
	if allocs != 0 {
		t.Errorf("DecodeBatch allocates %v times per batch", allocs)
	}
	rec := bytes.Clone(w.Bytes()[BatchHeaderSize : BatchHeaderSize+MinUpdateSize])
	allocs = testing.AllocsPerRun(100, func() {
		w.Reset()
		for i := 0; i < 15; i++ {
			u := partial(ActorID(i+1), 1)
			_ = w.Add(&u)
			_ = w.AddRecord(rec)
		}
	})
	if allocs != 0 {
		t.Errorf("BatchWriter allocates %v times per batch", allocs)
	}
}
