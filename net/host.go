package net

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	stdnet "net"
	"os"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/internal/admission"
	"github.com/treadline/treadline/net/wire"
)

// Application error codes carried in QUIC CONNECTION_CLOSE frames; the reason text
// travels with them.
const (
	codeNormal   quic.ApplicationErrorCode = 0
	codeRefused  quic.ApplicationErrorCode = 1
	codeKicked   quic.ApplicationErrorCode = 2
	codeTimeout  quic.ApplicationErrorCode = 3
	codeProtocol quic.ApplicationErrorCode = 4
	codeShutdown quic.ApplicationErrorCode = 5
)

// HostStats are a host's counters since it started, and its current relay rate.
type HostStats struct {
	// Players is the number of players in the match, the host's own included and
	// services (LocalConfig.Service) not.
	Players int
	// Services is the number of services in the match (LocalConfig.Service).
	Services int
	// Observers is the number of observers watching (ClientConfig.Observe), not
	// counted in Players.
	Observers int
	// Actors is the number of actors in the match.
	Actors int
	// Accepted counts state updates (and progress along routes) accepted from owners.
	Accepted uint64
	// Routes counts routes accepted from owners (path-based dead reckoning); a route
	// refused counts in Invalid or Unauthorized.
	Routes uint64
	// Relayed counts state updates sent on to observers (one per observer).
	Relayed uint64
	// RelayRate is Relayed per second of the host's clock, smoothed over about a
	// second.
	RelayRate float64
	// Scheduled counts the relays the downlink scheduler sent (counted in Relayed
	// too), and Overwritten the records it replaced by a newer one of the same tank
	// before they went out (Limits.Downlink).
	Scheduled, Overwritten uint64
	// DownlinkBytes counts the bytes of state the scheduler sent, batch headers
	// included, and DownlinkBypass those of them outside the budget: the first
	// records of tanks entering a player's interest.
	DownlinkBytes, DownlinkBypass uint64
	// DownlinkForced counts the records sent outside the budget because a tank
	// within 300 m of a player had gone unsent to it for 4.5 s (their bytes are in
	// DownlinkBypass too).
	DownlinkForced uint64
	// Repeated counts the records the scheduler sent a player a second time, a tick
	// after the first, from the budget left over (near tanks' records and nearby
	// heartbeats; their bytes are in DownlinkBytes), and RepeatsSkipped the repeats
	// due that found no room in the budget.
	Repeated, RepeatsSkipped uint64
	// Batches counts the datagrams of records handed to the players' connections
	// (each a QUIC packet, an encryption and a system call at both ends, and half an
	// acknowledgement back), and BatchBytes their payload bytes.
	Batches, BatchBytes uint64
	// DownlinkOther counts the bytes besides the states charged to the players'
	// downlink budgets while the scheduler is on: control frames and clock answers.
	DownlinkOther uint64
	// RecordErrors counts records the host could not queue for a player: a fault of
	// the host's own, never a client's; the first of a match is logged.
	RecordErrors uint64
	// Thinned counts relays skipped by distance-based thinning.
	Thinned uint64
	// Late counts updates dropped as late or duplicated (sequence number not newer).
	Late uint64
	// Superseded counts updates dropped because they came from where their owner asked
	// to spawn, before it learned that the judge placed the tank elsewhere.
	Superseded uint64
	// RateLimited counts updates and chat lines dropped by a client's token buckets.
	RateLimited uint64
	// Invalid counts updates and spawns refused by validation (non-finite, off the
	// map, implausible speed, acceleration, turn rate or step, bad timestamp).
	Invalid uint64
	// SpawnsThrottled counts spawns refused because their remote player had spent
	// its spawn budget (Limits.RespawnInterval).
	SpawnsThrottled uint64
	// Moves splits the updates refused by the movement checks (counted in Invalid
	// too) by what their tank could not have done.
	Moves MoveRefusals
	// Unauthorized counts updates and despawns for actors the sender does not own
	// (or that do not exist).
	Unauthorized uint64
	// Malformed counts datagrams, records and control messages that did not decode.
	Malformed uint64
	// Overflow counts relays dropped because an observer's send queue was full.
	Overflow uint64
	// Refused counts refused joins (wrong passphrase, full, name taken, protocol).
	Refused uint64
	// TimedOut counts players dropped for silence.
	TimedOut uint64
	// Joined counts players admitted to the match.
	Joined uint64
	// RefusedBy splits Refused by the reason the refused player was told, indexed by
	// wire.RefuseReason (index 0 unused).
	RefusedBy [wire.RefuseOther + 1]uint64
	// RelayAge is the age of each relayed update when the host relays it: the host
	// clock minus the update's timestamp, which is the owner-to-host delay plus the
	// owner's clock-sync error, in seconds. One observation per relayed copy (an
	// update sent to n observers counts n times, as Relayed does); ages below zero
	// are counted apart, in RelayAge.Negative.
	RelayAge Histogram

	// HandshakesInFlight is the number of QUIC handshakes under way now.
	HandshakesInFlight int
	// Retries counts connection attempts sent a QUIC Retry to prove their source
	// address (Limits.RetryAbove).
	Retries uint64
	// HandshakesRefused counts handshakes refused by the per-prefix share or rate
	// (Limits.MaxHandshakesPerPrefix, HandshakeRate), or by a gate full of
	// handshakes it could not evict (Limits.MaxHandshakes).
	HandshakesRefused uint64
	// HandshakesEvicted counts handshakes in flight evicted to make room for newer
	// ones when Limits.MaxHandshakes were in flight.
	HandshakesEvicted uint64
	// HandshakesShed is the number of handshakes evicted before their ClientHello
	// arrived that are still alive until their handshake idle timeout, at most
	// four times Limits.MaxHandshakes.
	HandshakesShed int
	// Joining is the number of connections past the QUIC handshake that have not
	// joined or been refused yet.
	Joining int
	// JoinsEvicted counts half-open joins closed to make room for newer ones
	// (Limits.MaxJoining, MaxJoiningPerPrefix).
	JoinsEvicted uint64
	// GuessesSlowed counts joins refused by the guess limiter before their
	// passphrase proof was checked.
	GuessesSlowed uint64
	// TakeoversRefused counts joins refused because their name belongs to a player
	// in the match and they did not present its reconnect token.
	TakeoversRefused uint64
	// AddressFull counts joins refused by the per-address player cap
	// (Limits.MaxPlayersPerAddr).
	AddressFull uint64
	// IdleKicked counts players kicked for publishing nothing (Limits.IdleKick).
	IdleKicked uint64
	// FloodKicked counts clients disconnected for a flood of bad traffic
	// (Limits.FloodRate, FloodFor).
	FloodKicked uint64
	// StampsClamped counts update timestamps moved into what their arrival time and
	// the sender's round trip allow.
	StampsClamped uint64
	// Judged counts the judge's decisions by verdict (for a referee: each claim's
	// verdict, "accepted" or the reason it was refused, and the game messages refused
	// unread), when the judge is a JudgeCounter; nil otherwise.
	Judged []JudgeCount
}

// Host runs a match: it admits players over QUIC and relays their actors' states.
// One goroutine, the run loop, owns the match (players, actors, counters); each
// connection's goroutines only read from the network and feed the loop, and write
// what the loop queued for them. Host's methods are safe for concurrent use.
type Host struct {
	cfg HostConfig
	lim Limits
	// grounded: cfg.Mover holds the travel in the ground plane (Mover.Grounded)
	grounded bool
	match    MatchSettings
	log      *slog.Logger
	clock    Clock
	start    time.Duration // clock reading at Listen
	// manual is set when clock is a *ManualClock: the downlink scheduler ticks on it,
	// from Settle, at nextTick (host time; owned by the run loop), not on the wall
	// clock, which would tick it as often as the test or simulation is slow.
	manual   bool
	nextTick float64

	pc    stdnet.PacketConn
	tr    *quic.Transport
	ln    *quic.EarlyListener
	gate  *admission.Gate
	joinQ *admission.JoinQueue
	fp    string
	cert  tls.Certificate // served, and signs list registrations
	salt  [wire.SaltSize]byte
	key   [wire.KeySize]byte

	ctx       context.Context
	cancel    context.CancelFunc
	stopAfter func() bool // stops the close-on-ctx-done hook
	wg        sync.WaitGroup
	once      sync.Once

	in       chan input    // what the connections feed the run loop
	calls    chan func()   // API calls run on the loop
	loopDone chan struct{} // closed when the run loop has ended
	final    HostStats     // the counters when the loop ended

	local *Client // the host's own player

	settle settler // what is in flight to and from the in-process players
	pause  pauser  // Pause and Resume

	m match // owned by the run loop
}

// Listen starts a host: it opens the UDP socket, makes the certificate and accepts
// players until Close, or until ctx is done, which closes the host as Close does.
// The host's own player is Local().
func Listen(ctx context.Context, cfg HostConfig) (*Host, error) {
	cfg, lim, match, err := populateHostConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	cert, err := hostCertificate(cfg.Certificate, time.Now())
	if err != nil {
		return nil, fmt.Errorf("listen: certificate: %w", err)
	}
	pc, err := openSocket(cfg.Addr, cfg.Wrap)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	tr := &quic.Transport{Conn: pc}
	// Handshakes run in real time, whatever cfg.Clock says.
	realTime := newSystemClock()
	gate := admission.NewGate(admission.GateLimits{RetryAbove: lim.RetryAbove, MaxTotal: lim.MaxHandshakes,
		MaxPer: lim.MaxHandshakesPerPrefix, MaxShed: shedPerHandshake * lim.MaxHandshakes, Rate: lim.HandshakeRate,
		Burst: 2 * lim.HandshakeRate},
		func() float64 { return units.Seconds(realTime.Now()) }, evictHandshake)
	gate.Install(tr)
	qcfg := &quic.Config{
		EnableDatagrams: true,
		// quic-go ends a handshake after twice its idle timeout.
		HandshakeIdleTimeout:       lim.HandshakeTimeout / 2,
		MaxIdleTimeout:             2 * lim.Timeout,
		MaxIncomingStreams:         -1, // the host opens the one control stream
		MaxIncomingUniStreams:      -1,
		InitialStreamReceiveWindow: 64 << 10,
		MaxStreamReceiveWindow:     256 << 10,
	}
	qcfg.GetConfigForClient = gate.ConfigFor(qcfg.Clone(), pressedHandshakeIdle)
	// Connections come out of the listener as soon as the host has sent its part of
	// the handshake, so that the challenge travels with it (0.5-RTT data): a join
	// takes one round trip less. Each stays a handshake in flight, for the gate,
	// until it completes.
	ln, err := tr.ListenEarly(hostTLS(cert), qcfg)
	if err != nil {
		tr.Close()
		pc.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	h := &Host{
		cfg:      cfg,
		lim:      lim,
		grounded: cfg.Mover != nil && cfg.Mover.Grounded(),
		match:    match,
		log:      log,
		clock:    cfg.Clock,
		start:    cfg.Clock.Now(),
		pc:       pc,
		tr:       tr,
		ln:       ln,
		gate:     gate,
		joinQ:    admission.NewJoinQueue(lim.MaxJoining, lim.MaxJoiningPerPrefix, evictJoin),
		fp:       Fingerprint(cert.Certificate[0]),
		cert:     cert,
		salt:     wire.NewSalt(),
		in:       make(chan input, inputQueue),
		calls:    make(chan func()),
		loopDone: make(chan struct{}),
	}
	if cfg.Passphrase != "" {
		h.key = wire.DeriveKey(cfg.Passphrase, h.salt)
	}
	_, h.manual = cfg.Clock.(*ManualClock)
	h.settle.cond.L = &h.settle.mu
	h.m = newMatch(h)
	h.ctx, h.cancel = context.WithCancel(context.Background())
	// The host's own player joins through an in-process pipe; until Local is called
	// it receives no state updates.
	self := h.m.addMember(0, cfg.Name, nil, h.now())
	self.trusted, self.passive, self.inProcess = true, true, true
	p := newPipe(h, self)
	self.conn = p
	h.wg.Add(3)
	go h.run()
	go h.acceptLoop()
	go self.sendLoop()
	// The host's name passed populateHostConfig's check, so this cannot fail.
	lcfg, _ := populateClientConfig(ClientConfig{Name: cfg.Name, Clock: cfg.Clock, Logger: log})
	h.local = newClient(lcfg, pipeClient{p}, 0, match, h.start)
	h.local.fp = h.fp
	// The hook closes without stopping itself: with ctx already done it runs at once,
	// on a goroutine of its own, perhaps before stopAfter is even set.
	h.stopAfter = context.AfterFunc(ctx, h.close)
	log.Info("host listening", "addr", h.Addr().String(), "fingerprint", h.fp)
	return h, nil
}

// populateHostConfig fills in cfg's defaults and checks it.
func populateHostConfig(cfg HostConfig) (HostConfig, Limits, MatchSettings, error) {
	if cfg.Addr == "" {
		cfg.Addr = DefaultHostAddr
	}
	if cfg.Name == "" {
		cfg.Name = "host"
	}
	if cfg.Clock == nil {
		cfg.Clock = newSystemClock()
	}
	if err := wire.CheckName(cfg.Name); err != nil {
		return cfg, Limits{}, MatchSettings{}, fmt.Errorf("host name: %w", err)
	}
	if cfg.Coalesce == 0 {
		cfg.Coalesce = DefaultCoalesce
	}
	lim := cfg.Limits.withDefaults()
	if err := lim.validate(); err != nil {
		return cfg, lim, MatchSettings{}, err
	}
	lim.MaxActorsPerPlayer = min(lim.MaxActorsPerPlayer, maxAssignedActor)
	match := cfg.Match.withDefaults()
	if err := match.validate(); err != nil {
		return cfg, lim, match, err
	}
	return cfg, lim, match, nil
}

// Addr returns the UDP address the host listens on.
func (h *Host) Addr() stdnet.Addr { return h.pc.LocalAddr() }

// Fingerprint returns the hex SHA-256 of the host's certificate, for clients to pin.
func (h *Host) Fingerprint() string { return h.fp }

// Certificate returns the host's certificate and key: what it serves, and what
// signs its registrations with list servers (lobby.RegisterConfig).
func (h *Host) Certificate() tls.Certificate { return h.cert }

// JoinAddress returns the address and fingerprint in the "-join" form,
// host:port#fingerprint.
func (h *Host) JoinAddress() string { return h.Addr().String() + "#" + h.fp }

// Match returns the match settings.
func (h *Host) Match() MatchSettings { return h.match }

// Local returns the host's own player, id 0. It is a Client joined through an
// in-process pipe instead of QUIC: its actors are published and its events delivered
// without a network hop.
//
// State updates are relayed to the host's player only from the first call of Local
// on, so a host that never plays does not accumulate them.
func (h *Host) Local() *Client {
	h.call(func() {
		if self := h.m.members[0]; self != nil {
			self.passive = false
		}
	})
	return h.local
}

// Now returns the host clock in seconds since the host started. It is the time base
// of every state timestamp in the match.
func (h *Host) Now() float64 { return h.now() }

func (h *Host) now() float64 { return units.Seconds(h.clock.Now() - h.start) }

// Stats returns the host's counters.
func (h *Host) Stats() HostStats {
	var s HostStats
	if !h.call(func() { s = h.m.statsNow() }) {
		return h.final
	}
	return s
}

// PlayerInfo describes one player in the match, as Host.Players lists them.
type PlayerInfo struct {
	// ID is the player id; 0 is the host's own player.
	ID uint32
	// Name is the name the player joined with.
	Name string
	// Addr is the player's network address; empty for the host's own player.
	Addr string
	// Actors is how many actors the player owns.
	Actors int
	// Service reports a service, not a player (LocalConfig.Service).
	Service bool
	// Observer reports an observer, with no tank (ClientConfig.Observe).
	Observer bool
	// RTT is QUIC's smoothed round trip to the player; 0 for the host's own.
	RTT time.Duration
	// Silence is how long, on the host's clock, since the host last heard from the
	// player.
	Silence time.Duration
}

// Players lists the players in the match, ordered by id.
func (h *Host) Players() []PlayerInfo {
	var out []PlayerInfo
	var conns []memberConn
	h.call(func() {
		now := h.now()
		for _, p := range h.m.order {
			out = append(out, PlayerInfo{ID: uint32(p.id), Name: p.name, Addr: p.conn.remoteAddr(),
				Actors: len(p.owned), Service: p.service, Observer: p.observing, Silence: units.Duration(now - p.lastHeard)})
			conns = append(conns, p.conn)
		}
	})
	for i, c := range conns {
		out[i].RTT = c.rtt()
		if out[i].ID == 0 {
			out[i].Silence = 0
		}
	}
	return out
}

// Kick removes a player from the match with a reason the player sees.
func (h *Host) Kick(id uint32, reason string) error {
	var err error
	ok := h.call(func() {
		p := h.m.members[wire.PlayerID(min(id, maxPlayerID))]
		if id > maxPlayerID || p == nil || p.trusted {
			err = fmt.Errorf("kick: no remote player %d", id)
			return
		}
		h.m.drop(p, codeKicked, "kicked: "+reason, wire.LeaveKicked)
	})
	if !ok {
		return fmt.Errorf("kick: %w", ErrClosed)
	}
	return err
}

// Close stops the host: every player is told the host closed, every goroutine ends
// and the socket is closed. It is safe to call more than once.
func (h *Host) Close() error {
	h.stopAfter()
	h.close()
	return nil
}

// close stops the host once, for Close or when Listen's ctx ends.
func (h *Host) close() {
	h.once.Do(func() {
		h.cancel()
		h.ln.Close()
		<-h.loopDone
		h.local.Close()
		h.wg.Wait()
		h.tr.Close()
		h.pc.Close()
		h.log.Info("host closed")
	})
}

// call runs f on the run loop and waits for it. It reports false, without running
// f, once the loop has ended.
func (h *Host) call(f func()) bool { return runOn(h.calls, h.loopDone, f) }

// feed hands one input to the run loop and reports whether it did; it gives up when
// the host closes.
func (h *Host) feed(in input) bool {
	select {
	case h.in <- in:
		return true
	case <-h.loopDone:
		return false
	}
}

// acceptLoop admits connections until the listener closes.
func (h *Host) acceptLoop() {
	defer h.wg.Done()
	for {
		conn, err := h.ln.Accept(h.ctx)
		if err != nil {
			return
		}
		h.gate.Started(conn) // an eviction can close it from now on
		h.wg.Add(1)
		go h.serve(conn)
	}
}

// shedPerHandshake is how many handshakes evicted before their ClientHello (which
// quic-go keeps until their handshake idle timeout) may be alive per handshake in
// flight: what bounds the memory a spread-out flood of stalled handshakes holds.
const shedPerHandshake = 4

// pressedHandshakeIdle is the handshake idle timeout of handshakes that start while
// the gate is full (quic-go ends a handshake after twice it): a handshake it sheds
// before its ClientHello arrived lives that long. The host hears from an honest
// client a round trip after its first Initial and each round trip after, so a link
// of up to 1.5 s round trip still joins; one that also loses packets may need to try
// again once the flood ends.
const pressedHandshakeIdle = 1500 * time.Millisecond

// evictHandshake closes a handshake evicted to make room for a newer one.
func evictHandshake(conn *quic.Conn) {
	conn.CloseWithError(codeRefused, "host busy: too many handshakes at once; try again")
}

// evictJoin closes a half-open join evicted to make room for a newer one.
func evictJoin(conn *quic.Conn) {
	conn.CloseWithError(codeRefused, "host busy: too many players joining at once; try again")
}

// refuse tells a connection why it was not admitted and closes it.
func (h *Host) refuse(conn *quic.Conn, str *quic.Stream, reason wire.RefuseReason, text string) {
	h.joinQ.Done(conn) // decided: no longer a join in progress
	h.call(func() {
		h.m.stats.Refused++
		if int(reason) < len(h.m.stats.RefusedBy) {
			h.m.stats.RefusedBy[reason]++
		}
	})
	h.log.Info("join refused", "remote", conn.RemoteAddr().String(), "reason", reason.String(), "text", logText(text))
	if str != nil {
		if b, err := wire.AppendFrame(nil, &wire.JoinRefused{Reason: reason, Text: text}); err == nil {
			str.SetWriteDeadline(time.Now().Add(time.Second))
			str.Write(b)
			str.Close()
		}
		// Give the refusal a moment to arrive before the close overtakes it.
		select {
		case <-conn.Context().Done():
		case <-time.After(500 * time.Millisecond):
		case <-h.ctx.Done():
		}
	}
	msg := reason.String()
	if text != "" {
		msg += ": " + text
	}
	conn.CloseWithError(codeRefused, msg)
}

// serve runs one connection: the join handshake, then it reads the control stream
// into the run loop until the player leaves.
func (h *Host) serve(conn *quic.Conn) {
	defer h.wg.Done()
	p, fr := h.handshake(conn)
	h.joinQ.Done(conn)
	if p == nil {
		return
	}
	h.log.Info("player joined", "player", p.id, "name", logText(p.name), "remote", conn.RemoteAddr().String())
	h.wg.Add(2)
	go p.sendLoop()
	go h.readDatagrams(p, conn)
	h.feed(input{from: p, kind: inClosed, err: h.readControl(p, fr)})
}

// handshake runs the join exchange on a new connection and returns the admitted
// player with its control stream reader, or nil after refusing the connection.
func (h *Host) handshake(conn *quic.Conn) (*member, *wire.FrameReader) {
	// Until the player is admitted, closing the host closes the connection here.
	stop := context.AfterFunc(h.ctx, func() { conn.CloseWithError(codeShutdown, "host closed the match") })
	defer stop()
	accepted := time.Now()
	ctx, cancel := context.WithTimeout(h.ctx, h.lim.HandshakeTimeout)
	str, err := conn.OpenStreamSync(ctx)
	cancel()
	if err != nil {
		if h.handshakeDone(conn) {
			h.refuse(conn, nil, wire.RefuseProtocol, "no control stream")
		}
		return nil, nil
	}
	ch := wire.NewChallenge(h.salt, h.cfg.Passphrase != "")
	b, _ := wire.AppendFrame(nil, &ch)
	str.SetWriteDeadline(time.Now().Add(h.lim.HandshakeTimeout + maxStretch*h.lim.JoinTimeout))
	if _, err := str.Write(b); err != nil {
		conn.CloseWithError(codeProtocol, "handshake write failed")
		return nil, nil
	}
	if !h.handshakeDone(conn) {
		return nil, nil // the handshake failed, timed out or was evicted: the connection is closed
	}
	h.joinQ.Add(conn) // a half-open join until its request comes; may evict the oldest
	defer answerEarly(conn, h.now)()
	// The join request's deadline follows the link: a few round trips as the
	// handshake measured them (from the host's flight to the client's last, one
	// round trip at least), within bounds.
	wait := stretch(h.lim.JoinTimeout, linkRTT(conn, time.Since(accepted)))
	str.SetDeadline(time.Now().Add(wait))
	fr := wire.NewFrameReader(str)
	m, err := fr.Next()
	if errors.Is(err, wire.ErrVersion) {
		h.call(func() { h.m.stats.Malformed++ })
		text := fmt.Sprintf("this host speaks protocol version %d", wire.Version)
		if ve := (*wire.VersionError)(nil); errors.As(err, &ve) {
			text = fmt.Sprintf("the client speaks protocol version %d, this host version %d", ve.Got, wire.Version)
		}
		h.refuse(conn, str, wire.RefuseVersion, text)
		return nil, nil
	}
	switch {
	case conn.Context().Err() != nil:
		// Evicted for a newer join, or closed by either end: nothing to answer.
		h.joinQ.Done(conn)
		return nil, nil
	case errors.Is(err, os.ErrDeadlineExceeded):
		h.refuse(conn, str, wire.RefuseProtocol, fmt.Sprintf("no join request within %v", wait.Round(time.Millisecond)))
		return nil, nil
	}
	req, ok := m.(*wire.JoinRequest)
	if err != nil || !ok {
		h.call(func() { h.m.stats.Malformed++ })
		h.refuse(conn, str, wire.RefuseProtocol, "expected a join request")
		return nil, nil
	}
	token := ReconnectToken(req.Token)
	if h.cfg.Passphrase != "" {
		prefix := admission.Prefix(conn.RemoteAddr())
		var (
			allowed, right bool
			wait           float64
		)
		// Asking the limiter, checking the proof (one HMAC: microseconds) and
		// recording a wrong one are one step on the run loop, so that concurrent
		// guesses from one prefix cannot all pass the limiter before the first
		// failure is recorded.
		h.call(func() {
			if allowed, wait = h.m.mayGuess(prefix, req.Name, token); !allowed {
				return
			}
			if right = wire.VerifyProof(h.key, ch.Nonce, req.Name, req.Proof); !right {
				h.m.failedGuess(prefix)
			}
		})
		if !allowed {
			h.refuse(conn, str, wire.RefuseOther, fmt.Sprintf(
				"too many wrong passphrases from your network; try again in %.0f s", math.Ceil(wait)))
			return nil, nil
		}
		if !right {
			h.refuse(conn, str, wire.RefusePassphrase, "")
			return nil, nil
		}
	}
	str.SetDeadline(time.Time{})
	var (
		p      *member
		reason = wire.RefuseOther
		text   = "host closing"
	)
	h.call(func() {
		p, reason, text = h.m.admit(&quicMember{conn: conn, str: str, timeout: h.lim.Timeout}, req.Name, token,
			admission.Host(conn.RemoteAddr()), req.Observe)
	})
	if p == nil {
		h.refuse(conn, str, reason, text)
		return nil, nil
	}
	return p, fr
}

// handshakeDone waits for conn's QUIC handshake to complete, which quic-go bounds by
// Limits.HandshakeTimeout, and then tells the gate it is no longer in flight. It
// reports false when the handshake failed instead.
func (h *Host) handshakeDone(conn *quic.Conn) bool {
	select {
	case <-conn.HandshakeComplete():
		h.gate.Accepted(conn.Context())
		return true
	case <-conn.Context().Done():
		return false
	}
}

// readControl feeds p's control messages to the run loop until the stream ends,
// and returns why it ended (errLeft for a goodbye or a clean close).
func (h *Host) readControl(p *member, fr *wire.FrameReader) error {
	for {
		m, err := fr.Next()
		switch {
		case err == nil:
			h.feed(input{from: p, kind: inControl, msg: m, at: h.now()})
		case errors.Is(err, wire.ErrBadMessage):
			h.feed(input{from: p, kind: inControl, err: err, at: h.now()})
		default:
			var appErr *quic.ApplicationError
			if errors.Is(err, stdnet.ErrClosed) || errors.Is(err, context.Canceled) ||
				errors.As(err, &appErr) && appErr.Remote && appErr.ErrorCode == codeNormal || errors.Is(err, io.EOF) {
				return errLeft
			}
			if errors.Is(err, wire.ErrTooLong) {
				h.feed(input{from: p, kind: inControl, err: err, at: h.now()})
			}
			return err
		}
	}
}

// readDatagrams feeds p's datagrams to the run loop until its connection closes.
func (h *Host) readDatagrams(p *member, conn *quic.Conn) {
	defer h.wg.Done()
	for {
		b, err := conn.ReceiveDatagram(conn.Context())
		if err != nil {
			return
		}
		h.feed(input{from: p, kind: inDatagram, data: b, at: h.now()})
	}
}

// unwrapTime maps a wire timestamp (host-clock ms modulo wire.TimeWrap) to the
// host-clock time nearest now.
func unwrapTime(t, now float64) float64 {
	k := math.Round((now - t) / wire.TimeWrap)
	return t + k*wire.TimeWrap
}
