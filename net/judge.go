package net

import (
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// Judge referees a game on the host. Net knows no rules: it tells the judge what
// happens in the match (actors entering, moving, leaving, and the game messages the
// players send it) and sends every player the messages the judge answers with. The
// host's run loop calls it, one call at a time; times are host-clock seconds.
type Judge interface {
	// Spawned reports an actor entering the match with state s.
	Spawned(actor, owner uint32, name string, team int, s deadreckon.State, at float64)
	// Relayed reports an accepted update of an actor, as the host relays it.
	Relayed(actor uint32, s deadreckon.State, at float64)
	// Despawned reports an actor leaving the match.
	Despawned(actor uint32, at float64)
	// Message hands the judge a game message (wire.Fire or wire.HitClaim) from player
	// from, arrived at host time at over a link the host measured as link.
	Message(from uint32, m wire.Message, at float64, link JudgeLink)
	// Tick runs the judge's clock (match time limits) to host time at.
	Tick(at float64)
	// Outbox appends the messages the judge wants sent, each to every player or to
	// one, and empties it.
	Outbox(buf []JudgeMessage) []JudgeMessage
}

// Witness is a Judge that hears what each player was sent. Once the downlink
// scheduler rations a large match (Limits.Downlink, ZonesAbove), a player receives
// some of a tank's relayed updates, later than they were relayed; the host tells the
// judge each one it sends, so that a claim is judged on what its shooter was shown.
// The run loop calls it, as it calls the Judge; while the scheduler is off, every
// relayed update goes to every player at once and Sent is not called.
type Witness interface {
	// Sent reports that the host sent player to actor's update s (one it reported to
	// Relayed) at host time at.
	Sent(to, actor uint32, s deadreckon.State, at float64)
}

// JudgeMessage is a message the judge wants sent: to every player (the zero To and
// Private), or to player To only.
type JudgeMessage struct {
	Message wire.Message
	// Private sends the message to player To only (a verdict that concerns its
	// shooter alone); a player who has left gets nothing. Messages to one player are
	// not reported to the Tap, which records what every player receives.
	Private bool
	To      uint32
}

// Placer is a Judge that places spawns: before an actor enters the match, the host
// asks it where. The run loop calls it, as it calls the Judge.
type Placer interface {
	// Place returns the state an actor of player owner (its tanks called name, on
	// team) enters the match with at host time at, given the state s its owner asked
	// for: s, or the place the judge chooses instead, which the host announces to
	// everyone, the owner included. An error refuses the spawn.
	Place(owner uint32, name string, team int, s deadreckon.State, at float64) (deadreckon.State, error)
}

// Teamer is a Judge that picks teams: before an actor enters the match, and before a
// Placer places it, the host asks it which team the actor is on, and announces that
// team to everyone, the owner included. The run loop calls it, as it calls the Judge.
type Teamer interface {
	// Team returns the team an actor of player owner (its tanks called name) enters
	// the match on, given the team its owner asked for.
	Team(owner uint32, name string, asked int) int
}

// LinkWatcher is a Judge that shows the players' links (the scoreboard's ping): while
// some player is over the network, the run loop hands it every player's link
// LinkPeriod apart, as it calls the Judge.
type LinkWatcher interface {
	// Links reports the players in the match and their links at host time at; the
	// slice is the host's own, valid during the call.
	Links(links []PlayerLink, at float64)
}

// LinkPeriod is how often the run loop hands a LinkWatcher the players' links.
const LinkPeriod = time.Second

// PlayerLink is one player's link as the host measures it.
type PlayerLink struct {
	// ID is the player's id, Name the name it joined with.
	ID   uint32
	Name string
	// InProcess reports a player in the host's own process (the host's own player,
	// the peer of its bots): no network between, and tanks named by the host's code.
	InProcess bool
	// RTT is QUIC's smoothed round trip to the player (0 in process).
	RTT time.Duration
}

// linksDue hands a LinkWatcher judge the players' links when LinkPeriod has passed
// and some player is over the network, and sends its answers. A match of players in
// the host's process alone (the lab's, the tests') has no link to show, and what it
// sends then never hangs on the wall clock the run loop calls this by.
func (m *match) linksDue(now float64) {
	lw, ok := m.h.cfg.Judge.(LinkWatcher)
	if !ok || now-m.linksAt < LinkPeriod.Seconds() {
		return
	}
	m.links = m.links[:0]
	remote := false
	for _, p := range m.order {
		if p.service {
			continue
		}
		l := PlayerLink{ID: uint32(p.id), Name: p.name, InProcess: p.inProcess}
		if !p.inProcess {
			l.RTT, remote = p.conn.rtt(), true
		}
		m.links = append(m.links, l)
	}
	if !remote {
		return
	}
	m.linksAt = now
	lw.Links(m.links, now)
	m.flushJudge()
}

// JudgeCounter is a Judge that tallies its decisions, for HostStats.Judged.
type JudgeCounter interface {
	// JudgeCounts appends the tallies to buf, one per verdict, always in the same
	// order and with the same verdicts. It is safe for concurrent use.
	JudgeCounts(buf []JudgeCount) []JudgeCount
}

// JudgeCount is how many of the judge's decisions had one verdict.
type JudgeCount struct {
	// Verdict names the decision, in snake case ("accepted", "rewind_cap", ...).
	Verdict string
	// N counts them.
	N uint64
}

// JudgeLink is what the host knows of a player's link when it hands the judge a
// message from it.
type JudgeLink struct {
	// Latency is the one-way delay from the host to the player, s: half the round
	// trip the connection measures (0 for the host's own player).
	Latency float64
}

// IsGameMessage reports whether messages of type t are a game's, carried between
// players and the Judge: Fire and HitClaim to the host; Fire, HitResult, Destroy and
// Scores to the players.
func IsGameMessage(t wire.MsgType) bool {
	switch t {
	case wire.MsgFire, wire.MsgHitClaim, wire.MsgHitResult, wire.MsgDestroy, wire.MsgScores:
		return true
	}
	return false
}

// onGame hands a game message from p to the judge and sends its answers. It returns
// 1 for a message the host refuses (bad traffic), 0 otherwise.
func (m *match) onGame(p *member, msg wire.Message, now float64) (bad int) {
	j := m.h.cfg.Judge
	if p.observing {
		m.stats.Unauthorized++ // an observer has no gun
		return 1
	}
	if j == nil {
		m.stats.Malformed++ // nobody referees: a client that sends these is confused
		return 1
	}
	switch msg.(type) {
	case *wire.Fire, *wire.HitClaim:
	default:
		m.stats.Unauthorized++ // verdicts come from the host only
		return 1
	}
	if f, ok := msg.(*wire.Fire); ok {
		if a := m.actors[f.Shooter]; a != nil && a.owner == p.id {
			m.fired(a, f.Origin, f.Direction, now)
		}
	}
	j.Message(uint32(p.id), msg, now, JudgeLink{Latency: p.conn.rtt().Seconds() / 2})
	m.flushJudge()
	return 0
}

// onHitClaim applies a hit claim datagram from p; it returns 1 for bad traffic.
func (m *match) onHitClaim(p *member, b []byte, now float64) (bad int) {
	msg, _, err := wire.Parse(b)
	if err != nil {
		m.stats.Malformed++
		return 1
	}
	if !p.trusted && !p.control.Take(now) {
		// Over the rate is bad traffic, as for updates: a claim flood counts towards
		// the flood kick (it used to be dropped quietly, forever).
		m.stats.RateLimited++
		return 1
	}
	return m.onGame(p, msg, now)
}

// judged calls f with the judge, if the host has one, and sends its answers.
func (m *match) judged(f func(j Judge)) {
	if j := m.h.cfg.Judge; j != nil {
		f(j)
		m.flushJudge()
	}
}

// flushJudge sends the judge's answers: to every player, or to the one they concern.
func (m *match) flushJudge() {
	j := m.h.cfg.Judge
	m.judgeOut = j.Outbox(m.judgeOut[:0])
	for _, jm := range m.judgeOut {
		if hr, ok := jm.Message.(*wire.HitResult); ok && hr.Verdict == 0 {
			m.engaged(m.actors[hr.Shooter], m.actors[hr.Target], m.h.now())
		}
		switch {
		case !jm.Private:
			m.broadcast(jm.Message)
		case jm.To <= maxPlayerID:
			if p := m.members[wire.PlayerID(jm.To)]; p != nil {
				p.queueControl(jm.Message)
			}
		}
	}
	clear(m.judgeOut)
}
