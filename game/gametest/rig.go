// Package gametest runs matches of package game on the real host in process: each
// player joins a net.Host through a pipe (net.Host.JoinLocal) on a clock the test
// moves, so a test plays a match with the host's own validation, relay and referee,
// deterministically, without sockets or real time.
//
//	rig, _ := gametest.New(gametest.Config{Link: impair.Link{Latency: 50 * time.Millisecond}})
//	defer rig.Close()
//	la, _ := rig.Join()
//	lb, _ := rig.Join()
//	a, _ := game.NewMatch(game.Config{Map: m, Bots: 3}, la)
//	b, _ := game.NewMatch(game.Config{Map: m}, lb)
//	for tick := 1; tick <= 600; tick++ {
//		now := float64(tick) / 60
//		rig.SetNow(now)
//		a.Step(now, physics.Input{})
//		b.Step(now, physics.Input{Throttle: 1})
//	}
package gametest

import (
	"context"
	"fmt"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/net/wire"
)

// inProcessTimeout is the silence after which the rig's host drops a player: its
// players send nothing while they stand still, and the clock is the test's.
const inProcessTimeout = 24 * time.Hour

// Config sets up a Rig. The zero value is an open host whose players receive
// everything at once.
type Config struct {
	// Link is the impairment on the way from the host to each player (see
	// net.LocalConfig.Link).
	Link impair.Link
	// Seed drives the links' random draws.
	Seed uint64
	// Judge, if set, referees the match (net.HostConfig.Judge).
	Judge net.Judge
	// Limits are the host's defences; zero fields take net's defaults, but a player
	// is never dropped for silence or idleness unless Timeout or IdleKick say so.
	Limits net.Limits
	// Extent is the half-width of the square the host accepts positions in, m. If
	// zero, defaults to net.DefaultExtent.
	Extent float64
	// Mover, if set, holds each update to what its tank can do
	// (net.HostConfig.Mover): referee.NewMover, on a map's SurfaceAt.
	Mover net.Mover
	// Tap, if set, sees what the host relays and sends (net.HostConfig.Tap).
	Tap net.Tap
	// Wrap, if set, wraps the host's UDP socket (net.HostConfig.Wrap): an
	// in-memory network's, for a rig in a synctest bubble, where a read from a
	// real socket would keep the bubble's clock from moving.
	Wrap net.WrapConn
	// SpawnWait is how long a player's spawn waits for the host's answer in real
	// time before it gives up (net.LocalConfig.RequestTimeout): only a paused host
	// (Pause) leaves one unanswered, and the clock, the test's, stands still while
	// it waits. If zero, defaults to net.DefaultJoinTimeout.
	SpawnWait time.Duration
}

// Rig is a host in process and the clock it runs on. Its methods must be called from
// one goroutine, the test's.
type Rig struct {
	cfg   Config
	clock *Clock
	host  *net.Host
	links []*Link
}

// New starts a rig at time 0. Close it when done.
func New(cfg Config) (*Rig, error) {
	lim := cfg.Limits
	if lim.Timeout == 0 {
		lim.Timeout = inProcessTimeout
	}
	if lim.IdleKick == 0 {
		lim.IdleKick = net.Off
	}
	clk := &Clock{}
	h, err := net.Listen(context.Background(), net.HostConfig{Addr: "127.0.0.1:0", Clock: clk, Coalesce: net.Off,
		Limits: lim, Judge: cfg.Judge, Match: net.MatchSettings{Extent: cfg.Extent}, Mover: cfg.Mover, Tap: cfg.Tap, Wrap: cfg.Wrap})
	if err != nil {
		return nil, fmt.Errorf("gametest: %w", err)
	}
	return &Rig{cfg: cfg, clock: clk, host: h}, nil
}

// Host returns the rig's host.
func (r *Rig) Host() *net.Host { return r.host }

// Join adds a player and returns its link, which settles the match after each of its
// calls: what a call sends has reached every player when it returns.
func (r *Rig) Join() (*Link, error) {
	seed := r.cfg.Seed + uint64(len(r.links)+1)*0x9e3779b97f4a7c15
	c, err := r.host.JoinLocal(net.LocalConfig{Link: r.cfg.Link, Seed: seed, RequestTimeout: r.cfg.SpawnWait})
	if err != nil {
		return nil, fmt.Errorf("gametest: %w", err)
	}
	l := &Link{c: c, r: r}
	r.links = append(r.links, l)
	return l, nil
}

// SetNow moves the clock to t seconds and settles the match there: what the links
// have made due by then is delivered. A t earlier than the clock is ignored.
func (r *Rig) SetNow(t float64) {
	// Truncated to the nanosecond below, where units.Duration rounds: the lab's
	// figures measured on a rig (drlab -novice) are pinned to this clock.
	r.clock.Set(time.Duration(t * float64(time.Second)))
	r.host.Settle()
}

// Pause stops the host's run loop, as a stopped process or a long pause of its
// garbage collector would (net.Host.Pause): the players play on, moving the clock
// with SetNow, and what they send waits for Resume. The host must not be asked
// anything (Host().Stats) while paused.
func (r *Rig) Pause() { r.host.Pause() }

// Resume lets the host run again at the clock's time: what the players sent while
// it was paused reaches it at once (net.Host.Resume), and the match settles.
func (r *Rig) Resume() { r.host.Resume() }

// Now returns the clock, s.
func (r *Rig) Now() float64 { return r.clock.Now().Seconds() }

// Close ends the match: the host goes, and every player's link closes with it. It is
// safe to call more than once.
func (r *Rig) Close() error {
	err := r.host.Close()
	for _, l := range r.links {
		l.c.Close()
	}
	return err
}

// Clock is a net.Clock that moves only when told: the rig's, or any test's.
type Clock = net.ManualClock

// Link is one player's link to a Rig: a net.Client joined in process. It
// implements game.Link.
type Link struct {
	c *net.Client
	r *Rig
}

// settled returns err after settling the match.
func (l *Link) settled(err error) error {
	l.r.host.Settle()
	return err
}

// Client returns the player's network client.
func (l *Link) Client() *net.Client { return l.c }

// ID returns the player's id.
func (l *Link) ID() uint32 { return l.c.ID() }

// Now returns the rig's clock, s.
func (l *Link) Now() float64 { return l.c.Now() }

// Spawn asks the host for an actor, as net.Client.Spawn does, and settles.
func (l *Link) Spawn(name string, team int, s deadreckon.State) (uint32, error) {
	id, err := l.c.Spawn(name, team, s)
	return id, l.settled(err)
}

// SpawnPlaced asks the host for an actor, as net.Client.SpawnPlaced does, and
// settles.
func (l *Link) SpawnPlaced(name string, team int, s deadreckon.State) (uint32, deadreckon.State, error) {
	id, placed, err := l.c.SpawnPlaced(name, team, s)
	return id, placed, l.settled(err)
}

// Despawn removes one of the player's actors and settles.
func (l *Link) Despawn(actor uint32) error { return l.settled(l.c.Despawn(actor)) }

// Publish sends an update of one of the player's actors and settles.
func (l *Link) Publish(actor uint32, s deadreckon.State) error {
	return l.settled(l.c.Publish(actor, s))
}

// PublishRoute sends a route of one of the player's actors, as
// net.Client.PublishRoute does, and settles.
func (l *Link) PublishRoute(actor uint32, id uint16, r *deadreckon.Route) error {
	return l.settled(l.c.PublishRoute(actor, id, r))
}

// PublishProgress sends a progress of one of the player's actors along its route,
// as net.Client.PublishProgress does, and settles.
func (l *Link) PublishProgress(actor uint32, p deadreckon.Progress) error {
	return l.settled(l.c.PublishProgress(actor, p))
}

// Chat sends a line of chat and settles.
func (l *Link) Chat(text string) error { return l.settled(l.c.Chat(text)) }

// Refereed reports whether the rig's host has a judge: a match fights only on a
// refereed link.
func (l *Link) Refereed() bool { return l.r.cfg.Judge != nil }

// Send sends a game message to the host's judge and settles.
func (l *Link) Send(m wire.Message) error { return l.settled(l.c.Send(m)) }

// Poll settles, then appends the events that arrived to buf.
func (l *Link) Poll(buf []net.Event) []net.Event {
	l.r.host.Settle()
	return l.c.Poll(buf)
}

// Stats returns the client's figures.
func (l *Link) Stats() net.Stats { return l.c.Stats() }

// Close leaves the match and settles: the player's actors are gone for everyone.
func (l *Link) Close() error { return l.settled(l.c.Close()) }

// String names the link for test messages.
func (l *Link) String() string { return fmt.Sprintf("player %d", l.ID()) }
