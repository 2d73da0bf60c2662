package record

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/treadline/treadline/net/wire"
)

// Magic is the first 8 bytes of every recording.
const Magic = "TREADREC"

// FormatVersion is the version of the file layout this package writes and reads: the
// header, the block framing and the record kinds. The version of the wire encoding
// inside the records is wire.Version, stored beside it.
const FormatVersion uint8 = 1

// MinProtocol is the oldest wire protocol version whose recordings this package
// reads. Version 3 reads every message of version 2 as it was (it only adds u16
// counts to a scoreboard of more than 255 lines), version 4 every message of
// version 3 (it only gives routes and progress their meaning in a match), and version
// 5 every message of version 4 but HitClaim, whose four applied updates became eight:
// a recording of version 2, 3 or 4 reads as if written with version 5, its claims
// naming four updates and four of none.
const MinProtocol uint8 = 2

// Sizes and limits of the layout, in bytes.
const (
	// headerFixed is the header before the metadata: magic, format, protocol and the
	// metadata's length.
	headerFixed = len(Magic) + 1 + 1 + 4
	// MaxMetaSize is the largest metadata a header may hold.
	MaxMetaSize = 64 << 10
	// blockHeaderSize is a block's framing before its payload: sync, index, start
	// time, raw and stored sizes, CRC.
	blockHeaderSize = 4 + 4 + 8 + 4 + 4 + 4
	// MaxBlockSize is the largest payload a block may hold, raw or stored. A block
	// past it is sealed early.
	MaxBlockSize = 4 << 20
	// maxBody is the largest body of one record.
	maxBody = 64 << 10
	// MaxExpansion bounds what a block may inflate to: its raw size is at most
	// MaxExpansion times its stored size plus expansionSlack. Recordings compress
	// about 2 to 1, and the writer stores a block that would compress further, so
	// a file holds at most about MaxExpansion times its size in records, whatever
	// its blocks claim.
	MaxExpansion = 16
	// expansionSlack lets a small block compress further than MaxExpansion.
	expansionSlack = 4 << 10
)

// maxRaw is the largest raw size a block of stored bytes may claim.
func maxRaw(stored int) int { return MaxExpansion*stored + expansionSlack }

// blockSync starts every block: "TRB" and the format version, so that a reader
// meeting anything else knows the file is damaged there.
var blockSync = [4]byte{'T', 'R', 'B', FormatVersion}

// crcTable is CRC-32C (Castagnoli), the checksum of headers and blocks.
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Kind says what a record holds.
type Kind uint8

// The record kinds. RECORDING.md gives each body's layout.
const (
	// KindMessage is a wire message the recorder received or (a host) sent to every
	// player: Spawn, Despawn, Leave, Chat, Fire, HitClaim, HitResult, Destroy or Scores.
	KindMessage Kind = 0x01
	// KindState is a state update the recorder received (a client) or accepted and
	// relayed (a host), with its arrival time.
	KindState Kind = 0x02
	// KindSent is a state update the recorder's own peer published.
	KindSent Kind = 0x03
	// KindTruthKey is a tank's true pose in full.
	KindTruthKey Kind = 0x04
	// KindTruth is a tank's true pose as the difference from the pose its last two
	// true poses predict.
	KindTruth Kind = 0x05
	// KindFrame marks a step of the recorder's match at its time, with the clock
	// offset in force.
	KindFrame Kind = 0x06
	// KindJoin is a player joining the match.
	KindJoin Kind = 0x07
	// KindSentMark marks an update one of the recorder's tanks published, without
	// the update: the publish time of a tank whose updates the recording holds as
	// received (practice's bots).
	KindSentMark Kind = 0x08
)

var kindNames = map[Kind]string{
	KindMessage: "message", KindState: "state", KindSent: "sent", KindTruthKey: "truth-key",
	KindTruth: "truth", KindFrame: "frame", KindJoin: "join", KindSentMark: "sent-mark",
}

// String returns the kind's name, such as "state".
func (k Kind) String() string {
	if s, ok := kindNames[k]; ok {
		return s
	}
	return fmt.Sprintf("Kind(%#02x)", uint8(k))
}

// recordable reports whether messages of type t may be recorded. The handshake
// (Challenge, JoinRequest with its proof, JoinAccepted with its reconnect token),
// refusals, kicks and clock probes never are: a recording holds no secret.
func recordable(t wire.MsgType) bool {
	switch t {
	case wire.MsgSpawn, wire.MsgDespawn, wire.MsgLeave, wire.MsgChat, wire.MsgFire, wire.MsgHitClaim,
		wire.MsgHitResult, wire.MsgDestroy, wire.MsgScores, wire.MsgRoute, wire.MsgProgress:
		return true
	}
	return false
}

// Errors a reader returns; test with errors.Is.
var (
	// ErrNotRecording reports a file that does not start with Magic.
	ErrNotRecording = errors.New("record: not a Treadline recording")
	// ErrVersion reports a recording of another format or protocol version.
	ErrVersion = errors.New("record: unsupported recording version")
	// ErrDamaged reports a recording whose bytes do not read as the format says.
	ErrDamaged = errors.New("record: damaged recording")
)

// VersionError reports a recording made with another format or protocol version. It
// wraps ErrVersion and names both versions.
type VersionError struct {
	// Format and Protocol are the file's versions.
	Format, Protocol uint8
}

// Error names the file's versions and this program's.
func (e *VersionError) Error() string {
	if e.Format != FormatVersion {
		return fmt.Sprintf("record: the recording has format version %d, this program reads version %d", e.Format, FormatVersion)
	}
	return fmt.Sprintf("record: the recording speaks protocol version %d, this program version %d", e.Protocol, wire.Version)
}

// Unwrap returns ErrVersion.
func (e *VersionError) Unwrap() error { return ErrVersion }

// StopError says where reading a damaged or truncated recording stopped. Everything
// before Offset was read. It wraps ErrDamaged (or io.ErrUnexpectedEOF for a file that
// ends inside a block).
type StopError struct {
	// Offset is the file offset of the first byte not read: the start of the bad
	// block, or of the bad record's block.
	Offset int64
	// Block is the index of the block that could not be read; Time the recording
	// time, s, of the last record read (0 when none was).
	Block int
	Time  float64
	// Err says what was wrong.
	Err error
}

// Error says in one line where reading stopped and why.
func (e *StopError) Error() string {
	return fmt.Sprintf("recording stopped at byte %d (block %d, %s into the match): %v", e.Offset, e.Block, Clock(e.Time), e.Err)
}

// Unwrap returns the cause.
func (e *StopError) Unwrap() error { return e.Err }

// Clock formats t seconds as m:ss (or h:mm:ss).
func Clock(t float64) string {
	if !(t >= 0) || math.IsInf(t, 0) {
		t = 0
	}
	s := int64(t)
	if s >= 3600 {
		return fmt.Sprintf("%d:%02d:%02d", s/3600, s/60%60, s%60)
	}
	return fmt.Sprintf("%d:%02d", s/60, s%60)
}

// appendHeader appends the file header for meta's JSON.
func appendHeader(b, meta []byte) []byte {
	start := len(b)
	b = append(b, Magic...)
	b = append(b, FormatVersion, wire.Version)
	b = binary.BigEndian.AppendUint32(b, uint32(len(meta)))
	b = append(b, meta...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b[start:], crcTable))
}

// timeUnit is the resolution of record times: 1 µs.
const timeUnit = 1e-6

// micros converts seconds to whole microseconds, saturating far outside any match.
func micros(t float64) int64 {
	const lim = 1 << 60
	switch v := math.Round(t / timeUnit); {
	case !(v > -lim):
		return -lim
	case v > lim:
		return lim
	default:
		return int64(v)
	}
}

// zigzag maps a signed integer to an unsigned one, small magnitudes to small values.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// unzigzag inverts zigzag.
func unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
