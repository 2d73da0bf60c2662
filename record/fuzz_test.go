package record

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"testing"

	"github.com/treadline/treadline/internal/geom"
)

// FuzzReader reads arbitrary bytes as a recording: it never panics, stops with a
// StopError (or a clean end), and everything it returns is finite and re-encodes.
func FuzzReader(f *testing.F) {
	var t testing.T
	b, _ := recordSample(&t, Config{FlushEvery: 0.5})
	f.Add(b)
	f.Add(b[:len(b)/2])
	f.Add(b[:headerFixed+3])
	f.Add([]byte(Magic))
	// Blocks at the size limits: one past MaxExpansion, one at it, one claiming
	// MaxBlockSize raw and stored with a few bytes of it.
	f.Add(bomb(&t, 1))
	if at := atExpansionLimit(&t); at != nil {
		f.Add(at)
	}
	f.Add(appendBlock(header(&t), 0, make([]byte, 64), MaxBlockSize)[:len(header(&t))+blockHeaderSize+64])
	big := appendBlock(header(&t), 0, make([]byte, 64), MaxBlockSize)
	binary.BigEndian.PutUint32(big[len(header(&t))+20:], MaxBlockSize)
	f.Add(big)
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := NewReader(bytes.NewReader(data))
		if err != nil {
			return
		}
		var rec Record
		// Every record takes 3 bytes at least, and a block inflates to at most
		// maxRaw of its stored size.
		limit := (MaxExpansion*len(data) + expansionSlack*(len(data)/blockHeaderSize+1)) / 3
		for n := 0; r.Next(&rec); n++ {
			if n > limit {
				t.Fatalf("%d records from %d bytes, past the expansion bound", n, len(data))
			}
			if math.IsNaN(rec.Time) || math.IsInf(rec.Time, 0) {
				t.Fatalf("record time %v", rec.Time)
			}
			switch rec.Kind {
			case KindMessage:
				if _, err := rec.Message.Append(nil); err != nil {
					t.Fatalf("%v read but does not re-encode: %v", rec.Message.Type(), err)
				}
			case KindTruth, KindTruthKey:
				p := rec.Truth
				if !geom.FiniteVec(p.Position) || !geom.Finite(p.Orientation.W, p.Turret, p.Gun) ||
					math.Abs(p.Orientation.Len()-1) > 1e-9 {
					t.Fatalf("truth %+v", p)
				}
			case KindState, KindSent:
				if !geom.FiniteVec(rec.Update.State.Position) {
					t.Fatalf("state %+v", rec.Update)
				}
			}
		}
		var se *StopError
		if err := r.Err(); err != nil && !errors.As(err, &se) {
			t.Fatalf("error %v is not a StopError", err)
		}
	})
}

// FuzzRoundTrip writes true poses fuzzed from the input and reads them back within
// the recording's quantization.
func FuzzRoundTrip(f *testing.F) {
	f.Add(1.0, 2.0, 3.0, 0.5, 0.1, 1.0/60)
	f.Add(-8000.0, 2000.0, 9e6, -3.0, 7.0, 0.001)
	f.Fuzz(func(t *testing.T, x, y, z, yaw, turret, dt float64) {
		if !geom.Finite(x, y, z, yaw, turret, dt) || dt <= 0 || dt > 10 {
			return
		}
		var buf bytes.Buffer
		w, err := NewWriter(&buf, Meta{}, Config{})
		if err != nil {
			t.Fatal(err)
		}
		var want []Pose
		for i := range 5 {
			p := Pose{Actor: 9, Time: float64(i) * dt, Position: [3]float64{x + float64(i)*x/7, y, z - float64(i)},
				Orientation: geom.YawQuat(yaw * float64(i)), Turret: turret * float64(i)}
			w.Truth(p)
			if _, ok := quantize(&p); ok {
				want = append(want, p)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		recs, err := readAll(t, buf.Bytes())
		if err != nil || len(recs) != len(want) {
			t.Fatalf("read %d of %d poses: %v", len(recs), len(want), err)
		}
		for i, rec := range recs {
			if d := rec.Truth.Position.Sub(want[i].Position); math.Abs(d[0]) > posTol || math.Abs(d[1]) > posTol || math.Abs(d[2]) > posTol {
				t.Fatalf("pose %d at %v, want %v", i, rec.Truth.Position, want[i].Position)
			}
			if d := math.Abs(math.Remainder(rec.Truth.Turret-want[i].Turret, 2*math.Pi)); d > angleTol {
				t.Fatalf("pose %d turret %v, want %v", i, rec.Truth.Turret, want[i].Turret)
			}
		}
	})
}
