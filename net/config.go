package net

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"math"
	stdnet "net"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/wire"
)

// Defaults for HostConfig, ClientConfig and Limits.
const (
	// DefaultPort is the UDP port a host listens on when HostConfig.Addr has none.
	DefaultPort = 7878
	// DefaultHostAddr is the listen address when HostConfig.Addr is empty.
	DefaultHostAddr = ":7878"
	// ALPN is the TLS application protocol both ends insist on.
	ALPN = "treadline/1"

	// DefaultMaxPlayers is how many players a host admits at once, its own included.
	DefaultMaxPlayers = 32
	// DefaultMaxActorsPerPlayer is how many actors one remote player may own at
	// once: a player drives one tank, and a respawn (a despawn, then a spawn) never
	// needs a second, but one more leaves room for a client that spawns first.
	DefaultMaxActorsPerPlayer = 2
	// DefaultRespawnInterval paces a remote player's spawns (Limits.RespawnInterval):
	// combat's default wreck time, the shortest time between the deaths and so the
	// respawns of one tank in honest play.
	DefaultRespawnInterval = 5 * time.Second
	// DefaultMaxJoining is how many connections may be in the join handshake at once.
	DefaultMaxJoining = 64
	// DefaultMaxJoiningPerPrefix is how many of those may come from one address
	// prefix (/24 or /64): a whole match's worth, so that a LAN party behind one
	// prefix can join at once. A newcomer to a full queue evicts from the prefix
	// holding the most, so one prefix's flood of half-open joins evicts its own.
	DefaultMaxJoiningPerPrefix = 32
	// DefaultMaxHandshakes is how many QUIC handshakes may be in flight at once
	// (about 60 KB each). Under a flood a handshake keeps its place for this many
	// newer ones, a second at 256 a second, long enough for an honest one.
	DefaultMaxHandshakes = 256
	// DefaultMaxHandshakesPerPrefix is one address prefix's fair share of those
	// while the gate is contended; a prefix may hold up to twice that while at least
	// as many places are free, so that a LAN party of a whole match behind one
	// prefix can join at once.
	DefaultMaxHandshakesPerPrefix = 16
	// DefaultHandshakeRate is how many QUIC handshakes per second one address
	// prefix may start, in bursts of twice that: a whole match's worth at once.
	DefaultHandshakeRate = 16.0
	// DefaultRetryAbove is the number of handshakes in flight from which every new
	// connection attempt must first prove its source address with a QUIC Retry.
	DefaultRetryAbove = 8
	// DefaultHandshakeTimeout is how long a QUIC handshake may take in all: long
	// enough for the slowest link a client accepts (a second's round trip with a
	// third of the packets lost in bursts, where the client's last handshake packet
	// may need two retransmissions, each after QUIC's timeout of about three round
	// trips). What an attacker can hold is bounded by the handshake caps and the
	// half-open eviction, not by this.
	DefaultHandshakeTimeout = 6 * time.Second
	// DefaultMaxPlayersPerAddr is how many players may join from one IP address.
	DefaultMaxPlayersPerAddr = 4
	// DefaultIdleKick is how long a remote player may stay connected without
	// publishing anything (no accepted update or spawn) before it is kicked.
	DefaultIdleKick = 2 * time.Minute
	// DefaultSpawnGrace is how long a remote player may stay joined without ever
	// spawning or publishing before it is dropped: joining takes a game a second or two
	// to spawn its tank, and a squatter that joins only to hold a place holds it this
	// long, not for the whole idle kick.
	DefaultSpawnGrace = 30 * time.Second
	// DefaultGuessBurst is how many wrong passphrases one address prefix may send in
	// a row before it is slowed.
	DefaultGuessBurst = 5
	// DefaultGuessInterval is how often a slowed prefix earns one more check.
	DefaultGuessInterval = 5 * time.Second
	// DefaultGlobalGuessRate is how many wrong passphrases per second the host
	// checks, summed over every prefix that has already failed one.
	DefaultGlobalGuessRate = 1.0
	// DefaultGlobalGuessBurst is the depth of that global budget.
	DefaultGlobalGuessBurst = 30
	// DefaultGuessPrefixes is how many prefixes the limiter remembers; past that the
	// least recently seen one is forgotten (about 100 bytes each).
	DefaultGuessPrefixes = 4096
	// DefaultFloodRate is how many bad updates and datagrams per second (invalid,
	// unauthorized, malformed or over the token bucket) a client may send before the
	// seconds start to count towards a disconnect. An honest client sends none,
	// bar the odd update a clock correction or a collision makes implausible.
	DefaultFloodRate = 50.0
	// DefaultFloodFor is how long, in whole seconds, a client's bad traffic must stay
	// over DefaultFloodRate to get it disconnected.
	DefaultFloodFor = 3 * time.Second
	// DefaultMemoryLimit is the soft memory limit, in bytes, tankhost and "tanks
	// -host" set for the Go runtime (runtime/debug.SetMemoryLimit) unless told
	// otherwise: far above a host's needs, far below what a flood used to take.
	DefaultMemoryLimit = 512 << 20
	// DefaultUpdateRatePerActor is the sustained state updates per second a client
	// may send for each actor it may own (MaxActorsPerPlayer) before the excess is
	// dropped: twice what an honest publisher's budget lets one tank send on average
	// (deadreckon's default budget is 2/MinInterval, 10 a second), so that the host
	// relays to every observer no more than a small multiple of honest play.
	DefaultUpdateRatePerActor = 20.0
	// DefaultUpdateBurstPerActor is the token bucket depth for state updates, per
	// actor a client may own: a second's worth, which holds a start's copies, an
	// urgent correction and a heartbeat falling together.
	DefaultUpdateBurstPerActor = 20.0
	// DefaultControlRate is the sustained control messages per second per client.
	DefaultControlRate = 20.0
	// DefaultControlBurst is the token bucket depth for control messages.
	DefaultControlBurst = 40.0
	// DefaultChatRate is the sustained chat lines per second per player: the host
	// sends each line to every player, so in a match of 512 one line costs 512 frames.
	DefaultChatRate = 1.0
	// DefaultChatBurst is the token bucket depth for chat lines.
	DefaultChatBurst = 5.0
	// DefaultTimeout is how long a client may stay silent before the host drops it.
	// Clients send a clock probe every DefaultSyncInterval, so only a dead or cut-off
	// client stays silent this long.
	DefaultTimeout = 6 * time.Second
	// DefaultJoinTimeout is how long a client waits for the host's answer to a
	// request.
	DefaultJoinTimeout = 5 * time.Second
	// DefaultHostJoinTimeout is how long a new connection has after its QUIC
	// handshake to send its JoinRequest: an honest client needs one round trip and
	// its PBKDF2 (about 10 ms).
	DefaultHostJoinTimeout = 2 * time.Second
	// DefaultMaxSpeed is the fastest plausible tank speed, m/s (about 108 km/h).
	DefaultMaxSpeed = 30.0
	// DefaultMaxAcceleration is the largest plausible acceleration magnitude, m/s².
	DefaultMaxAcceleration = 40.0
	// DefaultMaxTurnRate is the largest angular velocity an update may carry, rad/s:
	// what observers extrapolate a hull's turn with. (The wire saturates each
	// component at 4 rad/s.) How far the heading itself may turn is the tank's
	// (its tracks', or a collision's spin: the movement checks, from tank.Spec).
	DefaultMaxTurnRate = 3.0
	// DefaultMaxArticulationRate is the fastest plausible turret or gun rate, rad/s.
	DefaultMaxArticulationRate = 8.0
	// DefaultHeightRange is how far above and below y = 0 a position may be, m.
	DefaultHeightRange = 200.0
	// DefaultPositionSlack is the tolerance in meters on the distance implied between
	// two consecutive updates (speed × elapsed time + slack), covering quantization and
	// clamping corrections.
	DefaultPositionSlack = 3.0
	// DefaultTurnSlack is the tolerance in radians on a heading's turn since the
	// actor's anchor, granted once per anchor period: the orientation's quantization
	// and the turn between a physics step and the update's sample.
	DefaultTurnSlack = 0.5
	// DefaultTimeSlack bounds how far an update's host-clock timestamp may lie ahead
	// of the host's clock (clock-sync error) or behind it (lateness).
	DefaultTimeSlack = 2 * time.Second
	// DefaultCoalesce is how long the host gathers relayed updates for one recipient
	// before sending them as one datagram.
	DefaultCoalesce = 2 * time.Millisecond
	// DefaultDownlink is each player's budget of state updates from the host, in
	// bytes of datagram payload per second (Limits.Downlink): 780 tank records a
	// second, every other tank's ten updates a second up to 64 tanks.
	DefaultDownlink = 32000
	// DefaultZonesAbove is the number of tanks in a match above which the host
	// schedules each player's updates by relevance within its downlink budget
	// (Limits.ZonesAbove). Up to it, every update goes to every player as it comes:
	// 63 tanks at ten updates a second are 26 kB/s of records, within the default
	// budget, and the whole relay costs one host under half a core.
	DefaultZonesAbove = 64
	// DefaultSyncInterval is how often a client probes the host clock.
	DefaultSyncInterval = 500 * time.Millisecond
)

// Off turns off the Limits and HostConfig features whose fields say they may be Off
// (as any negative value does): spawn pacing, the handshake count below which no
// Retry is asked, the idle kick, the spawn grace and coalescing. Zero never means
// off: a zero field takes its default.
const Off = -1

// Limits are the host's defences. The zero value means all defaults.
type Limits struct {
	// MaxPlayers caps the players in the match, the host's own player included. If
	// zero, defaults to DefaultMaxPlayers.
	MaxPlayers int
	// MaxActorsPerPlayer caps the actors of one player joined over the network. If
	// zero, defaults to DefaultMaxActorsPerPlayer. Players in the host's process (its
	// own, and those joined with Host.JoinLocal) run the host's bots: only the actor
	// ids bound theirs.
	MaxActorsPerPlayer int
	// RespawnInterval paces the spawns of a player joined over the network: it may
	// spawn MaxActorsPerPlayer tanks per RespawnInterval, in bursts of twice
	// MaxActorsPerPlayer and two (every tank at a join and again at a round restart);
	// a spawn beyond that is refused and counted in HostStats.SpawnsThrottled. Honest play
	// respawns a tank once per wreck time at most, so a host whose rules set another
	// wreck time sets this to it. Each spawn costs the host a message to every
	// player, and a despawn another. If zero, defaults to DefaultRespawnInterval;
	// Off: unpaced. Players in the host's process are not paced.
	RespawnInterval time.Duration
	// MaxJoining and MaxJoiningPerPrefix cap the connections that finished the QUIC
	// handshake but have not joined yet, in all and from one address prefix (/24 or
	// /64). A newcomer past a cap evicts the oldest such half-open connection (of its
	// prefix, or of the prefix holding the most), so a flood of half-open joins cannot
	// shut honest players out. If zero, default to DefaultMaxJoining and
	// DefaultMaxJoiningPerPrefix.
	MaxJoining, MaxJoiningPerPrefix int
	// MaxHandshakes and MaxHandshakesPerPrefix cap the QUIC handshakes in flight, in
	// all and from one address prefix. A prefix may hold up to twice its share while
	// at least as many places are free; past its share new ones are refused
	// (CONNECTION_REFUSED). A newcomer to a full gate takes the place of a stalled or
	// older handshake (see docs/security.md for the order), and is refused only when
	// none may be evicted. If zero, default to DefaultMaxHandshakes and
	// DefaultMaxHandshakesPerPrefix.
	MaxHandshakes, MaxHandshakesPerPrefix int
	// HandshakeRate is how many QUIC handshakes per second one address prefix may
	// start, in bursts of twice that; past it new ones are refused. If zero, defaults
	// to DefaultHandshakeRate.
	HandshakeRate float64
	// RetryAbove is the number of handshakes in flight from which a new connection
	// attempt must first prove its source address with a stateless QUIC Retry (one
	// more round trip), so that forged Initials cost the host nothing. If zero,
	// defaults to DefaultRetryAbove; Off: always.
	RetryAbove int
	// HandshakeTimeout bounds the whole QUIC handshake (quic-go's
	// HandshakeIdleTimeout is half of it). If zero, defaults to
	// DefaultHandshakeTimeout.
	HandshakeTimeout time.Duration
	// MaxPlayersPerAddr caps the players joined from one IP address. If zero,
	// defaults to DefaultMaxPlayersPerAddr.
	MaxPlayersPerAddr int
	// IdleKick is how long a remote player may stay without publishing (no accepted
	// update or spawn) before it is kicked. If zero, defaults to DefaultIdleKick;
	// Off: never.
	IdleKick time.Duration
	// SpawnGrace is how long a remote player may stay joined without ever spawning or
	// publishing before it is dropped (counted as IdleKicked). If zero, defaults to
	// DefaultSpawnGrace; Off: never.
	SpawnGrace time.Duration
	// FloodRate and FloodFor disconnect a client whose bad traffic (invalid,
	// unauthorized, malformed or over its token bucket) exceeds FloodRate items per
	// second for FloodFor. If zero, default to DefaultFloodRate and DefaultFloodFor.
	FloodRate float64
	FloodFor  time.Duration
	// GuessBurst and GuessInterval limit wrong passphrases per address prefix: a
	// burst, then one per interval. GlobalGuessRate limits them per second over all
	// prefixes that failed before. If zero, default to DefaultGuessBurst,
	// DefaultGuessInterval and DefaultGlobalGuessRate.
	GuessBurst      int
	GuessInterval   time.Duration
	GlobalGuessRate float64
	// UpdateRate and UpdateBurst set each client's state-update token bucket, updates
	// per second and bucket depth. If zero, default to DefaultUpdateRatePerActor and
	// DefaultUpdateBurstPerActor times MaxActorsPerPlayer (40 and 40 by default).
	UpdateRate, UpdateBurst float64
	// ControlRate and ControlBurst set each client's control-message token bucket. If
	// zero, default to DefaultControlRate and DefaultControlBurst. A client that
	// overruns it is disconnected.
	ControlRate, ControlBurst float64
	// ChatRate and ChatBurst set each player's chat token bucket: a line past it is
	// dropped (and counted in HostStats.RateLimited), not passed on. If zero, default
	// to DefaultChatRate and DefaultChatBurst.
	ChatRate, ChatBurst float64
	// Timeout is the silence, on the host's Clock, after which a client is dropped.
	// If zero, defaults to DefaultTimeout.
	Timeout time.Duration
	// JoinTimeout is the real time a connection has, after its QUIC handshake, to
	// send its JoinRequest. If zero, defaults to DefaultHostJoinTimeout.
	JoinTimeout time.Duration
	// MaxSpeed (m/s), MaxAcceleration (m/s²), MaxTurnRate (rad/s) and
	// MaxArticulationRate (rad/s) bound plausible motion. If zero, they default to
	// DefaultMaxSpeed, DefaultMaxAcceleration, DefaultMaxTurnRate and
	// DefaultMaxArticulationRate.
	MaxSpeed, MaxAcceleration, MaxTurnRate, MaxArticulationRate float64
	// HeightRange bounds |y| in meters. If zero, defaults to DefaultHeightRange.
	HeightRange float64
	// PositionSlack (m) and TurnSlack (rad) are the tolerances of the travel and the
	// heading's turn since an actor's anchor. If zero, default to DefaultPositionSlack
	// and DefaultTurnSlack.
	PositionSlack, TurnSlack float64
	// TimeSlack bounds how far an update's timestamp may stray from the host's
	// clock. If zero, defaults to DefaultTimeSlack.
	TimeSlack time.Duration
	// Downlink is each player's budget of relayed state updates, in bytes of
	// datagram payload per second, once the match holds more than ZonesAbove tanks:
	// the host then sends each player the latest state of the tanks most relevant
	// to it first (docs/network.md). Spawns, despawns and combat events travel on
	// the reliable stream outside it. If zero, defaults to DefaultDownlink;
	// negative: no budget, every update to every player.
	Downlink int
	// ZonesAbove is the number of tanks above which the Downlink budget applies. If
	// zero, defaults to DefaultZonesAbove; negative: always.
	ZonesAbove int
	// MaxObservers caps the observers in the match (ClientConfig.Observe), who are
	// not counted in MaxPlayers. If zero, defaults to DefaultMaxObservers; Off: none.
	MaxObservers int
	// ObserverDownlink is each observer's budget of relayed state updates, bytes
	// of datagram payload per second, while the Downlink budget applies. If zero,
	// defaults to DefaultObserverDownlink.
	ObserverDownlink int
}

func (l Limits) withDefaults() Limits {
	orDefault(&l.MaxPlayers, DefaultMaxPlayers)
	orDefault(&l.MaxActorsPerPlayer, DefaultMaxActorsPerPlayer)
	orDefault(&l.RespawnInterval, DefaultRespawnInterval)
	orDefault(&l.MaxJoining, DefaultMaxJoining)
	orDefault(&l.MaxJoiningPerPrefix, DefaultMaxJoiningPerPrefix)
	orDefault(&l.MaxHandshakes, DefaultMaxHandshakes)
	orDefault(&l.MaxHandshakesPerPrefix, DefaultMaxHandshakesPerPrefix)
	orDefault(&l.RetryAbove, DefaultRetryAbove)
	orDefault(&l.MaxPlayersPerAddr, DefaultMaxPlayersPerAddr)
	orDefault(&l.GuessBurst, DefaultGuessBurst)
	orDefault(&l.FloodRate, DefaultFloodRate)
	orDefault(&l.HandshakeRate, DefaultHandshakeRate)
	orDefault(&l.GlobalGuessRate, DefaultGlobalGuessRate)
	orDefault(&l.UpdateRate, DefaultUpdateRatePerActor*float64(l.MaxActorsPerPlayer))
	orDefault(&l.UpdateBurst, DefaultUpdateBurstPerActor*float64(l.MaxActorsPerPlayer))
	orDefault(&l.ControlRate, DefaultControlRate)
	orDefault(&l.ControlBurst, DefaultControlBurst)
	orDefault(&l.ChatRate, DefaultChatRate)
	orDefault(&l.ChatBurst, DefaultChatBurst)
	orDefault(&l.MaxSpeed, DefaultMaxSpeed)
	orDefault(&l.MaxAcceleration, DefaultMaxAcceleration)
	orDefault(&l.MaxTurnRate, DefaultMaxTurnRate)
	orDefault(&l.MaxArticulationRate, DefaultMaxArticulationRate)
	orDefault(&l.HeightRange, DefaultHeightRange)
	orDefault(&l.PositionSlack, DefaultPositionSlack)
	orDefault(&l.TurnSlack, DefaultTurnSlack)
	orDefault(&l.Timeout, DefaultTimeout)
	orDefault(&l.JoinTimeout, DefaultHostJoinTimeout)
	orDefault(&l.HandshakeTimeout, DefaultHandshakeTimeout)
	orDefault(&l.IdleKick, DefaultIdleKick)
	orDefault(&l.SpawnGrace, DefaultSpawnGrace)
	orDefault(&l.FloodFor, DefaultFloodFor)
	orDefault(&l.GuessInterval, DefaultGuessInterval)
	orDefault(&l.TimeSlack, DefaultTimeSlack)
	orDefault(&l.Downlink, DefaultDownlink)
	orDefault(&l.ZonesAbove, DefaultZonesAbove)
	orDefault(&l.MaxObservers, DefaultMaxObservers)
	orDefault(&l.ObserverDownlink, DefaultObserverDownlink)
	return l
}

// orDefault sets *v to d when *v is the zero value: a zero field means its default.
func orDefault[T comparable](v *T, d T) {
	var zero T
	if *v == zero {
		*v = d
	}
}

func (l Limits) validate() error {
	for _, n := range []int{l.MaxPlayers, l.MaxActorsPerPlayer, l.MaxJoining, l.MaxJoiningPerPrefix,
		l.MaxHandshakes, l.MaxHandshakesPerPrefix, l.MaxPlayersPerAddr, l.GuessBurst} {
		if n < 1 {
			return errors.New("limits: player, actor, joining, handshake and guess caps must be positive")
		}
	}
	if l.HandshakeTimeout < 10*time.Millisecond || l.FloodFor < time.Second || l.GuessInterval <= 0 {
		return errors.New("limits: HandshakeTimeout under 10 ms, FloodFor under 1 s or GuessInterval not positive")
	}
	for _, v := range []float64{l.FloodRate, l.HandshakeRate, l.GlobalGuessRate, l.UpdateRate, l.UpdateBurst, l.ControlRate, l.ControlBurst,
		l.ChatRate, l.ChatBurst,
		l.MaxSpeed, l.MaxAcceleration, l.MaxTurnRate,
		l.MaxArticulationRate, l.HeightRange, l.PositionSlack, l.TurnSlack} {
		if !(v > 0) || math.IsInf(v, 0) {
			return fmt.Errorf("limits: %v is not a positive finite value", v)
		}
	}
	if l.Timeout < 0 || l.JoinTimeout < 0 || l.TimeSlack < 0 {
		return errors.New("limits: negative Timeout, JoinTimeout or TimeSlack")
	}
	return nil
}

// Thinning sends far actors' updates to an observer less often, after seed 004's
// distance-based error tolerance: the tolerated staleness grows linearly with the
// distance from the observer's nearest actor, up to MaxInterval, so an observer never
// goes longer than MaxInterval without an update its owner sent. The zero value
// disables thinning.
type Thinning struct {
	// Near is the distance in meters within which every update is relayed.
	Near float64
	// PerMeter is the minimum spacing added between relayed updates for each meter
	// beyond Near (so an actor Near+100 m away with PerMeter 2 ms is relayed at most
	// every 0.2 s).
	PerMeter time.Duration
	// MaxInterval caps that spacing. If zero, defaults to DefaultThinningMaxInterval.
	MaxInterval time.Duration
}

// DefaultThinningMaxInterval is the longest spacing Thinning puts between the updates
// of one actor to one observer when Thinning.MaxInterval is zero.
const DefaultThinningMaxInterval = time.Second

// Enabled reports whether thinning does anything.
func (t Thinning) Enabled() bool { return t.PerMeter > 0 }

// interval returns the minimum spacing in seconds between relayed updates of an actor
// at distance d from the observer.
func (t Thinning) interval(d float64) float64 {
	if !t.Enabled() || d <= t.Near {
		return 0
	}
	iv := (d - t.Near) * t.PerMeter.Seconds()
	maxIv := t.MaxInterval
	if maxIv == 0 {
		maxIv = DefaultThinningMaxInterval
	}
	return math.Min(iv, maxIv.Seconds())
}

// WrapConn wraps the UDP socket a host or client uses, for example with an
// impair.Conn. The returned conn owns the one passed in.
type WrapConn func(stdnet.PacketConn) (stdnet.PacketConn, error)

// HostConfig sets up a host. The zero value hosts an open match on DefaultHostAddr.
type HostConfig struct {
	// Addr is the UDP address to listen on, host:port. If empty, defaults to
	// DefaultHostAddr; use "127.0.0.1:0" for a random loopback port.
	Addr string
	// Passphrase, when not empty, must be proven by every joining player.
	Passphrase string
	// Name is the host's own player name. If empty, defaults to "host".
	Name string
	// Match describes the match; its zero fields take their defaults.
	Match MatchSettings
	// Mover, when set, holds each update to what its actor can do (for tanks,
	// referee.NewMover: the tank's speed, turn, acceleration, turret and gun, and on
	// a map's ground its height; see docs/security.md). If nil, updates are held
	// only to Limits, and the travel since the anchor to Limits.MaxSpeed in three
	// dimensions.
	Mover Mover
	// Wrap, if set, wraps the UDP socket under QUIC (impairment for tests and labs).
	Wrap WrapConn
	// Logger receives session events. If nil, nothing is logged.
	Logger *slog.Logger
	// Limits are the host's defences; zero fields take their defaults.
	Limits Limits
	// Thinning, when enabled, thins far actors' updates per observer.
	Thinning Thinning
	// Coalesce is how long relayed updates for one recipient are gathered into one
	// datagram. If zero, defaults to DefaultCoalesce; Off sends at once.
	Coalesce time.Duration
	// Clock is the host clock, the time base of every state timestamp in the match,
	// of timeouts and of rate limits. If nil, the system's monotonic clock.
	Clock Clock
	// Certificate is the host's identity (see LoadIdentity). If nil, the host makes a
	// fresh one, so its fingerprint changes at every start.
	Certificate *tls.Certificate
	// Judge, when set, referees the game: it hears of every spawn, relayed update,
	// despawn and game message, and the host sends its answers to every player. If
	// nil, game messages are refused.
	Judge Judge
	// Tap, when set, sees every accepted update, broadcast message, join and leave,
	// for recording the match. If nil, nothing is recorded.
	Tap Tap
}

// ClientConfig sets up a client.
type ClientConfig struct {
	// Addr is the host's UDP address, host:port. Required.
	Addr string
	// Fingerprint, when set, pins the host's certificate: the hex SHA-256 of its DER
	// encoding (as Host.Fingerprint returns; colons and case are ignored). When empty,
	// trust on first use applies through KnownHosts.
	Fingerprint string
	// KnownHosts is the trust-on-first-use file. If empty, defaults to
	// DefaultKnownHostsPath(); "-" disables trust on first use, so that an unpinned
	// dial accepts any certificate (tests only).
	KnownHosts string
	// Remember, with a Fingerprint pinned, also checks the pin against KnownHosts and
	// remembers it there on first use, as an unpinned join would: for a match found on
	// the local network, whose announced fingerprint is trusted as far as that network
	// is, so that a later change of certificate at that address is refused as one.
	Remember bool
	// Name is the player's name (at most wire.MaxNameLen bytes). If empty, defaults
	// to "player".
	Name string
	// Passphrase proves the right to join a protected match.
	Passphrase string
	// ReconnectToken is the token of an earlier session under the same Name
	// (Client.ReconnectToken), to take the name back from a connection that died,
	// and to skip the host's guess limiter. The zero value presents none.
	ReconnectToken ReconnectToken
	// Observe joins as an observer: no tank, a camera the client reports with
	// Client.View (the host's Limits.MaxObservers and ObserverDownlink apply).
	Observe bool
	// Wrap, if set, wraps the client's UDP socket under QUIC. It is not used with
	// Socket (the shared socket's own wrap applies).
	Wrap WrapConn
	// Socket, if set, is the UDP socket the client dials from, shared with other
	// clients of this process (OpenSocket): each keeps its own QUIC connection,
	// told apart by connection id, and Close leaves the socket open. If nil, the
	// client opens a socket of its own and closes it with the session.
	Socket *Socket
	// Logger receives session events. If nil, nothing is logged.
	Logger *slog.Logger
	// RequestTimeout bounds, in real time, the wait for the host's answer to a spawn,
	// and is the least wait for its answer to a join once the QUIC handshake is
	// done; on a slow link the join waits for several measured round trips, up to
	// four times RequestTimeout. If zero, defaults to DefaultJoinTimeout.
	RequestTimeout time.Duration
	// NoAnswerTimeout is how long, in real time, a join waits for the first packet
	// from the host before it fails with ErrNoAnswer. If zero, defaults to
	// DefaultNoAnswerTimeout.
	NoAnswerTimeout time.Duration
	// SyncInterval is how often the client probes the host clock. If zero, defaults to
	// DefaultSyncInterval.
	SyncInterval time.Duration
	// Timeout is how long, on Clock, the host may stay silent (no datagram, no clock
	// answer) before the client gives the session up with "host stopped responding".
	// If zero, defaults to DefaultTimeout.
	Timeout time.Duration
	// Clock is the client's local clock. If nil, the system's monotonic clock.
	Clock Clock
	// OnHandshake, if set, is called (on Dial's goroutine) each time the QUIC
	// handshake with the host completes, before the join exchange: the host
	// answered, and the passphrase and admission come next. It is for showing a
	// join's progress.
	OnHandshake func()
}

func (m MatchSettings) withDefaults() MatchSettings {
	if m.Heartbeat == 0 {
		m.Heartbeat = units.Duration(deadreckon.DefaultHeartbeat)
	}
	if m.Extent == 0 {
		m.Extent = DefaultExtent
	}
	if m.TickRate == 0 {
		m.TickRate = DefaultTickRate
	}
	return m
}

func (m MatchSettings) validate() error {
	if !(m.Extent > 0) || math.IsInf(m.Extent, 0) {
		return fmt.Errorf("match: extent %v is not positive and finite", m.Extent)
	}
	if !(m.TickRate > 0 && m.TickRate <= 1000) {
		return fmt.Errorf("match: tick rate %v outside (0, 1000]", m.TickRate)
	}
	if len(m.Map) > wire.MaxMapNameLen {
		return fmt.Errorf("match: map name longer than %d bytes", wire.MaxMapNameLen)
	}
	if m.Extent > wire.MaxHorizontal {
		return fmt.Errorf("match: extent %v m beyond the wire's %v m", m.Extent, wire.MaxHorizontal)
	}
	if m.Heartbeat < time.Millisecond || m.Heartbeat > time.Hour {
		return fmt.Errorf("match: heartbeat %v outside [1ms, 1h]", m.Heartbeat)
	}
	return nil
}
