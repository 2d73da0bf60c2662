package wire

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// field is one bit field for packBits: width in bits and a signed value.
type field struct {
	bits int
	v    int64
}

// packBits concatenates the fields most significant bit first, as a string of
// binary digits, and returns the bytes. It is deliberately independent of bitPacker.
func packBits(t *testing.T, fs ...field) []byte {
	t.Helper()
	var sb strings.Builder
	for _, f := range fs {
		u := uint64(f.v) & (1<<f.bits - 1)
		fmt.Fprintf(&sb, "%0*b", f.bits, u)
	}
	s := sb.String()
	if len(s)%8 != 0 {
		t.Fatalf("packBits: %d bits is not whole bytes", len(s))
	}
	out := make([]byte, 0, len(s)/8)
	for i := 0; i < len(s); i += 8 {
		v, err := strconv.ParseUint(s[i:i+8], 2, 8)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, byte(v))
	}
	return out
}

// cat concatenates byte slices.
func cat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(strings.ReplaceAll(s, " ", ""))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// rotationAngle returns the angle in radians of the rotation taking p to q, computed
// from the chord between the quaternions for precision at small angles.
func rotationAngle(p, q mgl64.Quat) float64 {
	if p.Dot(q) < 0 {
		q = q.Scale(-1)
	}
	d := mgl64.Quat{W: p.W - q.W, V: p.V.Sub(q.V)}
	return 4 * math.Asin(math.Min(1, d.Len()/2))
}

// sameState reports whether two states agree within tol on every field, comparing
// orientations as rotations.
func sameState(a, b deadreckon.State, tol float64) error {
	switch {
	case math.Abs(a.Time-b.Time) > tol:
		return fmt.Errorf("time %v, want %v", a.Time, b.Time)
	case !a.Position.ApproxEqualThreshold(b.Position, tol):
		return fmt.Errorf("position %v, want %v", a.Position, b.Position)
	case !a.Velocity.ApproxEqualThreshold(b.Velocity, tol):
		return fmt.Errorf("velocity %v, want %v", a.Velocity, b.Velocity)
	case !a.Acceleration.ApproxEqualThreshold(b.Acceleration, tol):
		return fmt.Errorf("acceleration %v, want %v", a.Acceleration, b.Acceleration)
	case !a.AngularVelocity.ApproxEqualThreshold(b.AngularVelocity, tol):
		return fmt.Errorf("angular velocity %v, want %v", a.AngularVelocity, b.AngularVelocity)
	case rotationAngle(a.Orientation, b.Orientation) > tol:
		return fmt.Errorf("orientation %v, want %v", a.Orientation, b.Orientation)
	case a.NumArticulations != b.NumArticulations:
		return fmt.Errorf("%d articulations, want %d", a.NumArticulations, b.NumArticulations)
	}
	for i := 0; i < a.NumArticulations; i++ {
		if math.Abs(a.Articulations[i].Angle-b.Articulations[i].Angle) > tol ||
			math.Abs(a.Articulations[i].Rate-b.Articulations[i].Rate) > tol {
			return fmt.Errorf("articulation %d: %+v, want %+v", i, a.Articulations[i], b.Articulations[i])
		}
	}
	return nil
}
