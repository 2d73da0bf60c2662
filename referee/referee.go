package referee

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/treadline/treadline/tank"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/terrain"
)

// playerKey identifies a player or bot across its respawns (each a new actor id). The
// host names a remote player's tanks after the player (net gives every tank of a
// peer joined over the network the player's admitted name), so one remote peer is one
// key however many tanks it spawns; bots run in the host's process keep their names,
// each a player of its own.
type playerKey struct {
	owner uint32
	name  string
}

// player is the combat state of one player, which outlives its tanks: a despawn and
// a spawn (a new actor id) neither heal it, nor reload its gun, nor cut its wreck time.
type player struct {
	health  float64
	alive   bool
	wreckAt float64 // host time it was destroyed, when !alive
	gun     *gunState
	tanks   int     // tanks in the match now
	left    float64 // host time its last tank left, when tanks == 0
	// lastAt is where its tank last left the match (hasLast): a respawn is placed
	// away from it, as from where it died.
	lastAt  mgl64.Vec3
	hasLast bool
	// team is the team the player's first spawn of this match chose (teamSet): its
	// later spawns keep it until the next match (see ErrTeam).
	team    int
	teamSet bool
}

// refTank is the referee's record of one tank.
type refTank struct {
	key     playerKey
	team    int
	p       *player
	spawned float64 // host time it spawned
	fired   bool    // it has fired since: its spawn protection is over
	// from is where it spawned; far the farthest on the ground plane it has been
	// reported from there, m (combat.Rules.Protected).
	from mgl64.Vec3
	far  float64
}

// DefaultMaxPlayers bounds the players the referee remembers (and the scoreboard's
// lines, of which wire.MaxScoreLines travel: every player's in the match, then the
// best of those who left): beyond it, the players who
// left longest ago are forgotten. It is twice the largest match, 512 tanks (net's
// MaxPlayers plus the host's bots), so that the players of one match are never
// forgotten for those who left.
const DefaultMaxPlayers = 2 * wire.MaxScoreLines

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
	rules   combat.Rules
	check   *Checker
	tanks   map[uint32]*refTank
	players map[playerKey]*player
	scores  map[playerKey]*combat.Score
	start   float64
	begun   bool
	over    bool
	until   float64
	out     []combat.Event
	evs     []combat.Event // reused by Outbox
	// early holds claims that arrived before the Fire of their shot (a claim is a
	// datagram, the Fire a reliable message that a loss delays): each is judged when
	// its Fire comes, or dropped after the rewind cap.
	early map[shotKey]earlyClaim
	pages []*wire.Scores // reused by Outbox for a scoreboard split into frames
	// enemyAt and tankAt are reused by Place: the positions of the enemies of the
	// tank it places, and of every tank.
	enemyAt, tankAt []mgl64.Vec3
	// padRoom, padOrder and grid are reused by Place too: each pad's room from
	// those enemies, the order it tries the pads in, and the tanks bucketed.
	padRoom  []float64
	padOrder []int
	grid     tankGrid

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
	// assign places players who ask for no team on a team (AssignTeams).
	assign bool
	// links are the players' links as the host last reported them (Links), by
	// player id; announced is the host time of the last scoreboard announced.
	links     map[uint32]net.PlayerLink
	announced float64
	// boardDue marks a change of the scoreboard held back by boardPace since the
	// last board announced, which was boardBytes long; Tick announces it when due.
	boardDue   bool
	boardBytes int
}

// boardPace is the scoreboard's share of each player's downlink, bytes per second.
// Every change of a score is announced, but a board sent whole to every player costs
// its size each time: a 512-tank board is 20–24 kB, most of a second of a 32 kB/s
// budget, and kills in a large battle come several a second. A change that comes
// sooner than the last board's size at boardPace after it waits, joined by any
// others, until then (at most about 5 s at 512 tanks); a board of up to about 40
// lines (boardPromptBytes) always goes at once, so small matches see every change
// as it happens. The kill feed (Destroy) is never held.
const (
	boardPace        = 5000.0
	boardPromptBytes = 1250
)

// Pings on the scoreboard: a board whose pings alone changed is announced again at
// most pingRefresh seconds after the last, and only when a round trip moved by
// pingChange (or pingChangeMin seconds, whichever is more) or a line's round trip
// came or went; other changes (and the host's own player and bots, which the host
// knows at once) ride with the next board announced. A match of players in the
// host's process alone (the lab's, the tests') is never announced for its links, so
// what it sends does not hang on the wall clock the run loop hands them by.
const (
	pingRefresh   = 10.0
	pingChange    = 0.25
	pingChangeMin = 0.02
)

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
		rules:   r,
		check:   NewChecker(m, CheckerConfig{Reckon: reckon, Reload: r.Reload}),
		tanks:   make(map[uint32]*refTank),
		players: make(map[playerKey]*player),
		early:   make(map[shotKey]earlyClaim),
		scores:  make(map[playerKey]*combat.Score),
		links:   make(map[uint32]net.PlayerLink),
	}, nil
}

// The host's judge is a Referee, and it tallies its verdicts.
var (
	_ net.Judge        = (*Referee)(nil)
	_ net.JudgeCounter = (*Referee)(nil)
	_ net.Teamer       = (*Referee)(nil)
	_ net.LinkWatcher  = (*Referee)(nil)
)

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
	p := r.players[k]
	if p == nil {
		r.forgetPlayers()
		p = &player{health: r.rules.MaxHealth, alive: true, gun: &gunState{}}
		r.players[k] = p
	}
	p.tanks++
	if !p.teamSet {
		p.team, p.teamSet = team, true
		if sc := r.scores[k]; sc != nil && sc.Team != team {
			sc.Team = team // another team than last match's
			r.announceScores(at)
		}
	}
	r.tanks[actor] = &refTank{key: k, team: team, p: p, spawned: at, from: s.Position}
	r.check.shareGun(actor, p.gun)
	if !p.alive {
		// A wreck that respawns before its time is a wreck still; revive brings it
		// back when the time is up.
		r.check.Destroyed(actor, at)
	}
	if r.scores[k] == nil {
		r.scores[k] = &combat.Score{Owner: owner, Name: name, Team: team}
		r.announceScores(at) // a new line on everyone's scoreboard
	}
}

// forgetPlayers makes room for a new player: past DefaultMaxPlayers, the players with
// no tank in the match who left longest ago are forgotten, with their scoreboard
// lines.
func (r *Referee) forgetPlayers() {
	for len(r.players) >= DefaultMaxPlayers {
		var oldest playerKey
		found, when := false, math.Inf(1)
		for k, p := range r.players {
			if p.tanks == 0 && p.left < when {
				oldest, found, when = k, true, p.left
			}
		}
		if !found {
			return
		}
		delete(r.players, oldest)
		delete(r.scores, oldest)
	}
}

// revive brings back, at host time at, the players whose wreck time is over: full
// health, and every tank of theirs in the match alive again.
func (r *Referee) revive(at float64) {
	for _, p := range r.players {
		if !p.alive && at-p.wreckAt >= r.rules.WreckTime {
			p.health, p.alive = r.rules.MaxHealth, true
		}
	}
	// Only a wrecked record can be revived: a crowd's tanks are not walked each tick.
	for id := range r.check.wrecked {
		if t := r.tanks[id]; t != nil && t.p.alive {
			r.check.Revived(id, at)
		}
	}
}

// Relayed implements net.Judge: it records an update the host relayed.
func (r *Referee) Relayed(actor uint32, s deadreckon.State, at float64) {
	r.check.Relayed(actor, s, at)
	if t := r.tanks[actor]; t != nil {
		t.far = math.Max(t.far, math.Hypot(s.Position[0]-t.from[0], s.Position[2]-t.from[2]))
	}
}

// Routed implements net.RouteJudge: it records the route an actor's owner published.
func (r *Referee) Routed(actor uint32, id uint16, route *deadreckon.Route, at float64) {
	r.check.Routed(actor, id, route)
}

// Progressed implements net.RouteJudge: it records that the actor's last relayed
// update was progress p along its route, so that a claim is judged on the view of a
// player who reckoned the actor along the route.
func (r *Referee) Progressed(actor uint32, p deadreckon.Progress, at float64) {
	r.check.Progressed(actor, p)
}

var _ net.RouteJudge = (*Referee)(nil)

// Sent implements net.Witness: it records an update the host's downlink scheduler
// sent a player, so that the player's claims are judged on what it was shown.
func (r *Referee) Sent(to, actor uint32, s deadreckon.State, at float64) {
	r.check.Sent(to, actor, s, at)
}

// Despawned implements net.Judge: it records that actor left the match.
func (r *Referee) Despawned(actor uint32, at float64) {
	if t := r.tanks[actor]; t != nil {
		t.p.tanks--
		t.p.left = at
		t.p.lastAt, t.p.hasLast = r.check.lastPosition(actor)
	}
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
	return t.p.health, t.p.alive
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
	k := shotKey{s.Shooter, s.ID}
	if e, ok := r.early[k]; ok {
		delete(r.early, k)
		r.claim(e.c, e.at, e.link) // judged as of its arrival: the rewind cap still holds
	}
	return v
}

// earlyClaim is a claim that arrived before the Fire of its shot.
type earlyClaim struct {
	c    combat.Claim
	at   float64
	link ShooterLink
}

// maxEarlyClaims bounds the claims held for their Fire: a few per player in a full
// match. Beyond it a claim without a Fire is refused at once.
const maxEarlyClaims = 256

// holdEarly keeps claim c, arrived at host time at before the Fire of its shot, and
// reports whether it did: only the first copy of a claim, within maxEarlyClaims.
func (r *Referee) holdEarly(c combat.Claim, at float64, link ShooterLink) bool {
	k := shotKey{c.Shooter, c.Shot}
	if _, ok := r.early[k]; ok {
		return true // a repeat
	}
	if len(r.early) >= maxEarlyClaims {
		return false
	}
	r.early[k] = earlyClaim{c: c, at: at, link: link}
	return true
}

// dropEarly forgets the claims held longer than the rewind cap: their Fire never came.
func (r *Referee) dropEarly(at float64) {
	for k, e := range r.early {
		if at-e.at > r.check.cfg.MaxRewind {
			delete(r.early, k)
		}
	}
}

// protected reports whether tank t is under spawn protection at host time at: it
// spawned less than Rules.SpawnProtection ago, has not fired since, and has not
// driven combat.SpawnProtectionReach away.
func (r *Referee) protected(t *refTank, at float64) bool {
	return r.rules.Protected(at-t.spawned, t.fired, t.far)
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
	if r.check.shots[shotKey{c.Shooter, c.Shot}] == nil && r.holdEarly(c, at, link) {
		return combat.Verdict{Reason: combat.RejectUnknownShot, Duplicate: true}
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
	if target == nil || !target.p.alive || r.over {
		return v
	}
	shot := sr.shot
	dmg := 0.0
	// Nobody harms a tank of its own: a player's tanks, or a tank it controls, share
	// its key (and its health), so shooting them would only farm kills.
	if (shooter == nil || (shooter.key != target.key && combat.Enemies(shooter.team, target.team))) && !r.protected(target, at) {
		dmg = r.rules.DamageOf(shot.Velocity(c.Impact), faceNormal(c.Local), v.Rebuilt.Orientation)
	}
	tp := target.p
	tp.health = math.Max(0, tp.health-dmg)
	if shooter != nil && dmg > 0 && r.scores[shooter.key] != nil {
		r.scores[shooter.key].Hits++
	}
	r.out = append(r.out, combat.Event{Kind: combat.EventHit, Time: at, Shot: shot, Target: c.Target, Local: c.Local,
		Damage: dmg, Health: tp.health, Rebuilt: v.Rebuilt})
	if tp.health > 0 {
		return v
	}
	r.destroy(c.Target, target, shooter, shot, at)
	return v
}

// destroy wrecks the player of target (actor id) with shot from shooter (nil: unknown)
// at host time at: every tank of that player is a wreck until the wreck time is over,
// then the destroy event, the kill and the death on the scoreboard, and the end of the
// match at the score limit.
func (r *Referee) destroy(id uint32, target, shooter *refTank, shot combat.Shot, at float64) {
	tp := target.p
	tp.alive, tp.wreckAt = false, at
	for tid, t := range r.tanks {
		if t.p == tp {
			r.check.Destroyed(tid, at)
		}
	}
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
	r.revive(at)
	r.dropEarly(at)
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
	for _, p := range r.players {
		p.health, p.alive = r.rules.MaxHealth, true
		// Teams are chosen afresh at each match: a player with tanks in the
		// match keeps theirs (pinned again by its next spawn).
		p.teamSet = p.tanks > 0
	}
	for id := range r.tanks {
		r.check.Revived(id, at)
	}
	r.sendScores(at)
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
	r.sendScores(at)
}

// Links implements net.LinkWatcher: it keeps the players' links for the scoreboard's
// pings, and announces the board again when they moved enough (pingRefresh).
func (r *Referee) Links(links []net.PlayerLink, at float64) {
	clear(r.links)
	for _, l := range links {
		r.links[l.ID] = l
	}
	if !r.begun || len(r.scores) == 0 || at-r.announced < pingRefresh {
		return
	}
	last := r.board.Load()
	if last == nil {
		return
	}
	for _, s := range *last {
		link, rtt := r.linkOf(playerKey{s.Owner, s.Name})
		if (link == combat.LinkMeasured) != (s.Link == combat.LinkMeasured) ||
			link == combat.LinkMeasured && math.Abs((rtt-s.RTT).Seconds()) > math.Max(pingChangeMin, pingChange*s.RTT.Seconds()) {
			r.announceScores(at)
			return
		}
	}
}

// linkOf is what the host knows of the link of the player whose line is k: a
// player over the network has its round trip; in the host's process, the tank
// named as its player is the host's own player, any other a bot.
func (r *Referee) linkOf(k playerKey) (combat.Link, time.Duration) {
	l, ok := r.links[k.owner]
	switch {
	case !ok:
		return combat.LinkUnknown, 0
	case !l.InProcess:
		return combat.LinkMeasured, l.RTT
	case l.Name == k.name:
		return combat.LinkHost, 0
	}
	return combat.LinkBot, 0
}

// announceScores sends everyone the scoreboard, and keeps it for Scores: every change
// of a score is announced, with the players' pings of the moment, at once or, for a
// large board, when boardPace allows (Tick sends it then).
func (r *Referee) announceScores(at float64) {
	if r.boardBytes > boardPromptBytes && at-r.announced < float64(r.boardBytes)/boardPace {
		r.boardDue = true
		return
	}
	r.sendScores(at)
}

// flushScores announces a held scoreboard change once boardPace allows.
func (r *Referee) flushScores(at float64) {
	if r.boardDue && at-r.announced >= float64(r.boardBytes)/boardPace {
		r.sendScores(at)
	}
}

// sendScores announces the scoreboard now: the end of a match and a fresh round go
// out at once, whatever the pace.
func (r *Referee) sendScores(at float64) {
	r.announced, r.boardDue = at, false
	board := make([]combat.Score, 0, len(r.scores))
	for k, s := range r.scores {
		s.Link, s.RTT = r.linkOf(k)
		board = append(board, *s)
	}
	board = r.boardLines(board)
	r.boardBytes = boardSize(board)
	r.board.Store(&board)
	r.out = append(r.out, combat.Event{Kind: combat.EventScores, Time: at, Over: r.over, Until: r.until,
		Ends: at + r.remaining(at), Scores: slices.Clone(board)})
}

// boardSize is about the bytes board takes on the wire (wire.Scores, paged past
// wire.MaxScoresPage lines): each line's 14 bytes and name, each page's 33.
func boardSize(board []combat.Score) int {
	n := 33 * ((len(board) + wire.MaxScoresPage - 1) / wire.MaxScoresPage)
	for _, s := range board {
		n += 14 + len(s.Name)
	}
	return n
}

// boardLines sorts board best first and, past wire.MaxScoreLines (the most a
// scoreboard carries), keeps the lines of every player in the match and the best of
// those who left: the players remembered may be twice a full match, and the lines of
// the present must never fall off the end for better scores of the departed.
func (r *Referee) boardLines(board []combat.Score) []combat.Score {
	slices.SortFunc(board, compareScores)
	if len(board) <= wire.MaxScoreLines {
		return board
	}
	present := func(s combat.Score) bool {
		p := r.players[playerKey{s.Owner, s.Name}]
		return p != nil && p.tanks > 0
	}
	room := wire.MaxScoreLines
	for _, s := range board {
		if present(s) {
			room--
		}
	}
	kept := board[:0]
	for _, s := range board { // in order, so kept stays sorted
		if present(s) || room > 0 {
			if !present(s) {
				room--
			}
			kept = append(kept, s)
		}
	}
	return kept
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
	r.flushScores(at)
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

// JudgeCounts implements net.JudgeCounter: the claims judged by verdict (each
// combat.Reason's name), then "refused_message" for the game messages refused unread.
// It is safe for concurrent use.
func (r *Referee) JudgeCounts(buf []net.JudgeCount) []net.JudgeCount {
	c := r.Counts()
	for i, n := range c.Verdicts {
		buf = append(buf, net.JudgeCount{Verdict: combat.Reason(i).String(), N: n})
	}
	return append(buf, net.JudgeCount{Verdict: "refused_message", N: c.Refused})
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
// A refused claim's verdict goes to its shooter's player only: nobody else acts on it,
// and a claim flood would otherwise reach every player.
func (r *Referee) Outbox(buf []net.JudgeMessage) []net.JudgeMessage {
	r.countRounds()
	r.evs = r.events(r.evs[:0])
	for i := range r.evs {
		ev := &r.evs[i]
		m, err := combat.EventMessage(ev)
		if err != nil {
			continue
		}
		if ev.Kind == combat.EventRefused {
			if a := r.check.actors[ev.Shot.Shooter]; a != nil {
				buf = append(buf, net.JudgeMessage{Message: m, Private: true, To: a.owner})
			}
			continue
		}
		if sc, ok := m.(*wire.Scores); ok { // a full match's board is longer than a frame
			r.pages = wire.SplitScores(r.pages[:0], sc)
			for _, p := range r.pages {
				buf = append(buf, net.JudgeMessage{Message: p})
			}
			continue
		}
		buf = append(buf, net.JudgeMessage{Message: m})
	}
	clear(r.evs)
	return buf
}
