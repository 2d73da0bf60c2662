package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Field encodings shared by the combat messages (Fire, HitClaim, HitResult, Destroy,
// Scores). Host-clock times travel as µs (i64, or i32 offsets from another time in the
// same message), world positions as three i32 millimetres, points in a hull's frame as
// three i16 millimetres, unit vectors and orientations as i16 components of 1/32767.
const (
	// UnitStep is the resolution of a unit vector's or quaternion's component.
	UnitStep = 1.0 / 32767
	// MaxLocal is the largest coordinate of a point in a hull's frame, m.
	MaxLocal = 32.767
	// PointsStep is the resolution of hit points and damage.
	PointsStep = 0.01
	// MaxPoints is the largest hit points or damage a message carries.
	MaxPoints = 655.35
	// maxOffsetMicros bounds a time offset, µs (±2147 s).
	maxOffsetMicros = math.MaxInt32
	// unitTolerance is how far from 1 a decoded unit vector's or quaternion's length
	// may be.
	unitTolerance = 1e-3
)

// appendClock appends a host-clock time as i64 µs.
func appendClock(b []byte, field string, t float64) ([]byte, error) {
	us, err := encodeClock(field, t)
	if err != nil {
		return b, err
	}
	return binary.BigEndian.AppendUint64(b, uint64(us)), nil
}

// appendOffset appends t − base as i32 µs.
func appendOffset(b []byte, field string, t, base float64) ([]byte, error) {
	if !geom.Finite(t) {
		return b, fmt.Errorf("%s %v: %w", field, t, ErrNotFinite)
	}
	us := math.Round((t - base) / ClockMicrosStep)
	if math.Abs(us) > maxOffsetMicros {
		return b, fmt.Errorf("%s %v s from %v s: %w", field, t, base, ErrOutOfRange)
	}
	return binary.BigEndian.AppendUint32(b, uint32(int32(us))), nil
}

// offset reads a time offset from base. Its range is symmetric, as the encoder
// writes it, so the one code past −maxOffsetMicros is refused.
func (r *reader) offset(base float64) float64 {
	us := int32(r.u32())
	if us == math.MinInt32 {
		r.fail(fmt.Errorf("time offset %d µs: %w", us, ErrOutOfRange))
	}
	return base + float64(us)*ClockMicrosStep
}

// appendWorld appends a world position as three i32 mm within the map limits.
func appendWorld(b []byte, p mgl64.Vec3) ([]byte, error) {
	x, y, z, err := positionCodes(p)
	if err != nil {
		return b, err
	}
	for _, v := range [3]int64{x, y, z} {
		b = binary.BigEndian.AppendUint32(b, uint32(int32(v)))
	}
	return b, nil
}

func (r *reader) world() mgl64.Vec3 {
	var p mgl64.Vec3
	for i := range p {
		p[i] = float64(int32(r.u32())) * PositionStep
	}
	if r.err == nil && (math.Abs(p[0]) > MaxHorizontal || math.Abs(p[2]) > MaxHorizontal || math.Abs(p[1]) > MaxHeight) {
		r.fail(fmt.Errorf("position %v: %w", p, ErrOutOfRange))
	}
	return p
}

// appendLocal appends a point in a hull's frame as three i16 mm.
func appendLocal(b []byte, p mgl64.Vec3) ([]byte, error) {
	if !geom.FiniteVec(p) {
		return b, fmt.Errorf("hull point %v: %w", p, ErrNotFinite)
	}
	for _, v := range p {
		c := math.Round(v / PositionStep)
		if math.Abs(c) > math.MaxInt16 {
			return b, fmt.Errorf("hull point %v beyond ±%g m: %w", p, MaxLocal, ErrOutOfRange)
		}
		b = binary.BigEndian.AppendUint16(b, uint16(int16(c)))
	}
	return b, nil
}

// local reads a point in a hull's frame. The range is symmetric (±MaxLocal), as the
// encoder writes it, so -32768 mm is refused rather than decoded into a point that
// could not be sent on.
func (r *reader) local() mgl64.Vec3 {
	var p mgl64.Vec3
	for i := range p {
		c := int16(r.u16())
		if c == math.MinInt16 {
			r.fail(fmt.Errorf("hull point component -32768 mm: %w", ErrOutOfRange))
		}
		p[i] = float64(c) * PositionStep
	}
	return p
}

// appendUnits appends components of a unit vector or quaternion as i16 of 1/32767.
func appendUnits(b []byte, field string, c []float64) ([]byte, error) {
	l := 0.0
	for _, v := range c {
		if !geom.Finite(v) {
			return b, fmt.Errorf("%s %v: %w", field, c, ErrNotFinite)
		}
		l += v * v
	}
	if math.Abs(math.Sqrt(l)-1) > unitTolerance {
		return b, fmt.Errorf("%s %v is not of unit length: %w", field, c, ErrInvalid)
	}
	for _, v := range c {
		b = binary.BigEndian.AppendUint16(b, uint16(int16(math.Round(math.Max(-1, math.Min(1, v))/UnitStep))))
	}
	return b, nil
}

// units reads n components and checks their length.
func (r *reader) units(field string, dst []float64) {
	l := 0.0
	for i := range dst {
		c := int16(r.u16())
		if c == math.MinInt16 {
			r.fail(fmt.Errorf("%s component -32768: %w", field, ErrInvalid))
		}
		dst[i] = float64(c) * UnitStep
		l += dst[i] * dst[i]
	}
	if r.err == nil && math.Abs(math.Sqrt(l)-1) > unitTolerance {
		r.fail(fmt.Errorf("%s %v is not of unit length: %w", field, dst, ErrInvalid))
	}
}

func appendDirection(b []byte, d mgl64.Vec3) ([]byte, error) {
	return appendUnits(b, "direction", d[:])
}

func (r *reader) direction() mgl64.Vec3 {
	var d mgl64.Vec3
	r.units("direction", d[:])
	return d
}

func appendOrientation(b []byte, q mgl64.Quat) ([]byte, error) {
	return appendUnits(b, "orientation", []float64{q.W, q.V[0], q.V[1], q.V[2]})
}

func (r *reader) orientation() mgl64.Quat {
	var c [4]float64
	r.units("orientation", c[:])
	return mgl64.Quat{W: c[0], V: mgl64.Vec3{c[1], c[2], c[3]}}
}

// appendPoints appends hit points or damage as u16 hundredths.
func appendPoints(b []byte, field string, v float64) ([]byte, error) {
	if !geom.Finite(v) {
		return b, fmt.Errorf("%s %v: %w", field, v, ErrNotFinite)
	}
	c := math.Round(v / PointsStep)
	if c < 0 || c > math.MaxUint16 {
		return b, fmt.Errorf("%s %v outside 0…%g: %w", field, v, MaxPoints, ErrOutOfRange)
	}
	return binary.BigEndian.AppendUint16(b, uint16(c)), nil
}

func (r *reader) points() float64 { return float64(r.u16()) * PointsStep }

// appendShotRef appends the shooter, shot and target ids and the message's host time
// that HitClaim, HitResult and Destroy start with.
func appendShotRef(b []byte, shooter ActorID, shot uint16, target ActorID, t float64) ([]byte, error) {
	if shooter == 0 || target == 0 {
		return b, fmt.Errorf("shooter or target 0: %w", ErrInvalid)
	}
	b = binary.BigEndian.AppendUint16(b, uint16(shooter))
	b = binary.BigEndian.AppendUint16(b, shot)
	b = binary.BigEndian.AppendUint16(b, uint16(target))
	return appendClock(b, "time", t)
}

// shotRef reads what appendShotRef wrote.
func (r *reader) shotRef() (shooter ActorID, shot uint16, target ActorID, t float64) {
	shooter, shot, target = ActorID(r.u16()), r.u16(), ActorID(r.u16())
	t = decodeClock(r, "time")
	if r.err == nil && (shooter == 0 || target == 0) {
		r.fail(fmt.Errorf("shooter or target 0: %w", ErrInvalid))
	}
	return shooter, shot, target, t
}
