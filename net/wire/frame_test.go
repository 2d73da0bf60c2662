package wire

import (
	"bytes"
	"errors"
	"io"
	"testing"
)

func TestFrameRoundTrip(t *testing.T) {
	var stream []byte
	known := knownMessages(t)
	for _, tc := range known {
		var err error
		if stream, err = AppendFrame(stream, tc.msg); err != nil {
			t.Fatalf("AppendFrame(%s): %v", tc.name, err)
		}
	}
	r := NewFrameReader(bytes.NewReader(stream))
	for _, tc := range known {
		m, err := r.Next()
		if err != nil {
			t.Fatalf("Next (%s): %v", tc.name, err)
		}
		if err := sameMessage(m, tc.msg); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
	if _, err := r.Next(); err != io.EOF {
		t.Errorf("Next at end: %v, want io.EOF", err)
	}
}

func TestFrameErrors(t *testing.T) {
	chat, err := AppendFrame(nil, &Chat{From: 1, Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		stream []byte
		want   error
		bad    bool // only the message is bad; the stream goes on
	}{
		{"half a length", chat[:1], io.ErrUnexpectedEOF, false},
		{"cut in body", chat[:len(chat)-1], io.ErrUnexpectedEOF, false},
		{"frame too long", []byte{0x04, 0x01}, ErrTooLong, false},
		{"trailing bytes in frame", append([]byte{0, byte(len(chat) - 2 + 1)}, append(bytes.Clone(chat[2:]), 0)...), ErrInvalid, true},
		{"garbage", []byte{0, 3, 9, 9, 9}, ErrVersion, true},
		{"bad text", []byte{0, 8, Version, byte(MsgChat), 0, 0, 3, 'a', 7, 'b'}, ErrInvalid, true},
	}
	for _, tc := range cases {
		stream := bytes.Clone(tc.stream)
		if tc.bad {
			stream = append(stream, chat...)
		}
		r := NewFrameReader(bytes.NewReader(stream))
		_, err := r.Next()
		if !errors.Is(err, tc.want) || errors.Is(err, ErrBadMessage) != tc.bad {
			t.Errorf("%s: %v, want %v (bad message only: %v)", tc.name, err, tc.want, tc.bad)
		}
		if !tc.bad {
			continue
		}
		// After a bad message in a whole frame the next frame reads normally.
		if m, err := r.Next(); err != nil || m.Type() != MsgChat {
			t.Errorf("%s: next frame: %v, %v; want the chat", tc.name, m, err)
		}
	}
	// A message too large for a frame is refused before anything is written.
	big := &StateBatch{Updates: make([]Update, 40)}
	for i := range big.Updates {
		big.Updates[i] = Update{Actor: 1, State: stateA()}
	}
	if b, err := AppendFrame([]byte{7}, big); !errors.Is(err, ErrTooLong) || len(b) != 1 {
		t.Errorf("AppendFrame of %d bytes: %v, len %d", big.Length(), err, len(b))
	}
}
