package lab

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/referee"
	"github.com/treadline/treadline/session"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// Defaults of NoviceOptions.
const (
	// DefaultNoviceDuration is the length of one novice run: long enough for several
	// matches and a few dozen of the novice's kills and deaths over -runs 5, so the
	// K/D is known to about ±20% (a 5-minute run holds one or two of each).
	DefaultNoviceDuration = 30 * time.Minute
	// noviceFPS is the novice's frame rate, frames/s.
	noviceFPS = 30
)

// The novice's human limits.
const (
	noviceReaction = 0.4               // s from a new enemy in sight to the first shot
	noviceAimError = 3 * math.Pi / 180 // σ of the aim error drawn at each new target, rad
	noviceGunError = 0.4 * math.Pi / 180
	noviceLead     = 0.3                 // share of the target's motion led
	noviceTurret   = 1.2                 // rad/s: the turret keys' rate (client aimYawRate)
	noviceOnTarget = 1.5 * math.Pi / 180 // how close the turret must be to the aim to fire, rad
	noviceSight    = bot.DefaultGunnerRange
	noviceThrottle = 0.6
	spawnHitWindow = 5.0 // s after a spawn in which a hit counts for HitWithin5sOfSpawn
	noviceName     = "novice"
	// hostedJoin is when the novice joins a hosted match, s after the bots began it:
	// mid-round, the bots spread over the map and fighting.
	hostedJoin = 60.0
)

// NoviceOptions configure RunNovice: a practice match as a newcomer plays it.
type NoviceOptions struct {
	// Difficulty is the bots'; the zero value is normal.
	Difficulty bot.Difficulty
	// Bots is how many bots play. If zero, session.DefaultPracticeBots.
	Bots int
	// Duration is each run's length. If zero, DefaultNoviceDuration.
	Duration time.Duration
	// Seed drives every random draw; Runs runs seeds Seed, Seed+1, … (zero: one).
	Seed uint64
	Runs int
	// MapDir, if set, is searched for the practice map before the maps built into
	// the program (package assets/maps).
	MapDir string
	// JSON prints one JSON object instead of a table.
	JSON bool
	// Hosted plays a hosted match instead of the practice: the novice joins a host's
	// match of bots mid-round, asking for no team as a joining player does, and the
	// host's referee puts it on a team (referee.AssignTeams), as tankhost's does.
	Hosted bool
}

// NoviceResult is what a newcomer meets in practice, over every run.
type NoviceResult struct {
	// MedianSurvivalS is the median time from a spawn to the tank's destruction, s
	// (a life still going at the end counts as long as it lasted).
	MedianSurvivalS float64 `json:"median_survival_s"`
	// HitWithin5sOfSpawn is the share of spawns hit within 5 s.
	HitWithin5sOfSpawn float64 `json:"hit_within_5s_of_spawn"`
	// KillsPerMin and DeathsPerMin are the novice's, per minute of play; KD is kills
	// per death (kills when it never died).
	KillsPerMin  float64 `json:"kills_per_min"`
	DeathsPerMin float64 `json:"deaths_per_min"`
	KD           float64 `json:"kd"`
	// FeedbackEvents is the hit markers and damage indicators the novice's screen
	// showed, per hit the novice made or took (as the host counted them).
	FeedbackEvents float64 `json:"feedback_events"`
	// Kills, Deaths and Spawns are the counts the rates and shares come from, over
	// Minutes of play: a K/D of k kills and d deaths is known to about
	// ±K/D·√(1/k + 1/d).
	Kills   int     `json:"kills"`
	Deaths  int     `json:"deaths"`
	Spawns  int     `json:"spawns"`
	Minutes float64 `json:"minutes"`
	// Team is the novice's team in the last run: the practice's, or the one the host
	// put it on (0: none, everyone's enemy).
	Team int `json:"team"`
	// Shots and Hits are the novice's shots fired and damaging hits on enemies, as the
	// host counted them; HitsTaken the hits it took. A change of K/D is traced to the
	// novice's aim (Hits per Shot) or to the bots' (HitsTaken per death) by these.
	Shots     int `json:"shots"`
	Hits      int `json:"hits"`
	HitsTaken int `json:"hits_taken"`
}

// noviceTally adds up runs.
type noviceTally struct {
	lives              []float64
	spawns, hitEarly   int
	kills, deaths      int
	minutes            float64
	feedback, hostHits int
	shots, hits, taken int
	team               int
}

// RunNovice plays the practice match opts describes with a scripted novice as the
// player, headless in simulated time, and writes what the novice met to w.
func RunNovice(ctx context.Context, w io.Writer, opts NoviceOptions) error {
	res, opts, err := runNovice(ctx, opts)
	if err != nil {
		return err
	}
	if opts.JSON {
		return json.NewEncoder(w).Encode(res)
	}
	where := "practice"
	if opts.Hosted {
		where = "a hosted match, joined mid-round"
	}
	_, err = fmt.Fprintf(w, "novice in %s: %d bots, %v, %d runs of %v\n"+
		"median survival        %6.1f s\nhit within 5 s of spawn %5.1f%%\nkills per minute       %6.2f\n"+
		"deaths per minute      %6.2f\nK/D                    %6.2f\nfeedback per hit       %6.2f\n"+
		"kills, deaths, spawns  %d, %d, %d in %.0f min\nshots, hits, taken     %d, %d, %d\nteam                   %d\n",
		where, opts.Bots, opts.Difficulty, opts.Runs, opts.Duration, res.MedianSurvivalS, 100*res.HitWithin5sOfSpawn,
		res.KillsPerMin, res.DeathsPerMin, res.KD, res.FeedbackEvents, res.Kills, res.Deaths, res.Spawns, res.Minutes, res.Shots, res.Hits, res.HitsTaken, res.Team)
	return err
}

// runNovice plays opts' runs and returns what the novice met, and opts with its
// defaults filled in.
func runNovice(ctx context.Context, opts NoviceOptions) (NoviceResult, NoviceOptions, error) {
	if opts.Bots == 0 {
		opts.Bots = session.DefaultPracticeBots
	}
	if opts.Duration <= 0 {
		opts.Duration = DefaultNoviceDuration
	}
	if opts.Runs <= 0 {
		opts.Runs = 1
	}
	mp, err := maps.Library{Dirs: []string{opts.MapDir}}.Load(session.DefaultMapName)
	if err != nil {
		return NoviceResult{}, opts, fmt.Errorf("lab: novice: %w", err)
	}
	var tl noviceTally
	for r := range opts.Runs {
		if err := ctx.Err(); err != nil {
			return NoviceResult{}, opts, err
		}
		if err := noviceRun(mp, opts, opts.Seed+uint64(r), &tl); err != nil {
			return NoviceResult{}, opts, err
		}
	}
	return tl.result(), opts, nil
}

func (tl *noviceTally) result() NoviceResult {
	var r NoviceResult
	if len(tl.lives) > 0 {
		s := slices.Sorted(slices.Values(tl.lives))
		n := len(s)
		r.MedianSurvivalS = (s[(n-1)/2] + s[n/2]) / 2
	}
	if tl.spawns > 0 {
		r.HitWithin5sOfSpawn = float64(tl.hitEarly) / float64(tl.spawns)
	}
	if tl.minutes > 0 {
		r.KillsPerMin, r.DeathsPerMin = float64(tl.kills)/tl.minutes, float64(tl.deaths)/tl.minutes
	}
	r.KD = float64(tl.kills)
	if tl.deaths > 0 {
		r.KD /= float64(tl.deaths)
	}
	if tl.hostHits > 0 {
		r.FeedbackEvents = float64(tl.feedback) / float64(tl.hostHits)
	}
	r.Kills, r.Deaths, r.Spawns, r.Minutes = tl.kills, tl.deaths, tl.spawns, tl.minutes
	r.Team = tl.team
	r.Shots, r.Hits, r.HitsTaken = tl.shots, tl.hits, tl.taken
	return r
}

// noviceRun plays one run with seed into tl: the practice's bots and rules, refereed
// by the host's referee, on the real host in process (gametest) behind the
// practice's impaired link.
func noviceRun(mp *terrain.Map, o NoviceOptions, seed uint64, tl *noviceTally) error {
	ref, rig, bots, err := noviceMatches(mp, o, seed)
	if err != nil {
		return err
	}
	defer rig.Close()
	nv := &novice{terr: mp, rng: rand.New(rand.NewPCG(seed, 0x0b5e55ed))}
	life := noviceLife{tl: tl, lastHealth: -1}
	var snap game.Snapshot
	const dt = 1.0 / noviceFPS
	tick := 1
	if o.Hosted {
		// The bots play alone until the novice joins.
		for ; float64(tick)*dt < hostedJoin; tick++ {
			rig.SetNow(float64(tick) * dt)
			if err := bots.Step(float64(tick)*dt, physics.Input{}); err != nil {
				return err
			}
		}
	}
	begin := float64(tick-1) * dt
	me, err := joinNovice(rig, mp, seed, o.Hosted)
	if err != nil {
		return err
	}
	end := begin + o.Duration.Seconds()
	for ; float64(tick)*dt <= end; tick++ {
		now := float64(tick) * dt
		rig.SetNow(now)
		if err := bots.Step(now, physics.Input{}); err != nil {
			return err
		}
		in, fire := nv.input(now, &snap)
		if fire {
			me.Fire()
		}
		if err := me.Step(now, in); err != nil {
			return err
		}
		me.Snapshot(&snap)
		life.frame(now, &snap, me, ref)
	}
	if snap.Self >= 0 && snap.Self < len(snap.Tanks) {
		tl.team = snap.Tanks[snap.Self].Team
	}
	life.finish(end)
	life.bankScores(ref)
	tl.minutes += (end - begin) / 60
	return nil
}

// noviceMatches sets up one run: the referee judging with the game's dead reckoning
// (placing players who ask for no team on one, in a hosted match), a host in process
// behind the practice's impaired link, and the bots' match, a player of that host.
// The caller closes the rig.
func noviceMatches(mp *terrain.Map, o NoviceOptions, seed uint64) (ref *referee.Referee, rig *gametest.Rig, bots *game.Match, err error) {
	if ref, err = referee.New(mp, combat.Rules{}, game.DeadReckoning().Reckon); err != nil {
		return nil, nil, nil, err
	}
	if o.Hosted {
		ref.AssignTeams()
	}
	rig, err = gametest.New(gametest.Config{Judge: ref, Mover: referee.NewMover(tank.Spec{}, nil), Seed: seed,
		Link: impair.Link{Latency: session.DefaultPracticeLag, Jitter: session.DefaultPracticeJitter, Loss: session.DefaultPracticeLoss}})
	if err != nil {
		return nil, nil, nil, err
	}
	if bots, err = joinMatch(rig, game.Config{Map: mp, NoPlayer: true, Bots: o.Bots, Seed: seed + 1, Difficulty: o.Difficulty}); err != nil {
		rig.Close()
		return nil, nil, nil, fmt.Errorf("lab: novice: bots: %w", err)
	}
	return ref, rig, bots, nil
}

// joinNovice joins the novice's match to rig: on the practice's team, or, hosted,
// asking for none.
func joinNovice(rig *gametest.Rig, mp *terrain.Map, seed uint64, hosted bool) (*game.Match, error) {
	team := session.PracticeTeam
	if hosted {
		team = 0
	}
	m, err := joinMatch(rig, game.Config{Map: mp, Name: noviceName, Team: team, Seed: seed})
	if err != nil {
		return nil, fmt.Errorf("lab: novice: %w", err)
	}
	return m, nil
}

// joinMatch joins a player of match cfg to rig.
func joinMatch(rig *gametest.Rig, cfg game.Config) (*game.Match, error) {
	l, err := rig.Join()
	if err != nil {
		return nil, err
	}
	return game.NewMatch(cfg, l)
}

// noviceLife follows the novice through one run's lives, counting into tl what the
// player sees (feedback) and what the host counts (hits taken, and the scores of each
// match: a match's scores start again from zero when the next match starts).
type noviceLife struct {
	tl         *noviceTally
	alive      bool
	spawnAt    float64 // s, when the current life began
	hitEarly   bool    // hit within spawnHitWindow of spawnAt
	lastHealth float64 // the host's health of the novice last frame; -1 when unknown
	score      combat.Score
	scores     []combat.Score
}

// frame counts the frame at now, once snap holds it.
func (l *noviceLife) frame(now float64, snap *game.Snapshot, me *game.Match, ref *referee.Referee) {
	l.countFeedback(now, &snap.Combat)
	if id, ok := me.Self(); ok {
		l.countHostHit(ref, id)
	}
	l.countScores(ref)
	selfOK := snap.Self >= 0 && snap.Self < len(snap.Tanks)
	l.track(now, selfOK, snap.Combat.Wreck, snap.Combat.Over)
}

// countFeedback counts the hit markers and hurts that appear this frame (age zero):
// each is feedback the player sees; a hurt soon after spawning marks the life.
func (l *noviceLife) countFeedback(now float64, cv *game.CombatView) {
	for _, mk := range cv.Markers {
		if mk.Age < 1e-9 {
			l.tl.feedback++
		}
	}
	for _, h := range cv.Hurts {
		if h.Age < 1e-9 {
			l.tl.feedback++
			if l.alive && now-l.spawnAt <= spawnHitWindow {
				l.hitEarly = true
			}
		}
	}
}

// countHostHit counts a hit taken as the host sees it: the referee's health of the
// novice's tank id dropping since the last frame.
func (l *noviceLife) countHostHit(ref *referee.Referee, id uint32) {
	h, ok := ref.Health(id)
	if !ok {
		l.lastHealth = -1
		return
	}
	if l.lastHealth >= 0 && h < l.lastHealth {
		l.tl.hostHits++ // a hit taken, as the host counts it
		l.tl.taken++
	}
	l.lastHealth = h
}

// track starts a life when the novice's tank appears in a running match and ends it
// when the tank is wrecked or the match ends (then the tank is born again for the
// next match: a new life, as after a respawn).
func (l *noviceLife) track(now float64, selfOK, wreck, over bool) {
	switch {
	case !l.alive && selfOK && !wreck && !over:
		l.alive, l.spawnAt, l.hitEarly = true, now, false
		l.tl.spawns++
	case l.alive && (wreck || over):
		l.alive = false
		l.endLife(now)
	}
}

// finish ends a life still going at the run's end (s), so it counts as survived
// until then.
func (l *noviceLife) finish(end float64) {
	if l.alive {
		l.endLife(end)
	}
}

// endLife records the life that ends at t.
func (l *noviceLife) endLife(t float64) {
	l.tl.lives = append(l.tl.lives, t-l.spawnAt)
	if l.hitEarly {
		l.tl.hitEarly++
	}
}

// scoreBoard is where a match's scores are read: the referee.
type scoreBoard interface {
	Scores(buf []combat.Score) []combat.Score
}

// countScores follows the novice's line of the match's scores; when it goes back
// (the next match started) the last match's is added to the tally.
func (l *noviceLife) countScores(ref scoreBoard) {
	l.scores = ref.Scores(l.scores[:0])
	var now combat.Score
	for _, s := range l.scores {
		if s.Name == noviceName {
			now = s
		}
	}
	if now.Kills < l.score.Kills || now.Deaths < l.score.Deaths || now.Hits < l.score.Hits {
		l.bank()
	}
	l.score = now
}

// bankScores adds the scores of the match going on at the run's end to the tally.
func (l *noviceLife) bankScores(ref scoreBoard) {
	l.countScores(ref)
	l.bank()
}

// bank adds the novice's scores of one match to the tally.
func (l *noviceLife) bank() {
	l.tl.kills += l.score.Kills
	l.tl.deaths += l.score.Deaths
	l.tl.hostHits += l.score.Hits
	l.tl.shots += l.score.Shots
	l.tl.hits += l.score.Hits
	l.score = combat.Score{}
}

// novice is a player with human limits: it reacts to a new enemy in about 0.4 s,
// aims a few degrees off, leads a moving target badly and turns the turret no faster
// than the keys do. It drives toward the middle of the map until it sees an enemy,
// then stops to shoot.
type novice struct {
	terr   *terrain.Map
	rng    *rand.Rand
	aimYaw float64
	aimSet bool
	target uint32
	seenAt float64
	errYaw float64
	errGun float64
	last   float64
}

// input is the novice's keys for the frame at now, from the last snapshot.
func (n *novice) input(now float64, snap *game.Snapshot) (physics.Input, bool) {
	dt := now - n.last
	n.last = now
	if snap.Self < 0 || snap.Self >= len(snap.Tanks) || snap.Combat.Wreck {
		n.aimSet, n.target = false, 0
		return physics.Input{}, false
	}
	me := &snap.Tanks[snap.Self]
	heading := geom.Yaw(me.Orientation)
	if !n.aimSet {
		n.aimYaw, n.aimSet = heading, true
	}
	eye := me.Position.Add(mgl64.Vec3{0, 2.4, 0})
	var tgt *game.TankView
	best := noviceSight
	for i := range snap.Tanks {
		tv := &snap.Tanks[i]
		if i == snap.Self || tv.Wreck || !combat.Enemies(me.Team, tv.Team) {
			continue
		}
		to := tv.Position.Add(mgl64.Vec3{0, 1.8, 0}).Sub(eye)
		if d := to.Len(); d < best {
			if _, hit := n.terr.Raycast(eye, to, d); !hit {
				tgt, best = tv, d
			}
		}
	}
	in := physics.Input{AimYaw: n.aimYaw}
	if tgt == nil {
		n.target = 0
		lo, hi := n.terr.Min(), n.terr.Max()
		mid := mgl64.Vec3{(lo[0] + hi[0]) / 2, 0, (lo[1] + hi[1]) / 2}
		want := geom.Heading(mid.Sub(me.Position))
		in.Throttle = noviceThrottle
		in.Steer = -math.Max(-1, math.Min(1, 2*geom.WrapAngle(want-heading)))
		n.turnTurret(heading, dt)
		in.AimYaw = n.aimYaw
		return in, false
	}
	if tgt.ID != n.target {
		n.target, n.seenAt = tgt.ID, now
		n.errYaw, n.errGun = n.rng.NormFloat64()*noviceAimError, n.rng.NormFloat64()*noviceGunError
	}
	muzzle, _ := combat.Muzzle(me.Position, me.Orientation, me.Turret, me.Gun)
	aimPt := tgt.Position.Add(mgl64.Vec3{0, 1.1, 0})
	flight := aimPt.Sub(muzzle).Len() / combat.MuzzleVelocity
	aimPt = aimPt.Add(tgt.Velocity.Mul(noviceLead * flight))
	d := aimPt.Sub(muzzle)
	want := math.Atan2(-d[2], d[0]) + n.errYaw
	pitch, ok := combat.BallisticElevation(math.Hypot(d[0], d[2]), d[1])
	n.turnTurret(want, dt)
	in.AimYaw = n.aimYaw
	in.GunElevation = pitch + n.errGun
	fire := ok && now-n.seenAt >= noviceReaction && snap.Combat.Loaded >= 1 &&
		math.Abs(geom.WrapAngle(me.Turret+heading-want)) < noviceOnTarget
	return in, fire
}

// turnTurret moves the aim toward yaw want at the keys' rate for dt seconds.
func (n *novice) turnTurret(want, dt float64) {
	step := noviceTurret * math.Max(0, math.Min(dt, 0.1))
	diff := geom.WrapAngle(want - n.aimYaw)
	n.aimYaw = geom.WrapAngle(n.aimYaw + math.Max(-step, math.Min(step, diff)))
}
