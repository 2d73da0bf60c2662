package wire

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
)

// hitResultSize is the encoded size of a HitResult.
const hitResultSize = HeaderSize + 6 + 8 + 1 + 2 + 2 + 6 + 12 + 8

// MaxVerdict is the largest verdict code a HitResult carries (game.NumReasons − 1).
const MaxVerdict = 9

// HitResult is the host's authoritative answer to a hit claim, sent to every peer on
// the reliable stream: a hit (verdict 0) with its damage and the target's health left,
// or a refusal with its reason. Both carry the target's hull as the host rebuilt the
// shooter's view. Layout: header, shooter u16, shot u16, target u16, host time i64 µs,
// verdict u8, damage u16 and health u16 (hundredths), impact point in the hull frame
// 3 × i16 mm, rebuilt hull position 3 × i32 mm and orientation 4 × i16 (w, x, y, z):
// 47 bytes.
type HitResult struct {
	Shooter, Target ActorID
	Shot            uint16
	// Time is when the host decided, host clock, s.
	Time float64
	// Verdict is 0 for a hit, otherwise the reason of the refusal (0…MaxVerdict).
	Verdict uint8
	// Damage is the hit points the hit took; Health what the target has left.
	Damage, Health float64
	// Local is the claimed impact point in the target's hull frame, m.
	Local mgl64.Vec3
	// Position and Orientation are the rebuilt hull.
	Position    mgl64.Vec3
	Orientation mgl64.Quat
}

// Type returns MsgHitResult.
func (m *HitResult) Type() MsgType { return MsgHitResult }

// Length returns the encoded size, 47 bytes.
func (m *HitResult) Length() int { return hitResultSize }

// Append appends the encoded message.
func (m *HitResult) Append(b []byte) ([]byte, error) {
	out, err := m.append(appendHeader(b, MsgHitResult))
	if err != nil {
		return b, fmt.Errorf("wire: hit result: %w", err)
	}
	return out, nil
}

func (m *HitResult) append(b []byte) ([]byte, error) {
	if m.Verdict > MaxVerdict {
		return b, fmt.Errorf("verdict %d: %w", m.Verdict, ErrInvalid)
	}
	b, err := appendShotRef(b, m.Shooter, m.Shot, m.Target, m.Time)
	if err != nil {
		return b, err
	}
	b = append(b, m.Verdict)
	if b, err = appendPoints(b, "damage", m.Damage); err != nil {
		return b, err
	}
	if b, err = appendPoints(b, "health", m.Health); err != nil {
		return b, err
	}
	if b, err = appendLocal(b, m.Local); err != nil {
		return b, err
	}
	if b, err = appendWorld(b, m.Position); err != nil {
		return b, err
	}
	return appendOrientation(b, m.Orientation)
}

func parseHitResult(b []byte) (*HitResult, int, error) {
	if err := checkHeader(b, MsgHitResult); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "hit result"}
	m := &HitResult{}
	m.Shooter, m.Shot, m.Target, m.Time = r.shotRef()
	m.Verdict = r.u8()
	m.Damage = r.points()
	m.Health = r.points()
	m.Local = r.local()
	m.Position = r.world()
	m.Orientation = r.orientation()
	if r.err == nil && m.Verdict > MaxVerdict {
		r.fail(fmt.Errorf("verdict %d: %w", m.Verdict, ErrInvalid))
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}
