package net

import (
	"flag"
	"fmt"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
)

// DefenceFlags are the command-line flags that tune a host's defences, shared by
// tankhost and "tanks -host" so that both spell them the same. Register them on a
// FlagSet, parse, then take Limits and apply the memory limit.
type DefenceFlags struct {
	lim         Limits
	memLimitMiB int64
	memLimitSet bool
}

// Register defines the defence flags on fs, each defaulting to the value a zero
// Limits field stands for.
func (d *DefenceFlags) Register(fs *flag.FlagSet) {
	l := &d.lim
	fs.IntVar(&l.MaxHandshakes, "max-handshakes", DefaultMaxHandshakes, "QUIC handshakes in flight at once, in all")
	fs.IntVar(&l.MaxHandshakesPerPrefix, "max-handshakes-per-prefix", DefaultMaxHandshakesPerPrefix,
		"fair share of QUIC handshakes in flight from one /24 (IPv4) or /64 (IPv6); twice that while as many are free")
	fs.Float64Var(&l.HandshakeRate, "handshake-rate", DefaultHandshakeRate,
		"QUIC handshakes per second one /24 or /64 may start (in bursts of twice that)")
	fs.IntVar(&l.RetryAbove, "retry-above", DefaultRetryAbove,
		"handshakes in flight from which new clients must prove their address with a QUIC Retry (negative: always)")
	fs.DurationVar(&l.HandshakeTimeout, "handshake-timeout", DefaultHandshakeTimeout, "longest QUIC handshake")
	fs.DurationVar(&l.JoinTimeout, "join-timeout", DefaultHostJoinTimeout,
		"time a new connection has after its handshake to send its join request")
	fs.IntVar(&l.MaxJoining, "max-joining", DefaultMaxJoining,
		"connections past the handshake not yet joined, in all (past it the most crowded prefix's oldest is evicted)")
	fs.IntVar(&l.MaxJoiningPerPrefix, "max-joining-per-prefix", DefaultMaxJoiningPerPrefix,
		"connections not yet joined from one /24 or /64 (past it that prefix's oldest is evicted)")
	fs.IntVar(&l.MaxPlayersPerAddr, "max-players-per-addr", DefaultMaxPlayersPerAddr, "players joined from one IP address")
	fs.IntVar(&l.MaxObservers, "max-observers", DefaultMaxObservers, "observers (no tank) watching at once, besides the players (negative: none)")
	fs.DurationVar(&l.Timeout, "timeout", DefaultTimeout, "drop a player the host has heard nothing from for this long")
	fs.DurationVar(&l.IdleKick, "idle-kick", DefaultIdleKick, "kick a player who publishes nothing for this long (negative: never)")
	fs.Float64Var(&l.FloodRate, "flood-rate", DefaultFloodRate,
		"bad updates per second (invalid, unauthorized, malformed, over the rate limit) that count towards a flood")
	fs.DurationVar(&l.FloodFor, "flood-for", DefaultFloodFor, "disconnect a client whose bad traffic stays over -flood-rate this long")
	fs.IntVar(&l.GuessBurst, "guess-burst", DefaultGuessBurst, "wrong passphrases one /24 or /64 may send in a row")
	fs.DurationVar(&l.GuessInterval, "guess-interval", DefaultGuessInterval,
		"after the burst, one more passphrase check per prefix this often")
	fs.Float64Var(&l.GlobalGuessRate, "global-guess-rate", DefaultGlobalGuessRate,
		"wrong passphrases per second checked over all prefixes that already failed one")
	fs.Func("downlink", fmt.Sprintf("each player's budget of state updates from the host, bytes per second with a unit "+
		"(32kB, 1MB; 0: none, every update to every player), once the match holds more than -zones-above tanks (default %s)",
		FormatByteRate(DefaultDownlink)), func(s string) error {
		n, err := ParseByteRate(s)
		if err != nil {
			return err
		}
		if l.Downlink = n; n == 0 {
			l.Downlink = Off
		}
		return nil
	})
	fs.IntVar(&l.ZonesAbove, "zones-above", DefaultZonesAbove,
		"tanks in the match above which each player's updates are scheduled within -downlink (negative: always)")
	fs.Func("mem-limit", fmt.Sprintf("soft memory limit of the process in MiB (0: none; default %d, or GOMEMLIMIT when set)",
		DefaultMemoryLimit>>20), func(s string) error {
		var mib int64
		if _, err := fmt.Sscan(s, &mib); err != nil || mib < 0 {
			return fmt.Errorf("want a whole number of MiB, got %q", s)
		}
		d.memLimitMiB, d.memLimitSet = mib, true
		return nil
	})
}

// Limits returns the host limits the flags set; call it after parsing.
func (d *DefenceFlags) Limits() Limits { return d.lim }

// ApplyMemoryLimit sets the process's soft memory limit (runtime/debug.SetMemoryLimit)
// from -mem-limit, or to DefaultMemoryLimit when the flag was not given and the
// environment's GOMEMLIMIT (which getenv reads) is not set either. Near the limit the
// garbage collector works harder instead of letting the heap grow. It returns the
// limit in force, in bytes (math.MaxInt64: none).
func (d *DefenceFlags) ApplyMemoryLimit(getenv func(string) string) int64 {
	switch {
	case d.memLimitSet && d.memLimitMiB == 0:
		debug.SetMemoryLimit(1<<63 - 1)
	case d.memLimitSet:
		debug.SetMemoryLimit(d.memLimitMiB << 20)
	case getenv("GOMEMLIMIT") == "":
		debug.SetMemoryLimit(DefaultMemoryLimit)
	}
	return debug.SetMemoryLimit(-1)
}

// byteUnits are the units ParseByteRate takes, longest first.
var byteUnits = []struct {
	name string
	n    float64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"B", 1}}

// ParseByteRate parses a rate in bytes per second with a unit, as -downlink takes
// it: "32kB" (32 000), "1MB", "64KiB", "500B"; "0" needs none. An optional "/s"
// may follow the unit.
func ParseByteRate(s string) (int, error) {
	t := strings.TrimSuffix(strings.TrimSpace(s), "/s")
	mul := 0.0
	for _, u := range byteUnits {
		if strings.HasSuffix(t, u.name) {
			t, mul = strings.TrimSpace(strings.TrimSuffix(t, u.name)), u.n
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	switch {
	case err != nil || v < 0 || math.IsInf(v, 0) || v != v:
		return 0, fmt.Errorf("want bytes per second with a unit (32kB, 1MB, 0), got %q", s)
	case mul == 0 && v != 0:
		return 0, fmt.Errorf("%q: give a unit (B, kB, MB, KiB, MiB)", s)
	case v*mul > math.MaxInt32:
		return 0, fmt.Errorf("%q: over 2 GB/s", s)
	}
	return int(math.Round(v * mul)), nil
}

// FormatByteRate writes n bytes per second as ParseByteRate reads it back.
func FormatByteRate(n int) string {
	switch {
	case n == 0:
		return "0"
	case n%1000000 == 0:
		return strconv.Itoa(n/1000000) + "MB"
	case n%1000 == 0:
		return strconv.Itoa(n/1000) + "kB"
	}
	return strconv.Itoa(n) + "B"
}
