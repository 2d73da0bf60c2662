package record

import (
	"io"
	"testing"
	"time"

	"github.com/treadline/treadline/net/wire"
)

// newBenchWriter is a writer to nowhere, for the hot paths' costs.
func newBenchWriter(b *testing.B) *Writer {
	w, err := NewWriter(io.Discard, Meta{}, Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { w.Close() })
	return w
}

// BenchmarkWriterState is a host recording an update it relays: one record per
// accepted update, from the relay loop.
func BenchmarkWriterState(b *testing.B) {
	w := newBenchWriter(b)
	u := wire.Update{Actor: 3, Seq: 1, State: tankState(1)}
	rec, err := u.Append(nil)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		now := float64(i) / 200
		if err := w.State(now, now, rec); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	s := w.Stats()
	b.ReportMetric(float64(s.RawBytes)/float64(s.Records), "raw-B/record")
}

// BenchmarkWriterUpdate is a client recording an update it received.
func BenchmarkWriterUpdate(b *testing.B) {
	w := newBenchWriter(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := float64(i) / 200
		u := wire.Update{Actor: 3, Seq: uint16(i), State: tankState(now)}
		if err := w.Update(now, now-0.1, &u); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkWriterTruth is sixteen tanks' true poses at 60 Hz.
func BenchmarkWriterTruth(b *testing.B) {
	w := newBenchWriter(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.Truth(truePose(uint32(i%16+1), float64(i/16)/60))
	}
	b.StopTimer()
	s := w.Stats()
	b.ReportMetric(float64(s.RawBytes)/float64(s.Records), "raw-B/record")
}

// BenchmarkWriterFrame is the mark of one step.
func BenchmarkWriterFrame(b *testing.B) {
	w := newBenchWriter(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		w.Frame(float64(i)/60, 0.01)
	}
}

// BenchmarkRingTick is a client's tick kept in memory for the kill camera: a frame,
// an update received and its own tank's true pose, into a ring of ten seconds.
func BenchmarkRingTick(b *testing.B) {
	r, err := NewRing(Meta{}, 10*time.Second, Config{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { r.Close() })
	w := r.Writer()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		now := float64(i) / 60
		w.Frame(now, 0)
		u := wire.Update{Actor: 3, Seq: uint16(i), State: tankState(now)}
		_ = w.Update(now, now-0.1, &u)
		w.Truth(truePose(1, now))
	}
}

// BenchmarkReader reads a recording back.
func BenchmarkReader(b *testing.B) {
	var t testing.T
	data, _ := recordSample(&t, Config{})
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := readAll(&t, data); err != nil {
			b.Fatal(err)
		}
	}
}
