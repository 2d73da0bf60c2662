package wire

import (
	"errors"
	"testing"
)

// A name the encoder refuses to send ("shows nothing") is refused when read too, in
// every message that carries one: whatever parses encodes again.
func TestBlankNamesRefusedWhenRead(t *testing.T) {
	blanks := []string{" ", "\u0358 ", "\u3164", "\u2800\u200b"}
	for _, name := range blanks {
		if CheckName(name) == nil {
			t.Fatalf("CheckName(%q) accepted a blank name", name)
		}
		for _, tc := range []struct {
			msg  string
			good Message
		}{
			{"join request", &JoinRequest{Name: "x"}},
			{"observe request", &JoinRequest{Name: "x", Observe: true}},
			{"spawn", &Spawn{Owner: 1, Actor: 1, Name: "x", State: stateA()}},
			{"scores", &Scores{Lines: []ScoreLine{{Owner: 1, Name: "x"}}}},
		} {
			b, err := tc.good.Append(nil)
			if err != nil {
				t.Fatalf("%s: %v", tc.msg, err)
			}
			// The name "x" is the only 'x' byte preceded by its length 1: put the
			// blank name in its place, and fix the message's length if it has one.
			bad := replaceName(t, b, name)
			if m, _, err := Parse(bad); !errors.Is(err, ErrInvalid) {
				t.Errorf("%s named %q: Parse = %v, %v; want ErrInvalid", tc.msg, name, m, err)
			}
		}
	}
}

// replaceName returns b with its one-byte name "x" (length 1, then 'x') replaced by name.
func replaceName(t *testing.T, b []byte, name string) []byte {
	t.Helper()
	for i := HeaderSize; i+1 < len(b); i++ {
		if b[i] == 1 && b[i+1] == 'x' {
			out := append([]byte(nil), b[:i]...)
			out = append(out, byte(len(name)))
			out = append(out, name...)
			return append(out, b[i+2:]...)
		}
	}
	t.Fatalf("no name in % x", b)
	return nil
}
