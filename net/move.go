package net

import (
	"errors"

	"github.com/treadline/treadline/deadreckon"
)

// Mover holds each update to what its actor can do: the match's rules of movement
// (a tank's speed, turn, height on the ground), which net does not know. The
// host's run loop consults it for every update that passed net's own checks (owner,
// rate, sequence, finite values inside the map, a timestamp near the host's clock
// and not running backwards), one call at a time; times are host-clock seconds.
// Package referee implements it for tanks.
type Mover interface {
	// Spawned starts the track of an actor of player owner, entering the match with
	// state s (where the host put it) at host time at; asked is the state its owner
	// asked to spawn with (s, unless a Placer moved it).
	Spawned(actor, owner uint32, s, asked deadreckon.State, at float64)
	// Move holds next, an update of actor arriving at host time at, to what the
	// actor can have done since its last accepted state and since its anchor pin,
	// under the host's limits l (their defaults filled in). It returns nil and
	// records next as the actor's last accepted state, or an error, a *MoveError for
	// what the actor could not have done.
	Move(actor uint32, next *deadreckon.State, pin *Anchor, at float64, l *Limits) error
	// Refused reports that next, refused with err by Move or by the host's own
	// checks, stays refused (it is not an update from before a placement). The
	// mover may move pin, for instance to as far as the actor can have got by now.
	Refused(actor uint32, next *deadreckon.State, pin *Anchor, at float64, err error, l *Limits)
	// Despawned ends the track of an actor leaving the match.
	Despawned(actor uint32, at float64)
	// Grounded reports whether the mover holds the travel in the ground plane and
	// the heights to a ground: the host then leaves out its own bound on the travel
	// in three dimensions (Limits.MaxSpeed), which a tank driven up a slope at a
	// shove's speed would exceed.
	Grounded() bool
}

// MoveReason is what a refused update's actor could not have done. Its names are
// the label values of tankhost's movement refusal metric.
type MoveReason uint8

// Reasons a Mover refuses an update.
const (
	MoveSpeed        MoveReason = iota // faster than the governed speed
	MoveVelocity                       // a velocity that does not match the displacement
	MoveAcceleration                   // harder than the tank accelerates
	MoveHeight                         // off the ground: flying, or inside it
	MoveArticulation                   // turret or gun beyond its rates or limits
	MoveTurn                           // the hull turned faster than its tracks or a collision turn it, or tipped faster than it tumbles
)

// MoveError is a Mover's refusal of an update; it wraps deadreckon.ErrInvalidState.
type MoveError struct {
	Reason MoveReason
	// Msg says what the actor did, for the host's log.
	Msg string
}

func (e *MoveError) Error() string { return deadreckon.ErrInvalidState.Error() + ": " + e.Msg }

func (e *MoveError) Unwrap() error { return deadreckon.ErrInvalidState }

// MoveRefusals counts the updates refused because their tank could not have moved
// so, by what it could not have done. Each is also counted in HostStats.Invalid.
type MoveRefusals struct {
	// Speed: a horizontal velocity or a travel faster than the tank's governed top
	// speed allows.
	Speed uint64
	// Velocity: a velocity that does not match the update's displacement.
	Velocity uint64
	// Acceleration: an acceleration beyond the tank's.
	Acceleration uint64
	// Height: above the ground when not falling from it under gravity, or inside it.
	Height uint64
	// Articulation: a turret or gun turned faster than its rate, a rate beyond it, or
	// a gun beyond its limits.
	Articulation uint64
	// Turn: a heading turned faster than the tank's tracks turn it, or a collision
	// spins it; or a hull tipped beyond its rest on the ground faster than it
	// tumbles.
	Turn uint64
}

// count adds err to the counts if it is a movement refusal.
func (c *MoveRefusals) count(err error) {
	var me *MoveError
	if !errors.As(err, &me) {
		return
	}
	switch me.Reason {
	case MoveSpeed:
		c.Speed++
	case MoveVelocity:
		c.Velocity++
	case MoveAcceleration:
		c.Acceleration++
	case MoveHeight:
		c.Height++
	case MoveArticulation:
		c.Articulation++
	case MoveTurn:
		c.Turn++
	}
}
