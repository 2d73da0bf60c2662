package net

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/net/wire"
)

// ErrNoAnswer reports a join that heard nothing at all from the host within
// ClientConfig.NoAnswerTimeout: nobody listens there, or the way there is cut.
var ErrNoAnswer = errors.New("no answer from the host")

// JoinFailure says why a join failed, in the categories a player can act on.
type JoinFailure uint8

// The join failures.
const (
	// JoinFailed: another failure (see the error chain).
	JoinFailed JoinFailure = iota
	// JoinNoAnswer: nothing came back from the host's address.
	JoinNoAnswer
	// JoinTooSlow: the host answered, but the join did not finish in time over this
	// link.
	JoinTooSlow
	// JoinWrongPassphrase: the passphrase was wrong or missing.
	JoinWrongPassphrase
	// JoinVersion: the host speaks another protocol version.
	JoinVersion
	// JoinFull: the match has no room (in all, or for one more player from this
	// address).
	JoinFull
	// JoinNameTaken: a player in the match has this name.
	JoinNameTaken
	// JoinFingerprint: the host's certificate is not the one pinned or remembered.
	JoinFingerprint
	// JoinDefences: the host's defences turned the join away for now (too many wrong
	// passphrases or connections from this network, or too many joins at once);
	// JoinError.Wait says when to try again.
	JoinDefences
	// JoinRefused: the host refused for another reason (see JoinError.Detail).
	JoinRefused
)

// JoinError is a failed join: what went wrong, at which address, in the host's words
// where it gave any, with the error chain underneath (errors.Is finds ErrRefused,
// ErrWrongPassphrase, ErrFingerprintMismatch and ErrNoAnswer in it). Error names the
// address once and gives the chain, for logs; Sentence says it to a player.
type JoinError struct {
	// Addr is the host's address, host:port.
	Addr string
	// Failure classifies the error.
	Failure JoinFailure
	// Wait is how long to wait before trying again, for JoinDefences; 0 when the
	// host did not say.
	Wait time.Duration
	// Detail is the host's own reason text, if it gave one.
	Detail string
	// Err is the error chain.
	Err error
}

// Error returns "join ADDR: " and the chain.
func (e *JoinError) Error() string { return "join " + e.Addr + ": " + e.Err.Error() }

// Unwrap returns the chain.
func (e *JoinError) Unwrap() error { return e.Err }

// Sentence says in one sentence what happened and what to try, naming the address
// once.
func (e *JoinError) Sentence() string {
	a := e.Addr
	switch e.Failure {
	case JoinNoAnswer:
		return fmt.Sprintf("No answer from %s: check the address and port, that the host is running, "+
			"and that no firewall blocks UDP there.", a)
	case JoinTooSlow:
		return fmt.Sprintf("The host at %s answered, but the join did not get through this link in time: "+
			"try again, or from a better connection.", a)
	case JoinWrongPassphrase:
		return fmt.Sprintf("The match at %s needs a passphrase and the one given is wrong or missing: "+
			"ask the host for it and join again with it.", a)
	case JoinVersion:
		return fmt.Sprintf("The host at %s runs another version of Treadline (%s): "+
			"install the version the host runs, or join another match.", a, e.Detail)
	case JoinFull:
		if e.Detail != "" {
			return fmt.Sprintf("The match at %s has no room for you (%s): try again later, or join another match.", a, e.Detail)
		}
		return fmt.Sprintf("The match at %s is full: try again later, or join another match.", a)
	case JoinNameTaken:
		return fmt.Sprintf("A player at %s already uses your name: pick another name and join again.", a)
	case JoinFingerprint:
		return fmt.Sprintf("The host at %s is not the one you trusted before (its certificate changed): "+
			"if the host renewed its identity, join with the new line it gives, otherwise someone may be in between.", a)
	case JoinDefences:
		wait := "in a few seconds"
		if e.Wait > 0 {
			wait = "in " + strconv.Itoa(int((e.Wait+time.Second-1)/time.Second)) + " s"
		}
		why := e.Detail
		if why == "" {
			why = "too many connections at once"
		}
		return fmt.Sprintf("The host at %s is turning joins away for now to defend itself (%s): try again %s.", a, why, wait)
	case JoinRefused:
		if e.Detail != "" {
			return fmt.Sprintf("The host at %s refused the join: %s.", a, e.Detail)
		}
		return fmt.Sprintf("The host at %s refused the join.", a)
	}
	return fmt.Sprintf("Could not join the match at %s (%v): try again.", a, e.Err)
}

// refusedError is a refusal the host sent: its reason and its text. It wraps
// ErrRefused, and ErrWrongPassphrase for a passphrase refusal.
type refusedError struct {
	reason wire.RefuseReason
	text   string
}

func (e *refusedError) Error() string {
	s := ErrRefused.Error() + ": " + e.reason.String()
	if e.reason == wire.RefusePassphrase {
		s = ErrWrongPassphrase.Error()
	}
	if e.text != "" {
		s += ": " + e.text
	}
	return s
}

func (e *refusedError) Is(target error) bool {
	return target == ErrRefused || target == ErrWrongPassphrase && e.reason == wire.RefusePassphrase
}

// refusalOf reads the reason and text back from the message a host closes a refused
// connection with ("match full: …"), for when the close overtook the JoinRefused.
func refusalOf(msg string) *refusedError {
	for r := wire.RefusePassphrase; r <= wire.RefuseOther; r++ {
		if name := r.String(); msg == name || strings.HasPrefix(msg, name+": ") {
			return &refusedError{reason: r, text: strings.TrimPrefix(strings.TrimPrefix(msg, name), ": ")}
		}
	}
	return &refusedError{reason: wire.RefuseOther, text: msg}
}

// tryAgainIn finds the wait in a host's refusal text ("… try again in 30 s").
var tryAgainIn = regexp.MustCompile(`try again in (\d+) s`)

// joinError classifies err, which ended a join to addr, as a *JoinError; heard
// reports whether anything came back from the host.
func joinError(addr string, err error, heard bool) *JoinError {
	if je := (*JoinError)(nil); errors.As(err, &je) {
		return je
	}
	e := &JoinError{Addr: addr, Err: err, Failure: JoinFailed}
	var (
		ref  *refusedError
		tErr *quic.TransportError
		aErr *quic.ApplicationError
	)
	switch {
	case errors.Is(err, ErrFingerprintMismatch):
		e.Failure = JoinFingerprint
	case errors.Is(err, ErrWrongPassphrase):
		e.Failure = JoinWrongPassphrase
	case errors.Is(err, wire.ErrVersion):
		e.Failure = JoinVersion
		if ve := (*wire.VersionError)(nil); errors.As(err, &ve) {
			e.Detail = fmt.Sprintf("the host speaks protocol version %d, this program version %d", ve.Got, wire.Version)
		}
	case errors.As(err, &ref):
		e.classifyRefusal(ref.reason, ref.text)
	case errors.As(err, &tErr) && tErr.Remote && tErr.ErrorCode == quic.ConnectionRefused:
		// The host's handshake caps or rate refused the connection.
		e.Failure, e.Detail = JoinDefences, "too many connections at once from your network or in all"
	case errors.As(err, &aErr) && aErr.Remote && aErr.ErrorCode == codeRefused:
		e.classifyRefusal(wire.RefuseOther, aErr.ErrorMessage)
	case errors.Is(err, ErrNoAnswer), !heard && isTimeout(err):
		e.Failure = JoinNoAnswer
	case isTimeout(err):
		e.Failure = JoinTooSlow
	}
	return e
}

// classifyRefusal sets the failure for a refusal with reason and text.
func (e *JoinError) classifyRefusal(reason wire.RefuseReason, text string) {
	e.Detail = text
	switch reason {
	case wire.RefusePassphrase:
		e.Failure = JoinWrongPassphrase
	case wire.RefuseVersion:
		e.Failure = JoinVersion
	case wire.RefuseFull:
		e.Failure = JoinFull
	case wire.RefuseName:
		e.Failure = JoinNameTaken
	default:
		e.Failure = JoinRefused
		if m := tryAgainIn.FindStringSubmatch(text); m != nil {
			n, _ := strconv.Atoi(m[1])
			e.Failure, e.Wait = JoinDefences, time.Duration(n)*time.Second
			e.Detail = strings.TrimSpace(text[:strings.Index(text, m[0])])
			e.Detail = strings.TrimRight(e.Detail, ";:,. ")
		} else if strings.HasPrefix(text, "host busy") {
			e.Failure = JoinDefences
			e.Detail = "too many players joining at once"
		}
	}
}

// isTimeout reports whether err is a deadline or an idle or handshake timeout.
func isTimeout(err error) bool {
	var idle *quic.IdleTimeoutError
	var hs *quic.HandshakeTimeoutError
	var ce *closedError
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &idle) || errors.As(err, &hs) ||
		errors.As(err, &ce) && (ce.ending == EndHostSilent || ce.ending == EndDropped) || isDeadline(err)
}

// isDeadline reports whether err is a stream read or write past its deadline.
func isDeadline(err error) bool {
	var ne interface{ Timeout() bool }
	return errors.As(err, &ne) && ne.Timeout()
}
