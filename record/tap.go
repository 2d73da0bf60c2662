package record

import (
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// Sink is where taps write: one Writer at a time, which a host replaces when one
// match ends and the next begins. The zero value holds no Writer: taps on it record
// nothing. A Sink is safe for concurrent use.
type Sink struct{ w atomic.Pointer[Writer] }

// NewSink returns a sink writing to w.
func NewSink(w *Writer) *Sink {
	s := &Sink{}
	s.w.Store(w)
	return s
}

// Writer returns the writer records go to now, or nil.
func (s *Sink) Writer() *Writer {
	if s == nil {
		return nil
	}
	return s.w.Load()
}

// Swap makes w the writer records go to and returns the one before.
func (s *Sink) Swap(w *Writer) *Writer { return s.w.Swap(w) }

// TapOptions say what a MatchTap records.
type TapOptions struct {
	// View records the recorder's own view: each tick (KindFrame) and the events it
	// handles (spawns, received updates with their arrival times, despawns, chat, and
	// the host's shots, verdicts, kills and scores). A client's match records it; a
	// host's matches leave it to the HostTap.
	View bool
	// Sent marks the updates the match's local tanks publish (KindSentMark): when,
	// not what, for tanks whose updates the recording holds as received (practice's
	// bots). View records the updates themselves (KindSent). A host's bots need
	// neither: the HostTap records what it relays.
	Sent bool
	// Shift, if set, is added to the match's times to put them on the recording's
	// clock: for practice's in-process host, whose bots run on the host clock while
	// the player's recording runs on the player's.
	Shift func() float64
}

// MatchTap records a game.Match through its Observer hook (game.Config.Observer): the
// true pose of every local tank every tick, and what TapOptions asks for. It never
// allocates per record. Its methods are called by the match's goroutine.
type MatchTap struct {
	sink  *Sink
	opt   TapOptions
	upd   wire.Update // reused
	spawn wire.Spawn  // reused
	msg   wireBuf     // reused control messages
}

// wireBuf holds one reusable message of each kind a tap turns events into.
type wireBuf struct {
	despawn wire.Despawn
	chat    wire.Chat
}

// NewMatchTap returns a tap writing to sink.
func NewMatchTap(sink *Sink, opt TapOptions) *MatchTap { return &MatchTap{sink: sink, opt: opt} }

func (t *MatchTap) shift() float64 {
	if t.opt.Shift == nil {
		return 0
	}
	return t.opt.Shift()
}

// Polled records a tick and its events (with TapOptions.View).
func (t *MatchTap) Polled(now float64, events []net.Event, clockOffset time.Duration) {
	w := t.sink.Writer()
	if w == nil || !t.opt.View {
		return
	}
	now += t.shift()
	w.Frame(now, clockOffset.Seconds())
	for i := range events {
		t.event(w, now, &events[i])
	}
}

// event records one event handled at time now.
func (t *MatchTap) event(w *Writer, now float64, ev *net.Event) {
	switch ev.Kind {
	case net.EventSpawn:
		t.spawn = wire.Spawn{Actor: wire.ActorID(ev.Actor), Owner: wire.PlayerID(ev.Owner),
			Team: uint8(max(0, min(ev.Team, math.MaxUint8))), Name: ev.Name, State: ev.State}
		_ = w.Message(now, &t.spawn) // a spawn the wire cannot carry never came over it
	case net.EventState:
		t.upd = wire.Update{Actor: wire.ActorID(ev.Actor), State: ev.State}
		_ = w.Update(now, ev.Arrival, &t.upd)
	case net.EventDespawn:
		t.msg.despawn = wire.Despawn{Actor: wire.ActorID(ev.Actor), Reason: despawnReason(ev.Text)}
		_ = w.Message(now, &t.msg.despawn)
	case net.EventChat:
		t.msg.chat = wire.Chat{From: wire.PlayerID(ev.Owner), Text: ev.Text}
		_ = w.Message(now, &t.msg.chat)
	case net.EventMessage:
		if ev.Message != nil && recordable(ev.Message.Type()) {
			_ = w.Message(now, ev.Message)
		}
	case net.EventRoute:
		if ev.Route != nil {
			_ = w.Message(now, net.RouteMessage(wire.ActorID(ev.Actor), ev.RouteID, ev.Route))
		}
	case net.EventProgress:
		_ = w.Message(now, &wire.Progress{Actor: wire.ActorID(ev.Actor), Progress: ev.Progress})
	}
}

// despawnReason reads back the reason a despawn event gives in words.
func despawnReason(text string) wire.DespawnReason {
	for _, r := range []wire.DespawnReason{wire.DespawnDestroyed, wire.DespawnOwnerGone} {
		if text == r.String() {
			return r
		}
	}
	return wire.DespawnRemoved
}

// Published records a local tank's update (TapOptions.View), its time the publish
// time on the recording's clock, or marks that it published one (TapOptions.Sent).
func (t *MatchTap) Published(actor uint32, s deadreckon.State, now float64) {
	w := t.sink.Writer()
	if w == nil || !(t.opt.View || t.opt.Sent) || actor > math.MaxUint16 {
		return
	}
	now += t.shift()
	if !t.opt.View {
		_ = w.SentMark(now, actor)
		return
	}
	s.Time = math.Max(0, now)
	t.upd = wire.Update{Actor: wire.ActorID(actor), State: s}
	_ = w.Sent(now, &t.upd)
}

// Truth records a local tank's true pose.
func (t *MatchTap) Truth(actor uint32, s *deadreckon.Sample) {
	w := t.sink.Writer()
	if w == nil {
		return
	}
	p := PoseOf(actor, s)
	p.Time += t.shift()
	w.Truth(p)
}

// Taps are several MatchTaps on one match (a file's and a Ring's): a game.Observer
// that passes everything to each in turn.
type Taps []*MatchTap

// Polled passes a tick to every tap.
func (ts Taps) Polled(now float64, events []net.Event, clockOffset time.Duration) {
	for _, t := range ts {
		t.Polled(now, events, clockOffset)
	}
}

// Published passes a published update to every tap.
func (ts Taps) Published(actor uint32, s deadreckon.State, now float64) {
	for _, t := range ts {
		t.Published(actor, s, now)
	}
}

// Truth passes a true pose to every tap.
func (ts Taps) Truth(actor uint32, s *deadreckon.Sample) {
	for _, t := range ts {
		t.Truth(actor, s)
	}
}

// HostTap records a net.Host through its Tap hook (net.HostConfig.Tap): every update
// the host accepts and relays, with its arrival time, every message it sends every
// player, every join and every leave. Given a Next function it starts a new recording
// when a match ends (the scores say it is over), opening it with every player and
// every tank still there (its route and last progress too), so that each recording
// plays on its own. The host's run loop
// calls its methods.
type HostTap struct {
	sink    *Sink
	next    func() (*Writer, error)
	report  func(error)
	actors  map[wire.ActorID]*tapActor
	players map[wire.PlayerID]string
	leave   wire.Leave // reused
}

// tapActor is what a HostTap knows of a tank, to open the next recording with.
type tapActor struct {
	spawn wire.Spawn
	rec   [wire.MaxUpdateSize]byte // its last relayed update record
	n     int
	route *wire.Route    // the route its owner published last, or nil
	prog  *wire.Progress // its last progress, when that came after rec
}

// NewHostTap returns a tap writing to sink. If next is set, it is called at the end
// of each match for the writer of the next one; report, if set, hears in one line why
// it could not make one.
func NewHostTap(sink *Sink, next func() (*Writer, error), report func(error)) *HostTap {
	return &HostTap{sink: sink, next: next, report: report,
		actors: make(map[wire.ActorID]*tapActor), players: make(map[wire.PlayerID]string)}
}

// Relayed records an accepted update as it arrived.
func (t *HostTap) Relayed(rec []byte, at float64) {
	if w := t.sink.Writer(); w != nil {
		_ = w.State(at, at, rec) // the host checked the record
	}
	if len(rec) >= 2 && len(rec) <= wire.MaxUpdateSize {
		if a := t.actors[wire.ActorID(uint16(rec[0])<<8|uint16(rec[1]))]; a != nil {
			a.n, a.prog = copy(a.rec[:], rec), nil
		}
	}
}

// RelayedProgress records an accepted progress datagram as it arrived
// (net.ProgressTap).
func (t *HostTap) RelayedProgress(b []byte, at float64) {
	w := t.sink.Writer()
	m, _, err := wire.Parse(b)
	if err != nil {
		return
	}
	if w != nil {
		_ = w.Message(at, m) // the host checked it
	}
	if p, ok := m.(*wire.Progress); ok {
		if a := t.actors[p.Actor]; a != nil {
			a.prog = p
		}
	}
}

var _ net.ProgressTap = (*HostTap)(nil)

// Broadcast records a message sent to every player, and starts the next recording
// after a match's final scores.
func (t *HostTap) Broadcast(m wire.Message, at float64) {
	if w := t.sink.Writer(); w != nil {
		_ = w.Message(at, m)
	}
	switch m := m.(type) {
	case *wire.Spawn:
		t.actors[m.Actor] = &tapActor{spawn: *m}
	case *wire.Despawn:
		delete(t.actors, m.Actor)
	case *wire.Route:
		if a := t.actors[m.Actor]; a != nil {
			a.route = m
		}
	case *wire.Scores:
		if m.Over && t.next != nil {
			t.rotate(at)
		}
	}
}

// Joined records a player joining.
func (t *HostTap) Joined(player uint32, name string, at float64) {
	if w := t.sink.Writer(); w != nil {
		_ = w.Join(at, player, name)
	}
	t.players[wire.PlayerID(player)] = name
}

// Left records a player leaving.
func (t *HostTap) Left(player uint32, reason wire.LeaveReason, at float64) {
	if w := t.sink.Writer(); w != nil {
		t.leave = wire.Leave{Player: wire.PlayerID(player), Reason: reason}
		_ = w.Message(at, &t.leave)
	}
	delete(t.players, wire.PlayerID(player))
}

// rotate closes the recording of the match that ended and opens the next one with
// the players and tanks still in the match.
func (t *HostTap) rotate(at float64) {
	if old := t.sink.Swap(nil); old != nil {
		go old.Close() // its error reached its OnError
	}
	w, err := t.next()
	if err != nil {
		if t.report != nil {
			t.report(err)
		}
		return
	}
	for _, id := range sortedKeys(t.players) {
		_ = w.Join(at, uint32(id), t.players[id])
	}
	for _, id := range sortedKeys(t.actors) {
		a := t.actors[id]
		_ = w.Message(at, &a.spawn)
		if a.n > 0 {
			_ = w.State(at, at, a.rec[:a.n])
		}
		if a.route != nil {
			_ = w.Message(at, a.route)
		}
		if a.prog != nil {
			_ = w.Message(at, a.prog)
		}
	}
	t.sink.Swap(w)
}

// UplinkTap records, through a host's Tap hook (net.HostConfig.Tap), the updates of
// one player's tanks as the host accepted them, each at its arrival at the host:
// state records of the recorder's own tanks. A client cannot see when its updates
// arrive; in a practice the host runs in the recorder's own process and can, so the
// recording holds the recorder's own link as it was, its losses included. The
// host's run loop calls its methods; SetPlayer may be called from any goroutine.
type UplinkTap struct {
	sink   *Sink
	shift  func() float64
	player atomic.Uint32 // the recorder's player id; 0 until set (the host's own is never one)
	set    atomic.Bool
	own    map[wire.ActorID]bool
}

// NewUplinkTap returns a tap writing to sink. shift, if set, is added to the host's
// times to put them on the recording's clock.
func NewUplinkTap(sink *Sink, shift func() float64) *UplinkTap {
	return &UplinkTap{sink: sink, shift: shift, own: make(map[wire.ActorID]bool)}
}

// SetPlayer names the recorder's player: the tanks it spawns from then on are its own.
func (t *UplinkTap) SetPlayer(id uint32) {
	t.player.Store(id)
	t.set.Store(true)
}

// Relayed records an update of one of the recorder's tanks as it arrived at the host.
func (t *UplinkTap) Relayed(rec []byte, at float64) {
	if len(rec) < 2 || !t.own[wire.ActorID(uint16(rec[0])<<8|uint16(rec[1]))] {
		return
	}
	if w := t.sink.Writer(); w != nil {
		if t.shift != nil {
			at += t.shift()
		}
		_ = w.State(at, at, rec) // the host checked the record
	}
}

// Broadcast learns which tanks are the recorder's from their spawns.
func (t *UplinkTap) Broadcast(m wire.Message, _ float64) {
	switch m := m.(type) {
	case *wire.Spawn:
		if t.set.Load() && uint32(m.Owner) == t.player.Load() {
			t.own[m.Actor] = true
		}
	case *wire.Despawn:
		delete(t.own, m.Actor)
	}
}

// Joined does nothing: the recorder's view records the players.
func (t *UplinkTap) Joined(uint32, string, float64) {}

// Left does nothing.
func (t *UplinkTap) Left(uint32, wire.LeaveReason, float64) {}

// sortedKeys returns m's keys in increasing order, so that recordings repeat.
func sortedKeys[K ~uint16, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
