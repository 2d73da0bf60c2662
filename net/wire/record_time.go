package wire

import (
	"encoding/binary"
	"fmt"
	"io"
)

// SetRecordTime rewrites the owner timestamp of the encoded update record rec (as
// BatchReader.Record returns it, copied) to t seconds, leaving every other byte as
// it was: how a host relays a record unchanged but for a timestamp it had to clamp.
func SetRecordTime(rec []byte, t float64) error {
	if len(rec) < UpdateHeaderSize {
		return fmt.Errorf("wire: update record of %d bytes: %w", len(rec), io.ErrUnexpectedEOF)
	}
	ms, err := encodeTime(t)
	if err != nil {
		return fmt.Errorf("wire: update record: %w", err)
	}
	binary.BigEndian.PutUint32(rec[4:UpdateHeaderSize], ms)
	return nil
}
