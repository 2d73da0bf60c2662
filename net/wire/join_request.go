package wire

import "fmt"

// JoinRequest asks the host to admit a player. Layout: header, name (u8 length,
// UTF-8, 1…MaxNameLen bytes), proof [32], reconnect token [16]: 51 + len(name)
// bytes. The protocol version is the header's version byte. With Observe set it is
// an ObserveRequest (type MsgObserveRequest, the same layout): the player watches
// and gets no tank.
type JoinRequest struct {
	// Name is the player's name, shown above its tanks.
	Name string
	// Proof shows the client knows the passphrase: Proof(DeriveKey(passphrase, salt),
	// nonce, name) for the Challenge's salt and nonce. All zero when the host asks
	// for no passphrase.
	Proof [ProofSize]byte
	// Token is the reconnect token a JoinAccepted gave this name earlier, all zero
	// when there is none. A name still held by a player in the match is handed to a
	// new connection only if it presents that player's token.
	Token [TokenSize]byte
	// Observe asks to join as an observer: no tank, a camera of its own.
	Observe bool
}

// Type returns MsgJoinRequest, or MsgObserveRequest with Observe set.
func (m *JoinRequest) Type() MsgType {
	if m.Observe {
		return MsgObserveRequest
	}
	return MsgJoinRequest
}

// Length returns the encoded size in bytes.
func (m *JoinRequest) Length() int { return HeaderSize + 1 + len(m.Name) + ProofSize + TokenSize }

// Append appends the encoded request; the name must pass CheckName.
func (m *JoinRequest) Append(b []byte) ([]byte, error) {
	if err := CheckName(m.Name); err != nil {
		return b, fmt.Errorf("wire: join request: %w", err)
	}
	b = appendHeader(b, m.Type())
	b = appendString(b, m.Name)
	b = append(b, m.Proof[:]...)
	return append(b, m.Token[:]...), nil
}

func parseJoinRequest(b []byte) (*JoinRequest, int, error) {
	_, t, _ := PeekHeader(b)
	if t != MsgObserveRequest {
		t = MsgJoinRequest
	}
	if err := checkHeader(b, t); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "join request"}
	m := &JoinRequest{Observe: t == MsgObserveRequest}
	m.Name = r.name("name", MaxNameLen)
	r.bytes(m.Proof[:])
	r.bytes(m.Token[:])
	if r.err != nil {
		return nil, 0, r.err
	}
	if m.Name == "" {
		return nil, 0, fmt.Errorf("wire: join request: empty name: %w", ErrInvalid)
	}
	return m, r.off, nil
}
