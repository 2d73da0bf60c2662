package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// Quantization of state fields. Positions are rejected when out of range (saturating
// them would move the actor); velocities, accelerations and rates saturate at the ends
// of their ranges, which the doc of each step states. Every decoded value lies inside
// its range by construction. Worst-case round-trip errors are half a step, except
// where noted.
const (
	// PositionStep is the position quantum, 1 mm. Positions are relative to the map
	// origin (the world origin).
	PositionStep = 0.001
	// MaxHorizontal is the largest |x| and |z| a position may have, meters: 24-bit
	// signed millimetres cover [−8388.608, 8388.607] m.
	MaxHorizontal = 8388.607
	// MaxHeight is the largest |y| a position may have, meters: 22-bit signed
	// millimetres cover [−2097.152, 2097.151] m.
	MaxHeight = 2097.151

	// VelocityStep is the velocity quantum, 1/64 m/s. 12 bits per axis cover
	// [−32, 31.984375] m/s; faster values saturate.
	VelocityStep = 1.0 / 64
	// MaxVelocity is the largest velocity component carried without saturation, m/s.
	MaxVelocity = 2047 * VelocityStep

	// AccelerationStep is the acceleration quantum, 1/8 m/s². 9 bits per axis cover
	// [−32, 31.875] m/s²; larger values saturate.
	AccelerationStep = 1.0 / 8
	// MaxAcceleration is the largest acceleration component carried without
	// saturation, m/s².
	MaxAcceleration = 255 * AccelerationStep

	// AngularVelocityStep is the angular velocity quantum, 1/64 rad/s. 9 bits per axis
	// cover [−4, 3.984375] rad/s; faster rotation saturates.
	AngularVelocityStep = 1.0 / 64
	// MaxAngularVelocity is the largest angular velocity component carried without
	// saturation, rad/s.
	MaxAngularVelocity = 255 * AngularVelocityStep

	// OrientationBits is the width of each of the three smallest quaternion
	// components; with the 2-bit index of the largest an orientation takes 32 bits.
	OrientationBits = 10
	// MaxOrientationError is the worst-case angle, in radians, between an
	// orientation and its decoded value: each component is off by at most half a
	// step h = (√2/2)/1022, the rebuilt largest by at most 3h (to first order), so
	// the quaternion moves by at most √12·h and the rotation by twice that, √48·h ≈
	// 0.0048 rad (0.27°). The measured worst case is in PROTOCOL.md.
	MaxOrientationError = 4 * sqrt3 * quatStep / 2

	// AngleStep is the articulation angle quantum, 2π/65536 rad (0.0055°). Angles
	// wrap; they decode into [−π, π).
	AngleStep = 2 * math.Pi / 65536
	// ArticulationRateStep is the articulation rate quantum, 1/1024 rad/s. 16 bits
	// cover [−32, 31.999] rad/s; faster joints saturate.
	ArticulationRateStep = 1.0 / 1024

	// TimeStep is the owner timestamp quantum, 1 ms.
	TimeStep = 0.001
	// TimeWrap is the period after which timestamps wrap, seconds (2³² ms, about
	// 49.7 days). Owner clocks are seconds since the owner started, never negative.
	TimeWrap = 4294967.296
)

const sqrt3 = 1.73205080756887729352744634150587236694280525381038062805580697945

// Bit widths of the packed kinematic block.
const (
	bitsHorizontal = 24
	bitsHeight     = 22
	bitsVelocity   = 12
	bitsAccel      = 9
	bitsAngVel     = 9
	bitsQuatIndex  = 2
	// kinematicsSize is the packed kinematic block: 192 bits.
	kinematicsSize = 24
)

// bitPacker packs fields most significant bit first into three 64-bit words.
type bitPacker struct {
	w   [3]uint64
	pos uint
}

func (p *bitPacker) put(v uint64, n uint) {
	v &= 1<<n - 1
	i, off := p.pos/64, p.pos%64
	if off+n <= 64 {
		p.w[i] |= v << (64 - off - n)
	} else {
		hi := off + n - 64 // bits spilling into the next word
		p.w[i] |= v >> hi
		p.w[i+1] |= v << (64 - hi)
	}
	p.pos += n
}

func (p *bitPacker) putSigned(v int64, n uint) { p.put(uint64(v), n) }

func (p *bitPacker) get(n uint) uint64 {
	i, off := p.pos/64, p.pos%64
	var v uint64
	if off+n <= 64 {
		v = p.w[i] >> (64 - off - n)
	} else {
		hi := off + n - 64
		v = p.w[i]<<hi | p.w[i+1]>>(64-hi)
	}
	p.pos += n
	return v & (1<<n - 1)
}

func (p *bitPacker) getSigned(n uint) int64 {
	v := p.get(n)
	return int64(v<<(64-n)) >> (64 - n) // sign-extend
}

// saturate returns round(v/step) clamped to the n-bit signed range.
func saturate(v, step float64, n uint) int64 {
	lim := float64(int64(1) << (n - 1))
	q := math.Round(v / step)
	if q < -lim {
		q = -lim
	} else if q > lim-1 {
		q = lim - 1
	}
	return int64(q)
}

// encodeTime turns an owner time in seconds into wrapping milliseconds.
func encodeTime(t float64) (uint32, error) {
	if !geom.Finite(t) {
		return 0, fmt.Errorf("time %v: %w", t, ErrNotFinite)
	}
	if t < 0 {
		return 0, fmt.Errorf("time %v s is negative: %w", t, ErrOutOfRange)
	}
	return uint32(math.Mod(math.Round(t/TimeStep), 1<<32)), nil
}

func decodeTime(ms uint32) float64 { return float64(ms) * TimeStep }

// encodeAngle wraps a finite angle to 16 bits.
func encodeAngle(a float64) uint16 {
	q := math.Round(math.Remainder(a, 2*math.Pi) / AngleStep) // in [−32768, 32768]
	return uint16(int32(q))                                   // 32768 wraps to −32768: the same angle
}

func decodeAngle(u uint16) float64 { return float64(int16(u)) * AngleStep }

// canonicalQuat returns q normalized, the identity for the zero quaternion, and an
// error for non-finite components.
func canonicalQuat(q mgl64.Quat) (mgl64.Quat, error) {
	if !geom.Finite(q.W) || !geom.FiniteVec(q.V) {
		return q, fmt.Errorf("orientation %v: %w", q, ErrNotFinite)
	}
	l := q.Len()
	if l == 0 {
		return mgl64.QuatIdent(), nil
	}
	if l < 1e-150 || l > 1e150 {
		return q, fmt.Errorf("orientation length %g: %w", l, ErrOutOfRange)
	}
	return mgl64.Quat{W: q.W / l, V: q.V.Mul(1 / l)}, nil
}

// quatComponents and fromComponents order a quaternion as x, y, z, w.
func quatComponents(q mgl64.Quat) [4]float64 { return [4]float64{q.V[0], q.V[1], q.V[2], q.W} }

func fromComponents(c [4]float64) mgl64.Quat {
	return mgl64.Quat{W: c[3], V: mgl64.Vec3{c[0], c[1], c[2]}}
}

// Each smallest-three component is k·quatStep for k in [−quatSteps, quatSteps], sent
// as k + quatSteps in OrientationBits bits; zero is exact, so a pure yaw stays one.
const (
	quatSteps = 511
	quatStep  = math.Sqrt2 / 2 / quatSteps
	// quatSlack is how far below another component the rebuilt largest one may fall
	// through quantization before the encoding is called non-canonical.
	quatSlack = 3 * quatStep
)

// packQuat writes the smallest-three encoding of the unit quaternion q: the 2-bit
// index (x, y, z, w) of its largest-magnitude component, then the other three, with
// the sign chosen so the largest is positive (q and −q are the same rotation).
func packQuat(p *bitPacker, q mgl64.Quat) {
	c := quatComponents(q)
	big := 0
	for i := 1; i < 4; i++ {
		if math.Abs(c[i]) > math.Abs(c[big]) {
			big = i
		}
	}
	sign := 1.0
	if c[big] < 0 {
		sign = -1
	}
	p.put(uint64(big), bitsQuatIndex)
	for i := 0; i < 4; i++ {
		if i == big {
			continue
		}
		k := max(-quatSteps, min(quatSteps, math.Round(sign*c[i]/quatStep)))
		p.put(uint64(k+quatSteps), OrientationBits)
	}
}

// unpackQuat reads a smallest-three quaternion. Codes past 2·quatSteps, components
// whose squares sum past 1, and a rebuilt largest component clearly smaller than
// another cannot come from packQuat and are rejected.
func unpackQuat(p *bitPacker) (mgl64.Quat, error) {
	big := int(p.get(bitsQuatIndex))
	var c [4]float64
	sum, most := 0.0, 0.0
	for i := 0; i < 4; i++ {
		if i == big {
			continue
		}
		u := int(p.get(OrientationBits))
		if u > 2*quatSteps {
			return mgl64.Quat{}, fmt.Errorf("orientation code %d: %w", u, ErrInvalid)
		}
		c[i] = float64(u-quatSteps) * quatStep
		sum += c[i] * c[i]
		most = max(most, math.Abs(c[i]))
	}
	if sum > 1 {
		return mgl64.Quat{}, fmt.Errorf("orientation components square-sum %.4f > 1: %w", sum, ErrInvalid)
	}
	c[big] = math.Sqrt(1 - sum)
	if c[big] < most-quatSlack {
		return mgl64.Quat{}, fmt.Errorf("orientation largest component %.4f < %.4f: %w", c[big], most, ErrInvalid)
	}
	return fromComponents(c).Normalize(), nil
}

// maxHorizontalMM and maxHeightMM are the largest position codes sent; the most
// negative codes of each width are left unused so that the range is symmetric.
const (
	maxHorizontalMM = 1<<(bitsHorizontal-1) - 1
	maxHeightMM     = 1<<(bitsHeight-1) - 1
)

// positionCodes returns the millimetre codes of p, or an error when p is not finite
// or outside ±MaxHorizontal, ±MaxHeight, ±MaxHorizontal after rounding.
func positionCodes(p mgl64.Vec3) (x, y, z int64, err error) {
	if !geom.FiniteVec(p) {
		return 0, 0, 0, fmt.Errorf("position %v: %w", p, ErrNotFinite)
	}
	fx, fy, fz := math.Round(p[0]/PositionStep), math.Round(p[1]/PositionStep), math.Round(p[2]/PositionStep)
	if math.Abs(fx) > maxHorizontalMM || math.Abs(fz) > maxHorizontalMM || math.Abs(fy) > maxHeightMM {
		return 0, 0, 0, fmt.Errorf("position %v outside ±%g m horizontally, ±%g m vertically: %w", p, MaxHorizontal, MaxHeight, ErrOutOfRange)
	}
	return int64(fx), int64(fy), int64(fz), nil
}

// kinematicCodes validates the fields of s that the kinematic block carries and
// returns the position codes.
func kinematicCodes(s *deadreckon.State) (pos [3]int64, err error) {
	if !geom.FiniteVec(s.Velocity) || !geom.FiniteVec(s.Acceleration) || !geom.FiniteVec(s.AngularVelocity) {
		return pos, fmt.Errorf("kinematic state: %w", ErrNotFinite)
	}
	pos[0], pos[1], pos[2], err = positionCodes(s.Position)
	return pos, err
}

// appendKinematics appends the 24-byte packed block for position (as codes from
// kinematicCodes), orientation, velocity, acceleration and angular velocity.
func appendKinematics(b []byte, pos [3]int64, s *deadreckon.State, q mgl64.Quat) []byte {
	var p bitPacker
	p.putSigned(pos[0], bitsHorizontal)
	p.putSigned(pos[1], bitsHeight)
	p.putSigned(pos[2], bitsHorizontal)
	packQuat(&p, q)
	for i := 0; i < 3; i++ {
		p.putSigned(saturate(s.Velocity[i], VelocityStep, bitsVelocity), bitsVelocity)
	}
	for i := 0; i < 3; i++ {
		p.putSigned(saturate(s.Acceleration[i], AccelerationStep, bitsAccel), bitsAccel)
	}
	for i := 0; i < 3; i++ {
		p.putSigned(saturate(s.AngularVelocity[i], AngularVelocityStep, bitsAngVel), bitsAngVel)
	}
	for _, w := range p.w {
		b = binary.BigEndian.AppendUint64(b, w)
	}
	return b
}

// parseKinematics reads the packed block into s.
func parseKinematics(r *reader, s *deadreckon.State) {
	if !r.need(kinematicsSize) {
		return
	}
	var p bitPacker
	for i := range p.w {
		p.w[i] = r.u64()
	}
	x, y, z := p.getSigned(bitsHorizontal), p.getSigned(bitsHeight), p.getSigned(bitsHorizontal)
	if x == -1<<(bitsHorizontal-1) || y == -1<<(bitsHeight-1) || z == -1<<(bitsHorizontal-1) {
		// The most negative codes lie 1 mm past the symmetric range the encoder accepts.
		r.fail(fmt.Errorf("position code (%d, %d, %d): %w", x, y, z, ErrOutOfRange))
		return
	}
	s.Position = mgl64.Vec3{float64(x) * PositionStep, float64(y) * PositionStep, float64(z) * PositionStep}
	q, err := unpackQuat(&p)
	if err != nil {
		r.fail(err)
		return
	}
	s.Orientation = q
	for i := 0; i < 3; i++ {
		s.Velocity[i] = float64(p.getSigned(bitsVelocity)) * VelocityStep
	}
	for i := 0; i < 3; i++ {
		s.Acceleration[i] = float64(p.getSigned(bitsAccel)) * AccelerationStep
	}
	for i := 0; i < 3; i++ {
		s.AngularVelocity[i] = float64(p.getSigned(bitsAngVel)) * AngularVelocityStep
	}
}

// articulationSize is one articulation on the wire: angle and rate, 16 bits each.
const articulationSize = 4

// checkArticulations validates the articulations of s.
func checkArticulations(s *deadreckon.State) error {
	if s.NumArticulations < 0 || s.NumArticulations > deadreckon.MaxArticulations {
		return fmt.Errorf("%d articulations, limit %d: %w", s.NumArticulations, deadreckon.MaxArticulations, ErrOutOfRange)
	}
	for i := 0; i < s.NumArticulations; i++ {
		a := s.Articulations[i]
		if !geom.Finite(a.Angle) || !geom.Finite(a.Rate) {
			return fmt.Errorf("articulation %d: %w", i, ErrNotFinite)
		}
	}
	return nil
}

// appendArticulations appends the count byte and each angle and rate.
func appendArticulations(b []byte, s *deadreckon.State) []byte {
	b = append(b, byte(s.NumArticulations))
	for i := 0; i < s.NumArticulations; i++ {
		a := s.Articulations[i]
		b = binary.BigEndian.AppendUint16(b, encodeAngle(a.Angle))
		b = binary.BigEndian.AppendUint16(b, uint16(saturate(a.Rate, ArticulationRateStep, 16)))
	}
	return b
}

// parseArticulations reads the count byte and the articulations into s.
func parseArticulations(r *reader, s *deadreckon.State) {
	n := int(r.u8())
	if r.err != nil {
		return
	}
	if n > deadreckon.MaxArticulations {
		r.fail(fmt.Errorf("%d articulations, limit %d: %w", n, deadreckon.MaxArticulations, ErrOutOfRange))
		return
	}
	if !r.need(n * articulationSize) {
		return
	}
	s.NumArticulations = n
	for i := 0; i < n; i++ {
		s.Articulations[i].Angle = decodeAngle(r.u16())
		s.Articulations[i].Rate = float64(int16(r.u16())) * ArticulationRateStep
	}
}

// QuantSlack is the length of a vector of half-steps on three axes, in steps: the
// most the wire's rounding adds to a vector's length (times its step).
const QuantSlack = 0.8660254037844386 // √3 / 2

// WidenLimits returns l widened by what the wire's rounding may add to a state at
// its bounds, for checking states that came over the wire: a velocity, acceleration
// or angular velocity at its length limit comes back up to half a step longer on
// each axis, and a joint's rate a step faster (a tank turning at exactly 3 rad/s
// arrives at up to 3.014 rad/s). Zero and Off fields stay as they are.
func WidenLimits(l deadreckon.Limits) deadreckon.Limits {
	widen := func(v, by float64) float64 {
		if v > 0 {
			return v + by
		}
		return v
	}
	l.MaxSpeed = widen(l.MaxSpeed, QuantSlack*VelocityStep)
	l.MaxAcceleration = widen(l.MaxAcceleration, QuantSlack*AccelerationStep)
	l.MaxAngularSpeed = widen(l.MaxAngularSpeed, QuantSlack*AngularVelocityStep)
	l.MaxArticulationRate = widen(l.MaxArticulationRate, ArticulationRateStep)
	return l
}
