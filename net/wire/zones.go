package wire

import "fmt"

// zonesSize is the encoded size of Zones.
const zonesSize = HeaderSize + 1

// Zones is the host's word that it schedules each player's state updates by
// relevance within a downlink budget (subscription zones), or that it relays every
// update to every player again. The host sends it to every player when its
// scheduler comes on or goes off, and to a player joining while it is on; a player
// that never receives it is in a match where every update goes to every player.
// Layout: header, on u8 (0 or 1): 3 bytes.
type Zones struct {
	// On is whether the host rations each player's updates now.
	On bool
}

// Type returns MsgZones.
func (m *Zones) Type() MsgType { return MsgZones }

// Length returns the encoded size, 3 bytes.
func (m *Zones) Length() int { return zonesSize }

// Append appends the encoded message.
func (m *Zones) Append(b []byte) ([]byte, error) {
	var on byte
	if m.On {
		on = 1
	}
	return append(appendHeader(b, MsgZones), on), nil
}

func parseZones(b []byte) (*Zones, int, error) {
	if err := checkHeader(b, MsgZones); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "zones"}
	on := r.u8()
	if r.err != nil {
		return nil, 0, r.err
	}
	if on > 1 {
		return nil, 0, fmt.Errorf("wire: zones: on %d is neither 0 nor 1: %w", on, ErrInvalid)
	}
	return &Zones{On: on == 1}, r.off, nil
}
