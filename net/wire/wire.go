package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol version this package speaks. It is the first byte of every
// message; a message with another version is refused with ErrVersion.
const Version uint8 = 5

// HeaderSize is the size in bytes of the header every message starts with: the
// version byte, then the message type byte.
const HeaderSize = 2

// PlayerID identifies a player in a match. The host assigns ids starting at 1; 0 means
// "the host itself" or "nobody".
type PlayerID uint16

// ActorID identifies an actor (a tank) in a match. The host assigns ids; 0 is never used.
type ActorID uint16

// MsgType is the type byte of a message, the second byte of every message.
type MsgType uint8

// The message types. Control messages travel on the reliable stream, framed with
// AppendFrame; StateBatch and the clock messages travel as datagrams.
const (
	// MsgChallenge is the host's first control message: salt and nonce for the join proof.
	MsgChallenge MsgType = 0x01
	// MsgJoinRequest asks to join, with a player name and the passphrase proof.
	MsgJoinRequest MsgType = 0x02
	// MsgJoinAccepted admits a player and carries the match settings.
	MsgJoinAccepted MsgType = 0x03
	// MsgJoinRefused turns a player away with a reason.
	MsgJoinRefused MsgType = 0x04
	// MsgSpawn announces an actor with its owner, name, team and full state.
	MsgSpawn MsgType = 0x05
	// MsgDespawn removes an actor.
	MsgDespawn MsgType = 0x06
	// MsgLeave says a player left (client to host: "I am leaving").
	MsgLeave MsgType = 0x07
	// MsgKick tells a player it is being removed, with a reason.
	MsgKick MsgType = 0x08
	// MsgChat carries a line of chat.
	MsgChat MsgType = 0x09
	// MsgClockRequest asks the host for its clock (seed 001's sync request).
	MsgClockRequest MsgType = 0x0a
	// MsgClockAnswer echoes a clock request with the host's receive and send times.
	MsgClockAnswer MsgType = 0x0b
	// MsgFire says a tank fired: the shot every peer computes the shell from.
	MsgFire MsgType = 0x0c
	// MsgHitClaim is a shooter's claim that its shell hit a tank on its screen (a
	// datagram, repeated).
	MsgHitClaim MsgType = 0x0d
	// MsgHitResult is the host's verdict on a hit claim: a hit with its damage, or a
	// refusal with its reason.
	MsgHitResult MsgType = 0x0e
	// MsgDestroy is the host's word that a shot destroyed a tank.
	MsgDestroy MsgType = 0x0f
	// MsgScores is the host's scoreboard and match clock.
	MsgScores MsgType = 0x10
	// MsgObserveRequest asks to join as an observer, with no tank: a JoinRequest
	// with Observe set.
	MsgObserveRequest MsgType = 0x11
	// MsgObservers is the host's count of the observers watching.
	MsgObservers MsgType = 0x12
	// MsgRoute publishes the route an actor follows (path-based dead reckoning).
	MsgRoute MsgType = 0x13
	// MsgZones says whether the host rations each player's updates by relevance.
	MsgZones MsgType = 0x14
	// MsgStateBatch carries state updates of one or more actors (a datagram).
	MsgStateBatch MsgType = 0x20
	// MsgView is an observer's camera (a datagram).
	MsgView MsgType = 0x21
	// MsgProgress says how far along its route an actor is (a datagram).
	MsgProgress MsgType = 0x22
)

var msgTypeNames = map[MsgType]string{
	MsgChallenge:      "challenge",
	MsgJoinRequest:    "join-request",
	MsgJoinAccepted:   "join-accepted",
	MsgJoinRefused:    "join-refused",
	MsgSpawn:          "spawn",
	MsgDespawn:        "despawn",
	MsgLeave:          "leave",
	MsgKick:           "kick",
	MsgChat:           "chat",
	MsgClockRequest:   "clock-request",
	MsgClockAnswer:    "clock-answer",
	MsgFire:           "fire",
	MsgHitClaim:       "hit-claim",
	MsgHitResult:      "hit-result",
	MsgDestroy:        "destroy",
	MsgScores:         "scores",
	MsgStateBatch:     "state-batch",
	MsgObserveRequest: "observe-request",
	MsgObservers:      "observers",
	MsgRoute:          "route",
	MsgZones:          "zones",
	MsgProgress:       "progress",
}

// String returns the message type's name, such as "join-request".
func (t MsgType) String() string {
	if s, ok := msgTypeNames[t]; ok {
		return s
	}
	return fmt.Sprintf("MsgType(%#02x)", uint8(t))
}

// Message is one protocol message. Every message type in this package implements it
// with a pointer receiver.
type Message interface {
	// Type returns the message's type byte.
	Type() MsgType
	// Append appends the encoded message, header included, to b. It returns an error
	// (wrapping ErrNotFinite, ErrOutOfRange, ErrTooLong or ErrInvalid) when a field
	// cannot be encoded; b is then returned unchanged.
	Append(b []byte) ([]byte, error)
	// Length returns the encoded size in bytes, header included. For a message that
	// Append would reject, the value is meaningless.
	Length() int
}

// Errors returned by decoders and encoders. Callers test them with errors.Is; every
// returned error wraps one of these (or io.EOF for truncated input) with context.
var (
	// ErrVersion reports a message whose version byte is not Version.
	ErrVersion = errors.New("wire: unsupported protocol version")
	// ErrUnknownType reports an unknown message type or state record kind.
	ErrUnknownType = errors.New("wire: unknown message type")
	// ErrTooLong reports a string, frame or batch larger than its limit.
	ErrTooLong = errors.New("wire: too long")
	// ErrNotFinite reports a NaN or infinite value given to an encoder.
	ErrNotFinite = errors.New("wire: value not finite")
	// ErrOutOfRange reports a value outside the range its field can carry.
	ErrOutOfRange = errors.New("wire: value out of range")
	// ErrInvalid reports a malformed field: an impossible quaternion, bad UTF-8,
	// control characters in text, an unknown enum value, trailing bytes.
	ErrInvalid = errors.New("wire: invalid field")
	// ErrBatchFull reports that an update does not fit in the batch's size limit.
	ErrBatchFull = errors.New("wire: batch full")
	// ErrBadMessage is wrapped, besides the parse error, by FrameReader.Next for a
	// whole frame whose message does not parse: that message is lost, but the stream
	// is still in step and reading may go on. Every other FrameReader error means a
	// broken stream.
	ErrBadMessage = errors.New("wire: bad message in a whole frame")
)

// appendHeader appends the version and type bytes.
func appendHeader(b []byte, t MsgType) []byte {
	return append(b, Version, byte(t))
}

// PeekHeader returns the version and type bytes of the message starting at b without
// checking either. A peer uses it to recognise a message of another version.
func PeekHeader(b []byte) (version uint8, t MsgType, err error) {
	if len(b) < HeaderSize {
		return 0, 0, fmt.Errorf("wire: header: %w", io.EOF)
	}
	return b[0], MsgType(b[1]), nil
}

// checkHeader verifies that b starts with this version and type t.
func checkHeader(b []byte, t MsgType) error {
	v, got, err := PeekHeader(b)
	if err != nil {
		return err
	}
	if v != Version {
		return fmt.Errorf("wire: %v: %w", t, &VersionError{Got: v})
	}
	if got != t {
		return fmt.Errorf("wire: %v: got type %v: %w", t, got, ErrUnknownType)
	}
	return nil
}

// Parse decodes the message at the start of b and returns it with the number of bytes
// it used. Bytes after the message are left alone. The message never aliases b.
// Truncated input gives an error wrapping io.EOF; see the Err variables for the rest.
func Parse(b []byte) (Message, int, error) {
	v, t, err := PeekHeader(b)
	if err != nil {
		return nil, 0, err
	}
	if v != Version {
		return nil, 0, fmt.Errorf("wire: parse: %w", &VersionError{Got: v})
	}
	var (
		m Message
		n int
	)
	switch t {
	case MsgChallenge, MsgJoinRequest, MsgJoinAccepted, MsgJoinRefused, MsgSpawn, MsgDespawn,
		MsgLeave, MsgKick, MsgChat, MsgClockRequest, MsgClockAnswer, MsgObserveRequest, MsgObservers, MsgView, MsgZones:
		m, n, err = parseSession(t, b)
	case MsgFire, MsgHitClaim, MsgHitResult, MsgDestroy, MsgScores:
		m, n, err = parseCombat(t, b)
	case MsgStateBatch:
		m, n, err = parseStateBatch(b)
	case MsgRoute:
		m, n, err = parseRoute(b)
	case MsgProgress:
		m, n, err = parseProgress(b)
	default:
		err = unknownType(t)
	}
	if err != nil {
		return nil, 0, err
	}
	return m, n, nil
}

// parseSession parses a message of the session: the join handshake, actors coming
// and going, chat and clock synchronisation. t is b's type.
func parseSession(t MsgType, b []byte) (Message, int, error) {
	switch t {
	case MsgChallenge:
		return parseChallenge(b)
	case MsgJoinRequest, MsgObserveRequest:
		return parseJoinRequest(b)
	case MsgJoinAccepted:
		return parseJoinAccepted(b)
	case MsgJoinRefused:
		return parseJoinRefused(b)
	case MsgSpawn:
		return parseSpawn(b)
	case MsgDespawn:
		return parseDespawn(b)
	case MsgLeave:
		return parseLeave(b)
	case MsgKick:
		return parseKick(b)
	case MsgChat:
		return parseChat(b)
	case MsgClockRequest:
		return parseClockRequest(b)
	case MsgClockAnswer:
		return parseClockAnswer(b)
	case MsgObservers:
		return parseObservers(b)
	case MsgView:
		return parseView(b)
	case MsgZones:
		return parseZones(b)
	}
	return nil, 0, unknownType(t)
}

// parseCombat parses a combat message: a shot, a hit claim and its verdict, a kill,
// the scores. t is b's type.
func parseCombat(t MsgType, b []byte) (Message, int, error) {
	switch t {
	case MsgFire:
		return parseFire(b)
	case MsgHitClaim:
		return parseHitClaim(b)
	case MsgHitResult:
		return parseHitResult(b)
	case MsgDestroy:
		return parseDestroy(b)
	case MsgScores:
		return parseScores(b)
	}
	return nil, 0, unknownType(t)
}

// unknownType is the error for a message of type t that Parse does not know.
func unknownType(t MsgType) error {
	return fmt.Errorf("wire: parse: type %v: %w", t, ErrUnknownType)
}

// reader walks a byte slice, recording the first error; every getter returns zero
// values once an error is recorded, so parse functions check err once at the end.
type reader struct {
	b   []byte
	off int
	err error
	ctx string
}

func (r *reader) need(n int) bool {
	if r.err != nil {
		return false
	}
	if len(r.b)-r.off < n {
		r.err = fmt.Errorf("wire: %s: %d-byte field at offset %d runs past the end (%d left): %w", r.ctx, n, r.off, len(r.b)-r.off, io.EOF)
		return false
	}
	return true
}

func (r *reader) u8() uint8 {
	if !r.need(1) {
		return 0
	}
	v := r.b[r.off]
	r.off++
	return v
}

func (r *reader) u16() uint16 {
	if !r.need(2) {
		return 0
	}
	v := binary.BigEndian.Uint16(r.b[r.off:])
	r.off += 2
	return v
}

func (r *reader) u32() uint32 {
	if !r.need(4) {
		return 0
	}
	v := binary.BigEndian.Uint32(r.b[r.off:])
	r.off += 4
	return v
}

func (r *reader) u64() uint64 {
	if !r.need(8) {
		return 0
	}
	v := binary.BigEndian.Uint64(r.b[r.off:])
	r.off += 8
	return v
}

// bytes copies len(dst) bytes into dst.
func (r *reader) bytes(dst []byte) {
	if !r.need(len(dst)) {
		return
	}
	copy(dst, r.b[r.off:])
	r.off += len(dst)
}

// str reads a length-prefixed text field of at most max bytes and copies it.
func (r *reader) str(field string, max int) string {
	n := int(r.u8())
	if r.err != nil {
		return ""
	}
	if n > max {
		r.err = fmt.Errorf("wire: %s: %s is %d bytes, limit %d: %w", r.ctx, field, n, max, ErrTooLong)
		return ""
	}
	if !r.need(n) {
		return ""
	}
	s := string(r.b[r.off : r.off+n]) // string conversion copies
	r.off += n
	if err := checkText(s); err != nil {
		r.err = fmt.Errorf("wire: %s: %s: %w", r.ctx, field, err)
		return ""
	}
	return s
}

// name reads a string field that must show something (checkLabel): a name the
// encoder would refuse to send is refused when read, so that whatever parses can be
// encoded again.
func (r *reader) name(field string, max int) string {
	s := r.str(field, max)
	if r.err != nil {
		return ""
	}
	if err := checkLabel(field, s, max); err != nil {
		r.err = fmt.Errorf("wire: %s: %w", r.ctx, err)
		return ""
	}
	return s
}

// fail records err (with context) unless an error is already recorded.
func (r *reader) fail(err error) {
	if r.err == nil {
		r.err = fmt.Errorf("wire: %s: %w", r.ctx, err)
	}
}
