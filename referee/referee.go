package referee

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sync"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// playerKey identifies a player or bot across its respawns (each a new actor id).
type playerKey struct {
	owner uint32
	name  string
}

// refTank is the referee's record of one tank.
type refTank struct {
	key    playerKey
	team   int
	health float64
	alive  bool
}

// Counts are a referee's tallies since it started.
type Counts struct {
	// Verdicts counts the claims judged, by verdict: index combat.Accepted the hits
	// confirmed, the others the refusals by reason. Repeats of a judged claim are not
	// counted.
	Verdicts [combat.NumReasons]uint64
	// Refused counts game messages refused unjudged: not a shot or a hit claim, or
	// about an actor the sender does not own.
	Refused uint64
	// Rounds counts the rounds that have ended, at the rules' score or time limit.
	Rounds int
}

// Referee applies a match's rules of combat on the host: the only place damage is
// done. It is the host's net.Judge: it hears every spawn, relayed update and despawn,
// every shot and every hit claim, judges claims by rebuilding what the shooter saw,
// and answers with the authoritative events (fire, hit, destroy, refusal, scoreboard)
// for the host to send to every peer. It runs the match clock: a match ends at the
// time or score limit, the scoreboard shows, and the next match starts with clean
// scores.
//
// A Referee is safe for concurrent use: the host's run loop drives it while others
// read its Counts and Scores. Times are host-clock seconds.
type Referee struct {
	mu      sync.Mutex
	rules   combat.Rules
	check   *checker
	tanks   map[uint32]*refTank
	scores  map[playerKey]*combat.Score
	start   float64
	begun   bool
	over    bool
	until   float64
	out     []combat.Event
	drained []combat.Event // reused by Outbox
	refused uint64
	rounds  int
}

// The host's referee is a net.Judge.
var _ net.Judge = (*Referee)(nil)

// New returns a referee for matches on map m under rules, which rebuilds shooters'
// views with the remote reckoning reckon (what the players' matches reckon with; each
// claim names the algorithm, clamp mode and compensation its shooter switched to).
// It returns an error for a nil map or invalid rules.
func New(m *terrain.Map, rules combat.Rules, reckon deadreckon.Config) (*Referee, error) {
	if m == nil {
		return nil, errors.New("referee: no map")
	}
	r, err := rules.WithDefaults()
	if err != nil {
		return nil, err
	}
	return &Referee{
		rules:  r,
		check:  newChecker(m, checkConfig{Reckon: reckon, Reload: r.Reload}),
		tanks:  make(map[uint32]*refTank),
		scores: make(map[playerKey]*combat.Score),
	}, nil
}

// Rules returns the rules in force, defaults filled in.
func (r *Referee) Rules() combat.Rules { return r.rules }

// Counts returns the referee's tallies now.
func (r *Referee) Counts() Counts {
	r.mu.Lock()
	defer r.mu.Unlock()
	return Counts{Verdicts: r.check.verdicts, Refused: r.refused, Rounds: r.rounds}
}

// Spawned records that actor, of player name on peer owner, entered the match (or
// re-entered it after a continuity break) with state s at host time at. It
// implements net.Judge.
func (r *Referee) Spawned(actor, owner uint32, name string, team int, s deadreckon.State, at float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.begin(at)
	r.check.spawned(actor, owner, s, at)
	if _, ok := r.tanks[actor]; ok {
		return
	}
	k := playerKey{owner, name}
	r.tanks[actor] = &refTank{key: k, team: team, health: r.rules.MaxHealth, alive: true}
	if r.scores[k] == nil {
		r.scores[k] = &combat.Score{Owner: owner, Name: name, Team: team}
		r.announceScores(at) // a new line on everyone's scoreboard
	}
}

// Relayed records an update of actor the host relayed at host time at. It
// implements net.Judge.
func (r *Referee) Relayed(actor uint32, s deadreckon.State, at float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.check.relayed(actor, s, at)
}

// Despawned records that actor left the match at host time at. It implements
// net.Judge.
func (r *Referee) Despawned(actor uint32, at float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.check.despawned(actor, at)
	delete(r.tanks, actor)
}

// Message judges a game message from player from, arrived at host time at over a
// link the host measured as link: a wire.Fire (Fire) or a wire.HitClaim (Claim) about
// one of the sender's actors. Anything else is refused and counted. It implements
// net.Judge.
func (r *Referee) Message(from uint32, m wire.Message, at float64, link net.JudgeLink) {
	r.mu.Lock()
	defer r.mu.Unlock()
	switch x := m.(type) {
	case *wire.Fire:
		s := combat.ShotOf(x)
		if !r.check.owns(from, s.Shooter) {
			r.refused++
			return
		}
		r.fire(s, at)
	case *wire.HitClaim:
		c := combat.ClaimOf(x)
		if !r.check.owns(from, c.Shooter) {
			r.refused++
			return
		}
		r.claim(c, at, ShooterLink{Latency: link.Latency})
	default:
		r.refused++
	}
}

// Tick runs the match clock to host time at: the time limit ends a match, and the
// end of the scoreboard starts the next one. It implements net.Judge.
func (r *Referee) Tick(at float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.begin(at)
	switch {
	case r.over && at >= r.until:
		r.over = false
		r.start = at
		for _, s := range r.scores {
			s.Kills, s.Deaths = 0, 0
		}
		for _, t := range r.tanks {
			t.health, t.alive = r.rules.MaxHealth, true
		}
		r.announceScores(at)
	case !r.over && r.rules.TimeLimit > 0 && at-r.start >= r.rules.TimeLimit:
		r.end(at)
	}
	r.check.forget(at - 2*combat.ShellLifetime)
}

// Outbox appends the wire messages of the events decided since the last call to buf,
// in order, and returns it. It implements net.Judge.
func (r *Referee) Outbox(buf []wire.Message) []wire.Message {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.drained = r.events(r.drained[:0])
	for i := range r.drained {
		if m, err := combat.EventMessage(&r.drained[i]); err == nil {
			buf = append(buf, m)
		}
	}
	clear(r.drained)
	return buf
}

// Fire hears shot s at host time at. A valid shot is announced to every peer; a void
// one is not, and claims about it are refused for the reason Fire returns. Between
// matches no shot counts.
func (r *Referee) Fire(s combat.Shot, at float64) combat.Reason {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fire(s, at)
}

func (r *Referee) fire(s combat.Shot, at float64) combat.Reason {
	r.begin(at)
	if r.over {
		return combat.RejectImpossible
	}
	v := r.check.fired(s, at)
	if v == combat.Accepted {
		r.out = append(r.out, combat.Event{Kind: combat.EventFire, Time: at, Shot: s})
	}
	return v
}

// Claim judges claim c, arrived at host time at from a shooter whose link is link,
// and applies the damage of an accepted one. A repeat of a judged claim comes back as
// a Duplicate verdict and changes nothing.
func (r *Referee) Claim(c combat.Claim, at float64, link ShooterLink) combat.Verdict {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.claim(c, at, link)
}

func (r *Referee) claim(c combat.Claim, at float64, link ShooterLink) combat.Verdict {
	shooter := r.tanks[c.Shooter]
	target := r.tanks[c.Target]
	if shooter != nil && target != nil && shooter.key.owner == target.key.owner {
		// The shooter drew its own peer's tank where it truly is; the host knows it
		// from that peer's updates, within the publishing threshold.
		link = ShooterLink{ClockOffset: link.ClockOffset, OwnTarget: true}
	}
	v := r.check.check(c, at, link)
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
	if shooter == nil || combat.Enemies(shooter.team, target.team) {
		dmg = r.rules.DamageOf(shot.Velocity(c.Impact), faceNormal(c.Local), v.Rebuilt.Orientation)
	}
	target.health = math.Max(0, target.health-dmg)
	r.out = append(r.out, combat.Event{Kind: combat.EventHit, Time: at, Shot: shot, Target: c.Target, Local: c.Local,
		Damage: dmg, Health: target.health, Rebuilt: v.Rebuilt})
	if target.health > 0 {
		return v
	}
	target.alive = false
	r.check.destroyed(c.Target, at)
	r.out = append(r.out, combat.Event{Kind: combat.EventDestroy, Time: at, Shot: shot, Target: c.Target})
	if s := r.scores[target.key]; s != nil {
		s.Deaths++
	}
	if shooter != nil {
		if s := r.scores[shooter.key]; s != nil {
			s.Kills++
		}
		if r.rules.ScoreLimit > 0 && r.teamKills(shooter.team, shooter.key) >= r.rules.ScoreLimit {
			r.end(at)
			return v
		}
	}
	r.announceScores(at)
	return v
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

// Health returns the hit points of actor and whether it is alive; false, 0 for an
// unknown actor.
func (r *Referee) Health(actor uint32) (float64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	t := r.tanks[actor]
	if t == nil {
		return 0, false
	}
	return t.health, t.alive
}

// Over reports whether the match has ended and when the next one starts.
func (r *Referee) Over() (bool, float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.over, r.until
}

// Remaining returns the time left in the match at host time at, s (+Inf without a
// time limit).
func (r *Referee) Remaining(at float64) float64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.remaining(at)
}

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

// end ends the round at host time at.
func (r *Referee) end(at float64) {
	r.over, r.until = true, at+r.rules.ScoreboardTime
	r.rounds++
	r.announceScores(at)
}

func (r *Referee) announceScores(at float64) {
	r.out = append(r.out, combat.Event{Kind: combat.EventScores, Time: at, Over: r.over, Until: r.until,
		Ends: at + r.remaining(at), Scores: r.appendScores(nil)})
}

// Scores appends the scoreboard to buf, best first (kills, then fewer deaths, then
// name), and returns it.
func (r *Referee) Scores(buf []combat.Score) []combat.Score {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.appendScores(buf)
}

func (r *Referee) appendScores(buf []combat.Score) []combat.Score {
	for _, s := range r.scores {
		buf = append(buf, *s)
	}
	slices.SortFunc(buf, compareScores)
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

// events appends the events decided since the last call to buf, in order, and
// returns it.
func (r *Referee) events(buf []combat.Event) []combat.Event {
	buf = append(buf, r.out...)
	clear(r.out)
	r.out = r.out[:0]
	return buf
}
