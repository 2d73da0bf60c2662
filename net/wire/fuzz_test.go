package wire

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// checkState verifies that a decoded state is finite and inside the documented ranges.
func checkState(s deadreckon.State) error {
	ok := geom.Finite(s.Time) && s.Time >= 0 && s.Time < TimeWrap &&
		geom.FiniteVec(s.Position) && math.Abs(s.Position[0]) <= MaxHorizontal && math.Abs(s.Position[2]) <= MaxHorizontal &&
		math.Abs(s.Position[1]) <= MaxHeight &&
		geom.FiniteVec(s.Velocity) && geom.FiniteVec(s.Acceleration) && geom.FiniteVec(s.AngularVelocity) &&
		math.Abs(s.Orientation.Len()-1) < 1e-9 &&
		s.NumArticulations >= 0 && s.NumArticulations <= deadreckon.MaxArticulations
	for i := 0; i < 3; i++ {
		ok = ok && math.Abs(s.Velocity[i]) <= 32 && math.Abs(s.Acceleration[i]) <= 32 && math.Abs(s.AngularVelocity[i]) <= 4
	}
	for i := 0; i < s.NumArticulations; i++ {
		a := s.Articulations[i]
		ok = ok && a.Angle >= -math.Pi && a.Angle < math.Pi && math.Abs(a.Rate) <= 32
	}
	if !ok {
		return fmt.Errorf("decoded state out of range: %+v", s)
	}
	return nil
}

// sameAfterReencode compares a message with its re-encoded and re-parsed self: states
// within quantization (orientation may move by twice the bound when re-encoding picks
// another largest component), everything else exactly.
func sameAfterReencode(a, b Message) error {
	cmp := func(x, y deadreckon.State) error {
		if rotationAngle(x.Orientation, y.Orientation) > 2*MaxOrientationError {
			return fmt.Errorf("orientation %v became %v", x.Orientation, y.Orientation)
		}
		x.Orientation = y.Orientation
		return sameState(x, y, 1e-9)
	}
	switch x := a.(type) {
	case *Spawn:
		y := b.(*Spawn)
		if x.Actor != y.Actor || x.Owner != y.Owner || x.Team != y.Team || x.Name != y.Name || x.Seq != y.Seq {
			return fmt.Errorf("spawn %+v became %+v", x, y)
		}
		return cmp(x.State, y.State)
	case *StateBatch:
		y := b.(*StateBatch)
		if len(x.Updates) != len(y.Updates) {
			return fmt.Errorf("%d updates became %d", len(x.Updates), len(y.Updates))
		}
		for i := range x.Updates {
			u, v := x.Updates[i], y.Updates[i]
			if u.Actor != v.Actor || u.Seq != v.Seq {
				return fmt.Errorf("update %d header changed", i)
			}
			if err := cmp(u.State, v.State); err != nil {
				return err
			}
		}
		return nil
	}
	return sameMessage(a, b)
}

// FuzzDecode feeds arbitrary bytes to Parse and DecodeBatch. Neither may panic; what
// they accept must be in range, re-encode without error to Length() bytes, and parse
// back to the same message.
func FuzzDecode(f *testing.F) {
	t := &testing.T{}
	for _, tc := range knownMessages(t) {
		f.Add(tc.want)
	}
	f.Add([]byte{Version, byte(MsgStateBatch), 0, 1})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		in := bytes.Clone(b)
		if len(b) >= HeaderSize && MsgType(b[1]) == MsgStateBatch {
			us, rejected, err := DecodeBatch(nil, b)
			if rejected < 0 || (err == nil && len(us)+rejected == 0) {
				t.Fatalf("DecodeBatch: %d updates, %d rejected, %v", len(us), rejected, err)
			}
			for _, u := range us {
				if err := checkState(u.State); err != nil {
					t.Fatal(err)
				}
			}
		}
		m, n, err := Parse(b)
		if !bytes.Equal(b, in) {
			t.Fatal("Parse modified its input")
		}
		if err != nil {
			if m != nil || n != 0 {
				t.Fatalf("failed Parse returned %v, %d", m, n)
			}
			return
		}
		if n <= 0 || n > len(b) {
			t.Fatalf("Parse used %d of %d bytes", n, len(b))
		}
		switch x := m.(type) {
		case *Spawn:
			if err := checkState(x.State); err != nil {
				t.Fatal(err)
			}
		case *StateBatch:
			for _, u := range x.Updates {
				if err := checkState(u.State); err != nil {
					t.Fatal(err)
				}
			}
		}
		b2, err := m.Append(nil)
		if err != nil {
			t.Fatalf("re-encoding %+v: %v", m, err)
		}
		if len(b2) != m.Length() {
			t.Fatalf("Append wrote %d bytes, Length says %d", len(b2), m.Length())
		}
		m2, n2, err := Parse(b2)
		if err != nil || n2 != len(b2) {
			t.Fatalf("re-parsing % x: %d, %v", b2, n2, err)
		}
		if err := sameAfterReencode(m, m2); err != nil {
			t.Fatal(err)
		}
		switch m.(type) {
		case *Spawn, *StateBatch:
		default:
			if !bytes.Equal(b2, b[:n]) {
				t.Fatalf("re-encoded % x, parsed % x", b2, b[:n])
			}
		}
	})
}

// FuzzFrameReader feeds arbitrary streams to FrameReader as the host and client
// read them: it must never panic, a bad message in a whole frame must leave the
// stream readable, and reading must stop with an error or io.EOF.
func FuzzFrameReader(f *testing.F) {
	var stream []byte
	for _, tc := range knownMessages(&testing.T{}) {
		stream, _ = AppendFrame(stream, tc.msg)
	}
	f.Add(stream)
	f.Add([]byte{0xff, 0xff})
	f.Fuzz(func(t *testing.T, b []byte) {
		r := NewFrameReader(bytes.NewReader(b))
		for i := 0; ; i++ {
			m, err := r.Next()
			if err != nil && m != nil {
				t.Fatalf("Next returned %v with error %v", m, err)
			}
			if errors.Is(err, ErrBadMessage) {
				continue
			}
			if err != nil {
				return
			}
			if i > len(b)/3 {
				t.Fatalf("%d messages from %d bytes", i+1, len(b))
			}
		}
	})
}
