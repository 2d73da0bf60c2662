package wire

import (
	"encoding/binary"
	"fmt"
)

// DespawnReason says why an actor went away.
type DespawnReason uint8

// The despawn reasons.
const (
	// DespawnRemoved: the owner or host removed the actor.
	DespawnRemoved DespawnReason = 1
	// DespawnDestroyed: the actor was destroyed in play.
	DespawnDestroyed DespawnReason = 2
	// DespawnOwnerGone: the owner left, timed out or was kicked.
	DespawnOwnerGone DespawnReason = 3
)

// String names the reason: "removed", "destroyed" or "owner gone".
func (r DespawnReason) String() string {
	switch r {
	case DespawnRemoved:
		return "removed"
	case DespawnDestroyed:
		return "destroyed"
	case DespawnOwnerGone:
		return "owner gone"
	}
	return fmt.Sprintf("DespawnReason(%d)", uint8(r))
}

// despawnSize is the encoded size of a Despawn.
const despawnSize = HeaderSize + 2 + 1

// Despawn removes an actor. Layout: header, actor u16, reason u8: 5 bytes.
type Despawn struct {
	// Actor is the actor to remove (never 0).
	Actor ActorID
	// Reason says why.
	Reason DespawnReason
}

// Type returns MsgDespawn.
func (m *Despawn) Type() MsgType { return MsgDespawn }

// Length returns the encoded size, 5 bytes.
func (m *Despawn) Length() int { return despawnSize }

func (m *Despawn) check() error {
	if m.Actor == 0 || m.Reason < DespawnRemoved || m.Reason > DespawnOwnerGone {
		return fmt.Errorf("wire: despawn: actor %d, reason %d: %w", m.Actor, m.Reason, ErrInvalid)
	}
	return nil
}

// Append appends the encoded message.
func (m *Despawn) Append(b []byte) ([]byte, error) {
	if err := m.check(); err != nil {
		return b, err
	}
	b = appendHeader(b, MsgDespawn)
	b = binary.BigEndian.AppendUint16(b, uint16(m.Actor))
	return append(b, byte(m.Reason)), nil
}

func parseDespawn(b []byte) (*Despawn, int, error) {
	if err := checkHeader(b, MsgDespawn); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "despawn"}
	m := &Despawn{Actor: ActorID(r.u16()), Reason: DespawnReason(r.u8())}
	if r.err != nil {
		return nil, 0, r.err
	}
	if err := m.check(); err != nil {
		return nil, 0, err
	}
	return m, r.off, nil
}
