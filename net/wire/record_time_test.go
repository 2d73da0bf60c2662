package wire

import (
	"bytes"
	"errors"
	"io"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

func TestSetRecordTime(t *testing.T) {
	u := Update{Actor: 7, Seq: 9, State: deadreckon.NewState(mgl64.Vec3{1, 2, 3})}
	u.State.Time = 12.345
	rec, err := u.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	orig := bytes.Clone(rec)
	if err := SetRecordTime(rec, 12.0); err != nil {
		t.Fatal(err)
	}
	w := NewBatchWriter(0)
	if err := w.AddRecord(rec); err != nil {
		t.Fatal(err)
	}
	r, err := ReadBatch(w.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var got Update
	if !r.Next(&got) {
		t.Fatalf("record did not decode: %v", r.Err())
	}
	if math.Abs(got.State.Time-12.0) > TimeStep/2 || got.Actor != 7 || got.Seq != 9 || got.State.Position != u.State.Position {
		t.Errorf("rewritten record decodes to %+v", got)
	}
	if !bytes.Equal(rec[:4], orig[:4]) || !bytes.Equal(rec[UpdateHeaderSize:], orig[UpdateHeaderSize:]) {
		t.Error("SetRecordTime changed more than the timestamp")
	}
	for _, tc := range []struct {
		rec  []byte
		t    float64
		want error
	}{
		{rec[:7], 1, io.ErrUnexpectedEOF},
		{rec, -1, ErrOutOfRange},
		{rec, math.NaN(), ErrNotFinite},
	} {
		if err := SetRecordTime(tc.rec, tc.t); !errors.Is(err, tc.want) {
			t.Errorf("SetRecordTime(%d bytes, %v) = %v, want %v", len(tc.rec), tc.t, err, tc.want)
		}
	}
}
