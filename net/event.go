package net

import (
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventSpawn reports a new actor in the match (including this peer's own, once the
	// host has confirmed them). Actor, Owner, Name, Team and State are set.
	EventSpawn EventKind = iota + 1
	// EventDespawn reports that an actor left the match: its owner despawned it, left,
	// was kicked or fell silent. Actor and Owner are set; Text may say why.
	EventDespawn
	// EventState carries a state update for a remote actor: its whole state,
	// articulations included. Actor, Owner and State are set. Late and duplicated
	// updates never reach Poll.
	EventState
	// EventChat carries a chat line. Owner is the sender's player id (0 for the host's
	// own player), Name the sender's name, Text the message. Every player receives
	// every line, its own included.
	EventChat
	// EventClosed reports that the session ended (host gone, kicked, timed out or
	// closed locally). Text says why in plain words. It is the last event a Peer yields.
	EventClosed
	// EventMessage carries a game message from the host's Judge (wire.Fire,
	// wire.HitResult, wire.Destroy or wire.Scores), the host's count of observers
	// (wire.Observers), or its word on its downlink scheduler (wire.Zones), in
	// Message.
	EventMessage
	// EventRoute carries the route a remote actor's owner published (path-based dead
	// reckoning): Actor, Owner, Route and RouteID are set. It comes before any
	// EventProgress on it, and again to a peer that joins later.
	EventRoute
	// EventProgress carries a remote actor's progress along its route: Actor, Owner,
	// Progress (Progress.Time in host-clock seconds, as State.Time) and Arrival are
	// set. Late and duplicated ones never reach Poll; it shares the actor's update
	// sequence with EventState.
	EventProgress
)

// String returns the kind's lower-case name.
func (k EventKind) String() string {
	switch k {
	case EventSpawn:
		return "spawn"
	case EventDespawn:
		return "despawn"
	case EventState:
		return "state"
	case EventChat:
		return "chat"
	case EventClosed:
		return "closed"
	case EventMessage:
		return "message"
	case EventRoute:
		return "route"
	case EventProgress:
		return "progress"
	}
	return "unknown"
}

// Event is one thing that happened in the match since the last Poll.
type Event struct {
	// Kind says which of the other fields are set.
	Kind EventKind
	// Actor is the actor id the event is about (spawn, despawn, state).
	Actor uint32
	// Owner is the id of the player owning Actor, or the chat sender.
	Owner uint32
	// Name is the owning player's name (spawns and chat).
	Name string
	// Team is the actor's team (spawns).
	Team int
	// State is the actor's state (spawns and state updates). State.Time is in
	// host-clock seconds; add Stats().ClockOffset's negation to get local time, or hand
	// the offset to deadreckon.Actor.SetClockOffset.
	State deadreckon.State
	// Arrival is the local time, in seconds on the Client's clock (Client.Now), at
	// which a state update's datagram arrived (EventState only): with the clock
	// offset it gives the update's one-way delay, whenever the events are polled.
	Arrival float64
	// Text is the chat text, the reason a session closed, or why an actor despawned.
	Text string
	// Ending says why the session ended (EventClosed only).
	Ending Ending
	// Message is the game message of an EventMessage.
	Message wire.Message
	// Route and RouteID are the route of an EventRoute and its number, which the
	// actor's progress names.
	Route   *deadreckon.Route
	RouteID uint16
	// Progress is the progress of an EventProgress.
	Progress deadreckon.Progress
}

// Stats are one peer's connection figures. Rates are smoothed over about a second.
type Stats struct {
	// RTT is the filtered round trip to the host (near 0 on the host's own peer).
	RTT time.Duration
	// ClockOffset is host clock minus local clock (near 0 on the host's own peer).
	// State timestamps are seconds: units.Seconds converts it for them.
	ClockOffset time.Duration
	// ClockError is the clock sync's estimate of how far ClockOffset may be off (see
	// clock.Sync.Error; 0 on the host's own peer).
	ClockError time.Duration
	// Silence is how long nothing has arrived from the host, and Timeout the silence
	// after which this peer gives up on it.
	Silence, Timeout time.Duration
	// BytesIn and BytesOut are datagram and stream payload bytes per second each way.
	BytesIn, BytesOut float64
	// UpdatesIn and UpdatesOut are actor state updates per second each way.
	UpdatesIn, UpdatesOut float64
	// Dropped counts received updates dropped as late, duplicated or for an unknown
	// actor, and events dropped because Poll was not called for too long.
	Dropped uint64
	// Rejected counts received datagrams, records and control messages that did not
	// decode or made no sense. (What the host refuses from this peer is in HostStats.)
	Rejected uint64
	// SendErrors counts this peer's own publishes and spawns that could not be
	// encoded, sent or were refused on the spot.
	SendErrors uint64
	// ClockRejected counts clock samples the sync refused (see clock.ErrBadSample).
	ClockRejected uint64
}

// MatchSettings describe the match a host runs; clients receive them on joining.
type MatchSettings struct {
	// Map is the battlefield map's name.
	Map string
	// Extent is the half-width of the square map in meters: positions must satisfy
	// |x| ≤ Extent and |z| ≤ Extent. If zero, defaults to DefaultExtent.
	Extent float64
	// TickRate is the simulation rate in ticks per second (at most 1000). If zero,
	// defaults to DefaultTickRate.
	TickRate float64
	// Heartbeat is the longest time an owner goes without publishing; receivers call
	// an actor stale after 2.4 heartbeats. If zero, defaults to
	// deadreckon.DefaultHeartbeat.
	Heartbeat time.Duration
	// MapSeed seeds the terrain generator; zero when the map is a file.
	MapSeed uint64
}

// Defaults for MatchSettings.
const (
	// DefaultExtent is the half-width in meters of the shipped 512 m map.
	DefaultExtent = 256.0
	// DefaultTickRate is the default simulation rate, ticks per second.
	DefaultTickRate = 60.0
)
