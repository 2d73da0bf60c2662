package session

import (
	"fmt"
	"time"
)

// MatchState is where a headless host's match stands, as ServeStatus reports it.
type MatchState uint8

// The match states, in the order a served match passes through them.
const (
	// MatchWaiting: no player has joined yet; the host waits for the first.
	MatchWaiting MatchState = iota
	// MatchPlaying: players are in the match.
	MatchPlaying
	// MatchIdle: every player has left; the match ends after ServeConfig.IdleTimeout
	// unless one joins.
	MatchIdle
	// MatchEnded: the match is over by its rules; Serve returns after reporting it.
	// It is the last state: exporters may range from MatchWaiting to MatchEnded.
	MatchEnded
)

var matchStateNames = [...]string{"waiting", "playing", "idle", "ended"}

// String returns the state's name: "waiting", "playing", "idle" or "ended".
func (s MatchState) String() string {
	if int(s) < len(matchStateNames) {
		return matchStateNames[s]
	}
	return "unknown"
}

// ServeStatus is what a headless host reports to ServeConfig.Tick after each step of
// its match loop.
type ServeStatus struct {
	// Now is the loop's time for the step.
	Now time.Time
	// Players is the number of players connected, the host's own bots not counted.
	Players int
	// State is where the match stands.
	State MatchState
	// Reason says why the match ended, when State is MatchEnded.
	Reason string
}

// matchRules decide when a served match is over: after an idle time with no players
// once someone has played, or once a number of combat rounds (each ended by the
// combat rules' score or time limit) have been played. A held round clock counts no
// round until it starts, at the first player or when a start is asked for.
type matchRules struct {
	idleTimeout time.Duration // zero: never end for idleness
	rounds      int           // zero: play round after round
	held        bool          // the round clock waits (ServeConfig.RoundStart)
	state       MatchState
	emptySince  time.Time
}

// start reports whether a held round clock starts now: players have joined, or asked
// is true. It reports false once the clock runs, and always for a clock never held.
func (r *matchRules) start(players int, asked bool) bool {
	if !r.held || players == 0 && !asked {
		return false
	}
	r.held = false
	return true
}

// step advances the rules to now with players connected and roundsPlayed rounds
// ended, and returns the status.
func (r *matchRules) step(now time.Time, players, roundsPlayed int) ServeStatus {
	st := ServeStatus{Now: now, Players: players}
	switch {
	case r.state == MatchEnded:
	case players > 0:
		r.state = MatchPlaying
	case r.state == MatchPlaying:
		r.state, r.emptySince = MatchIdle, now
	}
	switch {
	case r.state == MatchEnded:
	case r.held: // no round counts before the round clock starts
	case r.rounds > 0 && roundsPlayed >= r.rounds:
		r.state = MatchEnded
		st.Reason = fmt.Sprintf("%d of %d rounds played", roundsPlayed, r.rounds)
	case r.state == MatchIdle && r.idleTimeout > 0 && now.Sub(r.emptySince) >= r.idleTimeout:
		r.state = MatchEnded
		st.Reason = "no players for " + r.idleTimeout.String()
	}
	st.State = r.state
	return st
}
