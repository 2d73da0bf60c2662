package wire

import (
	"fmt"
)

// destroySize is the encoded size of a Destroy.
const destroySize = HeaderSize + 6 + 8

// Destroy is the host's authoritative word that a shot destroyed a tank, sent to every
// peer on the reliable stream. The target's owner turns it into a wreck and later
// respawns it. Layout: header, shooter u16, shot u16, target u16, host time i64 µs:
// 16 bytes.
type Destroy struct {
	Shooter, Target ActorID
	Shot            uint16
	// Time is when the host decided, host clock, s.
	Time float64
}

// Type returns MsgDestroy.
func (m *Destroy) Type() MsgType { return MsgDestroy }

// Length returns the encoded size, 16 bytes.
func (m *Destroy) Length() int { return destroySize }

// Append appends the encoded message.
func (m *Destroy) Append(b []byte) ([]byte, error) {
	out, err := appendShotRef(appendHeader(b, MsgDestroy), m.Shooter, m.Shot, m.Target, m.Time)
	if err != nil {
		return b, fmt.Errorf("wire: destroy: %w", err)
	}
	return out, nil
}

func parseDestroy(b []byte) (*Destroy, int, error) {
	if err := checkHeader(b, MsgDestroy); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "destroy"}
	m := &Destroy{}
	m.Shooter, m.Shot, m.Target, m.Time = r.shotRef()
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}
