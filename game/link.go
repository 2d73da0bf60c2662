package game

import (
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// Link is a match's connection to the other peers of a match. *net.Client (a joined
// player, or the host's own from net.Host.Local) and the in-process links of package
// gametest satisfy it. A Match uses its Link from the goroutine that calls Step.
type Link interface {
	// ID returns this player's id, unique in the match.
	ID() uint32
	// Now returns the link's local clock in seconds, the clock Step expects.
	Now() float64
	// Spawn asks the host for a new actor owned by this player and returns its id.
	Spawn(name string, team int, s deadreckon.State) (actor uint32, err error)
	// Despawn removes one of this player's actors from the match.
	Despawn(actor uint32) error
	// Publish sends a state update for one of this player's actors: its whole state,
	// articulations included. The link stamps s.Time with host-clock seconds.
	Publish(actor uint32, s deadreckon.State) error
	// Chat sends a line of chat to every player, this one included.
	Chat(text string) error
	// Poll appends the events that arrived since the last call to buf and returns it.
	// It never blocks.
	Poll(buf []net.Event) []net.Event
	// Stats returns the link's connection figures now.
	Stats() net.Stats
	// Send sends a game message (wire.Fire, wire.HitClaim) to the host's Judge, whose
	// answers arrive as net.EventMessage events.
	Send(m wire.Message) error
	// Refereed reports whether a Judge hears the link's game messages: a match fights
	// only on a refereed link.
	Refereed() bool
}

// The real network peers are links, carry routes and say where the host put a
// spawn.
var (
	_ Link        = (*net.Client)(nil)
	_ RouteLink   = (*net.Client)(nil)
	_ PlacingLink = (*net.Client)(nil)
)

// PlacingLink is a Link whose spawns also say where the host put the actor: a host
// whose judge places spawns (net.Placer) may move and turn a respawn from where the
// match asked. The match moves a respawned tank there before it publishes the tank,
// so no update goes out from a place the host has overruled: the host holds such an
// update to what the tank can do since the host's place, and accepts it when it
// arrives long enough after the spawn (a peer that respawns hundreds of tanks at a
// round's restart, one answer at a time, publishes them a second or more after the
// first answer), then refuses the tank's jump to the host's place. *net.Client
// satisfies it; on a Link without it, the tank moves there when the spawn's
// EventSpawn arrives.
type PlacingLink interface {
	// SpawnPlaced is Link.Spawn that also returns the actor's state as the host
	// answered the spawn: where it put the actor.
	SpawnPlaced(name string, team int, s deadreckon.State) (actor uint32, placed deadreckon.State, err error)
}

// RouteLink is a Link that also carries routes and progress along them (path-based
// dead reckoning, deadreckon.Route): a patrolling bot's owner publishes its route
// once, reliably, and then only its progress along it while it keeps to it.
// *net.Client satisfies it; on a Link without it, patrolling bots publish States.
type RouteLink interface {
	// PublishRoute sends route r of one of this player's actors, numbered id (the
	// number its progress names), on the reliable stream.
	PublishRoute(actor uint32, id uint16, r *deadreckon.Route) error
	// PublishProgress sends the progress of one of this player's actors along its
	// route, as a datagram (it may be lost, as a state update may). The link stamps
	// p.Time with host-clock seconds.
	PublishProgress(actor uint32, p deadreckon.Progress) error
}
