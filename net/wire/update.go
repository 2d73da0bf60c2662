package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/treadline/treadline/deadreckon"
)

// UpdateKind says which fields of an actor's state an update carries.
type UpdateKind uint8

// The update kinds. Every kind carries the actor id, a sequence number and the owner's
// timestamp.
const (
	// KindPartial carries the kinematic state: position, orientation, velocity,
	// acceleration and angular velocity. PartialUpdateSize bytes.
	KindPartial UpdateKind = 1
	// KindFull carries the kinematic state and the articulations (a heartbeat).
	// FullUpdateSize(n) bytes for n articulations.
	KindFull UpdateKind = 2
	// KindArticulation carries only the articulations (turret and gun angles and
	// rates). ArticulationUpdateSize(n) bytes.
	KindArticulation UpdateKind = 3
)

// String returns the kind's name: "partial", "full" or "articulation".
func (k UpdateKind) String() string {
	switch k {
	case KindPartial:
		return "partial"
	case KindFull:
		return "full"
	case KindArticulation:
		return "articulation"
	}
	return fmt.Sprintf("UpdateKind(%d)", uint8(k))
}

// Encoded sizes of state updates inside a StateBatch, in bytes. A batch adds
// BatchHeaderSize once and SectionHeaderSize per run of updates of one kind.
const (
	// UpdateHeaderSize is the part every update starts with: actor id (2), sequence
	// number (2) and owner timestamp in ms (4).
	UpdateHeaderSize = 8
	// PartialUpdateSize is the size of a partial update: the 8-byte header and the
	// 24-byte packed kinematic block.
	PartialUpdateSize = UpdateHeaderSize + kinematicsSize
	// MaxFullUpdateSize is the size of a full update with MaxArticulations joints.
	MaxFullUpdateSize = PartialUpdateSize + 1 + deadreckon.MaxArticulations*articulationSize
)

// FullUpdateSize returns the size of a full update with n articulations:
// 33 + 4n bytes.
func FullUpdateSize(n int) int { return PartialUpdateSize + 1 + n*articulationSize }

// ArticulationUpdateSize returns the size of an articulation update with n
// articulations: 9 + 4n bytes.
func ArticulationUpdateSize(n int) int { return UpdateHeaderSize + 1 + n*articulationSize }

// Update is one actor's state update as carried in a StateBatch.
type Update struct {
	// Kind says which fields of State are carried; the others decode as zero.
	Kind UpdateKind
	// Actor is the actor the update is about.
	Actor ActorID
	// Seq is the actor's update sequence number: the owner increments it for every
	// update of that actor, whatever the kind, wrapping at 2¹⁶. See SeqNewer.
	Seq uint16
	// State is the published state. State.Time is the owner's clock in seconds
	// (≥ 0, sent in ms modulo TimeWrap). A partial update decodes with no
	// articulations; an articulation update decodes with only Time and the
	// articulations set (Orientation is then the identity).
	State deadreckon.State
}

// Length returns the encoded size of the update in bytes.
func (u *Update) Length() int {
	switch u.Kind {
	case KindPartial:
		return PartialUpdateSize
	case KindFull:
		return FullUpdateSize(max(0, min(u.State.NumArticulations, deadreckon.MaxArticulations)))
	case KindArticulation:
		return ArticulationUpdateSize(max(0, min(u.State.NumArticulations, deadreckon.MaxArticulations)))
	}
	return 0
}

// appendUpdate appends the update's record (without kind byte) to b, or returns b
// unchanged with an error.
func appendUpdate(b []byte, u *Update) ([]byte, error) {
	var err error
	switch u.Kind {
	case KindPartial:
		b, err = appendPartialUpdate(b, u)
	case KindFull:
		b, err = appendFullUpdate(b, u)
	case KindArticulation:
		b, err = appendArticulationUpdate(b, u)
	default:
		return b, fmt.Errorf("wire: update kind %v: %w", u.Kind, ErrUnknownType)
	}
	if err != nil {
		return b, fmt.Errorf("wire: %v update of actor %d: %w", u.Kind, u.Actor, err)
	}
	return b, nil
}

// appendUpdateHeader appends actor, sequence and timestamp.
func appendUpdateHeader(b []byte, u *Update) ([]byte, error) {
	ms, err := encodeTime(u.State.Time)
	if err != nil {
		return b, err
	}
	b = binary.BigEndian.AppendUint16(b, uint16(u.Actor))
	b = binary.BigEndian.AppendUint16(b, u.Seq)
	return binary.BigEndian.AppendUint32(b, ms), nil
}

// parseUpdateHeader reads actor, sequence and timestamp into u.
func parseUpdateHeader(r *reader, u *Update) {
	u.Actor = ActorID(r.u16())
	u.Seq = r.u16()
	u.State.Time = decodeTime(r.u32())
}

// parseUpdate decodes one record of kind k into u, which it overwrites.
func parseUpdate(r *reader, k UpdateKind, u *Update) {
	*u = Update{Kind: k}
	switch k {
	case KindPartial:
		parsePartialUpdate(r, u)
	case KindFull:
		parseFullUpdate(r, u)
	case KindArticulation:
		parseArticulationUpdate(r, u)
	default:
		r.fail(fmt.Errorf("update kind %v: %w", k, ErrUnknownType))
	}
}
