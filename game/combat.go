package game

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/physics"
)

// How long combat's traces stay in a snapshot.
const (
	// EffectLife is how long a muzzle flash, impact or explosion is reported, s.
	EffectLife = 3.0
	// MarkerLife is how long a hit marker is reported, s.
	MarkerLife = 1.5
	// HurtLife is how long a hit on the player's tank is reported, s: long enough to
	// turn toward the shooter.
	HurtLife = 3.0
	// HitLife is how long a hit claim stays in the hits overlay, s.
	HitLife = 10.0
	// hitsLen caps the hits overlay.
	hitsLen = 4
)

// EffectKind says what an Effect shows.
type EffectKind uint8

// The effects.
const (
	EffectMuzzle    EffectKind = iota + 1 // a gun fired
	EffectDust                            // a shell struck the ground or a rock
	EffectHit                             // a shell struck a tank
	EffectExplosion                       // a tank was destroyed
)

// Effect is a momentary event to draw.
type Effect struct {
	Kind EffectKind
	// Point is where, world meters; Direction the shell's or barrel's direction.
	Point, Direction mgl64.Vec3
	// Age is the time since it happened, s.
	Age float64
	at  float64
}

// ShellView is a shell in flight.
type ShellView struct {
	// Position is the shell now; Tail where it was a tracer's length ago (or its
	// muzzle, just after firing), world meters.
	Position, Tail mgl64.Vec3
	// Own reports a shell this peer fired.
	Own bool
}

// HitMarker is the host's answer to one of the player's hit claims.
type HitMarker struct {
	// Confirmed reports a hit the host accepted; Damage what it did. Otherwise Reason
	// says why the host refused it.
	Confirmed bool
	Damage    float64
	Reason    combat.Reason
	// Kill reports that the hit destroyed the target.
	Kill bool
	// Age is the time since the answer came, s.
	Age float64
	at  float64
}

// Hurt is a hit on the player's tank, for the damage indicator.
type Hurt struct {
	// Shooter is the tank that fired and Name its name ("?" when it is gone).
	Shooter uint32
	Name    string
	// From is where the shooter was shown when the host's answer came, world meters;
	// HasFrom reports the shooter was known then.
	From    mgl64.Vec3
	HasFrom bool
	// Damage is the hit points it took; Kill reports it destroyed the tank.
	Damage float64
	Kill   bool
	// Age is the time since the host's answer came, s.
	Age float64
	at  float64
}

// HitRecord is one of the player's recent hit claims for the hits overlay: the target's
// hull as the player's screen showed it, as the host rebuilt it, and as it truly was.
type HitRecord struct {
	// Target is the actor hit; Impact the impact point, world meters, on Shown.
	Target uint32
	Impact mgl64.Vec3
	// Shown is the hull the shell struck on this peer's screen.
	Shown combat.HullPose
	// Rebuilt is the host's rebuild of this peer's view, valid when Decided.
	Rebuilt combat.HullPose
	// Truth is the target where its owner had it at the impact, valid when HasTruth:
	// from the first update the owner stamped after the impact, taken back to it.
	Truth    combat.HullPose
	HasTruth bool
	// Decided reports the host's answer has come; Reason is it.
	Decided bool
	Reason  combat.Reason
	// Age is the time since the impact, s.
	Age        float64
	at, hostAt float64
}

// CombatView is combat as a snapshot shows it.
type CombatView struct {
	// Enabled reports that the link has a referee; without one no tank can fire.
	Enabled bool
	// Shells, Effects, Markers and Hits list what to draw; Scores the
	// scoreboard, best first. Kills are notices in the match's feed
	// (Snapshot.Notices, NoticeKill).
	Shells  []ShellView
	Effects []Effect
	Markers []HitMarker
	Hits    []HitRecord
	Scores  []combat.Score
	// Over reports that the match has ended; NextIn is the time to the next, s.
	// Remaining is the time left in the match, s (+Inf without a limit or unknown).
	Over              bool
	NextIn, Remaining float64
	// Health and MaxHealth are the player's tank's hit points.
	Health, MaxHealth float64
	// Loaded is the gun's loading progress, 0..1 (1: ready to fire).
	Loaded float64
	// Wreck reports the player's tank is a wreck; RespawnIn the time to its respawn, s.
	Wreck     bool
	RespawnIn float64
	// Aim is where the player's gun would put a shell now; HasAim reports it meets
	// something within the shell's lifetime.
	Aim    mgl64.Vec3
	HasAim bool
	// AimBlocked reports that the shell strikes the ground or a rock well short of
	// where the player aims (a crest the camera sees over): the gun marker is drawn
	// blocked. The match leaves it false; the client's aim sets it.
	AimBlocked bool
	// Hurts are the recent hits on the player's tank, oldest first.
	Hurts []Hurt
	// KilledBy names the tank that destroyed the player's tank and Killer is its id,
	// while the player's tank is a wreck (empty and 0 otherwise, or when unknown).
	KilledBy string
	Killer   uint32
}

// tankCombat is combat's record of one tank.
type tankCombat struct {
	health   float64
	wreck    bool
	wreckAt  float64 // local time it was destroyed
	loadedAt float64 // host time its gun is loaded
	gunner   *bot.Gunner
	fire     bool                                // a shot is wanted this tick
	applied  [combat.ClaimApplied]combat.Applied // the newest updates of a remote tank applied here
	lastLK   float64                             // owner timestamp of the newest applied update
	seen     bool                                // lastLK is valid
	// Spawn protection (combat.Rules.Protected): born is the host time the tank
	// spawned (tank.spawnAt), from where, far the farthest it has been shown from
	// there, m; fired whether it has fired since.
	born  float64
	from  mgl64.Vec3
	far   float64
	fired bool
}

// liveShell is a shell in flight on this peer's screen.
type liveShell struct {
	shot combat.Shot
	last float64 // host time swept to
	own  bool
}

// matchCombat is a match's side of combat: its tanks' guns, the shells on its screen,
// its claims, and what the host's events say.
type matchCombat struct {
	link     Link
	rules    combat.Rules
	level    bot.Difficulty
	tanks    map[uint32]*tankCombat
	shells   []liveShell
	hulls    []combat.HullPose
	aimHulls []combat.HullPose // the hulls the crosshair's path may strike (aimCandidates)
	byX      hullsByX          // the hulls ordered by x, for the shells' sweeps
	near     []int32           // the hulls near one shell's segment, by their index in hulls
	nearBy   []combat.HullPose // those hulls
	targets  []bot.Target
	effects  []Effect
	markers  []HitMarker
	hits     []HitRecord
	scores   []combat.Score
	over     bool
	until    float64 // host time the next match starts
	ends     float64 // host time the match ends; +Inf unknown
	nextShot uint32
	trigger  bool
	claims   []pendingClaim // claims to send again on the next frames
	heard    bool           // the host's Judge has spoken: show combat's HUD
	hurts    []Hurt
	killer   uint32 // the tank that destroyed the player's; 0 none
	killedBy string
	pages    wire.ScoresAssembler
	aims     aimScene // what every bot gunner of the tick aims among (aim)
}

// aimScene is what a tick's bot gunners choose their targets among: every tank of
// the match, as a bot.Target whose Enemy says only that the tank is not a wreck, its
// team, and in Engaged how many of this peer's gunners aim at it. It is taken once a
// tick and kept as the gunners choose, not walked again for each of a crowd's bots.
type aimScene struct {
	fresh bool
	cands []bot.Target
	tanks []*tank
	teams []int
	at    map[uint32]int // the index in cands of each tank's id
}

// newMatchCombat returns the combat side of a match on link, or nil when the link is
// not refereed. It returns an error for invalid cfg.Rules.
func newMatchCombat(link Link, cfg Config) (*matchCombat, error) {
	rules, err := cfg.Rules.WithDefaults()
	if err != nil {
		return nil, fmt.Errorf("game: %w", err)
	}
	if !link.Refereed() {
		return nil, nil
	}
	return &matchCombat{link: link, rules: rules, level: cfg.Difficulty, tanks: make(map[uint32]*tankCombat),
		aims: aimScene{at: make(map[uint32]int)}, ends: math.Inf(1)}, nil
}

// Fire asks the player's tank to fire at the next Step, if its gun is loaded.
func (m *Match) Fire() {
	if m.combat != nil {
		m.combat.trigger = true
	}
}

// combatOf returns combat's record of t, or nil when there is none yet.
func (m *Match) combatOf(t *tank) *tankCombat {
	if m.combat == nil {
		return nil
	}
	return m.combat.tanks[t.id]
}

// tankCombatOf returns combat's record of t, creating it.
func (c *matchCombat) of(t *tank, seed uint64, m *Match) *tankCombat {
	tc := c.tanks[t.id]
	if tc == nil {
		tc = &tankCombat{health: c.rules.MaxHealth, born: t.spawnAt, from: t.view.Position}
		if t.bot != nil {
			tc.gunner = bot.NewGunner(m.terr, c.level, seed^uint64(t.id)*0x9e3779b97f4a7c15)
		}
		c.tanks[t.id] = tc
	}
	return tc
}

// aim lets a local tank's bot gunner choose its turret input and whether to fire, and
// stops a wreck. It runs in behave, after the bot has chosen how to drive.
func (m *Match) aim(t *tank, now float64, p physics.Pose, in physics.Input) physics.Input {
	c := m.combat
	if c == nil {
		return in
	}
	tc := c.of(t, m.cfg.Seed, m)
	if tc.wreck || c.over {
		return physics.Input{AimYaw: in.AimYaw, GunElevation: in.GunElevation}
	}
	if tc.gunner == nil {
		return in
	}
	sc := &c.aims
	if !sc.fresh {
		sc.take(m.tanks, c.tanks)
	}
	own, aiming := sc.aimedAt(tc.gunner)
	c.targets = c.targets[:0]
	for i, u := range sc.cands {
		if sc.tanks[i] == t {
			continue
		}
		u.Enemy = u.Enemy && combat.Enemies(t.team, sc.teams[i])
		if i == own && aiming {
			u.Engaged-- // the others' gunners only
		}
		c.targets = append(c.targets, u)
	}
	host := now + m.clockOffset()
	a := tc.gunner.Aim(now, p, c.targets, host >= tc.loadedAt)
	if aiming { // the gunner's choice, for the next gunners of the tick
		sc.cands[own].Engaged--
	}
	if i, ok := sc.aimedAt(tc.gunner); ok {
		sc.cands[i].Engaged++
	}
	if a.Engaged {
		in.AimYaw, in.GunElevation = a.AimYaw, a.GunElevation
	}
	tc.fire = tc.fire || a.Fire
	return in
}

// take fills the scene from the match's tanks and combat's records of them.
func (sc *aimScene) take(tanks []*tank, rec map[uint32]*tankCombat) {
	sc.cands, sc.teams = sc.cands[:0], sc.teams[:0]
	sc.tanks = append(sc.tanks[:0], tanks...)
	clear(sc.at)
	for i, u := range tanks {
		uc := rec[u.id]
		sc.cands = append(sc.cands, bot.Target{ID: u.id, Position: u.view.Position, Velocity: u.view.Velocity,
			Enemy: uc == nil || !uc.wreck})
		sc.teams = append(sc.teams, u.team)
		sc.at[u.id] = i
	}
	for _, u := range tanks {
		if uc := rec[u.id]; uc != nil && uc.gunner != nil {
			if i, ok := sc.aimedAt(uc.gunner); ok {
				sc.cands[i].Engaged++
			}
		}
	}
	sc.fresh = true
}

// aimedAt returns the index of the tank g aims at, if it aims at one of the scene.
func (sc *aimScene) aimedAt(g *bot.Gunner) (int, bool) {
	id, has := g.Target()
	if !has {
		return 0, false
	}
	i, ok := sc.at[id]
	return i, ok
}

// fight runs combat for the tick at local time now, after the views are refreshed:
// the host's events, the shots fired this tick, the shells' flight on this peer's
// screen (and the claims of its own shells' hits), and wrecks' respawns.
func (m *Match) fight(now float64) {
	c := m.combat
	if c == nil {
		return
	}
	offset := m.clockOffset()
	host := now + offset
	c.resendClaims()

	c.hulls = c.hulls[:0]
	for _, t := range m.tanks {
		tc := c.of(t, m.cfg.Seed, m)
		tc.far = math.Max(tc.far, math.Hypot(t.view.Position[0]-tc.from[0], t.view.Position[2]-tc.from[2]))
		c.hulls = append(c.hulls, combat.HullPose{Actor: t.id, Position: t.view.Position, Orientation: t.view.Orientation})
		if !t.local {
			// readRemote kept the actor's last-known time as of this step:
			// reading it there spares a pass over the actors.
			if lk := t.lastKnownAt; !tc.seen || lk != tc.lastLK {
				copy(tc.applied[1:], tc.applied[:])
				tc.applied[0] = combat.Applied{Update: lk, At: t.lastHeard + offset}
				tc.lastLK, tc.seen = lk, true
			}
			continue
		}
		if t == m.self && c.trigger {
			tc.fire = true
		}
		if tc.fire && !tc.wreck && !c.over && host >= tc.loadedAt && !t.spawnFailed {
			m.shoot(t, tc, now, host)
		}
		tc.fire = false
		if tc.wreck && now-tc.wreckAt >= c.rules.WreckTime {
			m.rebirth(t)
		}
	}
	c.trigger = false
	if len(c.tanks) > 2*len(m.tanks)+8 { // records of tanks that left
		for id := range c.tanks {
			if m.byID[id] == nil {
				delete(c.tanks, id)
			}
		}
	}
	m.flyShells(now, host)
	m.settleTruth(now, host)
	c.prune(now)
}

// shoot fires local tank t's gun.
func (m *Match) shoot(t *tank, tc *tankCombat, now, host float64) {
	c := m.combat
	p := t.body.Pose()
	origin, dir := combat.Muzzle(p.Position, p.Orientation, p.Turret, p.Gun)
	c.nextShot = c.nextShot%math.MaxUint16 + 1 // shot numbers are 16 bits on the wire
	s, err := combat.QuantizeShot(combat.Shot{ID: c.nextShot, Shooter: t.id, Origin: origin, Direction: dir, Time: host})
	if err != nil {
		m.log.Debug("fire", "actor", t.id, "err", err)
		return
	}
	f, _ := combat.FireMessage(s) // QuantizeShot encoded it
	if err := c.link.Send(f); err != nil {
		m.log.Debug("fire", "actor", t.id, "err", err)
		return
	}
	tc.loadedAt, tc.fired = host+c.rules.Reload, true
	c.shells = append(c.shells, liveShell{shot: s, last: s.Time, own: true})
	c.effects = append(c.effects, Effect{Kind: EffectMuzzle, Point: origin, Direction: dir, at: now})
}

// flyShells moves every shell on to host time host against the hulls as this peer
// shows them, and claims the hits of this peer's own shells.
func (m *Match) flyShells(now, host float64) {
	c := m.combat
	live := c.shells[:0]
	indexed := len(c.shells) >= shellsIndexed && len(c.hulls) >= hullsIndexed
	if indexed {
		c.byX.order(c.hulls)
	}
	for _, sh := range c.shells {
		hulls := c.hulls
		if indexed {
			c.near, c.nearBy = c.byX.near(c.near[:0], c.nearBy[:0], c.hulls, sh.shot, sh.last, host)
			hulls = c.nearBy
		}
		// This peer's own shells make claims, which the referee checks on the
		// shell's arc with 1 cm of slack: over a long frame (software GL's fifth of
		// a second) one chord sits up to 5 cm above it, so they are swept in
		// 60 Hz steps. The others only raise dust or a flash.
		sweep := combat.Sweep
		if sh.own {
			sweep = combat.SweepPath
		}
		imp := sweep(m.terr, sh.shot, sh.last, host, hulls)
		sh.last = host
		switch imp.Kind {
		case combat.ImpactNone:
			live = append(live, sh)
			continue
		case combat.ImpactGround, combat.ImpactRock:
			c.effects = append(c.effects, Effect{Kind: EffectDust, Point: imp.Point, Direction: sh.shot.Velocity(imp.Time), at: now})
			continue
		case combat.ImpactSpent:
			continue
		}
		c.effects = append(c.effects, Effect{Kind: EffectHit, Point: imp.Point, Direction: sh.shot.Velocity(imp.Time), at: now})
		target := m.byID[imp.Target]
		tc := c.tanks[imp.Target]
		if !sh.own || target == nil || (tc != nil && tc.wreck) {
			continue
		}
		claim := combat.Claim{Shooter: sh.shot.Shooter, Shot: sh.shot.ID, Target: imp.Target, Time: host, Impact: imp.Time,
			Local: imp.Local, Fired: sh.shot, Observer: m.observer(), Reckon: combat.ModeOf(m.dr.Reckon)}
		if tc != nil {
			claim.Applied = tc.applied
		}
		if err := c.sendClaim(claim); err != nil {
			m.log.Debug("claim", "actor", sh.shot.Shooter, "err", err)
			continue
		}
		if m.self != nil && sh.shot.Shooter == m.self.id {
			shown := combat.HullPose{Actor: imp.Target, Position: target.view.Position, Orientation: target.view.Orientation}
			rec := HitRecord{Target: imp.Target, Impact: imp.Point, Shown: shown, at: now, hostAt: imp.Time}
			if target.local {
				rec.Truth, rec.HasTruth = shown, true
			}
			c.hits = append(c.hits, rec)
			if len(c.hits) > hitsLen {
				c.hits = append(c.hits[:0], c.hits[len(c.hits)-hitsLen:]...)
			}
		}
	}
	clear(c.shells[len(live):])
	c.shells = live
}

// shellsIndexed and hullsIndexed are the fewest shells in flight and hulls for
// which flyShells orders the hulls by x once a frame: fewer pass over every hull
// for less.
const shellsIndexed, hullsIndexed = 4, 64

// hullsByX is a frame's hulls ordered by x, so that a shell's sweep tests only the
// hulls within reach of its segment's box: at 512 tanks and hundreds of shells in
// flight, passing every shell over every hull was a frame's largest pass.
type hullsByX struct {
	idx []int32   // indices into the hulls at finite places, by x
	xs  []float64 // their x, in that order
}

// order takes the frame's hulls.
func (o *hullsByX) order(hulls []combat.HullPose) {
	o.idx = o.idx[:0]
	for i := range hulls {
		// A hull at a non-finite place is struck by no shell (combat.Sweep passes
		// over it), so it is never near.
		if geom.FiniteVec(hulls[i].Position) {
			o.idx = append(o.idx, int32(i))
		}
	}
	slices.SortFunc(o.idx, func(a, b int32) int { return cmp.Compare(hulls[a].Position[0], hulls[b].Position[0]) })
	o.xs = o.xs[:0]
	for _, i := range o.idx {
		o.xs = append(o.xs, hulls[i].Position[0])
	}
}

// near appends to idx and by the hulls that combat.Sweep of shot from t0 to t1 may
// strike, in their order in hulls: those within combat.HullReach of the box of
// the segment it sweeps. Sweep passes over the others itself, so its answer with
// them is its answer with every hull.
func (o *hullsByX) near(idx []int32, by []combat.HullPose, hulls []combat.HullPose, shot combat.Shot, t0, t1 float64) ([]int32, []combat.HullPose) {
	t1 = math.Min(t1, shot.Time+combat.ShellLifetime)
	if !(t1 > t0) {
		return idx, by // Sweep tests no hull
	}
	a, b := shot.At(t0), shot.At(t1)
	r := combat.HullReach() + 1e-3
	lo := mgl64.Vec3{math.Min(a[0], b[0]) - r, math.Min(a[1], b[1]) - r, math.Min(a[2], b[2]) - r}
	hi := mgl64.Vec3{math.Max(a[0], b[0]) + r, math.Max(a[1], b[1]) + r, math.Max(a[2], b[2]) + r}
	if !geom.FiniteVec(lo) || !geom.FiniteVec(hi) {
		return idx, append(by, hulls...)
	}
	first, _ := slices.BinarySearch(o.xs, lo[0])
	for k := first; k < len(o.xs) && o.xs[k] <= hi[0]; k++ {
		p := hulls[o.idx[k]].Position
		if p[1] >= lo[1] && p[1] <= hi[1] && p[2] >= lo[2] && p[2] <= hi[2] {
			idx = append(idx, o.idx[k])
		}
	}
	slices.Sort(idx)
	for _, i := range idx {
		by = append(by, hulls[i])
	}
	return idx, by
}

// settleTruth fills in the truth of the hits overlay's records: the first update the
// target's owner stamped after the impact, taken back to the impact along its motion.
func (m *Match) settleTruth(now, host float64) {
	c := m.combat
	for i := range c.hits {
		r := &c.hits[i]
		if r.HasTruth {
			continue
		}
		t := m.byID[r.Target]
		if t == nil || t.local {
			continue
		}
		lk := t.actor.LastKnown()
		if lk.Time < r.hostAt {
			continue
		}
		back := r.hostAt - lk.Time
		r.Truth = combat.HullPose{Actor: r.Target, Position: lk.Position.Add(lk.Velocity.Mul(back)),
			Orientation: lk.Orientation}
		r.HasTruth = true
	}
}

// combatEvent applies one of the host's combat events.
func (m *Match) combatEvent(ev *combat.Event, now, host float64) {
	c := m.combat
	c.heard = true
	switch ev.Kind {
	case combat.EventFire:
		m.shellFired(ev, now)
	case combat.EventHit:
		if tc := c.tanks[ev.Target]; tc != nil {
			tc.health = ev.Health
		}
		if m.mine(ev.Shot.Shooter) {
			c.markers = append(c.markers, HitMarker{Confirmed: true, Damage: ev.Damage, at: now})
			c.decide(ev, combat.Accepted)
		}
		if m.self != nil && ev.Target == m.self.id {
			m.hurt(ev, now)
		}
	case combat.EventRefused:
		if m.mine(ev.Shot.Shooter) {
			c.markers = append(c.markers, HitMarker{Reason: ev.Reason, at: now})
			c.decide(ev, ev.Reason)
		}
	case combat.EventDestroy:
		m.tankDestroyed(ev, now)
	case combat.EventScores:
		m.scoresHeard(ev)
	}
}

// hurt records a hit on the player's tank: who fired, and from where.
func (m *Match) hurt(ev *combat.Event, now float64) {
	h := Hurt{Shooter: ev.Shot.Shooter, Name: "?", Damage: ev.Damage, at: now}
	if k := m.byID[ev.Shot.Shooter]; k != nil {
		h.Name, h.From, h.HasFrom = k.name, k.view.Position, true
	}
	m.combat.hurts = append(m.combat.hurts, h)
}

// shellFired flies another tank's shell from the host's fire event and flashes its
// muzzle; the player's own shells are already flying.
func (m *Match) shellFired(ev *combat.Event, now float64) {
	c := m.combat
	if tc := c.tanks[ev.Shot.Shooter]; tc != nil {
		tc.fired = true
	}
	if t := m.byID[ev.Shot.Shooter]; t != nil && t.local {
		return // our own, already flying
	}
	c.shells = append(c.shells, liveShell{shot: ev.Shot, last: ev.Shot.Time})
	c.effects = append(c.effects, Effect{Kind: EffectMuzzle, Point: ev.Shot.Origin, Direction: ev.Shot.Direction, at: now})
}

// tankDestroyed wrecks the target of a destroy event: an explosion where it was
// shown, a kill on the player's last hit marker when the player shot it, and a notice.
func (m *Match) tankDestroyed(ev *combat.Event, now float64) {
	c := m.combat
	victim := m.byID[ev.Target]
	if tc := c.tanks[ev.Target]; tc != nil {
		tc.health, tc.wreck, tc.wreckAt = 0, true, now
	}
	if victim != nil {
		c.effects = append(c.effects, Effect{Kind: EffectExplosion, Point: victim.view.Position, at: now})
	}
	if m.mine(ev.Shot.Shooter) && len(c.markers) > 0 {
		c.markers[len(c.markers)-1].Kill = true
	}
	if m.self != nil && ev.Target == m.self.id {
		c.killer, c.killedBy = ev.Shot.Shooter, "?"
		if k := m.byID[ev.Shot.Shooter]; k != nil {
			c.killedBy = k.name
		}
		if n := len(c.hurts); n > 0 && c.hurts[n-1].Shooter == ev.Shot.Shooter {
			c.hurts[n-1].Kill = true
		}
	}
	kill := Notice{Kind: NoticeKill, Who: "?", Team: -1, Other: "?"}
	if k := m.byID[ev.Shot.Shooter]; k != nil {
		kill.Who, kill.Team = k.name, k.team
	}
	if victim != nil {
		kill.Other = victim.name
	}
	m.notify(kill)
}

// scoresHeard takes the host's scores and round state; when a finished round
// restarts, every local tank is born again.
func (m *Match) scoresHeard(ev *combat.Event) {
	c := m.combat
	c.scores = append(c.scores[:0], ev.Scores...)
	restart := c.over && !ev.Over
	c.over, c.until, c.ends = ev.Over, ev.Until, ev.Ends
	if restart {
		for _, t := range m.tanks {
			if t.local {
				m.rebirth(t)
			}
		}
	}
}

// decide records the host's answer to the player's claim about ev's shot.
func (c *matchCombat) decide(ev *combat.Event, r combat.Reason) {
	for i := len(c.hits) - 1; i >= 0; i-- {
		h := &c.hits[i]
		if h.Target == ev.Target && !h.Decided {
			h.Decided, h.Reason, h.Rebuilt = true, r, ev.Rebuilt
			return
		}
	}
}

// observer returns where remote tanks are clamped from: the camera when the renderer
// says where it is, else the player's tank, else the origin.
func (m *Match) observer() mgl64.Vec3 {
	switch {
	case m.hasCamera:
		return m.camera
	case m.self != nil:
		return m.self.body.Pose().Position
	}
	return mgl64.Vec3{}
}

// mine reports whether actor is the player's tank.
func (m *Match) mine(actor uint32) bool { return m.self != nil && m.self.id == actor }

// rebirth respawns a local tank (a wreck whose time is up, or every tank at a
// restart) with full health, through the continuity break of a respawn.
func (m *Match) rebirth(t *tank) {
	c := m.combat
	old := t.id
	m.respawnLocal(t)
	delete(c.tanks, old)
	if t.id != 0 {
		delete(c.tanks, t.id)
		c.of(t, m.cfg.Seed, m)
	}
}

// prune drops traces older than their life.
func (c *matchCombat) prune(now float64) {
	c.effects = slices.DeleteFunc(c.effects, func(e Effect) bool { return now-e.at >= EffectLife })
	c.markers = slices.DeleteFunc(c.markers, func(m HitMarker) bool { return now-m.at >= MarkerLife })
	c.hits = slices.DeleteFunc(c.hits, func(h HitRecord) bool { return now-h.at >= HitLife })
	c.hurts = slices.DeleteFunc(c.hurts, func(h Hurt) bool { return now-h.at >= HurtLife })
}

// aged is a combat trace that reports its age in a snapshot.
type aged[T any] interface {
	*T
	setAge(now float64)
}

func (e *Effect) setAge(now float64)    { e.Age = now - e.at }
func (m *HitMarker) setAge(now float64) { m.Age = now - m.at }
func (h *HitRecord) setAge(now float64) { h.Age = now - h.at }
func (h *Hurt) setAge(now float64)      { h.Age = now - h.at }

// appendAged appends src to dst with their ages at local time now.
func appendAged[T any, P aged[T]](dst, src []T, now float64) []T {
	n := len(dst)
	dst = append(dst, src...)
	// Aged in place: a copy's address would escape through the method and cost an
	// allocation per trace per frame.
	for i := n; i < len(dst); i++ {
		P(&dst[i]).setAge(now)
	}
	return dst
}

// tracer is how far behind a shell its tracer's tail is drawn, s of flight.
const tracer = 0.06

// snapshotCombat fills dst with combat as it stands, reusing its slices.
func (m *Match) snapshotCombat(dst *CombatView) {
	c := m.combat
	if c == nil {
		*dst = CombatView{Shells: dst.Shells[:0], Effects: dst.Effects[:0],
			Markers: dst.Markers[:0], Hits: dst.Hits[:0], Scores: dst.Scores[:0], Hurts: dst.Hurts[:0]}
		return
	}
	now := m.last
	host := now + m.clockOffset()
	dst.Enabled = c.heard
	dst.Shells = dst.Shells[:0]
	for _, sh := range c.shells {
		tail := math.Max(sh.shot.Time, sh.last-tracer)
		dst.Shells = append(dst.Shells, ShellView{Position: sh.shot.At(sh.last), Tail: sh.shot.At(tail), Own: sh.own})
	}
	dst.Effects = appendAged(dst.Effects[:0], c.effects, now)
	dst.Markers = appendAged(dst.Markers[:0], c.markers, now)
	dst.Hits = appendAged(dst.Hits[:0], c.hits, now)
	dst.Hurts = appendAged(dst.Hurts[:0], c.hurts, now)
	dst.Scores = append(dst.Scores[:0], c.scores...)
	dst.Over = c.over
	dst.NextIn = math.Max(0, c.until-host)
	dst.Remaining = math.Inf(1)
	if !math.IsInf(c.ends, 1) && c.ends > 0 {
		dst.Remaining = math.Max(0, c.ends-host)
	}
	dst.MaxHealth = c.rules.MaxHealth
	dst.Health, dst.Loaded, dst.Wreck, dst.RespawnIn, dst.HasAim, dst.AimBlocked = 0, 0, false, 0, false, false
	dst.Killer, dst.KilledBy = 0, ""
	if t := m.self; t != nil {
		if tc := c.tanks[t.id]; tc != nil {
			dst.Health, dst.Wreck = tc.health, tc.wreck
			dst.Loaded = 1 - math.Max(0, math.Min(1, (tc.loadedAt-host)/c.rules.Reload))
			if tc.wreck {
				dst.RespawnIn = math.Max(0, c.rules.WreckTime-(now-tc.wreckAt))
			}
			if tc.wreck {
				dst.Killer, dst.KilledBy = c.killer, c.killedBy
			}
		}
		p := t.body.Pose()
		o, d := combat.Muzzle(p.Position, p.Orientation, p.Turret, p.Gun)
		s := combat.Shot{Shooter: t.id, Origin: o, Direction: d}
		c.aimHulls = aimCandidates(c.aimHulls[:0], c.hulls, o, d)
		for f := 0.0; f < combat.ShellLifetime; f += aimStep {
			if imp := combat.Sweep(m.terr, s, f, f+aimStep, c.aimHulls); imp.Kind != combat.ImpactNone {
				dst.Aim, dst.HasAim = imp.Point, imp.Kind != combat.ImpactSpent
				break
			}
		}
	}
}

// aimCandidates appends to dst, in their order, the hulls of hulls that a shell fired
// from origin along dir may strike: a shell's path lies in the upright plane through
// origin along dir, so a hull whose origin is farther from that plane than
// combat.HullReach cannot be struck, and the crosshair's sweeps of the whole flight
// (each a pass over the hulls) need not test it. The sweeps' answers are the same:
// the hulls left out are ones no segment of the path reaches, and the others keep
// their order. A shot straight up or down keeps every hull.
func aimCandidates(dst, hulls []combat.HullPose, origin, dir mgl64.Vec3) []combat.HullPose {
	l := math.Hypot(dir[0], dir[2])
	if !(l > 1e-6) {
		return append(dst, hulls...)
	}
	nx, nz := -dir[2]/l, dir[0]/l // the plane's horizontal normal
	reach := combat.HullReach() + 1e-3
	for _, h := range hulls {
		if d := (h.Position[0]-origin[0])*nx + (h.Position[2]-origin[2])*nz; d <= reach && d >= -reach {
			dst = append(dst, h)
		}
	}
	return dst
}

// aimStep is the step of the crosshair's ballistic path, s: 10 m of flight, an arc
// within 3 mm of its chords.
const aimStep = 0.05

// viewCombat sets a tank view's health, wreck and spawn protection flags.
func (m *Match) viewCombat(t *tank, v *TankView) {
	v.Health, v.Wreck, v.Protected = 0, false, false
	if m.combat == nil {
		return
	}
	v.MaxHealth = m.combat.rules.MaxHealth
	if tc := m.combat.tanks[t.id]; tc != nil {
		v.Health, v.Wreck = tc.health, tc.wreck
		host := m.last + m.clockOffset()
		v.Protected = !tc.wreck && !m.combat.over && m.combat.rules.Protected(host-tc.born, tc.fired, tc.far)
	} else {
		v.Health = v.MaxHealth
	}
}
