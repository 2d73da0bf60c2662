package record

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// Pose is a tank's true pose at one instant, as its own physics had it: the ground
// truth a replay shows and the lab measures against. A recording keeps positions to
// the millimetre, quaternion components to 1/8191 and joint angles to 2π/16384 rad.
type Pose struct {
	// Actor is the tank's actor id.
	Actor uint32
	// Time is the instant, seconds on the recorder's clock.
	Time float64
	// Position is the middle of the hull's footprint, meters, world frame.
	Position mgl64.Vec3
	// Orientation rotates the hull's frame (forward +X, up +Y) into the world.
	Orientation mgl64.Quat
	// Turret is the turret's yaw relative to the hull and Gun the gun's elevation, rad.
	Turret, Gun float64
	// Break marks a continuity break: the tank jumped to this pose (a respawn).
	Break bool
}

// PoseOf returns the true pose of actor in a publisher sample taken at time t:
// position, orientation and the first two joints (turret, gun).
func PoseOf(actor uint32, s *deadreckon.Sample) Pose {
	p := Pose{Actor: actor, Time: s.Time, Position: s.Position, Orientation: s.Orientation, Break: s.Break}
	if s.NumArticulations > 0 {
		p.Turret = s.Articulations[0]
	}
	if s.NumArticulations > 1 {
		p.Gun = s.Articulations[1]
	}
	return p
}

// Truth quantization.
const (
	// truthPositionStep is the position quantum of a true pose, 1 mm.
	truthPositionStep = 0.001
	// truthQuatScale is the quantum of a quaternion component, 1/8191: 0.01° of
	// rotation, far below any error the lab measures.
	truthQuatScale = 8191
	// truthAngleUnits is how many joint angle quanta make a turn; truthAngleStep the
	// quantum, 2π/16384 rad. Angles wrap.
	truthAngleUnits = 16384
	truthAngleStep  = 2 * math.Pi / truthAngleUnits
	// maxTruthCoordinate bounds a true position's coordinates, m: a pose beyond it is
	// not recorded.
	maxTruthCoordinate = 1e7
	// truthFlagBreak marks a continuity break in a key record's flags.
	truthFlagBreak = 1
	// truthFields is how many integers a quantized pose holds.
	truthFields = 3 + 4 + 2
)

// qpose is a true pose quantized: x, y, z in mm; w, x, y, z quaternion components in
// 1/8191; turret and gun in 2π/16384 rad (kept in [0, 16384)).
type qpose [truthFields]int64

// quantize returns p quantized, or false when p cannot be recorded (not finite, or
// off any map).
func quantize(p *Pose) (qpose, bool) {
	var q qpose
	for i := range 3 {
		c := p.Position[i]
		if !(math.Abs(c) <= maxTruthCoordinate) {
			return q, false
		}
		q[i] = int64(math.Round(c / truthPositionStep))
	}
	o := p.Orientation
	l := o.Len()
	if !(l > 1e-9) || math.IsInf(l, 0) {
		o, l = mgl64.QuatIdent(), 1
	}
	// q and −q are one rotation: keep w ≥ 0 so that the sign rarely flips.
	if o.W < 0 {
		l = -l
	}
	q[3] = int64(math.Round(o.W / l * truthQuatScale))
	for i := range 3 {
		q[4+i] = int64(math.Round(o.V[i] / l * truthQuatScale))
	}
	for i, a := range [2]float64{p.Turret, p.Gun} {
		if !geom.Finite(a) {
			a = 0
		}
		q[7+i] = wrapAngleUnits(int64(math.Round(math.Remainder(a, 2*math.Pi) / truthAngleStep)))
	}
	return q, true
}

// pose returns the pose q stands for.
func (q *qpose) pose(actor uint32, t float64, brk bool) Pose {
	p := Pose{Actor: actor, Time: t, Break: brk}
	for i := range 3 {
		p.Position[i] = float64(q[i]) * truthPositionStep
	}
	o := mgl64.Quat{W: float64(q[3]) / truthQuatScale, V: mgl64.Vec3{
		float64(q[4]) / truthQuatScale, float64(q[5]) / truthQuatScale, float64(q[6]) / truthQuatScale}}
	if l := o.Len(); l > 1e-9 {
		o = o.Scale(1 / l)
	} else {
		o = mgl64.QuatIdent()
	}
	p.Orientation = o
	p.Turret = float64(signedAngleUnits(q[7])) * truthAngleStep
	p.Gun = float64(signedAngleUnits(q[8])) * truthAngleStep
	return p
}

// truthTrack is one actor's last two quantized poses in the open block: what the next
// pose is predicted from.
type truthTrack struct {
	block int // the block the poses belong to; another block starts afresh
	n     int // how many poses are known, 0…2
	prev  [2]qpose
}

// predict returns the pose the track predicts next: the last one moved on by the
// step before it (or the last one alone).
func (t *truthTrack) predict() qpose {
	if t.n < 2 {
		return t.prev[1]
	}
	var q qpose
	for i := range q {
		q[i] = 2*t.prev[1][i] - t.prev[0][i]
	}
	// Joint angles wrap: predict within the circle.
	for i := 7; i < truthFields; i++ {
		q[i] = wrapAngleUnits(q[i])
	}
	return q
}

// wrapAngleUnits returns the angle a, in quanta, in [0, truthAngleUnits).
func wrapAngleUnits(a int64) int64 {
	return ((a % truthAngleUnits) + truthAngleUnits) % truthAngleUnits
}

// signedAngleUnits returns the angle a, in quanta, in [−truthAngleUnits/2,
// truthAngleUnits/2).
func signedAngleUnits(a int64) int64 { return wrapAngleUnits(a+truthAngleUnits/2) - truthAngleUnits/2 }

// push makes q the track's last pose.
func (t *truthTrack) push(q qpose) {
	t.prev[0], t.prev[1] = t.prev[1], q
	t.n = min(t.n+1, 2)
}

// residual returns q minus the prediction p, joint angles wrapped to the shorter way.
func residual(q, p qpose) qpose {
	var r qpose
	for i := range r {
		r[i] = q[i] - p[i]
	}
	for i := 7; i < truthFields; i++ {
		r[i] = signedAngleUnits(r[i])
	}
	return r
}

// apply returns the prediction p plus the residual r.
func apply(p, r qpose) qpose {
	var q qpose
	for i := range q {
		q[i] = p[i] + r[i]
	}
	for i := 7; i < truthFields; i++ {
		q[i] = wrapAngleUnits(q[i])
	}
	return q
}

// appendTruthKey appends a key record's body: actor u16, flags u8, x y z zigzag
// varints (mm), w x y z i16, turret gun u16.
func appendTruthKey(b []byte, actor uint16, brk bool, q qpose) []byte {
	b = binary.BigEndian.AppendUint16(b, actor)
	var flags byte
	if brk {
		flags |= truthFlagBreak
	}
	b = append(b, flags)
	for i := range 3 {
		b = binary.AppendUvarint(b, zigzag(q[i]))
	}
	for i := 3; i < 7; i++ {
		b = binary.BigEndian.AppendUint16(b, uint16(int16(q[i])))
	}
	for i := 7; i < truthFields; i++ {
		b = binary.BigEndian.AppendUint16(b, uint16(q[i]))
	}
	return b
}

// appendTruthDelta appends a delta record's body: actor u16, then the residual's nine
// integers as zigzag varints.
func appendTruthDelta(b []byte, actor uint16, r qpose) []byte {
	b = binary.BigEndian.AppendUint16(b, actor)
	for _, v := range r {
		b = binary.AppendUvarint(b, zigzag(v))
	}
	return b
}

// parseTruthKey decodes a key record's body.
func parseTruthKey(b []byte) (actor uint16, brk bool, q qpose, err error) {
	if len(b) < 3 {
		return 0, false, q, fmt.Errorf("truth key of %d bytes: %w", len(b), ErrDamaged)
	}
	actor, flags := binary.BigEndian.Uint16(b), b[2]
	if flags&^truthFlagBreak != 0 {
		return 0, false, q, fmt.Errorf("truth key flags %#x: %w", flags, ErrDamaged)
	}
	off := 3
	for i := range 3 {
		u, n := binary.Uvarint(b[off:])
		if n <= 0 {
			return 0, false, q, fmt.Errorf("truth key position: %w", ErrDamaged)
		}
		q[i] = unzigzag(u)
		off += n
	}
	if len(b)-off != 12 {
		return 0, false, q, fmt.Errorf("truth key of %d bytes: %w", len(b), ErrDamaged)
	}
	for i := 3; i < 7; i++ {
		q[i] = int64(int16(binary.BigEndian.Uint16(b[off:])))
		off += 2
	}
	for i := 7; i < truthFields; i++ {
		q[i] = int64(binary.BigEndian.Uint16(b[off:]))
		off += 2
	}
	if err := q.check(); err != nil {
		return 0, false, q, err
	}
	return actor, flags&truthFlagBreak != 0, q, nil
}

// parseTruthDelta decodes a delta record's body.
func parseTruthDelta(b []byte) (actor uint16, r qpose, err error) {
	if len(b) < 2 {
		return 0, r, fmt.Errorf("truth delta of %d bytes: %w", len(b), ErrDamaged)
	}
	actor = binary.BigEndian.Uint16(b)
	off := 2
	for i := range r {
		u, n := binary.Uvarint(b[off:])
		if n <= 0 {
			return 0, r, fmt.Errorf("truth delta: %w", ErrDamaged)
		}
		r[i] = unzigzag(u)
		off += n
	}
	if off != len(b) {
		return 0, r, fmt.Errorf("truth delta: %d bytes after it: %w", len(b)-off, ErrDamaged)
	}
	return actor, r, nil
}

// check reports whether q is a pose a writer could have recorded.
func (q *qpose) check() error {
	lim := int64(maxTruthCoordinate / truthPositionStep)
	for i := range 3 {
		if q[i] > lim || q[i] < -lim {
			return fmt.Errorf("truth position %d mm out of range: %w", q[i], ErrDamaged)
		}
	}
	for i := 3; i < 7; i++ {
		if q[i] > truthQuatScale || q[i] < -truthQuatScale {
			return fmt.Errorf("truth orientation component %d out of range: %w", q[i], ErrDamaged)
		}
	}
	for i := 7; i < truthFields; i++ {
		if q[i] < 0 || q[i] >= truthAngleUnits {
			return fmt.Errorf("truth angle %d out of range: %w", q[i], ErrDamaged)
		}
	}
	return nil
}
