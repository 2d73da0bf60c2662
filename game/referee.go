package game

import (
	"cmp"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	tankspec "github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// CombatKind says what a CombatEvent reports.
type CombatKind uint8

// The combat events.
const (
	// CombatFire: a tank fired Shot. Every peer computes the shell from it.
	CombatFire CombatKind = iota + 1
	// CombatHit: the host confirmed that Shot struck Target at Local (hull frame),
	// doing Damage and leaving Health.
	CombatHit
	// CombatDestroy: Shot destroyed Target; its shooter scores a kill.
	CombatDestroy
	// CombatRefused: the host refused the shooter's claim that Shot hit Target, for
	// Reason.
	CombatRefused
	// CombatScores: the scoreboard changed (Scores), or the match ended (Over, next
	// match at Until) or restarted.
	CombatScores
)

// CombatEvent is one combat message from the host (or, for CombatFire, a shooter as
// relayed by the host). Times are host-clock seconds.
type CombatEvent struct {
	Kind CombatKind
	// Time is when the host decided it.
	Time float64
	// Shot is the shot fired, hitting or destroying.
	Shot Shot
	// Target is the actor hit, destroyed or claimed.
	Target uint32
	// Local is the impact point in the target's hull frame, m.
	Local mgl64.Vec3
	// Damage is the hit points the hit took; Health what the target has left.
	Damage, Health float64
	// Reason is why a claim was refused.
	Reason Reason
	// Rebuilt is the target's hull as the host rebuilt the shooter's view (hits and
	// refusals), for the hits overlay.
	Rebuilt HullPose
	// Over reports that the match has ended; the next starts at Until. Ends is when
	// the match in play ends at the latest (its time limit), +Inf without one.
	Over        bool
	Until, Ends float64
	// Scores is the scoreboard (CombatScores), best first.
	Scores []Score
}

// Score is one player's line on the scoreboard.
type Score struct {
	// Owner is the peer's player id; Name the player's or bot's name.
	Owner uint32
	Name  string
	// Team is the player's team (0: none).
	Team int
	// Kills and Deaths count this match's destroyed enemies and own losses.
	Kills, Deaths int
}

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

// Referee applies a match's rules of combat on the host: the only place damage is
// done. It hears every spawn, relayed update and despawn, every shot and every hit
// claim, judges claims with a HitChecker, and emits the authoritative events (fire,
// hit, destroy, refusal, scoreboard) for the host to send to every peer. It runs the
// match clock: a match ends at the time or score limit, the scoreboard shows, and the
// next match starts with clean scores.
//
// A Referee is not safe for concurrent use. Times are host-clock seconds.
type Referee struct {
	rules  Rules
	check  *HitChecker
	tanks  map[uint32]*refTank
	scores map[playerKey]*Score
	start  float64
	begun  bool
	over   bool
	until  float64
	out    []CombatEvent
}

// NewReferee returns a referee for matches on map m under rules, judging hits with
// the shooters' remote reckoning reckon.
func NewReferee(m *terrain.Map, rules Rules, reckon deadreckon.Config) (*Referee, error) {
	r, err := rules.WithDefaults()
	if err != nil {
		return nil, err
	}
	return &Referee{
		rules:  r,
		check:  NewHitChecker(m, HitCheckConfig{Reckon: reckon, Reload: r.Reload}),
		tanks:  make(map[uint32]*refTank),
		scores: make(map[playerKey]*Score),
	}, nil
}

// Rules returns the rules in force, defaults filled in.
func (r *Referee) Rules() Rules { return r.rules }

// Checker returns the referee's hit checker (for its counts).
func (r *Referee) Checker() *HitChecker { return r.check }

// Spawned records that actor, of player name on peer owner, entered the match (or
// re-entered it after a continuity break) with state s at host time at.
func (r *Referee) Spawned(actor, owner uint32, name string, team int, s deadreckon.State, at float64) {
	r.begin(at)
	r.check.Spawned(actor, owner, s, at)
	if _, ok := r.tanks[actor]; ok {
		return
	}
	k := playerKey{owner, name}
	r.tanks[actor] = &refTank{key: k, team: team, health: r.rules.MaxHealth, alive: true}
	if r.scores[k] == nil {
		r.scores[k] = &Score{Owner: owner, Name: name, Team: team}
		r.announceScores(at) // a new line on everyone's scoreboard
	}
}

// Relayed records an update the host relayed.
func (r *Referee) Relayed(actor uint32, s deadreckon.State, at float64) {
	r.check.Relayed(actor, s, at)
}

// Despawned records that actor left the match.
func (r *Referee) Despawned(actor uint32, at float64) {
	r.check.Despawned(actor, at)
	delete(r.tanks, actor)
}

// Health returns the hit points of actor and whether it is alive; false, 0 for an
// unknown actor.
func (r *Referee) Health(actor uint32) (float64, bool) {
	t := r.tanks[actor]
	if t == nil {
		return 0, false
	}
	return t.health, t.alive
}

// Fire hears shot s at host time at. A valid shot is announced to every peer; a void
// one (see HitChecker.Fired) is not, and claims about it are refused. Between matches
// no shot counts.
func (r *Referee) Fire(s Shot, at float64) Reason {
	r.begin(at)
	if r.over {
		return RejectImpossible
	}
	v := r.check.Fired(s, at)
	if v == Accepted {
		r.out = append(r.out, CombatEvent{Kind: CombatFire, Time: at, Shot: s})
	}
	return v
}

// Claim judges claim c, arrived at host time at from a shooter whose link is link, and
// applies the damage of an accepted one.
func (r *Referee) Claim(c Claim, at float64, link ShooterLink) Verdict {
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
	if v.Reason != Accepted {
		r.out = append(r.out, CombatEvent{Kind: CombatRefused, Time: at, Target: c.Target, Local: c.Local,
			Reason: v.Reason, Rebuilt: v.Rebuilt, Shot: shotOf(sr, c)})
		return v
	}
	if target == nil || !target.alive || r.over {
		return v
	}
	shot := sr.shot
	dmg := 0.0
	if shooter == nil || Enemies(shooter.team, target.team) {
		dmg = r.rules.DamageOf(shot.Velocity(c.Impact), faceNormal(c.Local), v.Rebuilt.Orientation)
	}
	target.health = math.Max(0, target.health-dmg)
	r.out = append(r.out, CombatEvent{Kind: CombatHit, Time: at, Shot: shot, Target: c.Target, Local: c.Local,
		Damage: dmg, Health: target.health, Rebuilt: v.Rebuilt})
	if target.health > 0 {
		return v
	}
	target.alive = false
	r.check.Destroyed(c.Target, at)
	r.out = append(r.out, CombatEvent{Kind: CombatDestroy, Time: at, Shot: shot, Target: c.Target})
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
func shotOf(sr *shotRecord, c Claim) Shot {
	if sr != nil {
		return sr.shot
	}
	return Shot{ID: c.Shot, Shooter: c.Shooter}
}

// faceNormal returns the outward normal of the hull face nearest to local point p.
func faceNormal(p mgl64.Vec3) mgl64.Vec3 {
	best, n := math.Inf(1), mgl64.Vec3{}
	spec := tankspec.Default()
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

// Step runs the match clock to host time at: the time limit ends a match, and the end
// of the scoreboard starts the next one.
func (r *Referee) Step(at float64) {
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
	r.check.Forget(at - 2*ShellLifetime)
}

// Over reports whether the match has ended and when the next one starts.
func (r *Referee) Over() (bool, float64) { return r.over, r.until }

// Remaining returns the time left in the match, s (+Inf without a time limit).
func (r *Referee) Remaining(at float64) float64 {
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

func (r *Referee) announceScores(at float64) {
	r.out = append(r.out, CombatEvent{Kind: CombatScores, Time: at, Over: r.over, Until: r.until,
		Ends: at + r.Remaining(at), Scores: r.Scores(nil)})
}

// Scores appends the scoreboard to buf, best first (kills, then fewer deaths, then name).
func (r *Referee) Scores(buf []Score) []Score {
	for _, s := range r.scores {
		buf = append(buf, *s)
	}
	slices.SortFunc(buf, compareScores)
	return buf
}

func compareScores(a, b Score) int {
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

// Events appends the events decided since the last call to buf, in order, and returns it.
func (r *Referee) Events(buf []CombatEvent) []CombatEvent {
	buf = append(buf, r.out...)
	clear(r.out)
	r.out = r.out[:0]
	return buf
}
