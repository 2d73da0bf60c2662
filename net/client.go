package net

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"math"
	stdnet "net"
	"slices"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/clock"
	"github.com/treadline/treadline/net/wire"
)

// Join errors. Callers tell them apart with errors.Is.
var (
	// ErrRefused reports that the host turned the join down; the error text says why.
	ErrRefused = errors.New("join refused")
	// ErrWrongPassphrase reports a refusal for a wrong or missing passphrase. It
	// wraps ErrRefused.
	ErrWrongPassphrase = fmt.Errorf("%w: wrong passphrase", ErrRefused)
)

// The client's clock filter settings: it slews at up to 100 ms per second, so that a
// first sample taken under load (a long round trip, so an offset off by up to half
// of it) is corrected within a couple of seconds, and steps only past 250 ms.
const (
	clockSlewRate      = 0.1
	clockStepThreshold = 0.25
)

// initialProbes is how many clock probes a client sends quickly after joining, so
// that its offset settles within the first second.
const initialProbes = 6

var (
	_ Peer = (*Client)(nil)
	_ Peer = (*localPeer)(nil)
)

// Client is a player's connection to a host. It implements Peer. Spawn, Despawn,
// Publish, Chat and Poll are meant for one game goroutine; Stats, Now and Close are
// safe from any goroutine.
type Client struct {
	cfg     ClientConfig
	log     *slog.Logger
	start   time.Time
	timeout time.Duration

	pc    stdnet.PacketConn
	tr    *quic.Transport
	conn  *quic.Conn
	str   *quic.Stream
	fr    *frameReader
	id    wire.PlayerID
	match MatchSettings
	sync  *clock.Sync
	q     eventQueue

	synced     chan struct{} // closed at the first clock answer
	syncedOnce sync.Once

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	wmu     sync.Mutex // stream writes
	wbuf    []byte
	spawnMu sync.Mutex // spawn requests: pending order = write order

	pmu   sync.Mutex // publishing
	batch *wire.BatchWriter

	mu         sync.Mutex
	own        map[wire.ActorID]uint16 // own actors: last sequence number sent
	remote     map[wire.ActorID]*remoteActor
	names      map[wire.PlayerID]string
	pending    []*spawnWait
	nextProv   uint16
	left       bool
	kick       string
	lastAnswer float64 // local time of the last datagram from the host
	bytesIn    rateMeter
	bytesOut   rateMeter
	updatesIn  rateMeter
	updatesOut rateMeter
	dropped    uint64
	rejected   uint64
}

type remoteActor struct {
	owner wire.PlayerID
	seq   wire.SeqFilter
	last  deadreckon.State
}

type spawnWait struct {
	prov      wire.ActorID
	done      chan struct{}
	id        wire.ActorID
	err       error
	abandoned bool
}

// Dial joins the match hosted at cfg.Addr: it checks the host's certificate (pinned
// fingerprint or trust on first use), proves the passphrase and waits for the host to
// admit the player. ctx bounds the whole join; the session then lives until Close.
func Dial(ctx context.Context, cfg ClientConfig) (*Client, error) {
	if cfg.Addr == "" {
		return nil, errors.New("dial: no host address")
	}
	if cfg.Name == "" {
		cfg.Name = "player"
	}
	if err := wire.CheckName(cfg.Name); err != nil {
		return nil, fmt.Errorf("dial: player name: %w", err)
	}
	if cfg.RequestTimeout == 0 {
		cfg.RequestTimeout = DefaultJoinTimeout
	}
	if !(cfg.RequestTimeout > 0) || math.IsInf(cfg.RequestTimeout, 0) {
		return nil, fmt.Errorf("dial: request timeout %v s", cfg.RequestTimeout)
	}
	if cfg.SyncInterval <= 0 {
		cfg.SyncInterval = DefaultSyncInterval
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = DefaultTimeout
	}
	if !(cfg.Timeout > 0) || math.IsInf(cfg.Timeout, 0) {
		return nil, fmt.Errorf("dial: timeout %v s", cfg.Timeout)
	}
	var known *knownHosts
	if cfg.Fingerprint == "" && cfg.KnownHosts != "-" {
		path := cfg.KnownHosts
		if path == "" {
			path = DefaultKnownHostsPath()
		}
		if path == "" {
			return nil, errors.New("dial: no fingerprint given and no user config directory for trust on first use")
		}
		known = &knownHosts{path: path}
	}
	raddr, err := stdnet.ResolveUDPAddr("udp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	udp, err := stdnet.ListenPacket("udp", ":0")
	if err != nil {
		return nil, fmt.Errorf("dial: %w", err)
	}
	var pc stdnet.PacketConn = udp
	if cfg.Wrap != nil {
		if pc, err = cfg.Wrap(udp); err != nil {
			udp.Close()
			return nil, fmt.Errorf("dial: wrap socket: %w", err)
		}
	}
	c := &Client{
		cfg:     cfg,
		log:     log,
		start:   time.Now(),
		timeout: seconds(cfg.RequestTimeout),
		pc:      pc,
		tr:      &quic.Transport{Conn: pc},
		sync:    clock.New(clock.Config{SlewRate: clockSlewRate, StepThreshold: clockStepThreshold}),
		batch:   wire.NewBatchWriter(wire.MaxBatchSize),
		own:     map[wire.ActorID]uint16{},
		remote:  map[wire.ActorID]*remoteActor{},
		names:   map[wire.PlayerID]string{},
	}
	if err := c.join(ctx, raddr, known); err != nil {
		c.tr.Close()
		c.pc.Close()
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.synced = make(chan struct{})
	c.wg.Add(3)
	go c.controlLoop()
	go c.datagramLoop()
	go c.syncLoop()
	c.mu.Lock()
	c.lastAnswer = c.Now()
	c.mu.Unlock()
	// Wait for the first clock answer, so that the first Publish is stamped right.
	t := time.NewTimer(c.timeout)
	defer t.Stop()
	select {
	case <-c.synced:
	case <-t.C:
		log.Warn("no clock answer from the host yet", "waited", c.timeout)
	case <-ctx.Done():
		c.Close()
		return nil, fmt.Errorf("dial: %w", ctx.Err())
	}
	log.Info("joined", "host", cfg.Addr, "player", c.id, "map", c.match.Map)
	return c, nil
}

// join runs the QUIC handshake and the join exchange.
func (c *Client) join(ctx context.Context, raddr *stdnet.UDPAddr, known *knownHosts) error {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	var verifyErr error
	tlsConf := clientTLS(c.cfg.Addr, c.cfg.Fingerprint, known)
	verify := tlsConf.VerifyPeerCertificate
	tlsConf.VerifyPeerCertificate = func(raw [][]byte, chains [][]*x509.Certificate) error {
		verifyErr = verify(raw, chains)
		return verifyErr
	}
	conn, err := c.tr.Dial(ctx, raddr, tlsConf, &quic.Config{
		EnableDatagrams:            true,
		HandshakeIdleTimeout:       c.timeout,
		MaxIdleTimeout:             2 * seconds(c.cfg.Timeout),
		KeepAlivePeriod:            time.Second,
		MaxIncomingStreams:         1,
		MaxIncomingUniStreams:      -1,
		InitialStreamReceiveWindow: 64 << 10,
		MaxStreamReceiveWindow:     1 << 20,
	})
	if err != nil {
		var idle *quic.IdleTimeoutError
		var hs *quic.HandshakeTimeoutError
		switch {
		case verifyErr != nil:
			return fmt.Errorf("dial %s: %w", c.cfg.Addr, verifyErr)
		case errors.As(err, &idle), errors.As(err, &hs), errors.Is(err, context.DeadlineExceeded):
			return fmt.Errorf("dial %s: no answer (is a host running there?): %w", c.cfg.Addr, err)
		}
		return fmt.Errorf("dial %s: %w", c.cfg.Addr, err)
	}
	c.conn = conn
	fail := func(err error) error {
		conn.CloseWithError(codeNormal, "join failed")
		return err
	}
	str, err := conn.AcceptStream(ctx)
	if err != nil {
		return fail(fmt.Errorf("join: control stream: %w", c.closeCause(err)))
	}
	c.str = str
	if dl, ok := ctx.Deadline(); ok {
		str.SetReadDeadline(dl)
	}
	fr := &frameReader{r: str}
	m, perr, err := fr.next()
	if err == nil {
		err = perr
	}
	if err != nil {
		return fail(fmt.Errorf("join: read challenge: %w", c.closeCause(err)))
	}
	ch, ok := m.(*wire.Challenge)
	if !ok {
		return fail(fmt.Errorf("join: host sent %v instead of a challenge", m.Type()))
	}
	req := wire.JoinRequest{Name: c.cfg.Name}
	if ch.PassphraseRequired {
		if c.cfg.Passphrase == "" {
			return fail(fmt.Errorf("join: %w: the match needs a passphrase", ErrWrongPassphrase))
		}
		req.Proof = wire.Proof(wire.DeriveKey(c.cfg.Passphrase, ch.Salt), ch.Nonce, c.cfg.Name)
	}
	if err := c.writeControl(&req); err != nil {
		return fail(fmt.Errorf("join: %w", err))
	}
	m, perr, err = fr.next()
	if err == nil {
		err = perr
	}
	if err != nil {
		return fail(fmt.Errorf("join: read answer: %w", c.closeCause(err)))
	}
	switch m := m.(type) {
	case *wire.JoinAccepted:
		c.id = m.Player
		c.match = MatchSettings{Map: m.MapName, Extent: m.MapExtent, TickRate: float64(m.TickRate),
			Heartbeat: m.Heartbeat, MapSeed: m.MapSeed}
	case *wire.JoinRefused:
		conn.CloseWithError(codeNormal, "refused")
		if m.Reason == wire.RefusePassphrase {
			return fmt.Errorf("join %s: %w", c.cfg.Addr, ErrWrongPassphrase)
		}
		text := m.Reason.String()
		if m.Text != "" {
			text += ": " + m.Text
		}
		return fmt.Errorf("join %s: %w: %s", c.cfg.Addr, ErrRefused, text)
	default:
		return fail(fmt.Errorf("join: host sent %v instead of an answer", m.Type()))
	}
	str.SetReadDeadline(time.Time{})
	c.fr = fr
	return nil
}

// closeCause explains a connection-level error in plain words.
func (c *Client) closeCause(err error) error {
	if c.conn == nil {
		return err
	}
	cause := context.Cause(c.conn.Context())
	if cause == nil {
		cause = err // the stream failed a moment before its connection
	}
	var appErr *quic.ApplicationError
	var idle *quic.IdleTimeoutError
	switch {
	case errors.As(cause, &appErr) && appErr.Remote:
		if appErr.ErrorCode == codeRefused {
			return fmt.Errorf("%w: %s", ErrRefused, appErr.ErrorMessage)
		}
		return fmt.Errorf("host closed the connection: %s", appErr.ErrorMessage)
	case errors.As(cause, &idle):
		return errors.New("host stopped responding")
	}
	return err
}

// writeControl frames and writes one control message.
func (c *Client) writeControl(m wire.Message) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	b, err := wire.AppendFrame(c.wbuf[:0], m)
	if err != nil {
		return err
	}
	c.wbuf = b
	c.str.SetWriteDeadline(time.Now().Add(c.timeout))
	if _, err := c.str.Write(b); err != nil {
		return fmt.Errorf("send %v: %w", m.Type(), c.closeCause(err))
	}
	c.mu.Lock()
	c.bytesOut.add(float64(len(b)), c.Now())
	c.mu.Unlock()
	return nil
}

// ID returns the player id the host assigned.
func (c *Client) ID() uint32 { return uint32(c.id) }

// Now returns the client clock in seconds since Dial started.
func (c *Client) Now() float64 { return time.Since(c.start).Seconds() }

// Match returns the host's match settings.
func (c *Client) Match() MatchSettings { return c.match }

// HostNow returns the client's estimate of the host clock now, in seconds.
func (c *Client) HostNow() float64 { return c.sync.ToRemote(c.Now()) }

// Fingerprint returns the SHA-256 fingerprint of the host's certificate.
func (c *Client) Fingerprint() string {
	st := c.conn.ConnectionState()
	if len(st.TLS.PeerCertificates) == 0 {
		return ""
	}
	return Fingerprint(st.TLS.PeerCertificates[0].Raw)
}

// Spawn asks the host for a new actor and waits for its id.
func (c *Client) Spawn(name string, team int, s deadreckon.State) (uint32, error) {
	if team < 0 || team > 255 {
		return 0, fmt.Errorf("spawn: team %d outside [0, 255]", team)
	}
	if err := wire.CheckName(name); err != nil {
		return 0, fmt.Errorf("spawn: %w", err)
	}
	s.Time = math.Max(0, c.HostNow())
	msg := &wire.Spawn{Owner: c.id, Team: uint8(team), Name: name, State: s}
	// The host answers spawns in the order it reads them; keep the pending list in
	// the order they are written.
	c.spawnMu.Lock()
	c.mu.Lock()
	if c.left || c.q.isClosed() {
		c.mu.Unlock()
		c.spawnMu.Unlock()
		return 0, fmt.Errorf("spawn: %w", ErrClosed)
	}
	msg.Actor = wire.ActorID(provisionalBase + c.nextProv%(0x10000-provisionalBase))
	c.nextProv++
	w := &spawnWait{prov: msg.Actor, done: make(chan struct{})}
	c.pending = append(c.pending, w)
	c.mu.Unlock()
	err := c.writeControl(msg)
	if err != nil {
		// Not sent (a state the wire cannot carry, or a dead stream): no answer comes.
		c.mu.Lock()
		c.pending = slices.DeleteFunc(c.pending, func(x *spawnWait) bool { return x == w })
		c.mu.Unlock()
	}
	c.spawnMu.Unlock()
	if err != nil {
		return 0, fmt.Errorf("spawn: %w", err)
	}
	t := time.NewTimer(c.timeout)
	defer t.Stop()
	select {
	case <-w.done:
		if w.err != nil {
			return 0, w.err
		}
		return uint32(w.id), nil
	case <-t.C:
		c.mu.Lock()
		defer c.mu.Unlock()
		select {
		case <-w.done:
			if w.err != nil {
				return 0, w.err
			}
			return uint32(w.id), nil
		default:
		}
		w.abandoned = true
		return 0, errors.New("spawn: no answer from the host")
	}
}

// Despawn removes one of this player's actors.
func (c *Client) Despawn(actor uint32) error {
	id := wire.ActorID(actor)
	c.mu.Lock()
	_, ok := c.own[id]
	delete(c.own, id)
	c.mu.Unlock()
	if actor > maxAssignedActor || !ok {
		return fmt.Errorf("despawn: actor %d: %w", actor, ErrNotOwner)
	}
	if err := c.writeControl(&wire.Despawn{Actor: id, Reason: wire.DespawnRemoved}); err != nil {
		return fmt.Errorf("despawn: %w", err)
	}
	return nil
}

// Publish sends a state update for one of this player's actors as a datagram,
// stamped with the estimated host time.
func (c *Client) Publish(actor uint32, s deadreckon.State, full bool) error {
	id := wire.ActorID(actor)
	c.mu.Lock()
	last, ok := c.own[id]
	closed := c.left || c.q.isClosed()
	c.mu.Unlock()
	if closed {
		return fmt.Errorf("publish: %w", ErrClosed)
	}
	if actor > maxAssignedActor || !ok {
		return fmt.Errorf("publish: actor %d: %w", actor, ErrNotOwner)
	}
	now := c.Now()
	s.Time = math.Max(0, c.sync.ToRemote(now))
	u := wire.Update{Kind: wire.KindPartial, Actor: id, Seq: last + 1, State: s}
	if full || s.NumArticulations > 0 {
		u.Kind = wire.KindFull
	}
	c.pmu.Lock()
	c.batch.Reset()
	err := c.batch.Add(&u)
	if err == nil {
		err = c.conn.SendDatagram(c.batch.Bytes())
	}
	n := c.batch.Len()
	c.pmu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.rejected++
		return fmt.Errorf("publish: %w", err)
	}
	if _, still := c.own[id]; still {
		c.own[id] = u.Seq
	}
	c.bytesOut.add(float64(n), now)
	c.updatesOut.add(1, now)
	return nil
}

// Chat sends a line of chat to every player.
func (c *Client) Chat(text string) error {
	if err := checkChat(text); err != nil {
		return err
	}
	if err := c.writeControl(&wire.Chat{Text: text}); err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	return nil
}

// Poll appends the events since the last call.
func (c *Client) Poll(buf []Event) []Event { return c.q.poll(buf) }

// Stats returns the connection figures now.
func (c *Client) Stats() Stats {
	now := c.Now()
	c.sync.Advance(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{
		RTT:         c.sync.RTT(),
		ClockOffset: c.sync.Offset(),
		BytesIn:     c.bytesIn.value(now),
		BytesOut:    c.bytesOut.value(now),
		UpdatesIn:   c.updatesIn.value(now),
		UpdatesOut:  c.updatesOut.value(now),
		Dropped:     c.dropped + c.q.droppedCount(),
		Rejected:    c.rejected,
	}
}

// Close says goodbye to the host, ends every goroutine and closes the socket. It is
// safe to call more than once.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.left = true
		c.mu.Unlock()
		if !c.q.isClosed() {
			c.wmu.Lock()
			if b, err := wire.AppendFrame(nil, &wire.Leave{Player: c.id, Reason: wire.LeaveQuit}); err == nil {
				c.str.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
				c.str.Write(b)
			}
			c.wmu.Unlock()
		}
		c.conn.CloseWithError(codeNormal, "left")
		c.cancel()
		c.wg.Wait()
		c.tr.Close()
		c.pc.Close()
		c.q.close("left the match", EndLeft)
		c.log.Info("left the match")
	})
	return nil
}

// controlLoop reads control messages until the connection ends, then queues the
// EventClosed with the reason.
func (c *Client) controlLoop() {
	defer c.wg.Done()
	for {
		m, perr, err := c.fr.next()
		if err != nil {
			c.finish(c.closeCause(err), endingOf(c.conn, err, EndConnection))
			return
		}
		if perr != nil {
			c.mu.Lock()
			c.rejected++
			c.mu.Unlock()
			continue
		}
		if id := c.handleControl(m); id != 0 {
			c.writeControl(&wire.Despawn{Actor: id, Reason: wire.DespawnRemoved})
		}
	}
}

// finish ends the session after the control stream broke or the host fell silent;
// why classifies it (kicked wins when the host said so).
func (c *Client) finish(cause error, why Ending) {
	c.mu.Lock()
	left := c.left
	for _, w := range c.pending {
		w.err = fmt.Errorf("spawn: %w", ErrClosed)
		close(w.done)
	}
	c.pending = nil
	c.mu.Unlock()
	reason := "left the match"
	if left {
		why = EndLeft
	} else {
		reason = c.reasonText(cause)
		if c.kicked() {
			why = EndKicked
		}
		c.log.Info("session ended", "reason", reason, "ending", why)
	}
	c.q.close(reason, why)
	c.conn.CloseWithError(codeNormal, "closing")
}

// kicked reports whether the host said it kicked this player.
func (c *Client) kicked() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.kick != ""
}

// reasonText turns why the connection ended into a plain sentence.
func (c *Client) reasonText(err error) string {
	c.mu.Lock()
	kick := c.kick
	c.mu.Unlock()
	if kick != "" {
		return "kicked by the host: " + kick
	}
	if err == nil {
		return "connection closed"
	}
	return err.Error()
}

// handleControl applies one control message. It returns the id of an actor the
// host confirmed after Spawn gave up waiting, which the caller then despawns.
func (c *Client) handleControl(m wire.Message) (abandoned wire.ActorID) {
	now := c.Now()
	hostNow := c.sync.ToRemote(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bytesIn.add(float64(m.Length()+wire.FrameHeaderSize), now)
	switch m := m.(type) {
	case *wire.Spawn:
		s := m.State
		s.Time = unwrapTime(s.Time, hostNow)
		if m.Owner == c.id && len(c.pending) > 0 {
			w := c.pending[0]
			c.pending = c.pending[1:]
			if w.abandoned {
				// The caller gave up waiting: remove the actor again.
				return m.Actor
			}
			c.own[m.Actor] = m.Seq
			w.id = m.Actor
			close(w.done)
		} else if m.Owner == c.id {
			c.rejected++ // a spawn for us we did not ask for
			return 0
		} else {
			r := &remoteActor{owner: m.Owner, last: s}
			r.seq.Set(m.Seq)
			c.remote[m.Actor] = r
			if _, ok := c.names[m.Owner]; !ok {
				c.names[m.Owner] = m.Name
			}
		}
		c.q.push(Event{Kind: EventSpawn, Actor: uint32(m.Actor), Owner: uint32(m.Owner), Name: m.Name,
			Team: int(m.Team), State: s, Full: true})
	case *wire.Despawn:
		if m.Actor >= provisionalBase {
			if len(c.pending) > 0 && c.pending[0].prov == m.Actor {
				w := c.pending[0]
				c.pending = c.pending[1:]
				w.err = errors.New("spawn: refused by the host")
				close(w.done)
			}
			return 0
		}
		owner := c.id
		if r, ok := c.remote[m.Actor]; ok {
			owner = r.owner
			delete(c.remote, m.Actor)
		} else {
			delete(c.own, m.Actor)
		}
		c.q.push(Event{Kind: EventDespawn, Actor: uint32(m.Actor), Owner: uint32(owner), Text: m.Reason.String()})
	case *wire.Chat:
		c.q.push(Event{Kind: EventChat, Owner: uint32(m.From), Name: c.names[m.From], Text: m.Text})
	case *wire.Kick:
		c.kick = m.Reason
	default:
		c.rejected++
	}
	return 0
}

// datagramLoop reads state batches and clock answers until the connection ends.
func (c *Client) datagramLoop() {
	defer c.wg.Done()
	var buf []wire.Update
	for {
		b, err := c.conn.ReceiveDatagram(c.ctx)
		if err != nil {
			return
		}
		buf = c.handleDatagram(b, buf)
	}
}

func (c *Client) handleDatagram(b []byte, buf []wire.Update) []wire.Update {
	now := c.Now()
	_, t, err := wire.PeekHeader(b)
	if err != nil {
		c.mu.Lock()
		c.rejected++
		c.mu.Unlock()
		return buf
	}
	if t == wire.MsgClockAnswer {
		m, _, err := wire.Parse(b)
		ans, ok := m.(*wire.ClockAnswer)
		if err != nil || !ok {
			c.mu.Lock()
			c.rejected++
			c.mu.Unlock()
			return buf
		}
		if c.sync.Add(clock.Sample{LocalSend: ans.ClientSend, RemoteReceive: ans.HostReceive,
			RemoteSend: ans.HostSend, LocalReceive: now}) == nil {
			c.syncedOnce.Do(func() { close(c.synced) })
		} else {
			c.mu.Lock()
			c.rejected++
			c.mu.Unlock()
		}
		c.mu.Lock()
		c.bytesIn.add(float64(len(b)), now)
		c.lastAnswer = now
		c.mu.Unlock()
		return buf
	}
	updates, rejected, derr := wire.DecodeBatch(buf[:0], b)
	hostNow := c.sync.ToRemote(now)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.lastAnswer = now
	c.bytesIn.add(float64(len(b)), now)
	c.rejected += uint64(rejected)
	if derr != nil {
		c.rejected++
	}
	for i := range updates {
		u := &updates[i]
		r := c.remote[u.Actor]
		if r == nil || !r.seq.Accept(u.Seq) {
			c.dropped++
			continue
		}
		s := u.State
		s.Time = unwrapTime(s.Time, hostNow)
		switch u.Kind {
		case wire.KindPartial:
			s.Articulations, s.NumArticulations = r.last.Articulations, r.last.NumArticulations
		case wire.KindArticulation:
			arts, n := s.Articulations, s.NumArticulations
			s = r.last
			s.Articulations, s.NumArticulations = arts, n
		}
		r.last = s
		c.updatesIn.add(1, now)
		c.q.push(Event{Kind: EventState, Actor: uint32(u.Actor), Owner: uint32(r.owner), State: s,
			Full: u.Kind == wire.KindFull})
	}
	return updates
}

// syncLoop probes the host clock: quickly at first, then every SyncInterval. The
// probes also keep the host from timing the client out.
func (c *Client) syncLoop() {
	defer c.wg.Done()
	var buf []byte
	probe := func() {
		m := wire.ClockRequest{ClientSend: c.Now()}
		b, err := m.Append(buf[:0])
		if err != nil {
			return
		}
		buf = b
		if c.conn.SendDatagram(b) == nil {
			c.mu.Lock()
			c.bytesOut.add(float64(len(b)), c.Now())
			c.mu.Unlock()
		}
	}
	probe()
	fast := time.NewTicker(c.cfg.SyncInterval / 5)
	defer fast.Stop()
	for range initialProbes - 1 {
		select {
		case <-c.ctx.Done():
			return
		case <-fast.C:
			probe()
		}
	}
	fast.Stop()
	t := time.NewTicker(c.cfg.SyncInterval)
	defer t.Stop()
	var st stallWatch
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
			now := c.Now()
			if gap, ok := st.tick(now, c.cfg.SyncInterval); ok {
				// This process did not run (paused, swapped out, starved): the host
				// cannot be blamed for the answers it could not read meanwhile.
				c.log.Warn("this program stalled", "seconds", gap)
				c.mu.Lock()
				c.lastAnswer = max(c.lastAnswer, now)
				c.mu.Unlock()
			}
			probe()
			c.sync.Advance(now)
			c.mu.Lock()
			silent := now - c.lastAnswer
			c.mu.Unlock()
			if silent > c.cfg.Timeout {
				c.log.Warn("host silent", "seconds", silent)
				c.finish(st.silence(), endingOf(c.conn, nil, EndHostSilent))
				return
			}
		}
	}
}
