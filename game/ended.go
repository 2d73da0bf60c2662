package game

import (
	"errors"
	"fmt"
	"strings"

	"github.com/treadline/treadline/net"
)

// EndedError is the error Step and Err return once the link closed: why it closed,
// as the network layer saw it. It wraps ErrLinkClosed.
type EndedError struct {
	// Ending classifies why the session ended.
	Ending net.Ending
	// Reason is the network layer's own account, for the log.
	Reason string
}

func (e *EndedError) Error() string { return ErrLinkClosed.Error() + ": " + e.Reason }

// Unwrap returns ErrLinkClosed.
func (e *EndedError) Unwrap() error { return ErrLinkClosed }

// Explain says in a person's words how a match that stopped with err (as Step returned
// it) ended, naming host (an address, or "" for "the host"), and reports whether it
// ended normally: the host closed the match or the player left. The error chain
// itself belongs in the log, not in front of the player.
func Explain(err error, host string) (words string, normal bool) {
	at := "the host"
	if host != "" {
		at = host
	}
	var e *EndedError
	if !errors.As(err, &e) {
		if err == nil {
			return "The match is over.", true
		}
		return fmt.Sprintf("The match stopped: %v.", err), false
	}
	switch e.Ending {
	case net.EndHostClosed:
		return "The host ended the match.", true
	case net.EndLeft:
		return "You left the match.", true
	case net.EndKicked:
		why := strings.TrimPrefix(e.Reason, "kicked by the host: ")
		why = strings.TrimPrefix(why, "kicked: ")
		return fmt.Sprintf("The host at %s removed you from the match (%s).", at, why), false
	case net.EndDropped:
		return fmt.Sprintf("The host at %s dropped you: it heard nothing from this computer for too long "+
			"(was it asleep, paused or cut off?).", at), false
	case net.EndHostSilent:
		words = fmt.Sprintf("Lost the connection to %s: the host stopped answering.", at)
		if _, stall, ok := strings.Cut(e.Reason, "after this program "); ok {
			words += " This program had " + stall + " first, so the host has most likely dropped you."
		}
		return words, false
	}
	return fmt.Sprintf("Lost the connection to %s: %s.", at, e.Reason), false
}
