package wire

import (
	"errors"
	"io"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestObserverMessagesRefused: the observers' decoders refuse a truncated message, a
// View off the wire's map and a camera the encoder cannot send; a JoinRequest and an
// ObserveRequest differ only in their type byte.
func TestObserverMessagesRefused(t *testing.T) {
	v, err := (&View{Follow: 1, Position: mgl64.Vec3{1, 2, 3}}).Append(nil)
	if err != nil {
		t.Fatal(err)
	}
	o, _ := (&Observers{Count: 9}).Append(nil)
	far := append([]byte(nil), v...)
	copy(far[4:8], []byte{0x7f, 0xff, 0xff, 0xff}) // x = 2 147 483.647 m
	for _, tc := range []struct {
		name string
		b    []byte
		want error
	}{
		{"view truncated", v[:len(v)-1], io.EOF},
		{"observers truncated", o[:3], io.EOF},
		{"view off the map", far, ErrOutOfRange},
	} {
		if _, _, err := Parse(tc.b); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	if _, err := (&View{Position: mgl64.Vec3{1e7, 0, 0}}).Append(nil); !errors.Is(err, ErrOutOfRange) {
		t.Errorf("a camera 10 000 km out encoded: %v", err)
	}
	j, _ := (&JoinRequest{Name: "ann"}).Append(nil)
	ob, _ := (&JoinRequest{Name: "ann", Observe: true}).Append(nil)
	if j[1] != byte(MsgJoinRequest) || ob[1] != byte(MsgObserveRequest) || string(j[2:]) != string(ob[2:]) {
		t.Errorf("join % x and observe % x differ past the type byte", j, ob)
	}
	m, _, err := Parse(ob)
	if r, ok := m.(*JoinRequest); err != nil || !ok || !r.Observe || r.Name != "ann" {
		t.Errorf("ObserveRequest parsed as %+v, %v", m, err)
	}
}
