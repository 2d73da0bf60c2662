package record

import (
	"math"
	"testing"
	"time"

	"github.com/treadline/treadline/net/wire"
)

// ringMatch records ten seconds at 60 Hz into a ring of span seconds: a frame and
// an update of tank 1 every tick; tank 1 spawns at 0.1 s, tank 2 at 0.2 s and goes
// at 1 s, tank 3 spawns at 8 s. Tank 1's state says the time in its x.
func ringMatch(t *testing.T, span time.Duration) *Ring {
	t.Helper()
	r, err := NewRing(Meta{Perspective: Client, Map: "test"}, span, Config{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	w := r.Writer()
	spawn := func(at float64, id wire.ActorID, name string) {
		s := tankState(at)
		if err := w.Message(at, &wire.Spawn{Actor: id, Owner: uint8ToPlayer(id), Name: name, State: s}); err != nil {
			t.Fatal(err)
		}
	}
	for tick := 1; tick <= 600; tick++ {
		now := float64(tick) / 60
		w.Frame(now, 0.5)
		switch tick {
		case 6:
			spawn(now, 1, "ann")
		case 12:
			spawn(now, 2, "bob")
		case 60:
			if err := w.Message(now, &wire.Despawn{Actor: 2, Reason: wire.DespawnDestroyed}); err != nil {
				t.Fatal(err)
			}
		case 480:
			spawn(now, 3, "cat")
		}
		if tick > 6 {
			s := tankState(now)
			s.Position[0] = now
			if err := w.Update(now, now-0.1, &wire.Update{Actor: 1, Seq: uint16(tick), State: s}); err != nil {
				t.Fatal(err)
			}
		}
		if tick%60 == 0 {
			// A match takes a second a second: its writer keeps up. This one is
			// written at once, so let the writer catch up each second.
			if err := w.Sync(); err != nil {
				t.Fatal(err)
			}
		}
	}
	return r
}

func uint8ToPlayer(id wire.ActorID) wire.PlayerID { return wire.PlayerID(id) + 1 }

// TestRingKeepsTheLastSeconds checks that a ring holds the last span of the match,
// and no more than a block beyond it, opened by the spawns of the tanks still there
// before it, and that what it holds reads to the last record.
func TestRingKeepsTheLastSeconds(t *testing.T) {
	const span, end = 2.0, 10.0
	r := ringMatch(t, 2*time.Second)
	rd, err := r.Reader()
	if err != nil {
		t.Fatal(err)
	}
	first, last, roster, spawnedIn := readRing(t, rd)
	if math.Abs(last-end) > timeTol {
		t.Errorf("the ring reads to %.6f s, want the last record's %.6f s", last, end)
	}
	// It reaches back the span, and at most a block further.
	if first > end-span+timeTol || first < end-span-DefaultRingFlush-2.0/60 {
		t.Errorf("the ring starts at %.3f s: want %.3f s to %.3f s", first, end-span-DefaultRingFlush, end-span)
	}
	if got := r.Blocks(); got > len(r.slots) || got > int(span/DefaultRingFlush)+2 {
		t.Errorf("the ring keeps %d blocks for %.1f s of %.2f s blocks", got, span, DefaultRingFlush)
	}
	// Tank 1 is opened by a spawn where its last update before the ring put it; tank 2
	// left long before; tank 3 spawned inside the ring.
	a, ok := roster[1]
	switch {
	case !ok:
		t.Errorf("no spawn opens tank 1 (roster %v)", roster)
	case a.Name != "ann" || a.Owner != 2:
		t.Errorf("tank 1 opens as %q of player %d, want ann of player 2", a.Name, a.Owner)
	case a.State.Position[0] > first+posTol || a.State.Position[0] < first-DefaultRingFlush-2.0/60:
		t.Errorf("tank 1 opens at x %.3f, its last update before the ring's %.3f s", a.State.Position[0], first)
	}
	if _, ok := roster[2]; ok {
		t.Error("tank 2, gone at 1 s, opens the ring")
	}
	if _, ok := roster[3]; ok || !spawnedIn[3] {
		t.Errorf("tank 3 spawns in the roster (%v) or not inside the ring (%v)", ok, spawnedIn[3])
	}
}

// readRing reads a ring's records: the first and last times, the spawns that open it
// (at the first time) and the tanks spawned later.
func readRing(t *testing.T, rd *Reader) (first, last float64, roster map[wire.ActorID]wire.Spawn, spawnedIn map[wire.ActorID]bool) {
	t.Helper()
	first, last = math.Inf(1), math.Inf(-1)
	roster, spawnedIn = map[wire.ActorID]wire.Spawn{}, map[wire.ActorID]bool{}
	var rec Record
	for rd.Next(&rec) {
		if m, ok := rec.Message.(*wire.Spawn); ok && rec.Kind == KindMessage {
			if math.IsInf(first, 1) || rec.Time == first {
				roster[m.Actor] = *m
			} else {
				spawnedIn[m.Actor] = true
			}
		}
		first, last = math.Min(first, rec.Time), math.Max(last, rec.Time)
	}
	if err := rd.Err(); err != nil {
		t.Fatal(err)
	}
	return first, last, roster, spawnedIn
}

// TestRingBeforeItFills reads a ring younger than its span: the whole match, no
// roster.
func TestRingBeforeItFills(t *testing.T) {
	r := ringMatch(t, 30*time.Second)
	rd, err := r.Reader()
	if err != nil {
		t.Fatal(err)
	}
	var rec Record
	if !rd.Next(&rec) || rec.Kind != KindFrame || math.Abs(rec.Time-1.0/60) > timeTol {
		t.Fatalf("the ring starts with %v at %.6f s, want the first frame at %.6f s", rec.Kind, rec.Time, 1.0/60)
	}
	if got := r.Span(); got < 9.5 || got > 10 {
		t.Errorf("the ring spans %.3f s of a 10 s match", got)
	}
}

// TestRingReadTwice reads the ring, records on, and reads again: each read is a copy
// and recording goes on.
func TestRingReadTwice(t *testing.T) {
	r := ringMatch(t, 2*time.Second)
	if _, err := r.Reader(); err != nil {
		t.Fatal(err)
	}
	w := r.Writer()
	w.Frame(10.5, 0.5)
	rd, err := r.Reader()
	if err != nil {
		t.Fatal(err)
	}
	last := 0.0
	var rec Record
	for rd.Next(&rec) {
		last = rec.Time
	}
	if rd.Err() != nil || math.Abs(last-10.5) > timeTol {
		t.Errorf("the second read ends at %.6f s (%v), want 10.5 s", last, rd.Err())
	}
}

// TestRingRefusesNonsense checks a ring without a span, and what a ring does with a
// write that is not a block.
func TestRingRefusesNonsense(t *testing.T) {
	if _, err := NewRing(Meta{}, 0, Config{}); err == nil {
		t.Error("a ring of no span was made")
	}
	r := ringMatch(t, time.Second)
	if _, err := (ringOut{r}).Write([]byte("not a block at all, no sync here!")); err == nil {
		t.Error("the ring took a write that is not a block")
	}
}

// TestRingAppendsWithoutAllocating records a tick (a frame, an update, a true pose)
// into a ring that keeps turning: no allocation per tick once its buffers have grown.
func TestRingAppendsWithoutAllocating(t *testing.T) {
	r, err := NewRing(Meta{}, time.Second, Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w := r.Writer()
	tick := 0
	step := func() {
		tick++
		now := float64(tick) / 60
		w.Frame(now, 0)
		u := wire.Update{Actor: 1, Seq: uint16(tick), State: tankState(now)}
		_ = w.Update(now, now, &u)
		w.Truth(truePose(1, now))
	}
	for range 600 { // ten seconds: every block buffer has grown
		step()
	}
	if err := w.Sync(); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(600, step); n > 0.05 {
		t.Errorf("%.2f allocations per tick", n)
	}
}
