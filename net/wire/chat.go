package wire

import (
	"encoding/binary"
	"fmt"
)

// Chat carries one line of chat. A client sends it with From 0; the host fills in
// the sender's id before relaying it. Layout: header, from u16, text (u8 length,
// UTF-8, 1…MaxTextLen): 5 + len(text) bytes.
type Chat struct {
	// From is the sending player (0: the host).
	From PlayerID
	// Text is the line, without control characters.
	Text string
}

// Type returns MsgChat.
func (m *Chat) Type() MsgType { return MsgChat }

// Length returns the encoded size in bytes.
func (m *Chat) Length() int { return HeaderSize + 2 + 1 + len(m.Text) }

// Append appends the encoded message.
func (m *Chat) Append(b []byte) ([]byte, error) {
	if m.Text == "" {
		return b, fmt.Errorf("wire: chat: empty text: %w", ErrInvalid)
	}
	if err := checkField("chat text", m.Text, MaxTextLen); err != nil {
		return b, err
	}
	b = appendHeader(b, MsgChat)
	b = binary.BigEndian.AppendUint16(b, uint16(m.From))
	return appendString(b, m.Text), nil
}

func parseChat(b []byte) (*Chat, int, error) {
	if err := checkHeader(b, MsgChat); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "chat"}
	m := &Chat{From: PlayerID(r.u16())}
	m.Text = r.str("text", MaxTextLen)
	if r.err != nil {
		return nil, 0, r.err
	}
	if m.Text == "" {
		return nil, 0, fmt.Errorf("wire: chat: empty text: %w", ErrInvalid)
	}
	return m, r.off, nil
}
