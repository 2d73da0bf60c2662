package wire

import "fmt"

// RefuseReason says why the host turned a player away.
type RefuseReason uint8

// The refusal reasons.
const (
	// RefusePassphrase: the proof did not match the host's passphrase.
	RefusePassphrase RefuseReason = 1
	// RefuseVersion: the client speaks another protocol version.
	RefuseVersion RefuseReason = 2
	// RefuseFull: the match has no room.
	RefuseFull RefuseReason = 3
	// RefuseName: the name is taken or not allowed.
	RefuseName RefuseReason = 4
	// RefuseBanned: the player was kicked and may not come back yet.
	RefuseBanned RefuseReason = 5
	// RefuseProtocol: the client sent something malformed or out of order.
	RefuseProtocol RefuseReason = 6
	// RefuseOther: see the text.
	RefuseOther RefuseReason = 7
)

var refuseNames = [...]string{
	RefusePassphrase: "wrong passphrase",
	RefuseVersion:    "protocol version mismatch",
	RefuseFull:       "match full",
	RefuseName:       "name not available",
	RefuseBanned:     "banned",
	RefuseProtocol:   "protocol error",
	RefuseOther:      "refused",
}

// String describes the reason, such as "wrong passphrase".
func (r RefuseReason) String() string {
	if r >= RefusePassphrase && r <= RefuseOther {
		return refuseNames[r]
	}
	return fmt.Sprintf("RefuseReason(%d)", uint8(r))
}

// JoinRefused turns a player away. Layout: header, reason u8, text (u8 length,
// UTF-8, ≤ MaxTextLen): 4 + len(text) bytes. This layout is the same in every
// protocol version, so a client of another version can still read why (see
// PeekHeader; a refusal from a host of another version means RefuseVersion).
type JoinRefused struct {
	// Reason is the refusal's cause.
	Reason RefuseReason
	// Text optionally adds detail for the player.
	Text string
}

// Type returns MsgJoinRefused.
func (m *JoinRefused) Type() MsgType { return MsgJoinRefused }

// Length returns the encoded size in bytes.
func (m *JoinRefused) Length() int { return HeaderSize + 1 + 1 + len(m.Text) }

// Append appends the encoded message.
func (m *JoinRefused) Append(b []byte) ([]byte, error) {
	if m.Reason < RefusePassphrase || m.Reason > RefuseOther {
		return b, fmt.Errorf("wire: join refused: reason %d: %w", m.Reason, ErrInvalid)
	}
	if err := checkField("refusal text", m.Text, MaxTextLen); err != nil {
		return b, err
	}
	b = appendHeader(b, MsgJoinRefused)
	b = append(b, byte(m.Reason))
	return appendString(b, m.Text), nil
}

func parseJoinRefused(b []byte) (*JoinRefused, int, error) {
	if err := checkHeader(b, MsgJoinRefused); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "join refused"}
	m := &JoinRefused{}
	m.Reason = RefuseReason(r.u8())
	m.Text = r.str("text", MaxTextLen)
	if r.err != nil {
		return nil, 0, r.err
	}
	if m.Reason < RefusePassphrase || m.Reason > RefuseOther {
		return nil, 0, fmt.Errorf("wire: join refused: reason %d: %w", m.Reason, ErrInvalid)
	}
	return m, r.off, nil
}
