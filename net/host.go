package net

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	stdnet "net"
	"slices"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/deadreckon"
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

// Actor id ranges. The host assigns ids in [1, maxAssignedActor]; a client asking for
// a spawn names its request with a provisional id in [provisionalBase, 0xFFFF], which
// the host echoes in a Despawn if it refuses the spawn. A confirmed spawn comes back
// as the Spawn broadcast with the assigned id, in request order.
const (
	maxAssignedActor = 0xEFFF
	provisionalBase  = 0xF000
	maxPlayerID      = 0xFFFF
)

// rejoinSilence is how long a player must have been silent before a new connection
// with the same name replaces it (a rejoin after a dropped connection).
const rejoinSilence = 1.0

// HostStats are a host's counters since it started, and its current relay rate.
type HostStats struct {
	// Players is the number of players in the match, the host's own included.
	Players int
	// Actors is the number of actors in the match.
	Actors int
	// Accepted counts state updates accepted from owners.
	Accepted uint64
	// Relayed counts state updates sent on to observers (one per observer).
	Relayed uint64
	// RelayRate is Relayed per second, smoothed over about a second.
	RelayRate float64
	// Thinned counts relays skipped by distance-based thinning.
	Thinned uint64
	// Late counts updates dropped as late or duplicated (sequence number not newer).
	Late uint64
	// RateLimited counts updates dropped by a client's token bucket.
	RateLimited uint64
	// Invalid counts updates and spawns refused by validation (non-finite, off the
	// map, implausible speed, acceleration, turn rate or step, bad timestamp).
	Invalid uint64
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
}

// Host runs a match: it admits players over QUIC and relays their actors' states.
// Its methods are safe for concurrent use.
type Host struct {
	cfg   HostConfig
	lim   Limits
	match MatchSettings
	log   *slog.Logger
	start time.Time

	pc   stdnet.PacketConn
	tr   *quic.Transport
	ln   *quic.Listener
	fp   string
	salt [wire.SaltSize]byte
	key  [wire.KeySize]byte

	ctx       context.Context
	cancel    context.CancelFunc
	stopAfter func() bool // stops the close-on-ctx-done hook
	wg        sync.WaitGroup
	once      sync.Once

	mu          sync.Mutex
	players     map[wire.PlayerID]*player
	actors      map[wire.ActorID]*hostActor
	nextPlayer  wire.PlayerID
	nextActor   wire.ActorID
	stats       HostStats
	relayRate   rateMeter
	closed      bool
	local       *localPeer
	localActive bool                   // Local was called: queue events for the host's player
	guesses     map[string]tokenBucket // wrong passphrases per source address
	joining     int                    // connections accepted but not yet admitted
}

// hostActor is the host's record of one actor.
type hostActor struct {
	id    wire.ActorID
	owner wire.PlayerID
	name  string
	team  uint8
	seq   wire.SeqFilter
	state deadreckon.State // last accepted, host-clock time
	pin   anchor           // for the plausibility check of the next updates
}

// Listen starts a host: it opens the UDP socket, makes the certificate and accepts
// players until Close, or until ctx is done, which closes the host as Close does.
// The host's own player is Local().
func Listen(ctx context.Context, cfg HostConfig) (*Host, error) {
	if cfg.Addr == "" {
		cfg.Addr = DefaultHostAddr
	}
	if cfg.Name == "" {
		cfg.Name = "host"
	}
	if err := wire.CheckName(cfg.Name); err != nil {
		return nil, fmt.Errorf("listen: host name: %w", err)
	}
	if cfg.Coalesce == 0 {
		cfg.Coalesce = DefaultCoalesce
	}
	lim := cfg.Limits.withDefaults()
	if err := lim.validate(); err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	if lim.MaxActorsPerPlayer > maxAssignedActor {
		lim.MaxActorsPerPlayer = maxAssignedActor
	}
	match := cfg.Match.withDefaults()
	if err := match.validate(); err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := time.Now()
	cert, err := hostCertificate(cfg.Certificate, now)
	if err != nil {
		return nil, fmt.Errorf("listen: certificate: %w", err)
	}
	udp, err := stdnet.ListenPacket("udp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("listen: %w", err)
	}
	var pc stdnet.PacketConn = udp
	if cfg.Wrap != nil {
		if pc, err = cfg.Wrap(udp); err != nil {
			udp.Close()
			return nil, fmt.Errorf("listen: wrap socket: %w", err)
		}
	}
	tr := &quic.Transport{Conn: pc}
	qcfg := &quic.Config{
		EnableDatagrams:            true,
		HandshakeIdleTimeout:       seconds(lim.JoinTimeout),
		MaxIdleTimeout:             seconds(2 * lim.Timeout),
		MaxIncomingStreams:         -1, // the host opens the one control stream
		MaxIncomingUniStreams:      -1,
		InitialStreamReceiveWindow: 64 << 10,
		MaxStreamReceiveWindow:     256 << 10,
	}
	ln, err := tr.Listen(hostTLS(cert), qcfg)
	if err != nil {
		tr.Close()
		pc.Close()
		return nil, fmt.Errorf("listen: %w", err)
	}
	h := &Host{
		cfg:        cfg,
		lim:        lim,
		match:      match,
		log:        log,
		start:      now,
		pc:         pc,
		tr:         tr,
		ln:         ln,
		fp:         Fingerprint(cert.Certificate[0]),
		salt:       wire.NewSalt(),
		players:    map[wire.PlayerID]*player{},
		guesses:    map[string]tokenBucket{},
		actors:     map[wire.ActorID]*hostActor{},
		nextPlayer: 1,
		nextActor:  1,
	}
	if cfg.Passphrase != "" {
		h.key = wire.DeriveKey(cfg.Passphrase, h.salt)
	}
	h.ctx, h.cancel = context.WithCancel(context.Background())
	h.local = newLocalPeer(h)
	lp := &player{id: 0, name: cfg.Name, h: h, local: h.local, done: make(chan struct{}),
		lastRelay: map[wire.ActorID]float64{}}
	h.players[0] = lp
	h.wg.Add(2)
	go h.acceptLoop()
	go h.janitor()
	h.stopAfter = context.AfterFunc(ctx, func() { h.Close() })
	log.Info("host listening", "addr", h.Addr().String(), "fingerprint", h.fp)
	return h, nil
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Addr returns the UDP address the host listens on.
func (h *Host) Addr() stdnet.Addr { return h.pc.LocalAddr() }

// Fingerprint returns the hex SHA-256 of the host's certificate, for clients to pin.
func (h *Host) Fingerprint() string { return h.fp }

// JoinAddress returns the address and fingerprint in the "-join" form,
// host:port#fingerprint.
func (h *Host) JoinAddress() string { return h.Addr().String() + "#" + h.fp }

// Match returns the match settings.
func (h *Host) Match() MatchSettings { return h.match }

// Local returns the host's own player. Its actors are published and its events
// delivered in process, without a network hop.
//
// Events are queued for the host's player only from the first call of Local on, so
// a host that never plays does not accumulate them.
func (h *Host) Local() Peer {
	h.mu.Lock()
	h.localActive = true
	h.mu.Unlock()
	return h.local
}

// Now returns the host clock in seconds since the host started. It is the time base
// of every state timestamp in the match.
func (h *Host) Now() float64 { return time.Since(h.start).Seconds() }

// Stats returns the host's counters.
func (h *Host) Stats() HostStats {
	h.mu.Lock()
	defer h.mu.Unlock()
	s := h.stats
	s.Players = len(h.players)
	s.Actors = len(h.actors)
	s.RelayRate = h.relayRate.value(h.Now())
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
	// RTT is QUIC's smoothed round trip to the player in seconds; 0 for the host's own.
	RTT float64
	// Silence is how long in seconds since the host last heard from the player.
	Silence float64
}

// Players lists the players in the match, ordered by id.
func (h *Host) Players() []PlayerInfo {
	now := h.Now()
	h.mu.Lock()
	out := make([]PlayerInfo, 0, len(h.players))
	conns := make([]*quic.Conn, 0, len(h.players))
	for _, p := range h.players {
		info := PlayerInfo{ID: uint32(p.id), Name: p.name, Actors: len(p.owned)}
		if p.local == nil {
			info.Addr = p.conn.RemoteAddr().String()
			info.Silence = now - p.lastHeard
		}
		out = append(out, info)
		conns = append(conns, p.conn)
	}
	h.mu.Unlock()
	for i, c := range conns {
		if c != nil {
			out[i].RTT = c.ConnectionStats().SmoothedRTT.Seconds()
		}
	}
	slices.SortFunc(out, func(a, b PlayerInfo) int { return int(a.ID) - int(b.ID) })
	return out
}

// Kick removes a player from the match with a reason the player sees.
func (h *Host) Kick(id uint32, reason string) error {
	if id > maxPlayerID {
		return fmt.Errorf("kick: no player %d", id)
	}
	h.mu.Lock()
	p := h.players[wire.PlayerID(id)]
	h.mu.Unlock()
	if p == nil || p.local != nil {
		return fmt.Errorf("kick: no remote player %d", id)
	}
	h.dropPlayer(p, codeKicked, "kicked: "+reason, wire.LeaveKicked)
	return nil
}

// Close stops the host: every player is told the host closed, every goroutine ends
// and the socket is closed. It is safe to call more than once.
func (h *Host) Close() error {
	h.once.Do(func() {
		h.stopAfter()
		h.cancel()
		h.mu.Lock()
		h.closed = true
		var remote []*player
		for _, p := range h.players {
			if p.local == nil {
				remote = append(remote, p)
			}
		}
		h.mu.Unlock()
		for _, p := range remote {
			h.dropPlayer(p, codeShutdown, "host closed the match", wire.LeaveQuit)
		}
		h.ln.Close()
		h.wg.Wait()
		h.tr.Close()
		h.pc.Close()
		h.local.closeWith("host closed the match", EndHostClosed)
		h.log.Info("host closed")
	})
	return nil
}

// acceptLoop admits connections until the listener closes.
func (h *Host) acceptLoop() {
	defer h.wg.Done()
	for {
		conn, err := h.ln.Accept(h.ctx)
		if err != nil {
			return
		}
		h.mu.Lock()
		busy := h.joining >= h.lim.MaxJoining
		if !busy {
			h.joining++
		} else {
			h.stats.Refused++
		}
		h.mu.Unlock()
		if busy {
			// Too many connections still joining: a flood. Turn this one away at once.
			conn.CloseWithError(codeRefused, "host busy: too many players joining at once")
			continue
		}
		h.wg.Add(1)
		go h.serve(conn)
	}
}

// janitor drops silent players.
func (h *Host) janitor() {
	defer h.wg.Done()
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-h.ctx.Done():
			return
		case <-t.C:
		}
		now := h.Now()
		var silent []*player
		h.mu.Lock()
		for _, p := range h.players {
			if p.local == nil && now-p.lastHeard > h.lim.Timeout {
				silent = append(silent, p)
			}
		}
		h.stats.TimedOut += uint64(len(silent))
		h.mu.Unlock()
		for _, p := range silent {
			h.log.Info("player timed out", "player", p.id, "name", p.name)
			h.dropPlayer(p, codeTimeout, "timed out", wire.LeaveTimeout)
		}
	}
}

// refuse tells a connection why it was not admitted and closes it.
func (h *Host) refuse(conn *quic.Conn, str *quic.Stream, reason wire.RefuseReason, text string) {
	h.mu.Lock()
	h.stats.Refused++
	h.mu.Unlock()
	h.log.Info("join refused", "remote", conn.RemoteAddr().String(), "reason", reason.String(), "text", text)
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

// Wrong passphrases are limited per source address, so that guessing runs at a
// human pace: a burst of guessBurst, then one per guessInterval seconds.
const (
	guessBurst    = 5
	guessInterval = 5.0
)

func remoteIP(conn *quic.Conn) string {
	if a, ok := conn.RemoteAddr().(*stdnet.UDPAddr); ok {
		return a.IP.String()
	}
	return conn.RemoteAddr().String()
}

// mayGuess reports whether ip may try a passphrase now.
func (h *Host) mayGuess(ip string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	b, ok := h.guesses[ip]
	if !ok {
		return true
	}
	b.refill(h.Now())
	h.guesses[ip] = b
	return b.tokens >= 1
}

// failedGuess spends one of ip's passphrase attempts.
func (h *Host) failedGuess(ip string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	now := h.Now()
	b, ok := h.guesses[ip]
	if !ok {
		if len(h.guesses) >= maxGuessers {
			clear(h.guesses) // a flood of addresses: start over rather than grow
		}
		b = newTokenBucket(1/guessInterval, guessBurst, now)
	}
	b.take(now)
	h.guesses[ip] = b
}

// maxGuessers bounds the addresses tracked for wrong passphrases.
const maxGuessers = 4096

// serve runs one connection: the join handshake, then the control stream until the
// player leaves.
func (h *Host) serve(conn *quic.Conn) {
	defer h.wg.Done()
	joined := false
	defer func() {
		if !joined {
			h.mu.Lock()
			h.joining--
			h.mu.Unlock()
		}
	}()
	// Until the player is admitted, closing the host closes the connection here.
	stop := context.AfterFunc(h.ctx, func() { conn.CloseWithError(codeShutdown, "host closed the match") })
	defer stop()
	join := seconds(h.lim.JoinTimeout)
	ctx, cancel := context.WithTimeout(h.ctx, join)
	str, err := conn.OpenStreamSync(ctx)
	cancel()
	if err != nil {
		h.refuse(conn, nil, wire.RefuseProtocol, "no control stream")
		return
	}
	ch := wire.NewChallenge(h.salt, h.cfg.Passphrase != "")
	b, _ := wire.AppendFrame(nil, &ch)
	str.SetDeadline(time.Now().Add(join))
	if _, err := str.Write(b); err != nil {
		conn.CloseWithError(codeProtocol, "handshake write failed")
		return
	}
	fr := &frameReader{r: str}
	m, perr, err := fr.next()
	if err == nil && errors.Is(perr, wire.ErrVersion) {
		h.refuse(conn, str, wire.RefuseVersion, fmt.Sprintf("this host speaks version %d", wire.Version))
		return
	}
	if err != nil || perr != nil {
		h.countMalformed()
		h.refuse(conn, str, wire.RefuseProtocol, "expected a join request")
		return
	}
	req, ok := m.(*wire.JoinRequest)
	if !ok {
		h.countMalformed()
		h.refuse(conn, str, wire.RefuseProtocol, "expected a join request")
		return
	}
	if h.cfg.Passphrase != "" {
		ip := remoteIP(conn)
		if !h.mayGuess(ip) {
			h.refuse(conn, str, wire.RefuseOther, "too many wrong passphrases from this address; wait a few seconds")
			return
		}
		if !wire.VerifyProof(h.key, ch.Nonce, req.Name, req.Proof) {
			h.failedGuess(ip)
			h.refuse(conn, str, wire.RefusePassphrase, "")
			return
		}
	}
	str.SetDeadline(time.Time{})
	p, reason, text := h.admit(conn, str, req.Name)
	if p == nil {
		h.refuse(conn, str, reason, text)
		return
	}
	h.mu.Lock()
	h.joining--
	joined = true
	h.mu.Unlock()
	h.log.Info("player joined", "player", p.id, "name", p.name, "remote", conn.RemoteAddr().String())
	h.wg.Add(3)
	go p.writeLoop()
	go p.sendLoop()
	go p.datagramLoop()
	err = p.controlLoop(fr)
	switch {
	case errors.Is(err, errLeft):
		h.dropPlayer(p, codeNormal, "left", wire.LeaveQuit)
	case err != nil:
		h.dropPlayer(p, codeProtocol, "connection lost", wire.LeaveQuit)
	}
}

// admit registers a player and queues its welcome: the match settings and every
// actor already in the match. It returns nil and a refusal when it cannot.
func (h *Host) admit(conn *quic.Conn, str *quic.Stream, name string) (*player, wire.RefuseReason, string) {
	now := h.Now()
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, wire.RefuseOther, "host closing"
	}
	var replaced *player
	for _, q := range h.players {
		if q.name != name {
			continue
		}
		if q.local != nil || now-q.lastHeard < rejoinSilence {
			h.mu.Unlock()
			return nil, wire.RefuseName, fmt.Sprintf("name %q is in use", name)
		}
		replaced = q
	}
	if replaced == nil && len(h.players) >= h.lim.MaxPlayers {
		h.mu.Unlock()
		return nil, wire.RefuseFull, ""
	}
	id, ok := h.allocPlayer()
	if !ok {
		h.mu.Unlock()
		return nil, wire.RefuseFull, ""
	}
	p := newPlayer(h, id, name, conn, str, now)
	h.players[id] = p
	acc := wire.JoinAccepted{
		Player:    id,
		TickRate:  uint16(math.Round(h.match.TickRate)),
		Heartbeat: h.match.Heartbeat,
		MapExtent: h.match.Extent,
		MapSeed:   h.match.MapSeed,
		MapName:   h.match.Map,
	}
	p.queueControl(&acc)
	for _, a := range h.actors {
		if replaced != nil && a.owner == replaced.id {
			continue
		}
		p.queueControl(a.spawnMsg())
	}
	h.mu.Unlock()
	if replaced != nil {
		h.log.Info("player rejoined", "name", name, "old", replaced.id, "new", id)
		h.dropPlayer(replaced, codeKicked, "replaced by a new connection", wire.LeaveQuit)
	}
	return p, 0, ""
}

func (a *hostActor) spawnMsg() *wire.Spawn {
	seq, _ := a.seq.Last()
	return &wire.Spawn{Actor: a.id, Owner: a.owner, Team: a.team, Name: a.name, Seq: seq, State: a.state}
}

// allocPlayer returns an unused player id; h.mu held.
func (h *Host) allocPlayer() (wire.PlayerID, bool) {
	for range maxPlayerID {
		id := h.nextPlayer
		h.nextPlayer++
		if h.nextPlayer == 0 {
			h.nextPlayer = 1
		}
		if _, used := h.players[id]; !used && id != 0 {
			return id, true
		}
	}
	return 0, false
}

// allocActor returns an unused actor id; h.mu held.
func (h *Host) allocActor() (wire.ActorID, bool) {
	for range maxAssignedActor {
		id := h.nextActor
		h.nextActor++
		if h.nextActor > maxAssignedActor {
			h.nextActor = 1
		}
		if _, used := h.actors[id]; !used {
			return id, true
		}
	}
	return 0, false
}

func (h *Host) countMalformed() {
	h.mu.Lock()
	h.stats.Malformed++
	h.mu.Unlock()
}

// dropPlayer removes p from the match, despawns its actors for everyone and closes
// its connection with code and reason. Safe to call more than once.
func (h *Host) dropPlayer(p *player, code quic.ApplicationErrorCode, reason string, why wire.LeaveReason) {
	h.mu.Lock()
	if p.removed {
		h.mu.Unlock()
		return
	}
	p.removed = true
	delete(h.players, p.id)
	for id, a := range h.actors {
		if a.owner == p.id {
			h.despawnLocked(id, wire.DespawnOwnerGone, p.name+" "+why.String())
		}
	}
	close(p.done)
	h.mu.Unlock()
	if p.conn != nil {
		p.conn.CloseWithError(code, reason)
	}
	h.log.Info("player left", "player", p.id, "name", p.name, "reason", reason)
}

// despawnLocked removes an actor and tells everyone; h.mu held.
func (h *Host) despawnLocked(id wire.ActorID, reason wire.DespawnReason, text string) {
	a := h.actors[id]
	if a == nil {
		return
	}
	delete(h.actors, id)
	if o := h.players[a.owner]; o != nil {
		o.owned = slices.DeleteFunc(o.owned, func(x *hostActor) bool { return x == a })
	}
	msg := &wire.Despawn{Actor: id, Reason: reason}
	for _, q := range h.players {
		delete(q.lastRelay, id)
		if q.local != nil {
			q.local.push(Event{Kind: EventDespawn, Actor: uint32(id), Owner: uint32(a.owner), Text: text})
		} else if !q.removed {
			q.queueControl(msg)
		}
	}
}

// spawnLocked validates and registers a new actor for owner and announces it to
// everyone (the owner included). It returns the new id; h.mu held.
func (h *Host) spawnLocked(owner *player, name string, team uint8, seq uint16, s deadreckon.State) (wire.ActorID, error) {
	n := 0
	for _, a := range h.actors {
		if a.owner == owner.id {
			n++
		}
	}
	if n >= h.lim.MaxActorsPerPlayer {
		return 0, fmt.Errorf("spawn: player %d already has %d actors", owner.id, n)
	}
	if err := wire.CheckName(name); err != nil {
		h.stats.Invalid++
		return 0, fmt.Errorf("spawn: %w", err)
	}
	if err := validateState(&s, h.match, &h.lim, h.Now()); err != nil {
		h.stats.Invalid++
		return 0, fmt.Errorf("spawn: %w", err)
	}
	id, ok := h.allocActor()
	if !ok {
		return 0, errors.New("spawn: no free actor id")
	}
	a := &hostActor{id: id, owner: owner.id, name: name, team: team, state: s,
		pin: anchor{pos: s.Position, orient: s.Orientation, at: h.Now(), stamp: s.Time}}
	a.seq.Set(seq)
	h.actors[id] = a
	owner.owned = append(owner.owned, a)
	msg := a.spawnMsg()
	for _, q := range h.players {
		if q.local != nil {
			q.local.push(Event{Kind: EventSpawn, Actor: uint32(id), Owner: uint32(owner.id),
				Name: name, Team: int(team), State: s, Full: true})
		} else if !q.removed {
			q.queueControl(msg)
		}
	}
	return id, nil
}

// chatLocked sends a chat line from p to everyone; h.mu held.
func (h *Host) chatLocked(from *player, text string) {
	msg := &wire.Chat{From: from.id, Text: text}
	for _, q := range h.players {
		if q.local != nil {
			q.local.push(Event{Kind: EventChat, Owner: uint32(from.id), Name: from.name, Text: text})
		} else if !q.removed {
			q.queueControl(msg)
		}
	}
}

// Reasons an update is dropped; the host counts each in HostStats.
var (
	// ErrNotOwner reports an update or despawn for an actor the sender does not own.
	ErrNotOwner = errors.New("actor not owned by this player")
	// ErrRateLimited reports an update beyond the sender's token bucket.
	ErrRateLimited = errors.New("update rate limit exceeded")
	// ErrLate reports an update whose sequence number is not newer than the last.
	ErrLate = errors.New("late or duplicated update")
)

// acceptUpdate runs every check on one update from player p and records it. It
// returns why the update was dropped (and counts it), or nil. u.State.Time must
// already be host-clock seconds. h.mu held.
func (h *Host) acceptUpdate(p *player, u *wire.Update, now float64) error {
	a := h.actors[u.Actor]
	if a == nil || a.owner != p.id {
		h.stats.Unauthorized++
		return fmt.Errorf("actor %d: %w", u.Actor, ErrNotOwner)
	}
	if p.local == nil && !p.updates.take(now) {
		h.stats.RateLimited++
		return ErrRateLimited
	}
	if last, _ := a.seq.Last(); !wire.SeqNewer(u.Seq, last) {
		h.stats.Late++
		return fmt.Errorf("actor %d seq %d after %d: %w", u.Actor, u.Seq, last, ErrLate)
	}
	next := a.state
	next.Time = u.State.Time
	switch u.Kind {
	case wire.KindArticulation:
		next.Articulations = u.State.Articulations
		next.NumArticulations = u.State.NumArticulations
	case wire.KindPartial:
		arts, n := next.Articulations, next.NumArticulations
		next = u.State
		next.Articulations, next.NumArticulations = arts, n
	default:
		next = u.State
	}
	err := validateState(&next, h.match, &h.lim, now)
	if err == nil {
		err = validateStep(&a.pin, &next, now, &h.lim)
	}
	if err != nil {
		h.stats.Invalid++
		p.logReject(u, err)
		return fmt.Errorf("actor %d: %w", u.Actor, err)
	}
	a.seq.Set(u.Seq)
	a.state = next
	a.pin.advance(&next, now)
	h.stats.Accepted++
	return nil
}

// relayLocked sends an accepted update of actor a on to every player but its owner,
// thinning by distance when configured. h.mu held.
func (h *Host) relayLocked(a *hostActor, u *wire.Update, now float64) {
	th := h.cfg.Thinning
	for _, q := range h.players {
		if q.id == a.owner || q.removed || (q.local != nil && !h.localActive) {
			continue
		}
		if th.Enabled() {
			if u.Kind == wire.KindPartial {
				last, seen := q.lastRelay[a.id]
				if d, ok := q.observerDistance(a.state.Position); ok && seen && now-last < th.interval(d) {
					h.stats.Thinned++
					continue
				}
			}
			q.lastRelay[a.id] = now
		}
		h.stats.Relayed++
		h.relayRate.add(1, now)
		if q.local != nil {
			q.local.push(Event{Kind: EventState, Actor: uint32(a.id), Owner: uint32(a.owner),
				State: u.State, Full: u.Kind == wire.KindFull})
			continue
		}
		if !q.queueUpdate(u) {
			h.stats.Overflow++
		}
	}
}

// observerDistance returns the distance from pos to the player's nearest actor;
// false when the player has no actor. h.mu held.
func (p *player) observerDistance(pos mgl64.Vec3) (float64, bool) {
	best := math.Inf(1)
	for _, a := range p.owned {
		best = math.Min(best, a.state.Position.Sub(pos).Len())
	}
	return best, len(p.owned) > 0
}

// unwrapTime maps a wire timestamp (host-clock ms modulo wire.TimeWrap) to the
// host-clock time nearest now.
func unwrapTime(t, now float64) float64 {
	k := math.Round((now - t) / wire.TimeWrap)
	return t + k*wire.TimeWrap
}

// handleDatagram processes one datagram from p: a state batch or a clock request.
func (h *Host) handleDatagram(p *player, b []byte, buf []wire.Update) []wire.Update {
	now := h.Now()
	_, t, err := wire.PeekHeader(b)
	if err != nil {
		h.countMalformed()
		return buf
	}
	switch t {
	case wire.MsgClockRequest:
		m, _, err := wire.Parse(b)
		req, ok := m.(*wire.ClockRequest)
		if err != nil || !ok {
			h.countMalformed()
			return buf
		}
		h.mu.Lock()
		p.lastHeard = now
		allowed := p.control.take(now)
		h.mu.Unlock()
		if !allowed {
			h.mu.Lock()
			h.stats.RateLimited++
			h.mu.Unlock()
			return buf
		}
		// The send loop answers, so that this loop never blocks on a full queue.
		select {
		case p.clock <- clockProbe{clientSend: req.ClientSend, received: now}:
		default:
			h.mu.Lock()
			h.stats.RateLimited++
			h.mu.Unlock()
		}
		return buf
	case wire.MsgStateBatch:
	default:
		h.countMalformed()
		return buf
	}
	updates, rejected, derr := wire.DecodeBatch(buf[:0], b)
	h.mu.Lock()
	defer h.mu.Unlock()
	if p.removed {
		return updates
	}
	p.lastHeard = now
	h.stats.Invalid += uint64(rejected)
	if derr != nil {
		h.stats.Malformed++
	}
	for i := range updates {
		u := &updates[i]
		u.State.Time = unwrapTime(u.State.Time, now)
		if h.acceptUpdate(p, u, now) != nil {
			continue
		}
		a := h.actors[u.Actor]
		if u.Kind == wire.KindArticulation {
			// Relay the merged state, so observers need not merge.
			u.Kind, u.State = wire.KindFull, a.state
		}
		h.relayLocked(a, u, now)
	}
	return updates
}
