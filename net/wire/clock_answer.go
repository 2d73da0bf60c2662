package wire

import (
	"encoding/binary"
	"fmt"
)

// clockAnswerSize is the encoded size of a ClockAnswer.
const clockAnswerSize = HeaderSize + 3*8

// ClockAnswer answers a ClockRequest. Layout: header, client send time i64 (echoed),
// host receive time i64, host send time i64 (µs): 26 bytes. The two host times let
// the client subtract the host's own delay from the round trip (see package clock).
type ClockAnswer struct {
	// ClientSend is the request's ClientSend, echoed, seconds on the client's clock.
	ClientSend float64
	// HostReceive is the host's time in seconds when the request arrived.
	HostReceive float64
	// HostSend is the host's time in seconds when it sent the answer
	// (≥ HostReceive).
	HostSend float64
}

// Type returns MsgClockAnswer.
func (m *ClockAnswer) Type() MsgType { return MsgClockAnswer }

// Length returns the encoded size, 26 bytes.
func (m *ClockAnswer) Length() int { return clockAnswerSize }

// Append appends the encoded message.
func (m *ClockAnswer) Append(b []byte) ([]byte, error) {
	c, err := encodeClock("client send time", m.ClientSend)
	if err != nil {
		return b, fmt.Errorf("wire: clock answer: %w", err)
	}
	hr, err := encodeClock("host receive time", m.HostReceive)
	if err != nil {
		return b, fmt.Errorf("wire: clock answer: %w", err)
	}
	hs, err := encodeClock("host send time", m.HostSend)
	if err != nil {
		return b, fmt.Errorf("wire: clock answer: %w", err)
	}
	if hs < hr {
		return b, fmt.Errorf("wire: clock answer: host sent before it received: %w", ErrInvalid)
	}
	b = appendHeader(b, MsgClockAnswer)
	b = binary.BigEndian.AppendUint64(b, uint64(c))
	b = binary.BigEndian.AppendUint64(b, uint64(hr))
	return binary.BigEndian.AppendUint64(b, uint64(hs)), nil
}

func parseClockAnswer(b []byte) (*ClockAnswer, int, error) {
	if err := checkHeader(b, MsgClockAnswer); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "clock answer"}
	m := &ClockAnswer{}
	m.ClientSend = decodeClock(&r, "client send time")
	m.HostReceive = decodeClock(&r, "host receive time")
	m.HostSend = decodeClock(&r, "host send time")
	if r.err != nil {
		return nil, 0, r.err
	}
	if m.HostSend < m.HostReceive {
		return nil, 0, fmt.Errorf("wire: clock answer: host sent before it received: %w", ErrInvalid)
	}
	return m, r.off, nil
}
