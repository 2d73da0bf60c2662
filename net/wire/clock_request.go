package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/treadline/treadline/internal/geom"
)

// MaxClockTime bounds clock sync times, seconds: |t| ≤ 2⁴³ µs (about 101 days), so
// that whole microseconds survive the trip through float64 seconds exactly. Peers
// count time from their own start, not from 1970.
const MaxClockTime = maxClockMicros * ClockMicrosStep

const maxClockMicros = 1 << 43

// ClockMicrosStep is the resolution of clock sync timestamps, 1 µs.
const ClockMicrosStep = 1e-6

func encodeClock(field string, t float64) (int64, error) {
	if !geom.Finite(t) {
		return 0, fmt.Errorf("%s %v: %w", field, t, ErrNotFinite)
	}
	us := math.Round(t / ClockMicrosStep)
	if math.Abs(us) > maxClockMicros {
		return 0, fmt.Errorf("%s %v s: %w", field, t, ErrOutOfRange)
	}
	return int64(us), nil
}

func decodeClock(r *reader, field string) float64 {
	us := int64(r.u64())
	if r.err == nil && (us > maxClockMicros || us < -maxClockMicros) {
		r.fail(fmt.Errorf("%s %d µs: %w", field, us, ErrOutOfRange))
	}
	return float64(us) * ClockMicrosStep
}

// clockRequestSize is the encoded size of a ClockRequest.
const clockRequestSize = HeaderSize + 8

// ClockRequest asks the host for its clock. Layout: header, client send time i64 (µs
// on the client's clock): 10 bytes. Send it as a datagram: a retransmitted request
// only adds round-trip time, which the clock filter then discards.
type ClockRequest struct {
	// ClientSend is the client's local time in seconds when it sent the request.
	ClientSend float64
}

// Type returns MsgClockRequest.
func (m *ClockRequest) Type() MsgType { return MsgClockRequest }

// Length returns the encoded size, 10 bytes.
func (m *ClockRequest) Length() int { return clockRequestSize }

// Append appends the encoded message.
func (m *ClockRequest) Append(b []byte) ([]byte, error) {
	us, err := encodeClock("client send time", m.ClientSend)
	if err != nil {
		return b, fmt.Errorf("wire: clock request: %w", err)
	}
	b = appendHeader(b, MsgClockRequest)
	return binary.BigEndian.AppendUint64(b, uint64(us)), nil
}

func parseClockRequest(b []byte) (*ClockRequest, int, error) {
	if err := checkHeader(b, MsgClockRequest); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "clock request"}
	m := &ClockRequest{ClientSend: decodeClock(&r, "client send time")}
	if r.err != nil {
		return nil, 0, r.err
	}
	return m, r.off, nil
}
