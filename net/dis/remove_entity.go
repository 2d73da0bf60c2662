package dis

import (
	"encoding/binary"
	"fmt"
	"io"
)

// RemoveEntitySize is the size of a Remove Entity PDU, bytes.
const RemoveEntitySize = 28

// RemoveEntity is the Remove Entity PDU: the originator asks the receiver to remove
// an entity. Layout: header 12, originating entity id 6, receiving entity id 6,
// request id u32: 28 bytes. Treadline reads the receiving id as the entity removed
// and sends the entity's own id there.
type RemoveEntity struct {
	// Version is the protocol version, Version6 or Version7.
	Version uint8
	// Exercise is the exercise id.
	Exercise uint8
	// Timestamp is the DIS timestamp (see Header).
	Timestamp uint32
	// Originator is the simulation asking; Receiver the entity to remove.
	Originator, Receiver EntityID
	// Request is the request id, echoed by an acknowledgement.
	Request uint32
}

// Type returns TypeRemoveEntity.
func (p *RemoveEntity) Type() PDUType { return TypeRemoveEntity }

// Length returns the encoded size, 28 bytes.
func (p *RemoveEntity) Length() int { return RemoveEntitySize }

// Append appends the encoded PDU, or returns ErrVersion with b unchanged.
func (p *RemoveEntity) Append(b []byte) ([]byte, error) {
	if err := checkVersion(p.Version); err != nil {
		return b, err
	}
	b = appendHeader(b, Header{Version: p.Version, Exercise: p.Exercise, Type: TypeRemoveEntity,
		Family: FamilySimulationManagement, Timestamp: p.Timestamp, Length: RemoveEntitySize})
	b = appendEntityID(b, p.Originator)
	b = appendEntityID(b, p.Receiver)
	return binary.BigEndian.AppendUint32(b, p.Request), nil
}

// parseRemoveEntity decodes a Remove Entity PDU whose header h has been read from b.
func parseRemoveEntity(b []byte, h Header) (*RemoveEntity, int, error) {
	if h.Length != RemoveEntitySize {
		if len(b) < RemoveEntitySize {
			return nil, 0, io.EOF
		}
		return nil, 0, fmt.Errorf("remove entity: length %d: %w", h.Length, ErrLength)
	}
	if len(b) < RemoveEntitySize {
		return nil, 0, io.EOF
	}
	return &RemoveEntity{
		Version: h.Version, Exercise: h.Exercise, Timestamp: h.Timestamp,
		Originator: parseEntityID(b[12:]), Receiver: parseEntityID(b[18:]),
		Request: binary.BigEndian.Uint32(b[24:]),
	}, RemoveEntitySize, nil
}
