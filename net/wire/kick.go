package wire

// Kick tells a player the host is removing it; the host closes the connection after
// sending it. Layout: header, reason (u8 length, UTF-8, ≤ MaxTextLen): 3 + len(reason)
// bytes.
type Kick struct {
	// Reason is shown to the kicked player.
	Reason string
}

// Type returns MsgKick.
func (m *Kick) Type() MsgType { return MsgKick }

// Length returns the encoded size in bytes.
func (m *Kick) Length() int { return HeaderSize + 1 + len(m.Reason) }

// Append appends the encoded message.
func (m *Kick) Append(b []byte) ([]byte, error) {
	if err := checkField("kick reason", m.Reason, MaxTextLen); err != nil {
		return b, err
	}
	return appendString(appendHeader(b, MsgKick), m.Reason), nil
}

func parseKick(b []byte) (*Kick, int, error) {
	if err := checkHeader(b, MsgKick); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "kick"}
	m := &Kick{Reason: r.str("reason", MaxTextLen)}
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}
