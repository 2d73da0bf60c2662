package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/treadline/treadline/deadreckon"
)

// A state update record is UpdateSize(n) = 33 + 4n bytes for n articulations:
//
//	actor u16 | seq u16 | time u32 (ms) | kinematic block (24 bytes, 192 bits)
//	| count u8 (0…4) | count × (angle u16, rate i16)
//
// The kinematic block packs, most significant bit first: x (24 bits), y (22), z (24)
// in signed millimetres; the smallest-three orientation (2-bit index, 3 × 10 bits);
// velocity (3 × 12 bits, 1/64 m/s); acceleration (3 × 9 bits, 1/8 m/s²); angular
// velocity (3 × 9 bits, 1/64 rad/s). Angles are 2π/65536 rad per unit, wrapping;
// rates 1/1024 rad/s per unit. PROTOCOL.md has the table.
//
// Every record is self-describing and complete: an owner always sends its actor's
// whole state, so a receiver never merges one record with an earlier one.

// Encoded sizes of state update records inside a StateBatch, in bytes.
const (
	// UpdateHeaderSize is the part every record starts with: actor id (2), sequence
	// number (2) and owner timestamp in ms (4).
	UpdateHeaderSize = 8
	// MinUpdateSize is the size of a record without articulations: the header, the
	// 24-byte kinematic block and the articulation count.
	MinUpdateSize = UpdateHeaderSize + kinematicsSize + 1
	// MaxUpdateSize is the size of a record with deadreckon.MaxArticulations joints.
	MaxUpdateSize = MinUpdateSize + deadreckon.MaxArticulations*articulationSize
)

// UpdateSize returns the size of a record with n articulations: 33 + 4n bytes.
func UpdateSize(n int) int { return MinUpdateSize + n*articulationSize }

// Update is one actor's state update as carried in a StateBatch.
type Update struct {
	// Actor is the actor the update is about.
	Actor ActorID
	// Seq is the actor's update sequence number: the owner increments it for every
	// update of that actor, wrapping at 2¹⁶. See SeqNewer.
	Seq uint16
	// State is the published state, articulations included. State.Time is the
	// owner's timestamp in seconds (≥ 0, sent in ms modulo TimeWrap).
	State deadreckon.State
}

// Length returns the encoded size of the record in bytes.
func (u *Update) Length() int {
	return UpdateSize(max(0, min(u.State.NumArticulations, deadreckon.MaxArticulations)))
}

// Append appends the encoded record to b. On error (wrapping ErrNotFinite,
// ErrOutOfRange or ErrInvalid) b is returned unchanged.
func (u *Update) Append(b []byte) ([]byte, error) {
	if err := checkArticulations(&u.State); err != nil {
		return b, fmt.Errorf("wire: update of actor %d: %w", u.Actor, err)
	}
	pos, err := kinematicCodes(&u.State)
	if err != nil {
		return b, fmt.Errorf("wire: update of actor %d: %w", u.Actor, err)
	}
	q, err := canonicalQuat(u.State.Orientation)
	if err != nil {
		return b, fmt.Errorf("wire: update of actor %d: %w", u.Actor, err)
	}
	ms, err := encodeTime(u.State.Time)
	if err != nil {
		return b, fmt.Errorf("wire: update of actor %d: %w", u.Actor, err)
	}
	out := binary.BigEndian.AppendUint16(b, uint16(u.Actor))
	out = binary.BigEndian.AppendUint16(out, u.Seq)
	out = binary.BigEndian.AppendUint32(out, ms)
	out = appendKinematics(out, pos, &u.State, q)
	return appendArticulations(out, &u.State), nil
}

// parseUpdate decodes one record into u, which it overwrites.
func parseUpdate(r *reader, u *Update) {
	*u = Update{}
	if !r.need(MinUpdateSize) {
		return
	}
	u.Actor = ActorID(r.u16())
	u.Seq = r.u16()
	u.State.Time = decodeTime(r.u32())
	parseKinematics(r, &u.State)
	if r.err == nil {
		parseArticulations(r, &u.State)
	}
}

// recordLength returns the length of the record starting at b[0], read from its
// articulation count, or false when the count is unreadable or out of range.
func recordLength(b []byte) (int, bool) {
	if len(b) < MinUpdateSize {
		return 0, false
	}
	n := int(b[MinUpdateSize-1])
	if n > deadreckon.MaxArticulations {
		return 0, false
	}
	return UpdateSize(n), true
}
