package net

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"slices"
	"sync"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/clock"
	"github.com/treadline/treadline/net/internal/rate"
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
// own player (Host.Local). Its methods are safe for concurrent use; a game usually
// calls Spawn, Despawn, Publish, Send, Chat and Poll from its one loop.
//
// Inside, a Client is shaped like the Host: one goroutine, the run loop, owns the
// session (own and remote actors, pending spawns, counters and the events waiting for
// Poll) and applies, one at a time, the API's calls, what the connection's two readers
// feed it, the results of the sends and the clock-probe ticks. A sender goroutine
// writes what the loop hands it, so that the loop never waits on the network: a
// method posts its call to the loop, and when it sends, waits for the sender's result
// as the loop passes it back.
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
	// sync is the clock filter: the run loop feeds it, HostNow reads it from any
	// goroutine (it locks for itself).
	sync   *clock.Sync
	synced chan struct{} // closed by the run loop at the first clock answer

	calls    chan func()        // API calls run on the loop
	in       chan clientInput   // what the readers and the sender feed the loop
	out      chan *outgoing     // what the loop hands the sender
	quit     chan struct{}      // closed by Close: the loop ends
	loopDone chan struct{}      // closed when the loop has ended
	final    Stats              // the figures when the loop ended
	rest     chan []Event       // the events the loop left behind, for one last Poll
	stopRead context.CancelFunc // ends the datagram reader
	// local is the pipe of a player joined in process, which counts the loop's work
	// for Host.Settle (see track); nil over QUIC.
	local *pipe
	wg    sync.WaitGroup
	once  sync.Once

	s joined // owned by the run loop
}

// joined is the client's state of its membership in a match, from the join to
// the end. Only the client's run loop touches it.
type joined struct {
	c          *Client
	own        map[wire.ActorID]uint16 // own actors: last sequence number sent
	remote     map[wire.ActorID]*remoteActor
	names      map[wire.PlayerID]string
	pending    []*spawnWait // spawn requests in the order they were written
	nextProv   uint16
	left       bool // Close was called
	kick       string
	synced     bool    // c.synced is closed
	lastAnswer float64 // local time of the last datagram from the host
	probes     int     // clock probes sent
	stall      stallWatch
	probeBuf   []byte
	batch      *wire.BatchWriter // reused: encodes one Publish
	updates    []wire.Update     // reused: decodes one state batch
	q          eventQueue
	bytesIn    rate.Meter
	bytesOut   rate.Meter
	updatesIn  rate.Meter
	updatesOut rate.Meter
	dropped    uint64
	rejected   uint64
	sendErrors uint64
}

type remoteActor struct {
	owner wire.PlayerID
	seq   wire.SeqFilter
}

// spawnWait is a spawn request waiting for the host's answer. The run loop sets id
// and state, or err, then closes done; abandoned is the loop's alone.
type spawnWait struct {
	prov      wire.ActorID
	done      chan struct{}
	id        wire.ActorID
	state     deadreckon.State // the actor's state as the host's answer gives it, host clock
	err       error
	abandoned bool
}

// clientInputKind says what a clientInput carries.
type clientInputKind uint8

const (
	// fromDatagram carries a datagram (a state batch or a clock answer) in data.
	fromDatagram clientInputKind = iota + 1
	// fromControl carries a control message in msg, or a bad one's error in err.
	fromControl
	// fromEnded reports that the control stream ended, with err saying why.
	fromEnded
	// fromSender carries a send the sender finished, with its result, in sent.
	fromSender
)

// clientInput is one thing the connection's readers or the sender hand the run loop.
type clientInput struct {
	kind clientInputKind
	at   float64 // local time of arrival, s
	data []byte
	msg  wire.Message
	err  error
	sent *outgoing
}

// sendQueue is how many sends may wait for the sender; past it a send fails at once
// rather than stall the run loop.
const sendQueue = 256

// outgoing is one send: a control frame or a datagram, its result, and who waits for
// it. The run loop fills it in and hands it to the sender, which sets err and hands it
// back.
type outgoing struct {
	b       []byte
	control bool         // a control frame; else a datagram
	what    wire.MsgType // for the error's text
	updates int          // state updates it carries, for Stats.UpdatesOut
	spawn   *spawnWait   // the spawn request it carries, withdrawn if it fails
	counted bool         // a failure counts in Stats.SendErrors
	reply   chan error   // the caller's, buffered; nil when nobody waits
	err     error
}

// newClient starts the session of a joined player over conn: its run loop, its
// readers and its sender. cfg has been through populateClientConfig; Now counts from
// the cfg.Clock reading start.
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
		calls:    make(chan func()),
		in:       make(chan clientInput, inputQueue),
		out:      make(chan *outgoing, sendQueue),
		quit:     make(chan struct{}),
		loopDone: make(chan struct{}),
		rest:     make(chan []Event, 1),
	}
	if p, ok := conn.(pipeClient); ok {
		c.local = p.pipe
	}
	c.s = joined{
		c:          c,
		own:        map[wire.ActorID]uint16{},
		remote:     map[wire.ActorID]*remoteActor{},
		names:      map[wire.PlayerID]string{},
		batch:      wire.NewBatchWriter(wire.MaxBatchSize),
		lastAnswer: c.Now(),
	}
	var readCtx context.Context
	readCtx, c.stopRead = context.WithCancel(context.Background())
	c.wg.Add(4)
	go c.run()
	go c.sendLoop()
	go c.readControl()
	go c.readDatagrams(readCtx)
	return c
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

// ErrSpawnUnanswered reports a spawn the host did not answer within
// ClientConfig.RequestTimeout: over a bad link, the request or its answer was lost
// too often.
var ErrSpawnUnanswered = errors.New("spawn: no answer from the host")

// Spawn asks the host for a new actor owned by this player, with the given display
// name, team and initial state, and returns the id the host assigned. It waits for
// the host's answer (up to the configured request timeout). The spawn is also
// reported to every player as an EventSpawn. A player joined over the network gets
// its tanks named by the host, after the name it joined under, whatever name it
// asks for; the host's own player and players joined in process (Host.Local,
// Host.JoinLocal) keep the names they give (their bots' names).
func (c *Client) Spawn(name string, team int, s deadreckon.State) (uint32, error) {
	id, _, err := c.SpawnPlaced(name, team, s)
	return id, err
}

// SpawnPlaced is Spawn that also returns the actor's state as the host's answer
// gives it, its Time on the host's clock in seconds: where the host put the actor,
// which a judge that places spawns (Placer) may have moved and turned from s. An
// owner that publishes from there at once never sends an update from a place the
// host has overruled; one that learns the place only from the EventSpawn publishes
// from s until it handles the event, and the host's movement check can accept such
// an update once enough time has passed since the spawn, then refuse the jump to
// the host's place.
func (c *Client) SpawnPlaced(name string, team int, s deadreckon.State) (uint32, deadreckon.State, error) {
	if team < 0 || team > 255 {
		return 0, deadreckon.State{}, fmt.Errorf("spawn: team %d outside [0, 255]", team)
	}
	if err := wire.CheckName(name); err != nil {
		return 0, deadreckon.State{}, fmt.Errorf("spawn: %w", err)
	}
	var (
		w   *spawnWait
		o   *outgoing
		err error
	)
	if !c.call(func() { w, o, err = c.s.spawn(name, uint8(team), s) }) {
		return 0, deadreckon.State{}, fmt.Errorf("spawn: %w", ErrClosed)
	}
	if err == nil {
		err = c.await(o)
	}
	if err != nil {
		return 0, deadreckon.State{}, fmt.Errorf("spawn: %w", err)
	}
	t := time.NewTimer(c.cfg.RequestTimeout)
	defer t.Stop()
	select {
	case <-w.done:
	case <-t.C:
		gaveUp := false
		c.call(func() {
			select {
			case <-w.done:
			default:
				w.abandoned, gaveUp = true, true
			}
		})
		if gaveUp {
			return 0, deadreckon.State{}, ErrSpawnUnanswered
		}
		<-w.done // answered meanwhile, or failed as the loop ended
	}
	if w.err != nil {
		return 0, deadreckon.State{}, w.err
	}
	return uint32(w.id), w.state, nil
}

// Despawn removes one of this player's actors.
func (c *Client) Despawn(actor uint32) error {
	return c.queueAndWait("despawn", func() (*outgoing, error) { return c.s.despawn(wire.ActorID(actor)) })
}

// queueAndWait has the run loop queue what queue returns and waits until it is
// written; errors are wrapped with what, the operation's name.
func (c *Client) queueAndWait(what string, queue func() (*outgoing, error)) error {
	var (
		o   *outgoing
		err error
	)
	if !c.call(func() { o, err = queue() }) {
		return fmt.Errorf("%s: %w", what, ErrClosed)
	}
	if err == nil {
		err = c.await(o)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// Publish sends a state update for one of this player's actors as a datagram: its
// whole state, articulations included. It stamps s.Time with the estimated host
// time, so the caller's s.Time is ignored. Updates are unreliable: they may be lost.
func (c *Client) Publish(actor uint32, s deadreckon.State) error {
	return c.queueAndWait("publish", func() (*outgoing, error) { return c.s.publish(wire.ActorID(actor), s) })
}

// PublishRoute sends route r of one of this player's actors, numbered id (never 0;
// every progress on it names it), on the reliable control stream, and waits for the
// write. A route of more than wire.MaxRouteWaypoints waypoints is refused.
func (c *Client) PublishRoute(actor uint32, id uint16, r *deadreckon.Route) error {
	if r == nil {
		return fmt.Errorf("publish route: actor %d: no route", actor)
	}
	m := RouteMessage(wire.ActorID(actor), id, r)
	if !c.owns(actor) {
		return fmt.Errorf("publish route: actor %d: %w", actor, ErrNotOwner)
	}
	if err := c.sendControl(m); err != nil {
		return fmt.Errorf("publish route: %w", err)
	}
	return nil
}

// RouteMessage returns the wire Route message publishing route r of actor as id.
func RouteMessage(actor wire.ActorID, id uint16, r *deadreckon.Route) *wire.Route {
	m := &wire.Route{Actor: actor, Route: id, Waypoints: r.Waypoints()}
	if r.Closed() {
		m.Flags |= wire.RouteClosed
	}
	if r.Spline() {
		m.Flags |= wire.RouteSpline
	}
	return m
}

// RouteOf returns the route a wire Route message describes, checked as
// deadreckon.NewRoute checks any.
func RouteOf(m *wire.Route) (*deadreckon.Route, error) {
	return deadreckon.NewRoute(m.Waypoints, m.Flags&wire.RouteClosed != 0, m.Flags&wire.RouteSpline != 0)
}

// owns reports whether actor is one of this player's.
func (c *Client) owns(actor uint32) bool {
	ok := false
	if !c.call(func() { _, ok = c.s.own[wire.ActorID(actor)] }) {
		return false
	}
	return ok
}

// PublishProgress sends the progress of one of this player's actors along the route
// PublishRoute published, as a datagram: it may be lost, as a state update may, and
// takes the next number of the actor's update sequence. It stamps p.Time with the
// estimated host time, as Publish does.
func (c *Client) PublishProgress(actor uint32, p deadreckon.Progress) error {
	return c.queueAndWait("publish progress", func() (*outgoing, error) { return c.s.publishProgress(wire.ActorID(actor), p) })
}

// Chat sends a line of chat to every player.
func (c *Client) Chat(text string) error {
	if err := checkChat(text); err != nil {
		return err
	}
	if err := c.sendControl(&wire.Chat{Text: text}); err != nil {
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

// Refereed reports true: the host's run loop hands every game message to its Judge
// (a host without one drops them unanswered), so a match on a Client fights.
func (c *Client) Refereed() bool { return true }

// View tells the host where this observer's camera is (ClientConfig.Observe): on
// actor follow, or at p for a free camera (follow 0). It goes as a datagram and does
// not wait: a lost one is replaced by the next, a few times a second.
func (c *Client) View(follow uint32, p mgl64.Vec3) error {
	if follow > math.MaxUint16 {
		follow = 0
	}
	m := wire.View{Follow: wire.ActorID(follow), Position: p}
	b, err := m.Append(nil)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	if !c.call(func() { _, err = c.s.queue(&outgoing{b: b, what: wire.MsgView}, false) }) {
		return fmt.Errorf("view: %w", ErrClosed)
	}
	return err
}

// Send sends a game message to the host's Judge: a wire.HitClaim as a datagram (send
// it again on the next frames: datagrams may be lost), anything else on the control
// stream.
func (c *Client) Send(m wire.Message) error {
	if m.Type() != wire.MsgHitClaim {
		return c.sendControl(m)
	}
	b, err := m.Append(nil)
	if err != nil {
		return fmt.Errorf("send %v: %w", m.Type(), err)
	}
	var o *outgoing
	if !c.call(func() { o, err = c.s.queue(&outgoing{b: b, what: m.Type()}, true) }) {
		return fmt.Errorf("send %v: %w", m.Type(), ErrClosed)
	}
	if err == nil {
		err = c.await(o)
	}
	return err
}

// sendControl sends m on the control stream and waits for the write.
func (c *Client) sendControl(m wire.Message) error {
	var (
		o   *outgoing
		err error
	)
	if !c.call(func() { o, err = c.s.queueControl(m, true) }) {
		return fmt.Errorf("send %v: %w", m.Type(), ErrClosed)
	}
	if err != nil {
		return err
	}
	return c.await(o)
}

// Poll appends to buf the events that arrived since the last call, in arrival
// order, and returns the extended slice. It never waits on the network.
func (c *Client) Poll(buf []Event) []Event {
	if c.call(func() { buf = c.s.q.poll(buf) }) {
		return buf
	}
	select {
	case rest := <-c.rest:
		buf = append(buf, rest...)
	default:
	}
	return buf
}

// Stats returns the connection figures now; after Close, those at Close.
func (c *Client) Stats() Stats {
	var st Stats
	if c.call(func() { st = c.s.stats() }) {
		return st
	}
	return c.final
}

// Close says goodbye to the host, ends every goroutine and releases the socket. It is
// safe to call more than once. Closing the host's own player despawns its actors;
// the host keeps serving the others. A Poll after Close returns the events still
// waiting, the EventClosed last.
func (c *Client) Close() error {
	c.once.Do(func() {
		var (
			leave *outgoing
			err   error
		)
		c.call(func() {
			if !c.s.q.closed {
				leave, err = c.s.queueControl(&wire.Leave{Player: c.id, Reason: wire.LeaveQuit}, true)
			}
			c.s.left = true
		})
		if leave != nil && err == nil {
			c.await(leave) // the goodbye goes out before the close overtakes it
		}
		c.conn.close(codeNormal, "left")
		close(c.quit)
		c.stopRead()
		c.wg.Wait()
		c.teardown()
		c.log.Info("left the match")
	})
	return nil
}

// call runs f on the run loop and waits for it. It reports false, without running
// f, once the loop has ended.
func (c *Client) call(f func()) bool { return runOn(c.calls, c.loopDone, f) }

// await waits for the run loop to pass back the result of o, which it queued with a
// reply.
func (c *Client) await(o *outgoing) error {
	select {
	case err := <-o.reply:
		return err
	case <-c.loopDone:
		return ErrClosed
	}
}

// track adds n to the work the run loop has yet to do, for Host.Settle: an input is
// counted from before it is fed until the loop has handled it, a send from before it
// is queued until its result is fed back. Over QUIC nothing is counted.
func (c *Client) track(n int) {
	if c.local != nil {
		c.local.track(n)
	}
}

// feed hands one input to the run loop; it gives up when the loop has ended.
func (c *Client) feed(in clientInput) {
	c.track(1)
	select {
	case c.in <- in:
	case <-c.loopDone:
		c.track(-1)
	}
}

// run is the client's run loop: it owns the session and applies, one at a time,
// the API's calls, what the readers and the sender feed it and the probe ticks,
// until Close.
func (c *Client) run() {
	defer c.wg.Done()
	s := &c.s
	probe := time.NewTicker(max(c.cfg.SyncInterval/5, time.Millisecond))
	defer probe.Stop()
	ticks := probe.C
	s.probe()
	for {
		select {
		case <-c.quit:
			s.end()
			if c.local != nil {
				c.local.loopEnded()
			}
			close(c.loopDone)
			return
		case f := <-c.calls:
			f()
		case in := <-c.in:
			s.handle(in)
			c.track(-1)
		case <-ticks:
			s.tick(probe)
		}
		if s.q.closed && ticks != nil {
			probe.Stop() // the session has ended: nobody to probe
			ticks = nil
		}
	}
}

// sendLoop writes what the run loop hands it, in order, and hands each result back,
// until the loop ends.
func (c *Client) sendLoop() {
	defer c.wg.Done()
	for {
		select {
		case <-c.loopDone:
			return
		case o := <-c.out:
			var err error
			if o.control {
				err = c.conn.writeControl(o.b)
			} else {
				err = c.conn.sendDatagram(o.b)
			}
			if err != nil {
				o.err = fmt.Errorf("send %v: %w", o.what, c.conn.cause(err))
			}
			c.feed(clientInput{kind: fromSender, sent: o})
			c.track(-1) // o's result is in the loop's input now
		}
	}
}

// readControl feeds the control messages to the run loop until the stream ends, and
// then why it ended.
func (c *Client) readControl() {
	defer c.wg.Done()
	for {
		m, err := c.conn.readControl()
		if err != nil && !errors.Is(err, wire.ErrBadMessage) {
			c.feed(clientInput{kind: fromEnded, err: c.conn.cause(err)})
			return
		}
		c.feed(clientInput{kind: fromControl, msg: m, err: err, at: c.Now()})
	}
}

// readDatagrams feeds the datagrams to the run loop until the connection ends or ctx
// is done.
func (c *Client) readDatagrams(ctx context.Context) {
	defer c.wg.Done()
	for {
		b, err := c.conn.receiveDatagram(ctx)
		if err != nil {
			return
		}
		c.feed(clientInput{kind: fromDatagram, data: b, at: c.Now()})
	}
}

// handle applies one input.
func (s *joined) handle(in clientInput) {
	switch in.kind {
	case fromDatagram:
		s.handleDatagram(in.data, in.at)
	case fromControl:
		if in.err != nil {
			s.rejected++
			return
		}
		if id := s.handleControl(in.msg, in.at); id != 0 {
			s.queueControl(&wire.Despawn{Actor: id, Reason: wire.DespawnRemoved}, false)
		}
	case fromEnded:
		s.finish(in.err, endingOf(in.err, EndConnection))
	case fromSender:
		s.sent(in.sent)
	}
}

// queue hands o to the sender; with reply, the caller waits for the result. It fails
// at once when the session has ended or the sender is that far behind.
func (s *joined) queue(o *outgoing, reply bool) (*outgoing, error) {
	if s.q.closed {
		return nil, fmt.Errorf("send %v: %w", o.what, ErrClosed)
	}
	if reply {
		o.reply = make(chan error, 1)
	}
	s.c.track(1)
	select {
	case s.c.out <- o:
		return o, nil
	default:
		s.c.track(-1)
		return nil, fmt.Errorf("send %v: %d sends already waiting", o.what, sendQueue)
	}
}

// queueControl frames m and queues it for the control stream.
func (s *joined) queueControl(m wire.Message, reply bool) (*outgoing, error) {
	b, err := wire.AppendFrame(nil, m)
	if err != nil {
		return nil, err
	}
	return s.queue(&outgoing{b: b, control: true, what: m.Type()}, reply)
}

// sent applies the result of a send and passes it to whoever waits for it.
func (s *joined) sent(o *outgoing) {
	now := s.c.Now()
	switch {
	case o.err == nil:
		s.bytesOut.Add(float64(len(o.b)), now)
		s.updatesOut.Add(float64(o.updates), now)
	case o.counted:
		s.sendErrors++
	}
	if o.err != nil && o.spawn != nil {
		// Not sent: no answer comes.
		s.pending = slices.DeleteFunc(s.pending, func(x *spawnWait) bool { return x == o.spawn })
	}
	if o.reply != nil {
		o.reply <- o.err
	}
}

// spawn registers a spawn request and queues it. The host answers spawns in the
// order it reads them, the order they are queued in here.
func (s *joined) spawn(name string, team uint8, st deadreckon.State) (*spawnWait, *outgoing, error) {
	if s.left || s.q.closed {
		return nil, nil, ErrClosed
	}
	st.Time = math.Max(0, s.c.HostNow())
	msg := &wire.Spawn{Owner: s.c.id, Team: team, Name: name, State: st,
		Actor: wire.ActorID(provisionalBase + s.nextProv%(0x10000-provisionalBase))}
	b, err := wire.AppendFrame(nil, msg)
	if err != nil {
		s.sendErrors++ // a state the wire cannot carry
		return nil, nil, err
	}
	s.nextProv++
	w := &spawnWait{prov: msg.Actor, done: make(chan struct{})}
	o, err := s.queue(&outgoing{b: b, control: true, what: msg.Type(), spawn: w, counted: true}, true)
	if err != nil {
		return nil, nil, err
	}
	s.pending = append(s.pending, w)
	return w, o, nil
}

// despawn forgets one of this player's actors and queues its despawn.
func (s *joined) despawn(id wire.ActorID) (*outgoing, error) {
	_, ok := s.own[id]
	delete(s.own, id)
	if id > maxAssignedActor || !ok {
		return nil, fmt.Errorf("actor %d: %w", id, ErrNotOwner)
	}
	return s.queueControl(&wire.Despawn{Actor: id, Reason: wire.DespawnRemoved}, true)
}

// publish stamps and encodes an update of an own actor and queues it.
func (s *joined) publish(id wire.ActorID, st deadreckon.State) (*outgoing, error) {
	seq, err := s.nextSeq(id)
	if err != nil {
		return nil, err
	}
	st.Time = math.Max(0, s.c.HostNow())
	u := wire.Update{Actor: id, Seq: seq, State: st}
	s.batch.Reset()
	if err := s.batch.Add(&u); err != nil {
		s.sendErrors++
		return nil, err
	}
	o, err := s.queue(&outgoing{b: bytes.Clone(s.batch.Bytes()), what: wire.MsgStateBatch, updates: 1, counted: true}, true)
	if err != nil {
		s.sendErrors++
		return nil, err
	}
	s.own[id] = u.Seq // a sequence number is never sent twice, even when a send fails
	return o, nil
}

// nextSeq returns the sequence number the next update or progress of own actor id
// takes (the caller records it in s.own once sent), or why it cannot be published.
func (s *joined) nextSeq(id wire.ActorID) (uint16, error) {
	if s.left || s.q.closed {
		return 0, ErrClosed
	}
	last, ok := s.own[id]
	if id > maxAssignedActor || !ok {
		return 0, fmt.Errorf("actor %d: %w", id, ErrNotOwner)
	}
	return last + 1, nil
}

// stats returns the connection figures now.
func (s *joined) stats() Stats {
	now := s.c.Now()
	sy := s.c.sync
	sy.Advance(now)
	_, clockRejected := sy.Counts()
	return Stats{
		RTT:           units.Duration(sy.RTT()),
		ClockOffset:   units.Duration(sy.Offset()),
		ClockError:    units.Duration(sy.Error()),
		Silence:       units.Duration(max(0, now-s.lastAnswer)),
		Timeout:       s.c.cfg.Timeout,
		BytesIn:       s.bytesIn.Value(now),
		BytesOut:      s.bytesOut.Value(now),
		UpdatesIn:     s.updatesIn.Value(now),
		UpdatesOut:    s.updatesOut.Value(now),
		Dropped:       s.dropped + s.q.dropped,
		Rejected:      s.rejected,
		SendErrors:    s.sendErrors,
		ClockRejected: clockRejected,
	}
}

// finish ends the session after the control stream broke or the host fell silent;
// why classifies it (kicked wins when the host said so). Only the first call counts.
func (s *joined) finish(cause error, why Ending) {
	if s.q.closed {
		return
	}
	for _, w := range s.pending {
		w.err = fmt.Errorf("spawn: %w", ErrClosed)
		close(w.done)
	}
	s.pending = nil
	reason := "left the match"
	switch {
	case s.left:
		why = EndLeft
	case s.kick != "":
		reason, why = "kicked by the host: "+s.kick, EndKicked
	case cause == nil:
		reason = "connection closed"
	default:
		reason = cause.Error()
	}
	if !s.left {
		s.c.log.Info("session ended", "reason", reason, "ending", why)
	}
	s.q.close(reason, why)
	s.c.conn.close(codeNormal, "closing")
}

// end closes the session as the loop ends (Close), and leaves the figures and the
// events still waiting for the calls that come after.
func (s *joined) end() {
	s.left = true
	s.finish(nil, EndLeft)
	s.c.final = s.stats()
	s.c.rest <- s.q.poll(nil)
}

// publishProgress stamps and encodes a progress of an own actor and queues it.
func (s *joined) publishProgress(id wire.ActorID, p deadreckon.Progress) (*outgoing, error) {
	seq, err := s.nextSeq(id)
	if err != nil {
		return nil, err
	}
	p.Time = math.Max(0, s.c.HostNow())
	m := wire.Progress{Actor: id, Seq: seq, Progress: p}
	b, err := m.Append(nil)
	if err != nil {
		s.sendErrors++
		return nil, err
	}
	o, err := s.queue(&outgoing{b: b, what: wire.MsgProgress, updates: 1, counted: true}, true)
	if err != nil {
		s.sendErrors++
		return nil, err
	}
	s.own[id] = m.Seq
	return o, nil
}

// handleControl applies one control message that arrived at local time now. It
// returns the id of an actor the host confirmed after Spawn gave up waiting, which
// the caller then despawns.
func (s *joined) handleControl(m wire.Message, now float64) (abandoned wire.ActorID) {
	hostNow := s.c.sync.ToRemote(now)
	s.bytesIn.Add(float64(m.Length()+wire.FrameHeaderSize), now)
	switch m := m.(type) {
	case *wire.Spawn:
		return s.onSpawn(m, hostNow)
	case *wire.Despawn:
		s.onDespawn(m)
	case *wire.Chat:
		s.q.push(Event{Kind: EventChat, Owner: uint32(m.From), Name: s.names[m.From], Text: m.Text})
	case *wire.Kick:
		s.kick = m.Reason
	case *wire.Fire, *wire.HitResult, *wire.Destroy, *wire.Scores, *wire.Observers, *wire.Zones:
		s.q.push(Event{Kind: EventMessage, Message: m})
	case *wire.Route:
		s.onRoute(m)
	default:
		s.rejected++
	}
	return 0
}

// onSpawn records a spawn (an answer to this player's own request, or another
// player's actor) and reports it.
func (s *joined) onSpawn(m *wire.Spawn, hostNow float64) (abandoned wire.ActorID) {
	st := m.State
	st.Time = unwrapTime(st.Time, hostNow)
	switch {
	case m.Owner == s.c.id && len(s.pending) > 0:
		w := s.pending[0]
		s.pending = s.pending[1:]
		if w.abandoned {
			// The caller gave up waiting: remove the actor again.
			return m.Actor
		}
		s.own[m.Actor] = m.Seq
		w.id, w.state = m.Actor, st
		close(w.done)
	case m.Owner == s.c.id:
		s.rejected++ // a spawn for us we did not ask for
		return 0
	default:
		r := &remoteActor{owner: m.Owner}
		r.seq.Set(m.Seq)
		s.remote[m.Actor] = r
		if _, ok := s.names[m.Owner]; !ok {
			s.names[m.Owner] = m.Name
		}
	}
	s.q.push(Event{Kind: EventSpawn, Actor: uint32(m.Actor), Owner: uint32(m.Owner), Name: m.Name,
		Team: int(m.Team), State: st})
	return 0
}

// onRoute reports a route of a remote actor; one for an actor this player does not
// know, or that makes no route, is dropped and counted.
func (s *joined) onRoute(m *wire.Route) {
	r := s.remote[m.Actor]
	if r == nil {
		s.rejected++
		return
	}
	route, err := RouteOf(m)
	if err != nil {
		s.rejected++
		return
	}
	s.q.push(Event{Kind: EventRoute, Actor: uint32(m.Actor), Owner: uint32(r.owner), Route: route, RouteID: m.Route})
}

// onProgress reports a progress datagram of a remote actor that arrived at local
// time now.
func (s *joined) onProgress(b []byte, now float64) {
	msg, _, err := wire.Parse(b)
	m, ok := msg.(*wire.Progress)
	s.lastAnswer = max(s.lastAnswer, now)
	s.bytesIn.Add(float64(len(b)), now)
	if err != nil || !ok {
		s.rejected++
		return
	}
	r := s.remote[m.Actor]
	if r == nil || !r.seq.Accept(m.Seq) {
		s.dropped++
		return
	}
	p := m.Progress
	p.Time = unwrapTime(p.Time, s.c.sync.ToRemote(now))
	s.updatesIn.Add(1, now)
	s.q.push(Event{Kind: EventProgress, Actor: uint32(m.Actor), Owner: uint32(r.owner), Progress: p, Arrival: now})
}

// onDespawn removes an actor, or fails this player's pending spawn the host refused.
func (s *joined) onDespawn(m *wire.Despawn) {
	if m.Actor >= provisionalBase {
		if len(s.pending) > 0 && s.pending[0].prov == m.Actor {
			w := s.pending[0]
			s.pending = s.pending[1:]
			w.err = errors.New("spawn: refused by the host")
			close(w.done)
		}
		return
	}
	owner := s.c.id
	if r, ok := s.remote[m.Actor]; ok {
		owner = r.owner
		delete(s.remote, m.Actor)
	} else {
		delete(s.own, m.Actor)
	}
	s.q.push(Event{Kind: EventDespawn, Actor: uint32(m.Actor), Owner: uint32(owner), Text: m.Reason.String()})
}

// handleDatagram applies one datagram that arrived at local time now: a clock answer
// or a state batch.
func (s *joined) handleDatagram(b []byte, now float64) {
	_, t, err := wire.PeekHeader(b)
	switch {
	case err != nil:
		s.rejected++
		return
	case t == wire.MsgClockAnswer:
		s.onClockAnswer(b, now)
		return
	case t == wire.MsgProgress:
		s.onProgress(b, now)
		return
	}
	updates, rejected, derr := wire.DecodeBatch(s.updates[:0], b)
	s.updates = updates
	hostNow := s.c.sync.ToRemote(now)
	s.lastAnswer = max(s.lastAnswer, now)
	s.bytesIn.Add(float64(len(b)), now)
	s.rejected += uint64(rejected)
	if derr != nil {
		s.rejected++
	}
	for i := range updates {
		u := &updates[i]
		r := s.remote[u.Actor]
		if r == nil || !r.seq.Accept(u.Seq) {
			s.dropped++
			continue
		}
		st := u.State
		st.Time = unwrapTime(st.Time, hostNow)
		s.updatesIn.Add(1, now)
		s.q.push(Event{Kind: EventState, Actor: uint32(u.Actor), Owner: uint32(r.owner), State: st, Arrival: now})
	}
}

// onClockAnswer feeds a clock answer to the clock filter.
func (s *joined) onClockAnswer(b []byte, now float64) {
	m, _, err := wire.Parse(b)
	ans, ok := m.(*wire.ClockAnswer)
	if err != nil || !ok {
		s.rejected++
		return
	}
	// A sample the sync refuses is counted there (Stats.ClockRejected); the answer
	// still shows the host is alive.
	if s.c.sync.Add(clock.Sample{LocalSend: ans.ClientSend, RemoteReceive: ans.HostReceive,
		RemoteSend: ans.HostSend, LocalReceive: now}) == nil && !s.synced {
		s.synced = true
		close(s.c.synced)
	}
	s.bytesIn.Add(float64(len(b)), now)
	s.lastAnswer = max(s.lastAnswer, now)
}

// probe sends a clock request. The probes also keep the host from timing the client
// out.
func (s *joined) probe() {
	m := wire.ClockRequest{ClientSend: s.c.Now()}
	b, err := m.Append(s.probeBuf[:0])
	if err != nil {
		return
	}
	s.probeBuf = b
	s.probes++
	s.queue(&outgoing{b: bytes.Clone(b), what: wire.MsgClockRequest}, false)
}

// tick probes the host clock, quickly at first, then every SyncInterval, and ends
// the session when the host has been silent for longer than the timeout.
func (s *joined) tick(t *time.Ticker) {
	cfg := &s.c.cfg
	now := s.c.Now()
	if gap, ok := s.stall.tick(now, cfg.SyncInterval); ok {
		// This process did not run (paused, swapped out, starved): the host
		// cannot be blamed for the answers it could not read meanwhile.
		s.c.log.Warn("this program stalled", "seconds", gap)
		s.lastAnswer = max(s.lastAnswer, now)
	}
	s.probe()
	if s.probes == initialProbes {
		t.Reset(cfg.SyncInterval)
	}
	if s.probes < initialProbes {
		return
	}
	s.c.sync.Advance(now)
	if silence := now - s.lastAnswer; silence > cfg.Timeout.Seconds() {
		s.c.log.Warn("host silent", "seconds", silence)
		s.finish(s.stall.silence(), EndHostSilent)
	}
}
