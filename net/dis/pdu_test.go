package dis

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"math"
	"reflect"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// sampleEntityState is a tank with a turret and a gun.
func sampleEntityState(v uint8) *EntityState {
	return &EntityState{
		Version: v, Exercise: 3, Timestamp: Timestamp(12.5, true),
		ID: EntityID{Site: 7, Application: 9, Entity: 42}, Force: 1,
		EntityType: TankType, AltType: TankType,
		Velocity:    mgl64.Vec3{1.5, -2, 0.25},
		Location:    GeodeticToECEF(DefaultOrigin),
		Orientation: Euler{Psi: 0.5, Theta: -0.25, Phi: 0.125},
		DeadReckoning: DeadReckoning{Algorithm: 4, Acceleration: mgl64.Vec3{0.5, 0, -1},
			AngularVelocity: mgl64.Vec3{0, 0, 0.75}},
		MarkingCharset: 1, Marking: "ace",
		Articulations: []Articulation{
			{Parameter: ParamTurretAzimuth, Value: 0.5},
			{Parameter: ParamGunElevation, Value: -0.125, Change: 2},
		},
	}
}

func TestEntityStateBytes(t *testing.T) {
	p := sampleEntityState(Version7)
	p.Articulations = nil
	b, err := p.Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != EntityStateSize || len(b) != p.Length() {
		t.Fatalf("len %d, Length %d, want 144", len(b), p.Length())
	}
	// Fields at their offsets, big-endian.
	if b[0] != 7 || b[1] != 3 || b[2] != 1 || b[3] != 1 || binary.BigEndian.Uint16(b[8:]) != 144 {
		t.Errorf("header % x", b[:12])
	}
	if !bytes.Equal(b[12:20], []byte{0, 7, 0, 9, 0, 42, 1, 0}) {
		t.Errorf("entity id, force, articulations % x", b[12:20])
	}
	if !bytes.Equal(b[20:28], []byte{1, 1, 0, 0, 1, 0, 0, 0}) {
		t.Errorf("entity type % x", b[20:28])
	}
	if x := math.Float64frombits(binary.BigEndian.Uint64(b[48:])); x != p.Location[0] {
		t.Errorf("location x %g, want %g", x, p.Location[0])
	}
	if b[88] != 4 || string(b[129:132]) != "ace" || b[128] != 1 || b[132] != 0 {
		t.Errorf("dead reckoning %d, marking % x", b[88], b[128:140])
	}
}

func TestPDURoundTrip(t *testing.T) {
	for _, p := range []PDU{
		sampleEntityState(Version6), sampleEntityState(Version7),
		&EntityState{Version: Version6},
		&RemoveEntity{Version: Version7, Exercise: 1, Originator: EntityID{1, 2, 0}, Receiver: EntityID{1, 2, 3}, Request: 9},
	} {
		b, err := p.Append([]byte{0xee})
		if err != nil {
			t.Fatal(err)
		}
		b = b[1:]
		if len(b) != p.Length() {
			t.Errorf("%v: %d bytes, Length %d", p.Type(), len(b), p.Length())
		}
		q, n, err := Parse(b)
		if err != nil || n != len(b) {
			t.Fatalf("%v: Parse = %d, %v", p.Type(), n, err)
		}
		if !reflect.DeepEqual(p, q) {
			t.Errorf("%v: parsed %+v, want %+v", p.Type(), q, p)
		}
		for i := 0; i < len(b); i++ {
			if _, _, err := Parse(b[:i]); err != io.EOF {
				t.Errorf("%v: prefix of %d bytes: %v, want io.EOF", p.Type(), i, err)
			}
		}
		// The parsed PDU does not alias b.
		for i := range b {
			b[i] = 0xff
		}
		if !reflect.DeepEqual(p, q) {
			t.Errorf("%v: parsed PDU changed with its buffer", p.Type())
		}
	}
}

func TestParseRefuses(t *testing.T) {
	good, _ := sampleEntityState(Version7).Append(nil)
	mod := func(f func(b []byte)) []byte {
		b := append([]byte(nil), good...)
		f(b)
		return b
	}
	nan32 := math.Float32bits(float32(math.NaN()))
	for _, c := range []struct {
		name string
		b    []byte
		want error
	}{
		{"short length", mod(func(b []byte) { binary.BigEndian.PutUint16(b[8:], 144) }), ErrLength},
		{"long length", mod(func(b []byte) { binary.BigEndian.PutUint16(b[8:], 400) }), ErrLength},
		{"articulation count lies", mod(func(b []byte) { b[19] = 3 }), ErrLength},
		{"unknown type", mod(func(b []byte) { b[2] = 2 }), ErrUnknownType},
		{"wrong family", mod(func(b []byte) { b[3] = 2 }), ErrUnknownType},
		{"version 5", mod(func(b []byte) { b[0] = 5 }), ErrVersion},
		{"NaN velocity", mod(func(b []byte) { binary.BigEndian.PutUint32(b[36:], nan32) }), ErrInvalid},
		{"NaN location", mod(func(b []byte) { binary.BigEndian.PutUint64(b[56:], math.Float64bits(math.NaN())) }), ErrInvalid},
		{"far location", mod(func(b []byte) { binary.BigEndian.PutUint64(b[48:], math.Float64bits(1e12)) }), ErrInvalid},
		{"infinite psi", mod(func(b []byte) { binary.BigEndian.PutUint32(b[72:], math.Float32bits(float32(math.Inf(1)))) }), ErrInvalid},
		{"absurd spin", mod(func(b []byte) { binary.BigEndian.PutUint32(b[116:], math.Float32bits(1e9)) }), ErrInvalid},
		{"NaN articulation", mod(func(b []byte) { binary.BigEndian.PutUint32(b[152:], nan32) }), ErrInvalid},
	} {
		if _, _, err := Parse(c.b); !errors.Is(err, c.want) {
			t.Errorf("%s: %v, want %v", c.name, err, c.want)
		} else if Reason(err) == "other" {
			t.Errorf("%s: reason %q", c.name, Reason(err))
		}
	}
	if _, err := (&EntityState{Version: 7, Location: mgl64.Vec3{math.NaN()}}).Append(nil); !errors.Is(err, ErrInvalid) {
		t.Errorf("Append of a NaN location: %v", err)
	}
	if Reason(io.EOF) != "truncated" {
		t.Error("io.EOF is not a truncation")
	}
}

func TestMarkingCut(t *testing.T) {
	p := &EntityState{Version: Version7, Marking: "a-much-too-long-name"}
	b, _ := p.Append(nil)
	q, _, err := Parse(b)
	if err != nil || q.(*EntityState).Marking != "a-much-too-" {
		t.Errorf("marking %q, %v", q.(*EntityState).Marking, err)
	}
}

func TestTimestamp(t *testing.T) {
	for _, s := range []float64{0, 1, 1799.999, 3599.5} {
		got, abs := TimestampSeconds(Timestamp(s+7200, true))
		if math.Abs(got-s) > 2e-6 || !abs {
			t.Errorf("timestamp of %g s: %g, absolute %v", s, got, abs)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, p := range []PDU{sampleEntityState(Version6), sampleEntityState(Version7),
		&RemoveEntity{Version: Version6, Receiver: EntityID{1, 2, 3}}} {
		b, err := p.Append(nil)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, n, err := Parse(b)
		if err != nil {
			if Reason(err) == "other" {
				t.Fatalf("untyped error %v", err)
			}
			return
		}
		if n != p.Length() || n > len(b) {
			t.Fatalf("n %d, Length %d, input %d", n, p.Length(), len(b))
		}
		c, err := p.Append(nil)
		if err != nil {
			t.Fatalf("a parsed PDU does not encode: %v", err)
		}
		if len(c) != n {
			t.Fatalf("re-encoded %d bytes of %d", len(c), n)
		}
		q, _, err := Parse(c)
		if err != nil || !reflect.DeepEqual(p, q) {
			t.Fatalf("re-parsed %+v, %v; want %+v", q, err, p)
		}
	})
}
