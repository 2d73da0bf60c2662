package wire

import (
	"errors"
	"io"
	"testing"
)

// TestZonesRefused: the Zones decoder refuses a truncated message and an on byte
// other than 0 or 1, and reads both values back.
func TestZonesRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"truncated", []byte{Version, byte(MsgZones)}, io.EOF},
		{"on 2", []byte{Version, byte(MsgZones), 2}, ErrInvalid},
		{"on 255", []byte{Version, byte(MsgZones), 255}, ErrInvalid},
	} {
		if m, _, err := Parse(tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, %v, want %v", tc.name, m, err, tc.want)
		}
	}
	for _, on := range []bool{false, true} {
		b, err := (&Zones{On: on}).Append(nil)
		if err != nil {
			t.Fatal(err)
		}
		m, n, err := Parse(b)
		if z, ok := m.(*Zones); err != nil || !ok || z.On != on || n != len(b) {
			t.Errorf("Zones{On: %v} parsed as %+v, %d bytes, %v", on, m, n, err)
		}
	}
}
