package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"github.com/treadline/treadline/internal/geom"
)

// TokenSize is the size of a reconnect token.
const TokenSize = 16

// JoinAccepted admits a player and tells it the match settings. Layout: header,
// player u16, reconnect token [16], tick rate u16 (Hz), heartbeat u32 (ms), map
// extent u32 (mm), map seed u64, map name (u8 length, UTF-8, ≤ MaxMapNameLen):
// 39 + len(name) bytes.
type JoinAccepted struct {
	// Player is the id the host gave the new player (never 0).
	Player PlayerID
	// Token is the player's reconnect token: random, never all zero, known only to
	// the host and this player. A later JoinRequest for the same name that presents
	// it may take the name over from a connection that went silent or died, at once;
	// without it the name stays with its holder until that player leaves.
	Token [TokenSize]byte
	// TickRate is the host's simulation rate in ticks per second (1…1000).
	TickRate uint16
	// Heartbeat is the longest time in seconds an owner goes without publishing a
	// full update; receivers call an actor stale after 2.4 heartbeats. Sent in ms,
	// it must lie in [0.001, 3600] s.
	Heartbeat float64
	// MapExtent is the half-width of the square map in meters: the map spans
	// [−MapExtent, MapExtent] in x and z. Sent in mm; at most MaxHorizontal.
	MapExtent float64
	// MapSeed seeds the terrain generator for the map; zero when the map is a file.
	MapSeed uint64
	// MapName names the map.
	MapName string
}

// Type returns MsgJoinAccepted.
func (m *JoinAccepted) Type() MsgType { return MsgJoinAccepted }

// Length returns the encoded size in bytes.
func (m *JoinAccepted) Length() int {
	return HeaderSize + 2 + TokenSize + 2 + 4 + 4 + 8 + 1 + len(m.MapName)
}

const maxHeartbeat = 3600

// Append appends the encoded message.
func (m *JoinAccepted) Append(b []byte) ([]byte, error) {
	if err := m.check(); err != nil {
		return b, err
	}
	b = appendHeader(b, MsgJoinAccepted)
	b = binary.BigEndian.AppendUint16(b, uint16(m.Player))
	b = append(b, m.Token[:]...)
	b = binary.BigEndian.AppendUint16(b, m.TickRate)
	b = binary.BigEndian.AppendUint32(b, uint32(math.Round(m.Heartbeat*1000)))
	b = binary.BigEndian.AppendUint32(b, uint32(math.Round(m.MapExtent/PositionStep)))
	b = binary.BigEndian.AppendUint64(b, m.MapSeed)
	return appendString(b, m.MapName), nil
}

func (m *JoinAccepted) check() error {
	switch {
	case m.Player == 0:
		return fmt.Errorf("wire: join accepted: player 0: %w", ErrInvalid)
	case m.Token == [TokenSize]byte{}:
		return fmt.Errorf("wire: join accepted: zero reconnect token: %w", ErrInvalid)
	case m.TickRate == 0 || m.TickRate > 1000:
		return fmt.Errorf("wire: join accepted: tick rate %d Hz not in [1, 1000]: %w", m.TickRate, ErrOutOfRange)
	case !geom.Finite(m.Heartbeat) || !geom.Finite(m.MapExtent):
		return fmt.Errorf("wire: join accepted: heartbeat %v, extent %v: %w", m.Heartbeat, m.MapExtent, ErrNotFinite)
	case m.Heartbeat < TimeStep || m.Heartbeat > maxHeartbeat:
		return fmt.Errorf("wire: join accepted: heartbeat %v s not in [0.001, %d]: %w", m.Heartbeat, maxHeartbeat, ErrOutOfRange)
	case m.MapExtent < PositionStep || m.MapExtent > MaxHorizontal:
		return fmt.Errorf("wire: join accepted: map extent %v m not in [0.001, %v]: %w", m.MapExtent, MaxHorizontal, ErrOutOfRange)
	}
	return checkField("map name", m.MapName, MaxMapNameLen)
}

func parseJoinAccepted(b []byte) (*JoinAccepted, int, error) {
	if err := checkHeader(b, MsgJoinAccepted); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "join accepted"}
	m := &JoinAccepted{}
	m.Player = PlayerID(r.u16())
	r.bytes(m.Token[:])
	m.TickRate = r.u16()
	m.Heartbeat = float64(r.u32()) * TimeStep
	m.MapExtent = float64(r.u32()) * PositionStep
	m.MapSeed = r.u64()
	m.MapName = r.str("map name", MaxMapNameLen)
	if r.err != nil {
		return nil, 0, r.err
	}
	if err := m.check(); err != nil {
		return nil, 0, err
	}
	return m, r.off, nil
}
