package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
)

// maxReckon is the largest reckoning mode byte.
const maxReckon = 63

// ClaimApplied is how many applied updates a HitClaim names.
const ClaimApplied = 8

// hitClaimSize is the encoded size of a HitClaim.
const hitClaimSize = HeaderSize + 6 + 8 + 4 + 6 + 12 + 1 + ClaimApplied*8 + 4 + 12 + 6

// AppliedUpdate says when the shooter applied an update of the target.
type AppliedUpdate struct {
	// Update is the update's owner timestamp, s (0: none).
	Update float64
	// At is the host-clock time of the frame the shooter applied it in, s.
	At float64
}

// HitClaim is a shooter's report that its shell hit a tank on its screen, sent to the
// host as a datagram and repeated on the next frames. Layout: header, shooter u16, shot
// u16, target u16, claim time i64 µs (host clock), impact time i32 µs from the claim
// time, impact point in the target's hull frame 3 × i16 mm, observer 3 × i32 mm,
// reckoning mode u8 (bits 0–5; bits 6–7 zero), eight applied updates (owner timestamp
// u32 ms, frame time i32 µs from the claim time), then the shot itself (fire time i32 µs
// from the claim time, origin 3 × i32 mm, direction 3 × i16): 125 bytes.
type HitClaim struct {
	Shooter, Target ActorID
	Shot            uint16
	// Time is the host-clock time of the frame that showed the hit, s; Impact when the
	// shell reached the hull in that frame, s.
	Time, Impact float64
	// Local is the impact point in the target's hull frame, m.
	Local mgl64.Vec3
	// Observer is where the shooter clamped the target to the ground from, world m.
	Observer mgl64.Vec3
	// Reckon is how the shooter reckons remote actors, opaque to the wire beyond its
	// range (0…63): the game packs its algorithm, clamp mode and latency compensation.
	Reckon uint8
	// Applied are the newest updates of the target the shooter had applied, newest
	// first.
	Applied [ClaimApplied]AppliedUpdate
	// Fired, Origin and Direction repeat the shot (as its Fire message says).
	Fired             float64
	Origin, Direction mgl64.Vec3
}

// Type returns MsgHitClaim.
func (m *HitClaim) Type() MsgType { return MsgHitClaim }

// Length returns the encoded size, 125 bytes.
func (m *HitClaim) Length() int { return hitClaimSize }

// Append appends the encoded message.
func (m *HitClaim) Append(b []byte) ([]byte, error) {
	out, err := m.append(appendHeader(b, MsgHitClaim))
	if err != nil {
		return b, fmt.Errorf("wire: hit claim: %w", err)
	}
	return out, nil
}

func (m *HitClaim) append(b []byte) ([]byte, error) {
	b, err := appendShotRef(b, m.Shooter, m.Shot, m.Target, m.Time)
	if err != nil {
		return b, err
	}
	if b, err = appendOffset(b, "impact", m.Impact, m.Time); err != nil {
		return b, err
	}
	if b, err = appendLocal(b, m.Local); err != nil {
		return b, err
	}
	if b, err = appendWorld(b, m.Observer); err != nil {
		return b, err
	}
	if m.Reckon > maxReckon {
		return b, fmt.Errorf("reckoning mode %#x: %w", m.Reckon, ErrInvalid)
	}
	b = append(b, m.Reckon)
	for _, a := range m.Applied {
		ms, err := encodeTime(a.Update)
		if err != nil {
			return b, fmt.Errorf("applied update: %w", err)
		}
		b = binary.BigEndian.AppendUint32(b, ms)
		if b, err = appendOffset(b, "applied at", a.At, m.Time); err != nil {
			return b, err
		}
	}
	if b, err = appendOffset(b, "fired", m.Fired, m.Time); err != nil {
		return b, err
	}
	if b, err = appendWorld(b, m.Origin); err != nil {
		return b, err
	}
	return appendDirection(b, m.Direction)
}

func parseHitClaim(b []byte) (*HitClaim, int, error) {
	if err := checkHeader(b, MsgHitClaim); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "hit claim"}
	m := &HitClaim{}
	m.Shooter, m.Shot, m.Target, m.Time = r.shotRef()
	m.Impact = r.offset(m.Time)
	m.Local = r.local()
	m.Observer = r.world()
	m.Reckon = r.u8()
	if r.err == nil && m.Reckon > maxReckon {
		r.fail(fmt.Errorf("reckoning mode %#x: %w", m.Reckon, ErrInvalid))
	}
	for i := range m.Applied {
		m.Applied[i].Update = decodeTime(r.u32())
		m.Applied[i].At = r.offset(m.Time)
	}
	m.Fired = r.offset(m.Time)
	m.Origin = r.world()
	m.Direction = r.direction()
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}
