package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
)

// fireSize is the encoded size of a Fire.
const fireSize = HeaderSize + 2 + 2 + 8 + 12 + 6

// Fire says a tank fired. A shooter sends it to the host on the reliable stream; the
// host relays it, checked, to every other peer. Every peer computes the shell's whole
// flight from it. Layout: header, shooter u16, shot u16, host time i64 µs, origin
// 3 × i32 mm, direction 3 × i16 (1/32767): 32 bytes.
type Fire struct {
	// Shooter is the firing tank's actor id (never 0); Shot numbers its shots.
	Shooter ActorID
	Shot    uint16
	// Time is the firing time on the host's clock, s.
	Time float64
	// Origin is the muzzle, world meters; Direction the barrel's unit direction.
	Origin    mgl64.Vec3
	Direction mgl64.Vec3
}

// Type returns MsgFire.
func (m *Fire) Type() MsgType { return MsgFire }

// Length returns the encoded size, 32 bytes.
func (m *Fire) Length() int { return fireSize }

// Append appends the encoded message.
func (m *Fire) Append(b []byte) ([]byte, error) {
	out, err := appendShot(appendHeader(b, MsgFire), m.Shooter, m.Shot, m.Time, m.Origin, m.Direction)
	if err != nil {
		return b, fmt.Errorf("wire: fire: %w", err)
	}
	return out, nil
}

func appendShot(b []byte, shooter ActorID, shot uint16, t float64, origin, dir mgl64.Vec3) ([]byte, error) {
	if shooter == 0 {
		return b, fmt.Errorf("shooter 0: %w", ErrInvalid)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(shooter))
	b = binary.BigEndian.AppendUint16(b, shot)
	b, err := appendClock(b, "time", t)
	if err != nil {
		return b, err
	}
	if b, err = appendWorld(b, origin); err != nil {
		return b, err
	}
	return appendDirection(b, dir)
}

func parseFire(b []byte) (*Fire, int, error) {
	if err := checkHeader(b, MsgFire); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "fire"}
	m := &Fire{}
	m.Shooter = ActorID(r.u16())
	m.Shot = r.u16()
	m.Time = decodeClock(&r, "time")
	m.Origin = r.world()
	m.Direction = r.direction()
	if r.err == nil && m.Shooter == 0 {
		r.fail(fmt.Errorf("shooter 0: %w", ErrInvalid))
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}
