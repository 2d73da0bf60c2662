package wire

import (
	"encoding/binary"
	"fmt"
)

// LeaveReason says why a player left.
type LeaveReason uint8

// The leave reasons.
const (
	// LeaveQuit: the player chose to leave.
	LeaveQuit LeaveReason = 1
	// LeaveTimeout: the host heard nothing from the player for too long.
	LeaveTimeout LeaveReason = 2
	// LeaveKicked: the host removed the player.
	LeaveKicked LeaveReason = 3
)

// String names the reason: "quit", "timeout" or "kicked".
func (r LeaveReason) String() string {
	switch r {
	case LeaveQuit:
		return "quit"
	case LeaveTimeout:
		return "timeout"
	case LeaveKicked:
		return "kicked"
	}
	return fmt.Sprintf("LeaveReason(%d)", uint8(r))
}

// leaveSize is the encoded size of a Leave.
const leaveSize = HeaderSize + 2 + 1

// Leave says a player left. A client sends it (with its own id, which the host does
// not trust) before closing; the host sends it to the others. Layout: header,
// player u16, reason u8: 5 bytes.
type Leave struct {
	// Player is the player who left.
	Player PlayerID
	// Reason says why.
	Reason LeaveReason
}

// Type returns MsgLeave.
func (m *Leave) Type() MsgType { return MsgLeave }

// Length returns the encoded size, 5 bytes.
func (m *Leave) Length() int { return leaveSize }

func (m *Leave) check() error {
	if m.Reason < LeaveQuit || m.Reason > LeaveKicked {
		return fmt.Errorf("wire: leave: reason %d: %w", m.Reason, ErrInvalid)
	}
	return nil
}

// Append appends the encoded message.
func (m *Leave) Append(b []byte) ([]byte, error) {
	if err := m.check(); err != nil {
		return b, err
	}
	b = appendHeader(b, MsgLeave)
	b = binary.BigEndian.AppendUint16(b, uint16(m.Player))
	return append(b, byte(m.Reason)), nil
}

func parseLeave(b []byte) (*Leave, int, error) {
	if err := checkHeader(b, MsgLeave); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "leave"}
	m := &Leave{Player: PlayerID(r.u16()), Reason: LeaveReason(r.u8())}
	if r.err != nil {
		return nil, 0, r.err
	}
	if err := m.check(); err != nil {
		return nil, 0, err
	}
	return m, r.off, nil
}
