package net

import (
	"errors"
	"fmt"
	"time"
)

// Ending says why a session ended; EventClosed carries it, so that a game can tell a
// match that ended normally from one that was lost, and word each for a person.
type Ending uint8

// Why a session ends.
const (
	// EndUnknown: no reason is known.
	EndUnknown Ending = iota
	// EndLeft: this peer closed the session (Close).
	EndLeft
	// EndHostClosed: the host ended the match, as a host does when it stops normally.
	EndHostClosed
	// EndKicked: the host removed this player (flooding, a rule broken, replaced).
	EndKicked
	// EndDropped: the host dropped this player after hearing nothing from it for its
	// timeout (this side was cut off, asleep or paused).
	EndDropped
	// EndHostSilent: the host stopped answering: it is gone or the way to it is cut.
	EndHostSilent
	// EndConnection: the connection failed in another way (a protocol error).
	EndConnection
)

// String returns the ending's lower-case name.
func (e Ending) String() string {
	switch e {
	case EndLeft:
		return "left"
	case EndHostClosed:
		return "host closed"
	case EndKicked:
		return "kicked"
	case EndDropped:
		return "dropped"
	case EndHostSilent:
		return "host silent"
	case EndConnection:
		return "connection failed"
	}
	return "unknown"
}

// endingOfCode classifies the application error code a connection was closed with.
func endingOfCode(code quicCode) Ending {
	switch code {
	case codeShutdown, codeNormal:
		return EndHostClosed
	case codeKicked, codeRefused:
		return EndKicked
	case codeTimeout:
		return EndDropped
	}
	return EndConnection
}

// closedError is why a connection ended, in plain words, with its Ending.
type closedError struct {
	text   string
	ending Ending
}

func (e *closedError) Error() string { return e.text }

// endingOf returns the Ending that err (from a connection's cause) carries, or
// fallback when it carries none.
func endingOf(err error, fallback Ending) Ending {
	var ce *closedError
	if errors.As(err, &ce) {
		return ce.ending
	}
	return fallback
}

// stallWatch notices when the client's own loop did not run for a while, so that a
// pause of this process is not mistaken for a silent host.
type stallWatch struct {
	last    float64 // local time of the previous tick, s
	started bool    // last is set
	stalled float64 // the longest stall seen, s
}

// stallFactor is how many sync intervals a tick may come late before the gap counts as
// a stall of this process.
const stallFactor = 4

// tick records a tick at now (local seconds) and reports whether the gap since the
// previous one, returned, was a stall.
func (w *stallWatch) tick(now float64, interval time.Duration) (gap float64, stalled bool) {
	gap, first := now-w.last, !w.started
	w.last, w.started = now, true
	if first || gap <= stallFactor*interval.Seconds() {
		return gap, false
	}
	w.stalled = max(w.stalled, gap)
	return gap, true
}

// silence is the error for a host that stayed silent, naming a stall of this process
// when there was one (the host has then most likely dropped this player).
func (w *stallWatch) silence() error {
	if w.stalled > 0 {
		return fmt.Errorf("host stopped responding after this program stalled for %.0f s", w.stalled)
	}
	return errors.New("host stopped responding")
}
