package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Stream framing: on a reliable byte stream each message is preceded by its length.
const (
	// FrameHeaderSize is the length prefix: u16, big-endian, the message's size.
	FrameHeaderSize = 2
	// MaxFrameSize is the largest message a frame may hold, bytes. Control
	// messages are far smaller; a longer frame is refused with ErrTooLong.
	MaxFrameSize = 1024
)

// AppendFrame appends m to b preceded by its length, for writing to a stream. On
// error b is returned unchanged.
func AppendFrame(b []byte, m Message) ([]byte, error) {
	n := m.Length()
	if n > MaxFrameSize {
		return b, fmt.Errorf("wire: frame for %v: %d bytes, limit %d: %w", m.Type(), n, MaxFrameSize, ErrTooLong)
	}
	out := binary.BigEndian.AppendUint16(b, uint16(n))
	out, err := m.Append(out)
	if err != nil {
		return b, err
	}
	if got := len(out) - len(b) - FrameHeaderSize; got != n {
		panic(fmt.Sprintf("wire: %v: Length %d but Append wrote %d bytes", m.Type(), n, got))
	}
	return out, nil
}

// FrameReader reads framed messages from a stream, reusing one buffer. Not safe for
// concurrent use.
type FrameReader struct {
	r   io.Reader
	buf [MaxFrameSize]byte
}

// NewFrameReader returns a reader of the framed messages on r.
func NewFrameReader(r io.Reader) *FrameReader { return &FrameReader{r: r} }

// Next reads and parses the next message. At a clean end of stream between frames
// it returns io.EOF; a stream ending inside a frame gives io.ErrUnexpectedEOF; a
// frame longer than MaxFrameSize gives ErrTooLong. After those, and any read error,
// the stream is broken. A whole frame whose message does not parse, or does not fill
// the frame exactly, gives an error wrapping ErrBadMessage as well as the cause
// (ErrVersion, ErrInvalid, …): only that message is lost, and Next may be called
// again. The message never aliases the reader's buffer.
func (f *FrameReader) Next() (Message, error) {
	var hdr [FrameHeaderSize]byte
	if _, err := io.ReadFull(f.r, hdr[:]); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, io.EOF
		}
		return nil, fmt.Errorf("wire: read frame length: %w", err)
	}
	n := int(binary.BigEndian.Uint16(hdr[:]))
	if n > MaxFrameSize {
		return nil, fmt.Errorf("wire: frame of %d bytes, limit %d: %w", n, MaxFrameSize, ErrTooLong)
	}
	body := f.buf[:n]
	if _, err := io.ReadFull(f.r, body); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("wire: read frame of %d bytes: %w", n, err)
	}
	m, used, err := Parse(body)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadMessage, err)
	}
	if used != n {
		return nil, fmt.Errorf("%w: frame of %d bytes holds a %d-byte %v: %w", ErrBadMessage, n, used, m.Type(), ErrInvalid)
	}
	return m, nil
}
