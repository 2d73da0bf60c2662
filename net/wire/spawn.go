package wire

import (
	"encoding/binary"
	"fmt"

	"github.com/treadline/treadline/deadreckon"
)

// Spawn announces an actor: who owns it, its name and team, and its full state.
// Layout: header, owner u16, team u8, name (u8 length, UTF-8, 1…MaxNameLen), then an
// update record (actor u16, seq u16, time u32, kinematic block, articulations):
// 39 + len(name) + 4n bytes for n articulations.
type Spawn struct {
	// Actor is the new actor's id (never 0).
	Actor ActorID
	// Owner is the player that simulates and publishes the actor (0: the host).
	Owner PlayerID
	// Team picks the actor's side; TeamDIS marks an entity of another simulation.
	Team uint8
	// Name is drawn above the actor.
	Name string
	// Seq is the actor's current update sequence number; later updates must be newer.
	Seq uint16
	// State is the actor's full state at spawn time, quantized as an update record.
	State deadreckon.State
}

// TeamDIS is the team of an entity another simulation owns, brought into the match
// by a DIS gateway: no side, drawn apart. The host spawns it only for a service
// member (net.LocalConfig.Service).
const TeamDIS = 255

// Type returns MsgSpawn.
func (m *Spawn) Type() MsgType { return MsgSpawn }

// Length returns the encoded size in bytes.
func (m *Spawn) Length() int {
	u := Update{State: m.State}
	return HeaderSize + 2 + 1 + 1 + len(m.Name) + u.Length()
}

// Append appends the encoded message.
func (m *Spawn) Append(b []byte) ([]byte, error) {
	if m.Actor == 0 {
		return b, fmt.Errorf("wire: spawn: actor 0: %w", ErrInvalid)
	}
	if err := CheckName(m.Name); err != nil {
		return b, fmt.Errorf("wire: spawn: %w", err)
	}
	out := appendHeader(b, MsgSpawn)
	out = binary.BigEndian.AppendUint16(out, uint16(m.Owner))
	out = append(out, m.Team)
	out = appendString(out, m.Name)
	u := Update{Actor: m.Actor, Seq: m.Seq, State: m.State}
	out, err := u.Append(out)
	if err != nil {
		return b, fmt.Errorf("wire: spawn: %w", err)
	}
	return out, nil
}

func parseSpawn(b []byte) (*Spawn, int, error) {
	if err := checkHeader(b, MsgSpawn); err != nil {
		return nil, 0, err
	}
	r := reader{b: b, off: HeaderSize, ctx: "spawn"}
	m := &Spawn{}
	m.Owner = PlayerID(r.u16())
	m.Team = r.u8()
	m.Name = r.name("name", MaxNameLen)
	var u Update
	if r.err == nil {
		parseUpdate(&r, &u)
	}
	if r.err != nil {
		return nil, 0, r.err
	}
	if m.Name == "" || u.Actor == 0 {
		return nil, 0, fmt.Errorf("wire: spawn: empty name or actor 0: %w", ErrInvalid)
	}
	m.Actor, m.Seq, m.State = u.Actor, u.Seq, u.State
	return m, r.off, nil
}
