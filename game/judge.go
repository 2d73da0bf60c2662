package game

import (
	"sync/atomic"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/terrain"
)

// Judge is a Referee on the host: it implements net.Judge, turning what the host's run
// loop tells it into the referee's calls and the referee's events into the wire
// messages the host sends every player. Like the run loop that calls it, it is not
// safe for concurrent use, except for Rounds and StartRound.
type Judge struct {
	ref *Referee
	evs []CombatEvent
	// over is whether the referee's round had ended at the last look; rounds counts
	// the rounds that ended, read by the headless host's loop through Rounds.
	over   bool
	rounds atomic.Int64
	// restart is set by StartRound and taken by the next Tick.
	restart atomic.Bool
	// Refused counts game messages that did not decode into a shot or claim.
	Refused uint64
}

// NewJudge returns a judge refereeing matches on map m under rules, who rebuilds
// shooters' views with the remote reckoning reckon (the players' DeadReckoning().Reckon;
// each claim names the algorithm, clamp mode and compensation its shooter switched to).
func NewJudge(m *terrain.Map, rules Rules, reckon deadreckon.Config) (*Judge, error) {
	r, err := NewReferee(m, rules, reckon)
	if err != nil {
		return nil, err
	}
	return &Judge{ref: r}, nil
}

// Referee returns the judge's referee (scores, counts).
func (j *Judge) Referee() *Referee { return j.ref }

// Spawned implements net.Judge.
func (j *Judge) Spawned(actor, owner uint32, name string, team int, s deadreckon.State, at float64) {
	j.ref.Spawned(actor, owner, name, team, s, at)
}

// Relayed implements net.Judge.
func (j *Judge) Relayed(actor uint32, s deadreckon.State, at float64) { j.ref.Relayed(actor, s, at) }

// Despawned implements net.Judge.
func (j *Judge) Despawned(actor uint32, at float64) { j.ref.Despawned(actor, at) }

// Tick implements net.Judge.
func (j *Judge) Tick(at float64) {
	if j.restart.Swap(false) {
		j.ref.Restart(at)
		j.over = false
	}
	j.ref.Step(at)
	j.countRounds()
}

// Rounds returns how many rounds have ended (at the rules' score or time limit) since
// the judge started, or since the last StartRound. It is safe for concurrent use.
func (j *Judge) Rounds() int { return int(j.rounds.Load()) }

// StartRound starts a fresh round at the judge's next Tick (Referee.Restart) and sets
// Rounds back to zero at once: a round that ends before that Tick is not counted. A
// headless host calls it when its round clock starts. It is safe for concurrent use.
func (j *Judge) StartRound() {
	j.restart.Store(true)
	j.rounds.Store(0)
}

// countRounds counts a round that has just ended, unless a restart is pending.
func (j *Judge) countRounds() {
	over, _ := j.ref.Over()
	if over && !j.over && !j.restart.Load() {
		j.rounds.Add(1)
	}
	j.over = over
}

// Message implements net.Judge: a shot or a hit claim from a player.
func (j *Judge) Message(from uint32, m wire.Message, at float64, link net.JudgeLink) {
	switch x := m.(type) {
	case *wire.Fire:
		s := ShotOf(x)
		if !j.owns(from, s.Shooter) {
			j.Refused++
			return
		}
		j.ref.Fire(s, at)
	case *wire.HitClaim:
		c := ClaimOf(x)
		if !j.owns(from, c.Shooter) {
			j.Refused++
			return
		}
		j.ref.Claim(c, at, ShooterLink{Latency: link.Latency})
	default:
		j.Refused++
	}
}

// owns reports whether player from owns (or owned: shells outlive their tanks) actor.
func (j *Judge) owns(from, actor uint32) bool {
	r := j.ref.check.actors[actor]
	return r != nil && r.owner == from
}

// Outbox implements net.Judge.
func (j *Judge) Outbox(buf []wire.Message) []wire.Message {
	j.countRounds()
	j.evs = j.ref.Events(j.evs[:0])
	for i := range j.evs {
		if m, err := EventMessage(&j.evs[i]); err == nil {
			buf = append(buf, m)
		}
	}
	clear(j.evs)
	return buf
}

// The host's judge is a Judge.
var _ net.Judge = (*Judge)(nil)
