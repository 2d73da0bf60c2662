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
	}{
		{"half a length", chat[:1], io.ErrUnexpectedEOF},
		{"cut in body", chat[:len(chat)-1], io.ErrUnexpectedEOF},
		{"frame too long", []byte{0x04, 0x01}, ErrTooLong},
		{"trailing bytes in frame", append([]byte{0, byte(len(chat) - 2 + 1)}, append(bytes.Clone(chat[2:]), 0)...), ErrInvalid},
		{"garbage", []byte{0, 3, 9, 9, 9}, ErrVersion},
	}
	for _, tc := range cases {
		_, err := NewFrameReader(bytes.NewReader(tc.stream)).Next()
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
	}
	// A message too large for a frame is refused before anything is written.
	big := &StateBatch{Updates: make([]Update, 40)}
	for i := range big.Updates {
		big.Updates[i] = Update{Kind: KindPartial, Actor: 1, State: stateA()}
	}
	if b, err := AppendFrame([]byte{7}, big); !errors.Is(err, ErrTooLong) || len(b) != 1 {
		t.Errorf("AppendFrame of %d bytes: %v, len %d", big.Length(), err, len(b))
	}
}
