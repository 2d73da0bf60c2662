package record

import (
	"encoding/json"
	"fmt"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// Perspective says whose view of the match a recording holds.
type Perspective string

const (
	// Host is a host's view: what it accepted and relayed, with its arrival times, and
	// the truth of the tanks it simulates (its bots, its player's tank).
	Host Perspective = "host"
	// Client is a player's view: what it received, with its arrival times, what it
	// published, and the truth of the tanks it simulates (its own tank; in practice
	// also the in-process host's bots).
	Client Perspective = "client"
)

// Meta is the match's metadata, stored as JSON in the header. It holds no secret:
// no passphrase, no proof, no token. Every field may be zero.
type Meta struct {
	// Format and Protocol are the versions the file was written with; a Writer fills
	// them in.
	Format   uint8 `json:"format"`
	Protocol uint8 `json:"protocol"`
	// Perspective is whose view this is.
	Perspective Perspective `json:"perspective"`
	// Program names what wrote the file (for example "tanks" or "tankhost").
	Program string `json:"program,omitempty"`
	// Started is when the recording began, RFC 3339, as the recorder's wall clock said.
	Started string `json:"started,omitempty"`
	// Map is the map's name; MapSeed its generator seed (0 for a map file); Extent
	// its half-width, m.
	Map     string  `json:"map"`
	MapSeed uint64  `json:"map_seed,omitempty"`
	Extent  float64 `json:"extent_m,omitempty"`
	// TickRate is the host's simulation rate, Hz; Heartbeat the longest gap between an
	// owner's updates, s.
	TickRate  float64 `json:"tick_rate_hz,omitempty"`
	Heartbeat float64 `json:"heartbeat_s,omitempty"`
	// Recorder is the recording player's name and Player its player id (0: the host's
	// own player). The recorder's own tanks are the actors this player owns.
	Recorder string `json:"recorder,omitempty"`
	Player   uint32 `json:"player"`
	// Rules are the rules of combat in force, as the game encodes them (JSON).
	Rules json.RawMessage `json:"rules,omitempty"`
	// DeadReckoning is the dead reckoning in force when the recording began: how the
	// recorder's tanks publish and how it reckoned remote ones.
	DeadReckoning deadreckon.PublisherConfig `json:"dead_reckoning"`
	// Link describes an impairment added to the recorder's link (practice, -lag):
	// latency and jitter, s, and loss, 0..1.
	Link *LinkMeta `json:"link,omitempty"`
}

// LinkMeta describes the impairment of the recorder's link.
type LinkMeta struct {
	// Latency and Jitter are the one-way delay and its deviation, s; Loss the share
	// of packets lost, 0..1.
	Latency float64 `json:"latency_s"`
	Jitter  float64 `json:"jitter_s"`
	Loss    float64 `json:"loss"`
}

// encode returns m as the header's JSON, with the versions this package writes.
func (m Meta) encode() ([]byte, error) {
	m.Format = FormatVersion
	m.Protocol = wire.Version
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("record: metadata: %w", err)
	}
	if len(b) > MaxMetaSize {
		return nil, fmt.Errorf("record: metadata of %d bytes, limit %d", len(b), MaxMetaSize)
	}
	return b, nil
}
