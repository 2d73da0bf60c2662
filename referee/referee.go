package referee

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/treadline/treadline/tank"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/terrain"
)

// playerKey identifies a player or bot across its respawns (each a new actor id).
type playerKey struct {
	owner uint32
	name  string
}

// refTank is the referee's record of one tank.
type refTank struct {
	key     playerKey
	team    int
	health  float64
	alive   bool
	spawned float64 // host time it spawned
	fired   bool    // it has fired since: its spawn protection is over
}

// Referee applies a match's rules of combat on the host: the only place damage is
// done. It implements net.Judge, the one way the host's run loop reaches it: it hears
// every spawn, relayed update and despawn, every shot and every hit claim, judges
// claims with its Checker, and hands the run loop the authoritative events (fire,
// hit, destroy, refusal, scoreboard) as wire messages for every peer. It runs the
// match clock: a match (a round) ends at the time or score limit, the scoreboard
// shows, and the next starts with clean scores.
//
// The run loop calls the net.Judge methods from one goroutine. Rules, Rounds,
// StartRound, Counts and Scores are safe for concurrent use. Times are host-clock
// seconds.
type Referee struct {
	rules  combat.Rules
	check  *Checker
	tanks  map[uint32]*refTank
	scores map[playerKey]*combat.Score
	start  float64
	begun  bool
	over   bool
	until  float64
	out    []combat.Event
	evs    []combat.Event // reused by Outbox
	pages  []*wire.Scores // reused by Outbox for a scoreboard split into frames

	// overSeen is whether the round had ended at the last count; rounds counts the
	// rounds that ended, read by the headless host's loop through Rounds.
	overSeen bool
	rounds   atomic.Int64
	// restartAsked is set by StartRound and taken by the next Tick.
	restartAsked atomic.Bool
	// refused counts game messages that did not decode into a shot or claim, or named
	// a tank their sender does not own.
	refused atomic.Uint64
	// board is the scoreboard last announced, best first.
	board atomic.Pointer[[]combat.Score]
}

// Counts are a referee's tallies, as Referee.Counts reports them.
type Counts struct {
	// Verdicts counts the claims judged, by reason (index combat.Accepted counts the
	// accepted ones); repeats of a judged claim are not counted.
	Verdicts [combat.NumReasons]uint64
	// Refused counts game messages that did not decode into a shot or claim, or named
	// a tank their sender does not own.
	Refused uint64
}

// New returns a referee for matches on map m under rules, who rebuilds shooters'
// views with the remote reckoning reckon (the players' game.DeadReckoning().Reckon;
// each claim names the algorithm, clamp mode and compensation its shooter switched
// to). It returns an error for invalid rules (see combat.Rules.WithDefaults).
func New(m *terrain.Map, rules combat.Rules, reckon deadreckon.Config) (*Referee, error) {
	r, err := rules.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("referee: %w", err)
	}
	return &Referee{
		rules:  r,
		check:  NewChecker(m, CheckerConfig{Reckon: reckon, Reload: r.Reload}),
		tanks:  make(map[uint32]*refTank),
		scores: make(map[playerKey]*combat.Score),
	}, nil
}

// The host's judge is a Referee.
var _ net.Judge = (*Referee)(nil)

// Rules returns the rules in force, defaults filled in.
func (r *Referee) Rules() combat.Rules { return r.rules }

// Spawned implements net.Judge: it records that actor, of player name on peer owner,
// entered the match (or re-entered it after a continuity break) with state s at host
// time at.
func (r *Referee) Spawned(actor, owner uint32, name string, team int, s deadreckon.State, at float64) {
	r.begin(at)
	r.check.Spawned(actor, owner, s, at)
	if _, ok := r.tanks[actor]; ok {
		return
	}
	k := playerKey{owner, name}
	r.tanks[actor] = &refTank{key: k, team: team, health: r.rules.MaxHealth, alive: true, spawned: at}
	if r.scores[k] == nil {
		r.scores[k] = &combat.Score{Owner: owner, Name: name, Team: team}
		r.announceScores(at) // a new line on everyone's scoreboard
	}
}

// Relayed implements net.Judge: it records an update the host relayed.
func (r *Referee) Relayed(actor uint32, s deadreckon.State, at float64) {
	r.check.Relayed(actor, s, at)
}

// Despawned implements net.Judge: it records that actor left the match.
func (r *Referee) Despawned(actor uint32, at float64) {
	r.check.Despawned(actor, at)
	delete(r.tanks, actor)
}

// Health returns the hit points of actor and whether it is alive (0, false for an
// unknown actor), for a headless match that reads the host's verdicts (the lab's
// novice). Like the net.Judge methods, it is called from the run loop's goroutine.
func (r *Referee) Health(actor uint32) (float64, bool) { return r.health(actor) }

// health returns the hit points of actor and whether it is alive; false, 0 for an
// unknown actor.
func (r *Referee) health(actor uint32) (float64, bool) {
	t := r.tanks[actor]
	if t == nil {
		return 0, false
	}
	return t.health, t.alive
}

// fire hears shot s at host time at. A valid shot is announced to every peer; a void
// one (see Checker.Fired) is not, and claims about it are refused. Between matches
// no shot counts.
func (r *Referee) fire(s combat.Shot, at float64) combat.Reason {
	r.begin(at)
	if r.over {
		return combat.RejectImpossible
	}
	v := r.check.Fired(s, at)
	if v == combat.Accepted {
		r.out = append(r.out, combat.Event{Kind: combat.EventFire, Time: at, Shot: s})
		if t := r.tanks[s.Shooter]; t != nil {
			t.fired = true
			if r.scores[t.key] != nil {
				r.scores[t.key].Shots++
			}
		}
	}
	return v
}

// protected reports whether tank t is under spawn protection at host time at: it
// spawned less than Rules.SpawnProtection ago and has not fired since.
func (r *Referee) protected(t *refTank, at float64) bool {
	return !t.fired && at-t.spawned < r.rules.SpawnProtection
}

// claim judges claim c, arrived at host time at from a shooter whose link is link, and
// applies the damage of an accepted one.
func (r *Referee) claim(c combat.Claim, at float64, link ShooterLink) combat.Verdict {
	shooter := r.tanks[c.Shooter]
	target := r.tanks[c.Target]
	if shooter != nil && target != nil && shooter.key.owner == target.key.owner {
		// The shooter drew its own peer's tank where it truly is; the host knows it
		// from that peer's updates, within the publishing threshold.
		link = ShooterLink{ClockOffset: link.ClockOffset, OwnTarget: true}
	}
	v := r.check.Check(c, at, link)
	if v.Duplicate {
		return v
	}
	sr := r.check.shots[shotKey{c.Shooter, c.Shot}]
	if v.Reason != combat.Accepted {
		r.out = append(r.out, combat.Event{Kind: combat.EventRefused, Time: at, Target: c.Target, Local: c.Local,
			Reason: v.Reason, Rebuilt: v.Rebuilt, Shot: shotOf(sr, c)})
		return v
	}
	if target == nil || !target.alive || r.over {
		return v
	}
	shot := sr.shot
	dmg := 0.0
	if (shooter == nil || combat.Enemies(shooter.team, target.team)) && !r.protected(target, at) {
		dmg = r.rules.DamageOf(shot.Velocity(c.Impact), faceNormal(c.Local), v.Rebuilt.Orientation)
	}
	target.health = math.Max(0, target.health-dmg)
	if shooter != nil && dmg > 0 && r.scores[shooter.key] != nil {
		r.scores[shooter.key].Hits++
	}
	r.out = append(r.out, combat.Event{Kind: combat.EventHit, Time: at, Shot: shot, Target: c.Target, Local: c.Local,
		Damage: dmg, Health: target.health, Rebuilt: v.Rebuilt})
	if target.health > 0 {
		return v
	}
	r.destroy(c.Target, target, shooter, shot, at)
	return v
}

// destroy wrecks target (actor id) with shot from shooter (nil: unknown) at host time
// at: the destroy event, the kill and the death on the scoreboard, and the end of the
// match at the score limit.
func (r *Referee) destroy(id uint32, target, shooter *refTank, shot combat.Shot, at float64) {
	target.alive = false
	r.check.Destroyed(id, at)
	r.out = append(r.out, combat.Event{Kind: combat.EventDestroy, Time: at, Shot: shot, Target: id})
	if s := r.scores[target.key]; s != nil {
		s.Deaths++
	}
	if shooter != nil {
		if s := r.scores[shooter.key]; s != nil {
			s.Kills++
		}
		if r.rules.ScoreLimit > 0 && r.teamKills(shooter.team, shooter.key) >= r.rules.ScoreLimit {
			r.end(at)
			return
		}
	}
	r.announceScores(at)
}

// shotOf returns the recorded shot of a claim, or what the claim names of it.
func shotOf(sr *shotRecord, c combat.Claim) combat.Shot {
	if sr != nil {
		return sr.shot
	}
	return combat.Shot{ID: c.Shot, Shooter: c.Shooter}
}

// faceNormal returns the outward normal of the hull face nearest to local point p.
func faceNormal(p mgl64.Vec3) mgl64.Vec3 {
	best, n := math.Inf(1), mgl64.Vec3{}
	spec := tank.Default()
	lo, hi := spec.HullMin(), spec.HullMax()
	for i := 0; i < 3; i++ {
		if d := math.Abs(p[i] - lo[i]); d < best {
			best, n = d, mgl64.Vec3{}
			n[i] = -1
		}
		if d := math.Abs(hi[i] - p[i]); d < best {
			best, n = d, mgl64.Vec3{}
			n[i] = 1
		}
	}
	return n
}

// teamKills returns the score toward the limit of a player: its team's kills, or its
// own without a team.
func (r *Referee) teamKills(team int, k playerKey) int {
	if team == 0 {
		return r.scores[k].Kills
	}
	n := 0
	for _, s := range r.scores {
		if s.Team == team {
			n += s.Kills
		}
	}
	return n
}

// step runs the match clock to host time at: the time limit ends a match, and the end
// of the scoreboard starts the next one.
func (r *Referee) step(at float64) {
	r.begin(at)
	switch {
	case r.over && at >= r.until:
		r.restart(at)
	case !r.over && r.rules.TimeLimit > 0 && at-r.start >= r.rules.TimeLimit:
		r.end(at)
	}
	r.check.Forget(at - 2*combat.ShellLifetime)
}

// restart starts a fresh match at host time at, whatever the one in play or the
// scoreboard showing: scores cleared, every tank repaired, the clock running from at,
// and the scoreboard announced.
func (r *Referee) restart(at float64) {
	r.begun, r.over, r.start = true, false, at
	for _, s := range r.scores {
		s.Kills, s.Deaths, s.Hits, s.Shots = 0, 0, 0, 0
	}
	for _, t := range r.tanks {
		t.health, t.alive = r.rules.MaxHealth, true
	}
	r.announceScores(at)
}

// ended reports whether the match has ended and when the next one starts.
func (r *Referee) ended() (bool, float64) { return r.over, r.until }

// remaining returns the time left in the match, s (+Inf without a time limit).
func (r *Referee) remaining(at float64) float64 {
	if r.rules.TimeLimit <= 0 {
		return math.Inf(1)
	}
	return math.Max(0, r.start+r.rules.TimeLimit-at)
}

func (r *Referee) begin(at float64) {
	if !r.begun {
		r.begun, r.start = true, at
	}
}

func (r *Referee) end(at float64) {
	r.over, r.until = true, at+r.rules.ScoreboardTime
	r.announceScores(at)
}

// announceScores sends everyone the scoreboard, and keeps it for Scores: every change
// of a score is announced.
func (r *Referee) announceScores(at float64) {
	board := make([]combat.Score, 0, len(r.scores))
	for _, s := range r.scores {
		board = append(board, *s)
	}
	slices.SortFunc(board, compareScores)
	r.board.Store(&board)
	r.out = append(r.out, combat.Event{Kind: combat.EventScores, Time: at, Over: r.over, Until: r.until,
		Ends: at + r.remaining(at), Scores: slices.Clone(board)})
}

// Scores appends the scoreboard to buf, best first (kills, then fewer deaths, then
// name), as last announced. It is safe for concurrent use.
func (r *Referee) Scores(buf []combat.Score) []combat.Score {
	if b := r.board.Load(); b != nil {
		buf = append(buf, *b...)
	}
	return buf
}

func compareScores(a, b combat.Score) int {
	if c := cmp.Compare(b.Kills, a.Kills); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Deaths, b.Deaths); c != 0 {
		return c
	}
	if c := cmp.Compare(a.Name, b.Name); c != 0 {
		return c
	}
	return cmp.Compare(a.Owner, b.Owner)
}

// events appends the events decided since the last call to buf, in order, and returns it.
func (r *Referee) events(buf []combat.Event) []combat.Event {
	buf = append(buf, r.out...)
	clear(r.out)
	r.out = r.out[:0]
	return buf
}

// Tick implements net.Judge: it runs the match clock to host time at, first starting
// a fresh round if StartRound asked for one.
func (r *Referee) Tick(at float64) {
	if r.restartAsked.Swap(false) {
		r.restart(at)
		r.overSeen = false
	}
	r.step(at)
	r.countRounds()
}

// Rounds returns how many rounds have ended (at the rules' score or time limit) since
// the referee started, or since the last StartRound. It is safe for concurrent use.
func (r *Referee) Rounds() int { return int(r.rounds.Load()) }

// StartRound starts a fresh round at the referee's next Tick (scores cleared, every
// tank repaired, the clock running from then) and sets Rounds back to zero at once: a
// round that ends before that Tick is not counted. A headless host calls it when its
// round clock starts. It is safe for concurrent use.
func (r *Referee) StartRound() {
	r.restartAsked.Store(true)
	r.rounds.Store(0)
}

// countRounds counts a round that has just ended, unless a restart is pending.
func (r *Referee) countRounds() {
	if r.over && !r.overSeen && !r.restartAsked.Load() {
		r.rounds.Add(1)
	}
	r.overSeen = r.over
}

// Counts returns the referee's tallies now. It is safe for concurrent use.
func (r *Referee) Counts() Counts {
	return Counts{Verdicts: r.check.Counts(), Refused: r.refused.Load()}
}

// Message implements net.Judge: a shot or a hit claim from player from. A message of
// another kind, or about a tank from does not own, is refused and counted.
func (r *Referee) Message(from uint32, m wire.Message, at float64, link net.JudgeLink) {
	switch x := m.(type) {
	case *wire.Fire:
		if s := combat.ShotOf(x); r.check.owns(from, s.Shooter) {
			r.fire(s, at)
			return
		}
	case *wire.HitClaim:
		if c := combat.ClaimOf(x); r.check.owns(from, c.Shooter) {
			r.claim(c, at, ShooterLink{Latency: link.Latency})
			return
		}
	}
	r.refused.Add(1)
}

// Outbox implements net.Judge: the events decided since the last call, as messages.
func (r *Referee) Outbox(buf []wire.Message) []wire.Message {
	r.countRounds()
	r.evs = r.events(r.evs[:0])
	for i := range r.evs {
		m, err := combat.EventMessage(&r.evs[i])
		if err != nil {
			continue
		}
		if sc, ok := m.(*wire.Scores); ok { // a full match's board is longer than a frame
			r.pages = wire.SplitScores(r.pages[:0], sc)
			for _, p := range r.pages {
				buf = append(buf, p)
			}
			continue
		}
		buf = append(buf, m)
	}
	clear(r.evs)
	return buf
}
