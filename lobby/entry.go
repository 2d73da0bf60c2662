package lobby

import (
	"encoding/hex"
	"errors"
	"fmt"
	stdnet "net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/treadline/treadline/net/wire"
)

// Limits on an entry's fields.
const (
	// MaxCapacity is the most players an entry may say a match holds.
	MaxCapacity = 1024
	// FingerprintLen is the length of a certificate fingerprint in hex digits.
	FingerprintLen = 64
)

// ErrBadEntry reports an entry that breaks the rules of Check; decoders wrap it.
var ErrBadEntry = errors.New("lobby: bad entry")

// Entry is one match a player can join: what a host announces on the local network
// and registers with a list server, and what browsing finds. Its JSON form is the
// list server's (field names in the tags).
type Entry struct {
	// Name names the match: the hosting player's name, or the host's.
	Name string `json:"name"`
	// Map is the map's name.
	Map string `json:"map"`
	// Players is how many players are in the match now.
	Players int `json:"players"`
	// Capacity is how many players the match holds.
	Capacity int `json:"capacity"`
	// Passphrase reports that joining needs a passphrase.
	Passphrase bool `json:"passphrase"`
	// Version is the protocol version the host speaks (wire.Version).
	Version int `json:"version"`
	// Fingerprint is the hex SHA-256 of the host's certificate, 64 digits.
	Fingerprint string `json:"fingerprint"`
	// Addr is the address to join, host:port.
	Addr string `json:"addr"`
	// Fleet reports a game server of a fleet (tankhost -agones).
	Fleet bool `json:"fleet,omitempty"`
	// Ping is the round trip to the host as the finder measured it: for the local
	// network this client's query to its answer, for a list server the list
	// server's own check (a hint). 0 when unknown.
	Ping time.Duration `json:"-"`
	// Source is where the entry was found: "lan", or the list server's URL.
	Source string `json:"-"`
	// Conflict reports a match found on the local network that shares its
	// address or its fingerprint with another one found there: one of them is a
	// spoof, or a host seen on two networks. Both are shown; the join pins the
	// fingerprint, so the certificate check tells them apart.
	Conflict bool `json:"-"`
}

// Join returns the "-join" argument for the entry, ADDR#FINGERPRINT.
func (e Entry) Join() string { return e.Addr + "#" + e.Fingerprint }

// Key identifies the match: its address and fingerprint.
func (e Entry) Key() string { return e.Join() }

// Line describes the entry in one line for a terminal: its name and address first,
// so that two matches of one name (two hosts on one machine) read apart, and last the
// command that joins it.
func (e Entry) Line() string {
	var b strings.Builder
	b.WriteString(e.Name)
	if e.Addr != "" {
		b.WriteString("  " + e.Addr)
	}
	fmt.Fprintf(&b, "  map %s  players %d/%d", e.Map, e.Players, e.Capacity)
	if e.Passphrase {
		b.WriteString("  passphrase")
	}
	if e.Version != int(wire.Version) {
		fmt.Fprintf(&b, "  protocol %d (this program %d)", e.Version, wire.Version)
	}
	if e.Ping > 0 {
		fmt.Fprintf(&b, "  ping %d ms", max(1, e.Ping.Round(time.Millisecond).Milliseconds()))
	}
	if e.Source != "" {
		b.WriteString("  via " + e.Source)
	}
	if e.Conflict {
		b.WriteString("  conflict: another announcement shares its address or fingerprint")
	}
	b.WriteString("  tanks -join " + e.Join())
	return b.String()
}

// Check reports whether e is an entry a player may be shown: every field within its
// limits, printable text, a 64-hex-digit fingerprint, and, when set, an address of
// the form host:port with a numeric IP. It wraps ErrBadEntry.
func (e Entry) Check() error {
	switch {
	case wire.CheckName(e.Name) != nil:
		return fmt.Errorf("%w: name %q", ErrBadEntry, clip(e.Name))
	case wire.CheckMapName(e.Map) != nil:
		return fmt.Errorf("%w: map %q", ErrBadEntry, clip(e.Map))
	case e.Capacity < 1 || e.Capacity > MaxCapacity || e.Players < 0 || e.Players > e.Capacity:
		return fmt.Errorf("%w: %d of %d players", ErrBadEntry, e.Players, e.Capacity)
	case e.Version < 1 || e.Version > 255:
		return fmt.Errorf("%w: protocol version %d", ErrBadEntry, e.Version)
	case !isFingerprint(e.Fingerprint):
		return fmt.Errorf("%w: fingerprint %q", ErrBadEntry, clip(e.Fingerprint))
	}
	if e.Addr != "" {
		if _, err := ParseAddr(e.Addr); err != nil {
			return fmt.Errorf("%w: %v", ErrBadEntry, err)
		}
	}
	return nil
}

// ParseAddr parses a join address, a numeric IP and a port from 1 to 65535.
func ParseAddr(s string) (netip.AddrPort, error) {
	ap, err := netip.ParseAddrPort(s)
	if err != nil || ap.Port() == 0 || !ap.Addr().IsValid() || ap.Addr().IsUnspecified() || ap.Addr().IsMulticast() {
		return netip.AddrPort{}, fmt.Errorf("address %q: want a numeric IP and a port", clip(s))
	}
	return netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port()), nil
}

// joinHostPort formats an address for an entry.
func joinHostPort(ip netip.Addr, port int) string {
	return stdnet.JoinHostPort(ip.Unmap().String(), strconv.Itoa(port))
}

// isFingerprint reports whether s is 64 lower-case hex digits.
func isFingerprint(s string) bool {
	if len(s) != FingerprintLen || strings.ToLower(s) != s {
		return false
	}
	_, err := hex.DecodeString(s)
	return err == nil
}

// clip shortens hostile text for an error message.
func clip(s string) string {
	if len(s) > 40 {
		s = s[:40] + "…"
	}
	return strings.ToValidUTF8(s, "?")
}
