package dis

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// The protocol versions this package reads and writes (the header's first byte).
const (
	// Version6 is IEEE 1278.1a-1998.
	Version6 uint8 = 6
	// Version7 is IEEE 1278.1-2012.
	Version7 uint8 = 7
)

// HeaderSize is the size of the PDU header, bytes: version, exercise, type, family,
// timestamp u32, length u16 and two bytes of status and padding.
const HeaderSize = 12

// PDUType is the header's PDU type byte.
type PDUType uint8

// The PDU types this package speaks.
const (
	// TypeEntityState is the Entity State PDU (family 1, entity information).
	TypeEntityState PDUType = 1
	// TypeRemoveEntity is the Remove Entity PDU (family 5, simulation management).
	TypeRemoveEntity PDUType = 12
)

// The protocol families of the PDU types.
const (
	// FamilyEntityInformation is Entity State's family.
	FamilyEntityInformation uint8 = 1
	// FamilySimulationManagement is Remove Entity's family.
	FamilySimulationManagement uint8 = 5
)

// String names the type: "entity state", "remove entity" or "PDUType(n)".
func (t PDUType) String() string {
	switch t {
	case TypeEntityState:
		return "entity state"
	case TypeRemoveEntity:
		return "remove entity"
	}
	return fmt.Sprintf("PDUType(%d)", uint8(t))
}

// Errors a parse or an Append returns; truncated input is io.EOF.
var (
	// ErrLength: the header's length disagrees with the PDU's content.
	ErrLength = errors.New("dis: length field disagrees with the PDU")
	// ErrUnknownType: a PDU type (or family) this package does not speak.
	ErrUnknownType = errors.New("dis: unknown PDU type")
	// ErrVersion: a protocol version other than 6 or 7.
	ErrVersion = errors.New("dis: unknown protocol version")
	// ErrInvalid: a NaN, infinite or absurd value, or a field out of range.
	ErrInvalid = errors.New("dis: invalid value")
)

// Reason returns the drop reason for counting a PDU refused with err: "truncated",
// "length", "type", "version", "invalid", or "other".
func Reason(err error) string {
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return "truncated"
	case errors.Is(err, ErrLength):
		return "length"
	case errors.Is(err, ErrUnknownType):
		return "type"
	case errors.Is(err, ErrVersion):
		return "version"
	case errors.Is(err, ErrInvalid):
		return "invalid"
	}
	return "other"
}

// Header is a PDU's header.
type Header struct {
	// Version is the protocol version, Version6 or Version7.
	Version uint8
	// Exercise is the exercise id; PDUs of other exercises are someone else's.
	Exercise uint8
	// Type is the PDU type.
	Type PDUType
	// Family is the protocol family.
	Family uint8
	// Timestamp is DIS time: units of 3600/2³¹ s past the hour in the top 31 bits,
	// the low bit 1 for absolute (clock-synchronised) time, 0 for relative.
	Timestamp uint32
	// Length is the whole PDU's size, bytes.
	Length uint16
}

// PDU is a decoded PDU.
type PDU interface {
	// Type returns the PDU type.
	Type() PDUType
	// Length returns the encoded size, bytes.
	Length() int
	// Append appends the encoded PDU to b, or returns an error for a PDU that cannot
	// be encoded (b unchanged).
	Append(b []byte) ([]byte, error)
}

// ParseHeader reads a PDU header from b; io.EOF when b is shorter than a header,
// ErrVersion for an unknown version. It does not check the length against b.
func ParseHeader(b []byte) (Header, error) {
	if len(b) < HeaderSize {
		return Header{}, io.EOF
	}
	h := Header{
		Version:   b[0],
		Exercise:  b[1],
		Type:      PDUType(b[2]),
		Family:    b[3],
		Timestamp: binary.BigEndian.Uint32(b[4:]),
		Length:    binary.BigEndian.Uint16(b[8:]),
	}
	if h.Version != Version6 && h.Version != Version7 {
		return h, fmt.Errorf("version %d: %w", h.Version, ErrVersion)
	}
	return h, nil
}

// appendHeader appends h.
func appendHeader(b []byte, h Header) []byte {
	b = append(b, h.Version, h.Exercise, uint8(h.Type), h.Family)
	b = binary.BigEndian.AppendUint32(b, h.Timestamp)
	b = binary.BigEndian.AppendUint16(b, h.Length)
	return append(b, 0, 0)
}

// checkVersion returns ErrVersion unless v is 6 or 7.
func checkVersion(v uint8) error {
	if v != Version6 && v != Version7 {
		return fmt.Errorf("version %d: %w", v, ErrVersion)
	}
	return nil
}

// Parse decodes the PDU at the start of b and returns it with its length. A prefix
// of a valid PDU is io.EOF; see the package comment for the other errors. The PDU
// shares no memory with b.
func Parse(b []byte) (PDU, int, error) {
	h, err := ParseHeader(b)
	if err != nil {
		return nil, 0, err
	}
	switch h.Type {
	case TypeEntityState:
		if h.Family != FamilyEntityInformation {
			return nil, 0, fmt.Errorf("entity state in family %d: %w", h.Family, ErrUnknownType)
		}
		es, n, err := parseEntityState(b, h)
		if err != nil {
			return nil, 0, err
		}
		return es, n, nil
	case TypeRemoveEntity:
		if h.Family != FamilySimulationManagement {
			return nil, 0, fmt.Errorf("remove entity in family %d: %w", h.Family, ErrUnknownType)
		}
		re, n, err := parseRemoveEntity(b, h)
		if err != nil {
			return nil, 0, err
		}
		return re, n, nil
	}
	return nil, 0, fmt.Errorf("%v: %w", h.Type, ErrUnknownType)
}

// timeUnit is one DIS timestamp unit, s: an hour over 2³¹.
const timeUnit = 3600.0 / (1 << 31)

// Timestamp returns the DIS timestamp of t seconds (taken past the hour, modulo an
// hour), absolute when abs is set.
func Timestamp(t float64, abs bool) uint32 {
	if !(t == t) || math.IsInf(t, 0) {
		t = 0
	}
	t = math.Mod(t, 3600)
	if t < 0 {
		t += 3600
	}
	u := uint32(t/timeUnit) & 0x7fffffff
	ts := u << 1
	if abs {
		ts |= 1
	}
	return ts
}

// TimestampSeconds returns the seconds past the hour of DIS timestamp ts and whether
// it is absolute.
func TimestampSeconds(ts uint32) (float64, bool) {
	return float64(ts>>1) * timeUnit, ts&1 == 1
}
