package net

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/clock"
	"github.com/treadline/treadline/net/wire"
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

// clientConn is what a Client speaks over: a QUIC connection with its control stream,
// or the pipe to the run loop of the host it belongs to.
type clientConn interface {
	sendDatagram(b []byte) error
	receiveDatagram(ctx context.Context) ([]byte, error)
	writeControl(frame []byte) error
	// readControl returns the next control message; an error wrapping
	// wire.ErrBadMessage loses one message, any other ends the stream.
	readControl() (wire.Message, error)
	close(code quicCode, reason string)
	// cause explains in plain words why the connection ended, given the error that
	// showed it.
	cause(err error) error
}

// Client is one player's end of a match: a connection to a host (Dial), or the host's
// own player (Host.Local). Spawn, Despawn, Publish, Chat and Poll are meant for one
// game goroutine; ID, Now, HostNow, Match, Stats and Close are safe from any
// goroutine.
type Client struct {
	cfg      ClientConfig
	log      *slog.Logger
	start    time.Duration // cfg.Clock reading that Now counts from
	conn     clientConn
	fp       string
	token    ReconnectToken // from the host's JoinAccepted; zero for the host's own player
	teardown func()         // releases the socket once every goroutine has ended
	id       wire.PlayerID
	match    MatchSettings
	sync     *clock.Sync
	q        eventQueue

	synced     chan struct{} // closed at the first clock answer
	syncedOnce sync.Once

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	once   sync.Once

	wmu     sync.Mutex // control writes
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
	sendErrors uint64
}

type remoteActor struct {
	owner wire.PlayerID
	seq   wire.SeqFilter
}

type spawnWait struct {
	prov      wire.ActorID
	done      chan struct{}
	id        wire.ActorID
	err       error
	abandoned bool
}

// newClient starts the session of a joined player over conn: its control and
// datagram readers and its clock probes. cfg has been through populateClientConfig;
// Now counts from the cfg.Clock reading start.
func newClient(cfg ClientConfig, conn clientConn, id wire.PlayerID, match MatchSettings, start time.Duration) *Client {
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{
		cfg:      cfg,
		log:      log,
		start:    start,
		conn:     conn,
		teardown: func() {},
		id:       id,
		match:    match,
		sync:     clock.New(clock.Config{SlewRate: clockSlewRate, StepThreshold: clockStepThreshold}),
		synced:   make(chan struct{}),
		batch:    wire.NewBatchWriter(wire.MaxBatchSize),
		own:      map[wire.ActorID]uint16{},
		remote:   map[wire.ActorID]*remoteActor{},
		names:    map[wire.PlayerID]string{},
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.lastAnswer = c.Now()
	c.wg.Add(3)
	go c.controlLoop()
	go c.datagramLoop()
	go c.syncLoop()
	return c
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
	if err := c.conn.writeControl(b); err != nil {
		return fmt.Errorf("send %v: %w", m.Type(), c.conn.cause(err))
	}
	c.mu.Lock()
	c.bytesOut.add(float64(len(b)), c.Now())
	c.mu.Unlock()
	return nil
}

// ID returns the player id the host assigned: 0 for the host's own player, 1 and up
// for the others.
func (c *Client) ID() uint32 { return uint32(c.id) }

// Now returns the client clock in seconds since the client started (for the host's
// own player, the host clock). It is the clock a game loop steps on.
func (c *Client) Now() float64 { return units.Seconds(c.cfg.Clock.Now() - c.start) }

// Match returns the host's match settings.
func (c *Client) Match() MatchSettings { return c.match }

// HostNow returns the client's estimate of the host clock now, in seconds.
func (c *Client) HostNow() float64 { return c.sync.ToRemote(c.Now()) }

// ReconnectToken returns the token the host gave this session. Pass it as
// ClientConfig.ReconnectToken to rejoin under the same name at once after the
// connection was lost. It is zero for the host's own player.
func (c *Client) ReconnectToken() ReconnectToken { return c.token }

// Fingerprint returns the SHA-256 fingerprint of the host's certificate.
func (c *Client) Fingerprint() string { return c.fp }

// Spawn asks the host for a new actor owned by this player, with the given display
// name, team and initial state, and returns the id the host assigned. It waits for
// the host's answer (up to the configured request timeout). The spawn is also
// reported to every player as an EventSpawn.
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
	t := time.NewTimer(c.cfg.RequestTimeout)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		c.mu.Lock()
		defer c.mu.Unlock()
		select {
		case <-w.done:
		default:
			w.abandoned = true
			return 0, errors.New("spawn: no answer from the host")
		}
	}
	if w.err != nil {
		return 0, w.err
	}
	return uint32(w.id), nil
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

// Publish sends a state update for one of this player's actors as a datagram: its
// whole state, articulations included. It stamps s.Time with the estimated host
// time, so the caller's s.Time is ignored. Updates are unreliable: they may be lost.
func (c *Client) Publish(actor uint32, s deadreckon.State) error {
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
	u := wire.Update{Actor: id, Seq: last + 1, State: s}
	c.pmu.Lock()
	c.batch.Reset()
	err := c.batch.Add(&u)
	if err == nil {
		err = c.conn.sendDatagram(c.batch.Bytes())
	}
	n := c.batch.Len()
	c.pmu.Unlock()
	c.mu.Lock()
	defer c.mu.Unlock()
	if err != nil {
		c.sendErrors++
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

// checkChat reports whether text can be sent as a chat line.
func checkChat(text string) error {
	if text == "" {
		return errors.New("chat: empty line")
	}
	if len(text) > wire.MaxTextLen {
		return fmt.Errorf("chat: %d bytes, limit %d", len(text), wire.MaxTextLen)
	}
	if _, err := (&wire.Chat{From: 0, Text: text}).Append(nil); err != nil {
		return fmt.Errorf("chat: %w", err)
	}
	return nil
}

// Poll appends to buf the events that arrived since the last call, in arrival
// order, and returns the extended slice. It never blocks.
func (c *Client) Poll(buf []Event) []Event { return c.q.poll(buf) }

// Stats returns the connection figures now.
func (c *Client) Stats() Stats {
	now := c.Now()
	c.sync.Advance(now)
	_, clockRejected := c.sync.Counts()
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{
		RTT:           units.Duration(c.sync.RTT()),
		ClockOffset:   units.Duration(c.sync.Offset()),
		ClockError:    units.Duration(c.sync.Error()),
		Silence:       units.Duration(max(0, now-c.lastAnswer)),
		Timeout:       c.cfg.Timeout,
		BytesIn:       c.bytesIn.value(now),
		BytesOut:      c.bytesOut.value(now),
		UpdatesIn:     c.updatesIn.value(now),
		UpdatesOut:    c.updatesOut.value(now),
		Dropped:       c.dropped + c.q.droppedCount(),
		Rejected:      c.rejected,
		SendErrors:    c.sendErrors,
		ClockRejected: clockRejected,
	}
}

// Close says goodbye to the host, ends every goroutine and releases the socket. It is
// safe to call more than once. Closing the host's own player despawns its actors;
// the host keeps serving the others.
func (c *Client) Close() error {
	c.once.Do(func() {
		c.mu.Lock()
		c.left = true
		c.mu.Unlock()
		if !c.q.isClosed() {
			c.wmu.Lock()
			if b, err := wire.AppendFrame(nil, &wire.Leave{Player: c.id, Reason: wire.LeaveQuit}); err == nil {
				c.conn.writeControl(b)
			}
			c.wmu.Unlock()
		}
		c.conn.close(codeNormal, "left")
		c.cancel()
		c.wg.Wait()
		c.teardown()
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
		m, err := c.conn.readControl()
		if errors.Is(err, wire.ErrBadMessage) {
			c.mu.Lock()
			c.rejected++
			c.mu.Unlock()
			continue
		}
		if err != nil {
			cause := c.conn.cause(err)
			c.finish(cause, endingOf(cause, EndConnection))
			return
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
	c.conn.close(codeNormal, "closing")
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
		return c.onSpawn(m, hostNow)
	case *wire.Despawn:
		c.onDespawn(m)
	case *wire.Chat:
		c.q.push(Event{Kind: EventChat, Owner: uint32(m.From), Name: c.names[m.From], Text: m.Text})
	case *wire.Kick:
		c.kick = m.Reason
	case *wire.Fire, *wire.HitResult, *wire.Destroy, *wire.Scores:
		c.q.push(Event{Kind: EventMessage, Message: m})
	default:
		c.rejected++
	}
	return 0
}

// Refereed reports true: the host's run loop hands every game message to its Judge
// (a host without one drops them unanswered), so a match on a Client fights.
func (c *Client) Refereed() bool { return true }

// Send sends a game message to the host's Judge: a wire.HitClaim as a datagram (send
// it again on the next frames: datagrams may be lost), anything else on the control
// stream.
func (c *Client) Send(m wire.Message) error {
	if m.Type() != wire.MsgHitClaim {
		return c.writeControl(m)
	}
	b, err := m.Append(nil)
	if err != nil {
		return fmt.Errorf("send %v: %w", m.Type(), err)
	}
	if err := c.conn.sendDatagram(b); err != nil {
		return fmt.Errorf("send %v: %w", m.Type(), c.conn.cause(err))
	}
	c.mu.Lock()
	c.bytesOut.add(float64(len(b)), c.Now())
	c.mu.Unlock()
	return nil
}

// onSpawn records a spawn (an answer to this player's own request, or another
// player's actor) and reports it; c.mu held.
func (c *Client) onSpawn(m *wire.Spawn, hostNow float64) (abandoned wire.ActorID) {
	s := m.State
	s.Time = unwrapTime(s.Time, hostNow)
	switch {
	case m.Owner == c.id && len(c.pending) > 0:
		w := c.pending[0]
		c.pending = c.pending[1:]
		if w.abandoned {
			// The caller gave up waiting: remove the actor again.
			return m.Actor
		}
		c.own[m.Actor] = m.Seq
		w.id = m.Actor
		close(w.done)
	case m.Owner == c.id:
		c.rejected++ // a spawn for us we did not ask for
		return 0
	default:
		r := &remoteActor{owner: m.Owner}
		r.seq.Set(m.Seq)
		c.remote[m.Actor] = r
		if _, ok := c.names[m.Owner]; !ok {
			c.names[m.Owner] = m.Name
		}
	}
	c.q.push(Event{Kind: EventSpawn, Actor: uint32(m.Actor), Owner: uint32(m.Owner), Name: m.Name,
		Team: int(m.Team), State: s})
	return 0
}

// onDespawn removes an actor, or fails this player's pending spawn the host refused;
// c.mu held.
func (c *Client) onDespawn(m *wire.Despawn) {
	if m.Actor >= provisionalBase {
		if len(c.pending) > 0 && c.pending[0].prov == m.Actor {
			w := c.pending[0]
			c.pending = c.pending[1:]
			w.err = errors.New("spawn: refused by the host")
			close(w.done)
		}
		return
	}
	owner := c.id
	if r, ok := c.remote[m.Actor]; ok {
		owner = r.owner
		delete(c.remote, m.Actor)
	} else {
		delete(c.own, m.Actor)
	}
	c.q.push(Event{Kind: EventDespawn, Actor: uint32(m.Actor), Owner: uint32(owner), Text: m.Reason.String()})
}

// datagramLoop reads state batches and clock answers until the connection ends.
func (c *Client) datagramLoop() {
	defer c.wg.Done()
	var buf []wire.Update
	for {
		b, err := c.conn.receiveDatagram(c.ctx)
		if err != nil {
			return
		}
		buf = c.handleDatagram(b, buf)
	}
}

// handleDatagram applies one datagram: a clock answer or a state batch.
func (c *Client) handleDatagram(b []byte, buf []wire.Update) []wire.Update {
	now := c.Now()
	_, t, err := wire.PeekHeader(b)
	switch {
	case err != nil:
		c.mu.Lock()
		c.rejected++
		c.mu.Unlock()
		return buf
	case t == wire.MsgClockAnswer:
		c.onClockAnswer(b, now)
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
		c.updatesIn.add(1, now)
		c.q.push(Event{Kind: EventState, Actor: uint32(u.Actor), Owner: uint32(r.owner), State: s, Arrival: now})
	}
	return updates
}

// onClockAnswer feeds a clock answer to the clock filter.
func (c *Client) onClockAnswer(b []byte, now float64) {
	m, _, err := wire.Parse(b)
	ans, ok := m.(*wire.ClockAnswer)
	if err != nil || !ok {
		c.mu.Lock()
		c.rejected++
		c.mu.Unlock()
		return
	}
	// A sample the sync refuses is counted there (Stats.ClockRejected); the answer
	// still shows the host is alive.
	if c.sync.Add(clock.Sample{LocalSend: ans.ClientSend, RemoteReceive: ans.HostReceive,
		RemoteSend: ans.HostSend, LocalReceive: now}) == nil {
		c.syncedOnce.Do(func() { close(c.synced) })
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.bytesIn.add(float64(len(b)), now)
	c.lastAnswer = now
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
		if c.conn.sendDatagram(b) == nil {
			c.mu.Lock()
			c.bytesOut.add(float64(len(b)), c.Now())
			c.mu.Unlock()
		}
	}
	probe()
	t := time.NewTicker(c.cfg.SyncInterval / 5)
	defer t.Stop()
	var st stallWatch
	for i := 1; ; i++ {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		if gap, ok := st.tick(c.Now(), c.cfg.SyncInterval); ok {
			// This process did not run (paused, swapped out, starved): the host
			// cannot be blamed for the answers it could not read meanwhile.
			c.log.Warn("this program stalled", "seconds", gap)
			c.mu.Lock()
			c.lastAnswer = max(c.lastAnswer, c.Now())
			c.mu.Unlock()
		}
		probe()
		if i == initialProbes-1 {
			t.Reset(c.cfg.SyncInterval)
		}
		if i >= initialProbes-1 && c.silent() {
			c.finish(st.silence(), EndHostSilent)
			return
		}
	}
}

// silent reports whether the host has been silent for longer than the timeout.
func (c *Client) silent() bool {
	now := c.Now()
	c.sync.Advance(now)
	c.mu.Lock()
	silence := now - c.lastAnswer
	c.mu.Unlock()
	if silence > c.cfg.Timeout.Seconds() {
		c.log.Warn("host silent", "seconds", silence)
		return true
	}
	return false
}
