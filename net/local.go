package net

import (
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
)

// localSyncInterval is how often an in-process player probes the host clock: it
// shares that clock, so the one probe it sends on joining is all it needs.
const localSyncInterval = 24 * time.Hour

// LocalConfig sets up a player joined in process (Host.JoinLocal).
type LocalConfig struct {
	// Name is the player's name. If empty, defaults to "player N" (N its id).
	Name string
	// Link impairs what the host sends the player, on the host's Clock: state
	// batches take its latency, jitter, loss, duplication and reordering, and control
	// frames (spawns, despawns, chat, the judge's answers) its latency, in order. The
	// answer to the player's own spawn request comes at once, with the frames before
	// it: Spawn waits for it in real time. What the player sends reaches the run loop
	// at once. The zero value delivers everything at once.
	Link impair.Link
	// Seed drives the link's random draws.
	Seed uint64
	// Logger receives the player's session events. If nil, nothing is logged.
	Logger *slog.Logger
	// Service joins the host's own code as a service, not a player: a DIS gateway
	// bringing in another simulation's entities. A service is not counted in
	// HostStats.Players (nor, through it, by a round clock, the metrics or a
	// listing), is never dropped for silence or idleness, and is the only member
	// that may spawn tanks of wire.TeamDIS.
	Service bool
	// RequestTimeout is how long a request of the player's (a spawn) waits for the
	// host's answer, in real time (ClientConfig.RequestTimeout). If zero, defaults
	// to DefaultJoinTimeout.
	RequestTimeout time.Duration
}

// JoinLocal joins another player to the match in process, through a pipe like the
// host's own player's: the host treats it as a remote player (validation, rate
// limits, timeouts), except that, as the host's own code, its tanks keep the names
// it spawns them with (a remote player's are named after the player; see
// Client.Spawn), and the player's Client runs the same code as over QUIC, on the
// host's Clock. With a manual Clock and Settle, a test runs a match on the real host
// deterministically, without sockets or real time.
func (h *Host) JoinLocal(cfg LocalConfig) (*Client, error) {
	var path *impair.Path
	if cfg.Link.Active() {
		var err error
		if path, err = impair.NewPath(cfg.Link, cfg.Seed); err != nil {
			return nil, fmt.Errorf("join local: %w", err)
		}
	}
	var (
		p   *pipe
		err error
	)
	ok := h.call(func() { p, err = h.m.joinLocal(cfg.Name, path, cfg.Link.Latency.Seconds(), cfg.Service) })
	if !ok {
		return nil, fmt.Errorf("join local: %w", ErrClosed)
	}
	if err != nil {
		return nil, fmt.Errorf("join local: %w", err)
	}
	lcfg, err := populateClientConfig(ClientConfig{Name: p.m.name, Clock: h.clock, Logger: cfg.Logger,
		SyncInterval: localSyncInterval, Timeout: localSyncInterval, RequestTimeout: cfg.RequestTimeout})
	if err != nil {
		p.shut("refused", EndLeft)
		return nil, fmt.Errorf("join local: %w", err)
	}
	c := newClient(lcfg, pipeClient{p}, p.m.id, h.match, h.start)
	c.fp = h.fp
	// The player's first clock probe, and its answer, pass before the clock can move:
	// the clocks are one, and the offset stays zero.
	select {
	case <-p.probed:
	case <-time.After(lcfg.RequestTimeout):
		c.Close()
		return nil, errors.New("join local: no clock probe from the player")
	}
	h.Settle()
	return c, nil
}

// joinLocal admits an in-process player; it runs on the loop.
func (m *match) joinLocal(name string, path *impair.Path, delay float64, service bool) (*pipe, error) {
	if !service && m.players() >= m.h.lim.MaxPlayers {
		return nil, fmt.Errorf("match full (%d players)", m.players())
	}
	id, ok := m.allocPlayer()
	if !ok {
		return nil, errors.New("no free player id")
	}
	if name == "" {
		name = fmt.Sprintf("player %d", id)
	}
	if err := wire.CheckName(name); err != nil {
		return nil, err
	}
	for _, q := range m.order {
		if q.name == name {
			return nil, fmt.Errorf("name %q is in use", name)
		}
	}
	now := m.h.now()
	p := m.addMember(id, name, nil, now)
	p.inProcess, p.service = true, service
	if service {
		m.services++
	}
	pp := newPipe(m.h, p)
	pp.link, pp.delay = path, delay
	p.conn = pp
	m.stats.Joined++
	for _, q := range m.order {
		for _, a := range q.owned {
			p.queueControl(a.spawnMsg())
		}
	}
	m.queueRoutes(p)
	m.queueZones(p)
	m.h.wg.Add(1)
	go p.sendLoop()
	return pp, nil
}

// Settle brings the match to rest at the host clock's time, for tests and
// simulations that move a manual Clock: once everything in flight has been handled,
// it runs the host's periodic work (silence checks, the judge's clock and, on a
// ManualClock, the downlink scheduler's tick each 50 ms) at that time, then
// delivers to the in-process players, one at a time and in the order they
// arrive, what their links have made due, and returns when the run loop and every
// in-process player have handled all there is. Players over QUIC are not waited for.
// Settle is safe for concurrent use, but settles the match only while nothing else
// moves it.
func (h *Host) Settle() {
	s := &h.settle
	if !h.quiet() {
		return
	}
	if h.pause.paused() {
		// The loop is stopped: only what the links already carry moves.
		for h.quiet() && s.release(h.now()) {
		}
		return
	}
	if !h.call(func() {
		now := h.now()
		h.m.dropSilent(now)
		h.m.judged(func(j Judge) { j.Tick(now) })
		if h.manual && h.m.zones != nil && now >= h.nextTick {
			h.nextTick = now + downlinkTick
			h.m.zonesTick(now)
		}
		h.m.flushAll()
	}) {
		return
	}
	for h.quiet() && s.release(h.now()) {
	}
}

// quiet waits until nothing is in flight: the pipes' counts at zero, every
// in-process player's run loop done with what its readers and sender handed it (which
// may send more). It reports whether the host still runs.
func (h *Host) quiet() bool { return h.settle.wait() }

// settler tracks what is in flight between the run loop and the in-process players
// (see pipe's counts), so that Settle can wait for all of it.
type settler struct {
	mu     sync.Mutex
	cond   sync.Cond
	pipes  []*pipe
	seq    uint64
	closed bool // the run loop has ended
}

func (s *settler) lock()   { s.mu.Lock() }
func (s *settler) unlock() { s.mu.Unlock() }

// wake tells waiters that a count went down; the caller holds s.mu.
func (s *settler) wake() { s.cond.Broadcast() }

// changed wakes the waiters.
func (s *settler) changed() {
	s.lock()
	s.wake()
	s.unlock()
}

// add registers a pipe.
func (s *settler) add(p *pipe) {
	s.lock()
	defer s.unlock()
	s.pipes = append(s.pipes, p)
}

// close ends every wait: the run loop has ended.
func (s *settler) close() {
	s.lock()
	defer s.unlock()
	s.closed = true
	s.wake()
}

// park holds item for p until it is due; the caller holds s.mu.
func (s *settler) park(p *pipe, it lateItem) {
	s.seq++
	it.seq = s.seq
	p.late = append(p.late, it)
}

// busy reports whether anything is in flight; the caller holds s.mu. What waits for
// a closed pipe's player is not: nobody will read it.
func (s *settler) busy() bool {
	for _, p := range s.pipes {
		if p.in > 0 || (p.out > 0 || p.work > 0) && !p.shutNow() {
			return true
		}
	}
	return false
}

// wait waits until nothing is in flight and reports whether the host still runs.
func (s *settler) wait() bool {
	s.lock()
	defer s.unlock()
	for !s.closed && s.busy() {
		s.cond.Wait()
	}
	s.pipes = slicesDeleteShut(s.pipes)
	return !s.closed
}

// release delivers the earliest item due by host time now, if any, and reports
// whether it did.
func (s *settler) release(now float64) bool {
	s.lock()
	defer s.unlock()
	var (
		best *pipe
		bi   int
	)
	for _, p := range s.pipes {
		for i, it := range p.late {
			if it.due > now {
				continue
			}
			if b := best; b == nil || it.due < b.late[bi].due || it.due == b.late[bi].due && it.seq < b.late[bi].seq {
				best, bi = p, i
			}
		}
	}
	if best == nil {
		return false
	}
	it := best.late[bi]
	best.late = append(best.late[:bi], best.late[bi+1:]...)
	best.out++
	best.push(it.b, it.ctrl)
	return true
}

// slicesDeleteShut drops the closed pipes, whose players are gone.
func slicesDeleteShut(ps []*pipe) []*pipe {
	n := 0
	for _, p := range ps {
		if !p.shutNow() || p.in > 0 {
			ps[n] = p
			n++
		}
	}
	clear(ps[n:])
	return ps[:n]
}
