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
	return Update{Kind: KindPartial, Actor: actor, Seq: seq, State: partialOf(stateA())}
}

func TestBatchWriterFills(t *testing.T) {
	w := NewBatchWriter(0)
	if w.Limit() != MaxBatchSize {
		t.Fatalf("Limit = %d, want %d", w.Limit(), MaxBatchSize)
	}
	// 2-byte header + one 2-byte section + 37 × 32 = 1188 ≤ 1199; a 38th would need 1220.
	const fit = (MaxBatchSize - BatchHeaderSize - SectionHeaderSize) / PartialUpdateSize
	if fit != 37 {
		t.Fatalf("partial updates per batch = %d, want 37", fit)
	}
	for i := 0; i < fit; i++ {
		u := partial(ActorID(i+1), uint16(i))
		if !w.Fits(&u) {
			t.Fatalf("update %d does not fit at %d bytes", i, w.Len())
		}
		if err := w.Add(&u); err != nil {
			t.Fatalf("Add %d: %v", i, err)
		}
	}
	if w.Len() != 1188 || w.Count() != fit {
		t.Fatalf("Len = %d, Count = %d; want 1188, %d", w.Len(), w.Count(), fit)
	}
	before := bytes.Clone(w.Bytes())
	u := partial(99, 1)
	if w.Fits(&u) {
		t.Errorf("a 38th partial update fits in %d bytes", w.Len())
	}
	if err := w.Add(&u); !errors.Is(err, ErrBatchFull) {
		t.Errorf("Add past limit: %v, want ErrBatchFull", err)
	}
	if !bytes.Equal(w.Bytes(), before) {
		t.Error("failed Add changed the batch")
	}
	// A small articulation update still fits in the remaining 11 bytes? 2 + 9 = 11 ≤ 11.
	a := Update{Kind: KindArticulation, Actor: 5, State: deadreckon.State{}}
	if got := w.Cost(&a); got != SectionHeaderSize+ArticulationUpdateSize(0) {
		t.Errorf("Cost = %d, want %d", got, SectionHeaderSize+ArticulationUpdateSize(0))
	}
	if err := w.Add(&a); err != nil {
		t.Errorf("Add articulation into the last 11 bytes: %v", err)
	}
	if w.Len() != MaxBatchSize {
		t.Errorf("Len = %d, want %d", w.Len(), MaxBatchSize)
	}
	got, rejected, err := DecodeBatch(nil, w.Bytes())
	if err != nil || rejected != 0 || len(got) != fit+1 {
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

func TestBatchWriterSections(t *testing.T) {
	full := Update{Kind: KindFull, Actor: 3, State: stateA()}
	art := Update{Kind: KindArticulation, Actor: 4, State: articulationsOf(stateA())}
	seq := []Update{partial(1, 1), partial(2, 1), full, art, art, partial(5, 1)}
	w := NewBatchWriter(0)
	for i := range seq {
		if err := w.Add(&seq[i]); err != nil {
			t.Fatal(err)
		}
	}
	m := StateBatch{Updates: seq}
	want := BatchHeaderSize + 4*SectionHeaderSize + 3*PartialUpdateSize + FullUpdateSize(2) + 2*ArticulationUpdateSize(2)
	if w.Len() != want || m.Length() != want {
		t.Errorf("Len = %d, StateBatch.Length = %d; want %d", w.Len(), m.Length(), want)
	}
	b, err := m.Append(nil)
	if err != nil || !bytes.Equal(b, w.Bytes()) {
		t.Errorf("StateBatch.Append = % x, %v; want the writer's bytes", b, err)
	}
}

func TestBatchWriterSectionCap(t *testing.T) {
	// More than 255 tiny updates of one kind need a second section.
	w := NewBatchWriter(0)
	u := Update{Kind: KindArticulation, Actor: 1}
	n := 0
	for w.Fits(&u) {
		if err := w.Add(&u); err != nil {
			t.Fatal(err)
		}
		n++
	}
	// 1199 − 2 = 1197 bytes: a 2-byte section of 255 × 9 = 2297 > 1197, so one section.
	if n != (MaxBatchSize-BatchHeaderSize-SectionHeaderSize)/ArticulationUpdateSize(0) {
		t.Errorf("%d articulation updates fit", n)
	}
	m := StateBatch{Updates: make([]Update, 300)}
	for i := range m.Updates {
		m.Updates[i] = Update{Kind: KindArticulation, Actor: ActorID(i + 1)}
	}
	if got, want := m.Length(), BatchHeaderSize+2*SectionHeaderSize+300*ArticulationUpdateSize(0); got != want {
		t.Errorf("Length of 300 updates = %d, want %d (two sections)", got, want)
	}
}

func TestBatchWriterRejectsBadUpdate(t *testing.T) {
	w := NewBatchWriter(0)
	good := partial(1, 1)
	if err := w.Add(&good); err != nil {
		t.Fatal(err)
	}
	before := bytes.Clone(w.Bytes())
	bad := Update{Kind: KindFull, Actor: 2, State: stateA()}
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
	if got := w.Len(); got != BatchHeaderSize+SectionHeaderSize+2*PartialUpdateSize {
		t.Errorf("after a rejected full update, two partials take %d bytes", got)
	}
}

func TestNewBatchWriterLimits(t *testing.T) {
	for _, tc := range []struct{ in, want int }{{-1, MaxBatchSize}, {0, MaxBatchSize}, {5000, MaxBatchSize}, {500, 500}, {10, 36}} {
		if got := NewBatchWriter(tc.in).Limit(); got != tc.want {
			t.Errorf("NewBatchWriter(%d).Limit() = %d, want %d", tc.in, got, tc.want)
		}
	}
}

// TestDecodeBatchKeepsGoodUpdates checks that a bad update is dropped and counted while
// the others are kept, and that a structural fault keeps what came before it.
func TestDecodeBatchKeepsGoodUpdates(t *testing.T) {
	w := NewBatchWriter(0)
	updates := []Update{partial(1, 1), partial(2, 1), {Kind: KindFull, Actor: 3, State: stateA()}, {Kind: KindFull, Actor: 4, State: stateA()}, partial(5, 1)}
	for i := range updates {
		if err := w.Add(&updates[i]); err != nil {
			t.Fatal(err)
		}
	}
	b := bytes.Clone(w.Bytes())
	// Corrupt actor 2's orientation and actor 3's (a full update) to an impossible one.
	breakQuat := func(at int) {
		copy(b[at+UpdateHeaderSize+8:], packBits(t, field{6, 0}, field{2, 3}, field{10, 1022}, field{10, 1022}, field{4, 0}))
	}
	breakQuat(4 + PartialUpdateSize)
	breakQuat(4 + 2*PartialUpdateSize + SectionHeaderSize)
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
	allocs = testing.AllocsPerRun(100, func() {
		w.Reset()
		for i := 0; i < 30; i++ {
			u := partial(ActorID(i+1), 1)
			_ = w.Add(&u)
		}
	})
	if allocs != 0 {
		t.Errorf("BatchWriter allocates %v times per batch", allocs)
	}
}
