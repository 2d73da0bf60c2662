package wire

import (
	"math/rand/v2"
	"testing"
)

// benchUpdates returns a full batch's worth of random partial updates.
func benchUpdates() []Update {
	rng := rand.New(rand.NewPCG(7, 8))
	us := make([]Update, 0, 64)
	w := NewBatchWriter(0)
	for i := 0; ; i++ {
		s := randState(rng)
		s.NumArticulations = 0
		u := Update{Actor: ActorID(i + 1), Seq: uint16(i), State: s}
		if w.Add(&u) != nil {
			return us
		}
		us = append(us, u)
	}
}

func BenchmarkBatchEncode(b *testing.B) {
	us := benchUpdates()
	w := NewBatchWriter(0)
	b.ReportAllocs()
	for b.Loop() {
		w.Reset()
		for i := range us {
			if err := w.Add(&us[i]); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(us)), "ns/update")
	b.ReportMetric(float64(w.Len())/float64(len(us)), "bytes/update")
	b.ReportMetric(float64(len(us)), "updates/batch")
}

func BenchmarkBatchDecode(b *testing.B) {
	us := benchUpdates()
	w := NewBatchWriter(0)
	for i := range us {
		_ = w.Add(&us[i])
	}
	dgram := w.Bytes()
	buf := make([]Update, 0, len(us))
	b.ReportAllocs()
	b.SetBytes(int64(len(dgram)))
	for b.Loop() {
		var err error
		if buf, _, err = DecodeBatch(buf[:0], dgram); err != nil || len(buf) != len(us) {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(us)), "ns/update")
}

func BenchmarkFrameSpawn(b *testing.B) {
	m := &Spawn{Actor: 1, Owner: 1, Name: "Ada", State: stateA()}
	buf := make([]byte, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if buf, err = AppendFrame(buf[:0], m); err != nil {
			b.Fatal(err)
		}
	}
}
