package referee

import (
	"math"
	"sync/atomic"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// Defaults for CheckerConfig.
const (
	// DefaultMaxRewind caps how far back the host rebuilds a shooter's view: a claim
	// whose time is more than this before its arrival is refused, s. Source rewinds up
	// to 1 s (sv_maxunlag) and Overwatch 250 ms; both rewind the true past of
	// interpolated targets, so the victim is hit behind the cover it reached a whole
	// rewind ago. Treadline's remotes are extrapolated to the present, so what is
	// rewound is only the claim's trip to the host (sent unreliably, repeated on the
	// next frames, so loss does not delay it by a retransmission) and a frame or two.
	// 400 ms serves a 300 ms ± 30 ms one-way link with its repeats and a frame to
	// spare, where Overwatch's cap would refuse every hit of such a player; it stays
	// well under Source's second, beyond which "I was already behind the rock"
	// dominates.
	DefaultMaxRewind = 0.4
	// DefaultHitTolerance is how far the claimed impact may lie from the shell on the
	// rebuilt hull, m. The rebuild runs the shooter's own reckoning on the updates
	// the shooter had; what remains is the uncertainty of when each arrived (jitter
	// and frame timing), a few centimetres for a tank that moves at 15 m/s.
	DefaultHitTolerance = 0.25
	// DefaultHitSlack is how much the rebuilt hull is grown for the test that the shell
	// is on it at the claimed impact time, m. The rebuild repeats the shooter's
	// reckoning on the updates it had, when it had them, so it lands within
	// millimetres of the shooter's view (the lab's rebuild error at 150 ms ± 30 ms and
	// 5% loss: median 0.3 mm, 95th percentile 1.7 mm); 1 cm keeps hits that graze an
	// edge, and refuses near misses.
	DefaultHitSlack = 0.01
	// DefaultReloadSlack is how much sooner than the reload time a shot is still
	// accepted, s: shots are stamped with the shooter's estimate of the host's clock.
	DefaultReloadSlack = 0.1
	// DefaultOriginSlack is how far a shot's origin may lie beyond the muzzle's reach
	// from where the host showed the shooter when it fired, m (BZFlag checks a shot's
	// start against the shooter's last reported position the same way). The host's
	// view is reckoned: a lost update, a collision or a sudden stop leaves it meters
	// off. In 3000 duel shots at 50, 150 and 300 ms the excess was under 4.6 m for
	// 99.9 % of shots and 7.3 m at most; 10 m still keeps shots from being fired from
	// anywhere else on the map.
	DefaultOriginSlack = 10.0
	// DefaultFutureSlack is how far in the host's future a shot or claim may be stamped,
	// s: clock sync error.
	DefaultFutureSlack = 0.05
	// DefaultMaxFrame is the longest frame a shooter's claim may span, s: the impact
	// lies between the claim's frame and the one before it. A client sweeps each
	// shell over its whole frame against the hulls that frame shows, and software
	// GL draws a 512-tank battle at about five frames a second: a tenth of a second
	// refused the hits of the first half of such frames as impossible. A quarter
	// second admits four frames a second; what it lends a cheater is a hit on a tank
	// that crosses the shell's path up to that long after the shell passed (3.75 m at
	// a tank's top speed of 15 m/s, against 1.5 m before).
	DefaultMaxFrame = 0.25
	// entryPast is how long before the claimed impact the shell's path must be clear
	// of terrain and rocks, s (10 cm of flight).
	entryPast = 0.0005
	// rebuildFrame is the frame interval the rebuild assumes of a peer, s.
	rebuildFrame = 1.0 / 60
	// hitHistory is how many relayed updates the host keeps per actor.
	hitHistory = 24
	// rebuildUpdates is how many updates before the newest one the rebuild replays.
	// Blends chain from update to update (each starts from the display the previous one
	// left), so at 300 ms and five updates a second the chain reaches back over a second:
	// the duel confirmed 0.937 of 300 ms hits replaying 6 updates, 0.972 replaying 16,
	// and no more with 23.
	rebuildUpdates = 16
)

// CheckerConfig sets up a Checker. The zero value takes every default.
type CheckerConfig struct {
	// Reckon is how shooters reckon remote tanks: the host rebuilds their view with it.
	// It must be the configuration the shooters' matches use (Match.ActorConfig); if
	// its Collide has no obstacles, the map's (physics.Collide), as matches keep
	// remote tanks out of them.
	Reckon deadreckon.Config
	// MaxRewind caps the rewind, s. If zero, defaults to DefaultMaxRewind.
	MaxRewind float64
	// Tolerance is the largest distance between the shell and the claimed impact on
	// the rebuilt hull, m. If zero, defaults to DefaultHitTolerance.
	Tolerance float64
	// Slack grows the rebuilt hull for the test that the shell is on it, m. If zero,
	// defaults to DefaultHitSlack.
	Slack float64
	// Reload is the shortest time between two shots of one tank, s. If zero, defaults
	// to DefaultReload.
	Reload float64
}

func (c CheckerConfig) withDefaults() CheckerConfig {
	if !(c.MaxRewind > 0) {
		c.MaxRewind = DefaultMaxRewind
	}
	if !(c.Tolerance > 0) {
		c.Tolerance = DefaultHitTolerance
	}
	if !(c.Reload > 0) {
		c.Reload = combat.DefaultReload
	}
	if !(c.Slack > 0) {
		c.Slack = DefaultHitSlack
	}
	return c
}

// Link figures the host measured for a shooter, to rebuild its view.
type ShooterLink struct {
	// Latency is the one-way delay from the host to the shooter, s (half the RTT).
	Latency float64
	// ClockOffset is host clock minus the shooter's clock, s, as the shooter estimates it.
	ClockOffset float64
	// OwnTarget reports that the target is the shooter's own peer's tank: the shooter
	// drew it where its physics had it, which the host knows only from its updates,
	// within the publishing threshold (see DefaultOwnTargetSlack).
	OwnTarget bool
}

// DefaultOwnTargetSlack grows the hull for hits on the shooter's own peer's tanks, m.
// The shooter drew such a tank where its physics had it, which the host knows only
// from its updates: within the publishing thresholds when it drives, and a meter or
// more off while it is pushed about in a collision (the updates' acceleration is
// capped). A peer that owns both tanks decides both their positions anyway, so the
// check only keeps such a claim plausible.
const DefaultOwnTargetSlack = 2.0

// relayed is one update the host relayed, with its host time.
type relayed struct {
	s   deadreckon.State
	at  float64
	brk bool // a continuity break (spawn)
	// A progress along a route (s is the state it implies): what the players who
	// heard it as sent reckoned from.
	prog  *deadreckon.Progress
	route *deadreckon.Route
}

// actorRecord is the host's history of one actor.
type actorRecord struct {
	owner     uint32
	ring      [hitHistory]relayed
	n, head   int // count and index of the oldest
	breakAt   float64
	destroyed float64 // host time it was destroyed; +Inf while alive
	gone      float64 // host time it left the match; +Inf while in it
	revived   float64 // host time it was last revived from a wreck
	gun       *gunState
	// sent is what the host's downlink scheduler sent each player of the actor, by
	// player (Checker.Sent); nil while every update goes to everyone.
	sent map[uint32]*sendLog
	// route is the route its owner published last, numbered routeID.
	route   *deadreckon.Route
	routeID uint16
}

// sendLog is the newest updates of one actor the host sent one player: each update's
// time, and the host time it was sent.
type sendLog struct {
	ring    [sendHistory]sendRec
	n, head int
}

type sendRec struct{ update, at float64 }

// sendHistory is how many sends per actor and player the host keeps: a rebuild
// replays rebuildUpdates, and a few more cover the stale-basis rule's count.
const sendHistory = rebuildUpdates + staleBasisUpdates

func (l *sendLog) add(u sendRec) {
	if l.n < sendHistory {
		l.ring[(l.head+l.n)%sendHistory] = u
		l.n++
		return
	}
	l.ring[l.head] = u
	l.head = (l.head + 1) % sendHistory
}

// find returns when the update stamped ts was sent, if it is in the log.
func (l *sendLog) find(ts float64) (float64, bool) {
	for i := l.n - 1; i >= 0; i-- {
		if u := &l.ring[(l.head+i)%sendHistory]; u.update == ts {
			return u.at, true
		}
	}
	return 0, false
}

// gunState is a gun's reload: one per player, shared by every tank the player spawns,
// so a respawn does not reload it.
type gunState struct {
	lastShot float64 // host time of the last accepted shot, s
	shot     bool    // a shot was accepted
}

func (r *actorRecord) add(u relayed) {
	if r.n < hitHistory {
		r.ring[(r.head+r.n)%hitHistory] = u
		r.n++
		return
	}
	r.ring[r.head] = u
	r.head = (r.head + 1) % hitHistory
}

func (r *actorRecord) at(i int) *relayed { return &r.ring[(r.head+i)%hitHistory] }

// shotKey identifies a shot.
type shotKey struct{ shooter, id uint32 }

// shotRecord is a shot the host heard of.
type shotRecord struct {
	shot    combat.Shot
	verdict combat.Reason // Accepted, or why the shot itself is void
	judged  bool          // a claim about it was judged
	heard   float64
}

// Checker is the host's judge of who hit whom. It keeps a short history of the
// updates the host relayed for each actor, with their host times; for a claim it
// rebuilds the shooter's view of the target by running the same deadreckon code the
// shooter runs over the updates the shooter had (each arrived one host-to-shooter
// latency after the host relayed it), to the claim's time, clamped to the same ground,
// and accepts when the claimed impact point, placed on that hull, lies on the shell's
// path. It decides; it applies no damage (Referee does).
//
// A Checker is not safe for concurrent use. Times are host-clock seconds.
type Checker struct {
	cfg    CheckerConfig
	terr   *terrain.Map
	actors map[uint32]*actorRecord
	shots  map[shotKey]*shotRecord
	counts [combat.NumReasons]atomic.Uint64 // atomic: Counts may be read from another goroutine
	// scheduled is the host time of the first update the downlink scheduler sent
	// (+Inf before): updates relayed before it went to everyone at once.
	scheduled float64
	// wrecked holds the actors whose record says destroyed (a finite destroyed
	// time), the only ones Revived can change: the referee revives from it each
	// tick rather than from every tank of a crowd.
	wrecked map[uint32]struct{}
	// goneBy and expireBy are the earliest gone time of an actor record and the
	// earliest time a shot record's shell expires (+Inf: none), or earlier: Forget,
	// called each tick, walks the records only once one of them may be due.
	goneBy, expireBy float64
}

// NewChecker returns a judge for matches on terrain m.
func NewChecker(m *terrain.Map, cfg CheckerConfig) *Checker {
	if m == nil {
		panic("referee: NewChecker without a map")
	}
	cfg = cfg.withDefaults()
	if cfg.Reckon.Collide.Obstacles == nil {
		// Shooters' matches keep remote tanks out of the map's obstacles.
		cfg.Reckon.Collide = physics.Collide(m)
	}
	return &Checker{cfg: cfg, terr: m, actors: make(map[uint32]*actorRecord),
		shots: make(map[shotKey]*shotRecord), scheduled: math.Inf(1), wrecked: make(map[uint32]struct{}),
		goneBy: math.Inf(1), expireBy: math.Inf(1)}
}

// Config returns the checker's configuration with defaults filled in.
func (h *Checker) Config() CheckerConfig { return h.cfg }

// Spawned records that actor (owned by owner) entered the match, or re-entered it at a
// new place (a continuity break), with state s at host time at.
func (h *Checker) Spawned(actor, owner uint32, s deadreckon.State, at float64) {
	r := h.actors[actor]
	if r == nil {
		r = &actorRecord{owner: owner, destroyed: math.Inf(1), gone: math.Inf(1), gun: &gunState{}}
		h.actors[actor] = r
	}
	r.add(relayed{s: s, at: at, brk: true})
	r.breakAt = at
}

// Relayed records that the host relayed update s of actor at host time at. Updates of
// unknown actors are ignored.
func (h *Checker) Relayed(actor uint32, s deadreckon.State, at float64) {
	if r := h.actors[actor]; r != nil {
		r.add(relayed{s: s, at: at})
	}
}

// Routed records route r, numbered id, that actor's owner published.
func (h *Checker) Routed(actor uint32, id uint16, r *deadreckon.Route) {
	if rec := h.actors[actor]; rec != nil {
		rec.route, rec.routeID = r, id
	}
}

// Progressed records that the update of actor Relayed recorded last was progress p
// along its route: players who heard it as sent reckoned the actor along the route.
func (h *Checker) Progressed(actor uint32, p deadreckon.Progress) {
	r := h.actors[actor]
	if r == nil || r.n == 0 || r.route == nil || p.Route != r.routeID {
		return
	}
	if u := r.at(r.n - 1); !u.brk && u.s.Time == p.Time {
		u.prog, u.route = &p, r.route
	}
}

// Sent records that the host's downlink scheduler sent player to actor's update s (one
// Relayed recorded) at host time at. From the first such call, a claim is judged on
// the updates its shooter's player was sent, as they were sent: the ones it was never
// sent are not in its rebuilt view, and the stale-basis rule counts only the newer
// updates it was sent.
func (h *Checker) Sent(to, actor uint32, s deadreckon.State, at float64) {
	r := h.actors[actor]
	if r == nil || !geom.Finite(at) {
		return
	}
	h.scheduled = math.Min(h.scheduled, at)
	if r.sent == nil {
		r.sent = map[uint32]*sendLog{}
	}
	l := r.sent[to]
	if l == nil {
		l = &sendLog{}
		r.sent[to] = l
	}
	l.add(sendRec{update: s.Time, at: at})
}

// sentAt returns when player got update u of actor record r from the host (before the
// link's latency): when it was relayed, for a spawn (sent to everyone, reliably), for
// an update relayed before the scheduler ran, or for a view that names no player;
// when it was sent, once the scheduler sends; false if it was never sent to player.
func (h *Checker) sentAt(r *actorRecord, v *view, u *relayed) (float64, bool) {
	if !v.hasPlayer || u.brk || u.at < h.scheduled {
		return u.at, true
	}
	if l := r.sent[v.player]; l != nil {
		return l.find(u.s.Time)
	}
	return 0, false
}

// Destroyed records that actor was destroyed at host time at.
func (h *Checker) Destroyed(actor uint32, at float64) {
	if r := h.actors[actor]; r != nil && at < r.destroyed {
		r.destroyed = at
		if !math.IsInf(at, 1) {
			h.wrecked[actor] = struct{}{}
		}
	}
}

// Revived records that actor, destroyed, is alive again from host time at (its
// player's wreck time is over, or a new match began). Shots stamped before at while it
// was a wreck stay refused.
func (h *Checker) Revived(actor uint32, at float64) {
	if r := h.actors[actor]; r != nil && r.destroyed <= at && !math.IsInf(r.destroyed, 1) {
		r.destroyed = math.Inf(1)
		r.revived = at
		delete(h.wrecked, actor)
	}
}

// shareGun makes actor fire with gun g: the reload of the player it belongs to.
func (h *Checker) shareGun(actor uint32, g *gunState) {
	if r := h.actors[actor]; r != nil {
		r.gun = g
	}
}

// Despawned records that actor left the match at host time at. Its record stays a
// while, so late claims about it are answered; Forget drops old records.
func (h *Checker) Despawned(actor uint32, at float64) {
	if r := h.actors[actor]; r != nil && at < r.gone {
		r.gone = at
		h.goneBy = math.Min(h.goneBy, at)
	}
}

// Forget drops the records of actors gone and shots fired before host time before.
func (h *Checker) Forget(before float64) {
	if h.goneBy < before {
		h.goneBy = math.Inf(1)
		for id, r := range h.actors {
			if r.gone < before {
				delete(h.actors, id)
				delete(h.wrecked, id)
			} else if r.gone < h.goneBy {
				h.goneBy = r.gone
			}
		}
	}
	if h.expireBy < before {
		h.expireBy = math.Inf(1)
		for k, s := range h.shots {
			if end := s.shot.Time + combat.ShellLifetime; end < before {
				delete(h.shots, k)
			} else if end < h.expireBy {
				h.expireBy = end
			}
		}
	}
}

// Counts returns how many claims were judged, by reason (index combat.Accepted counts
// the accepted ones); repeats of a judged claim are not counted. It is safe for
// concurrent use.
func (h *Checker) Counts() [combat.NumReasons]uint64 {
	var c [combat.NumReasons]uint64
	for i := range h.counts {
		c[i] = h.counts[i].Load()
	}
	return c
}

// owns reports whether player owner owns (or owned: shells outlive their tanks) actor.
func (h *Checker) owns(owner, actor uint32) bool {
	r := h.actors[actor]
	return r != nil && r.owner == owner
}

// Fired records shot s, heard by the host at host time at, and says whether it is a
// valid shot: the shooter in the match and alive, the reload respected, the time
// plausible and the origin within the muzzle's reach of where the shooter last said it
// was. Claims about a void shot are refused for the same reason.
func (h *Checker) Fired(s combat.Shot, at float64) combat.Reason {
	k := shotKey{s.Shooter, s.ID}
	if _, dup := h.shots[k]; dup {
		return combat.RejectUnknownShot // a repeated shot id
	}
	v := h.fire(s, at)
	h.shots[k] = &shotRecord{shot: s, verdict: v, heard: at}
	if end := s.Time + combat.ShellLifetime; end < h.expireBy {
		h.expireBy = end
	}
	return v
}

func (h *Checker) fire(s combat.Shot, at float64) combat.Reason {
	r := h.actors[s.Shooter]
	switch {
	case r == nil || r.gone <= s.Time || r.destroyed <= s.Time || s.Time < r.revived:
		return combat.RejectShooterDead
	case !s.Valid() || s.Time > at+DefaultFutureSlack || s.Time < at-combat.ShellLifetime:
		// Fire events travel reliably and may be retransmitted: only a shot older
		// than a shell's whole flight, or stamped in the future, is impossible.
		return combat.RejectImpossible
	case r.gun.shot && s.Time-r.gun.lastShot < h.cfg.Reload-DefaultReloadSlack:
		return combat.RejectReload
	}
	if p, ok := h.reported(s.Shooter, r, s.Time); ok && s.Origin.Sub(p).Len() > tank.Default().MuzzleReach()+DefaultOriginSlack {
		return combat.RejectImpossible
	}
	if !h.muzzleHeightPossible(s.Origin) {
		return combat.RejectImpossible
	}
	r.gun.shot, r.gun.lastShot = true, math.Max(r.gun.lastShot, s.Time)
	return combat.Accepted
}

// DefaultMuzzleHeightSlack is how far a shot's origin may lie above the highest
// muzzle a tank on the ground nearby could have, or below the ground under it, m. The
// host needs no reckoning for this bound, so it is tight where DefaultOriginSlack is
// loose: half a metre of hull tilt and ground clamp, the terrain's interpolation
// between the samples, and a tank's hop over a bump.
const DefaultMuzzleHeightSlack = 1.0

// muzzleHeightPossible reports whether o can be a muzzle of a tank on the ground: the
// hull's origin sits on the ground within the tank's muzzle reach of its muzzle
// horizontally, and the muzzle is at most that reach from it, so o may be no higher
// than that above the highest ground within the reach, and not inside the ground under
// it. A shot
// fired from above the hull (over a crest that blocks the true muzzle) or by a tank
// published in the air fails it.
func (h *Checker) muzzleHeightPossible(o mgl64.Vec3) bool {
	g, ok := h.terr.HeightAt(o[0], o[2])
	if !ok || o[1] < g-DefaultMuzzleHeightSlack {
		return false
	}
	top, reach := g, tank.Default().MuzzleReach()
	const rings, spokes = 4, 16
	for i := 1; i <= rings; i++ {
		rad := reach * float64(i) / rings
		for j := 0; j < spokes; j++ {
			a := 2 * math.Pi * float64(j) / spokes
			if y, _ := h.terr.HeightAt(o[0]+rad*math.Cos(a), o[2]+rad*math.Sin(a)); y > top {
				top = y
			}
		}
	}
	return o[1] <= top+reach+DefaultMuzzleHeightSlack
}

// reported returns where the host itself showed actor id (record r) at host time t:
// the peers' reckoning, on the updates as they reached the host.
func (h *Checker) reported(id uint32, r *actorRecord, t float64) (mgl64.Vec3, bool) {
	hp, ok := h.rebuild(id, r, view{time: t}, mgl64.Vec3{}, false)
	return hp.Position, ok
}

// Check judges claim c, arrived at host time at, from a shooter whose link the host
// measured as link, and counts the outcome. A shot is judged once: claims are sent
// unreliably and repeated, and the repeats of a judged claim come back as Duplicate
// verdicts, not counted. A claim about a shot the host has not heard of is refused: the
// shot a claim carries is never taken on its word, since a shot nobody saw announced
// (no tracer) is an invisible shell; Referee holds such a claim until the Fire comes.
func (h *Checker) Check(c combat.Claim, at float64, link ShooterLink) combat.Verdict {
	sr := h.shots[shotKey{c.Shooter, c.Shot}]
	if sr != nil && sr.judged {
		return combat.Verdict{Reason: combat.RejectUnknownShot, Duplicate: true}
	}
	v := h.check(c, at, link)
	if sr != nil {
		sr.judged = true
	}
	h.counts[v.Reason].Add(1)
	return v
}

func (h *Checker) check(c combat.Claim, at float64, link ShooterLink) combat.Verdict {
	sr := h.shots[shotKey{c.Shooter, c.Shot}]
	if sr == nil {
		return combat.Verdict{Reason: combat.RejectUnknownShot}
	}
	if sr.verdict != combat.Accepted {
		return combat.Verdict{Reason: sr.verdict}
	}
	s := sr.shot
	if r := h.claimPossible(c, s, at); r != combat.Accepted {
		return combat.Verdict{Reason: r}
	}
	tr := h.actors[c.Target]
	if r := h.targetHittable(c, s, tr, at, link); r != combat.Accepted {
		return combat.Verdict{Reason: r}
	}
	if h.staleBasis(c, tr, h.shooterView(c, link)) {
		return combat.Verdict{Reason: combat.RejectRewind}
	}
	return h.judge(c, s, tr, link)
}

// claimPossible checks claim c about shot s, arrived at host time at, on its own:
// finite, its impact within the shell's flight and the claim's frame, and not older
// than the host rewinds.
func (h *Checker) claimPossible(c combat.Claim, s combat.Shot, at float64) combat.Reason {
	switch {
	case !geom.Finite(c.Time) || !geom.Finite(c.Impact) || !geom.FiniteVec(c.Local) || !geom.FiniteVec(c.Observer) || !finiteApplied(c.Applied):
		return combat.RejectImpossible
	case c.Impact < s.Time-1e-6 || c.Impact > s.Time+combat.ShellLifetime || c.Impact > c.Time+1e-6 ||
		c.Impact < c.Time-DefaultMaxFrame || c.Time > at+DefaultFutureSlack:
		return combat.RejectImpossible
	case at-c.Time > h.cfg.MaxRewind:
		return combat.RejectRewind
	}
	return combat.Accepted
}

// targetHittable checks what the host knows of the target (record tr) without
// rebuilding the shooter's view: alive, another tank, the point on a hull, no terrain
// in the way, and no break the shooter could not have seen.
func (h *Checker) targetHittable(c combat.Claim, s combat.Shot, tr *actorRecord, at float64, link ShooterLink) combat.Reason {
	if tr == nil || tr.destroyed <= at || tr.gone <= at || c.Target == c.Shooter {
		return combat.RejectTargetDestroyed
	}
	if !combat.OnHull(c.Local, 0.02) {
		return combat.RejectOffHull
	}
	// Terrain and rocks along the path, up to just before the impact. Outside the map
	// nothing passes: the host cannot see the ground there, so a path that starts or
	// strays beyond the edge (the sweep reports it spent) is refused as blocked.
	if !h.onMap(s.Origin) {
		return combat.RejectTerrain
	}
	if imp := combat.SweepPath(h.terr, s, s.Time, c.Impact-entryPast, nil); imp.Kind != combat.ImpactNone {
		return combat.RejectTerrain
	}
	seen := c.Time - link.Latency // relayed by then, the shooter had it by c.Time
	if tr.breakAt > seen && tr.breakAt <= at {
		return combat.RejectTargetBreak
	}
	return combat.Accepted
}

// staleBasis reports whether claim c names, as the newest update of the target
// (record tr) its shooter had applied, one older than the rewind cap allows: the host
// had relayed a newer update that reached the shooter (a latency later) more than
// MaxRewind before the claim's frame. The claim's own time is capped by claimPossible;
// without this, an old named basis reckoned in the static mode would put the target
// where it stood seconds ago, as far back as the update history reaches.
func (h *Checker) staleBasis(c combat.Claim, tr *actorRecord, v view) bool {
	b := c.Applied[0].Update
	if b <= 0 || tr == nil {
		return false
	}
	missed := 0
	for i := 0; i < tr.n; i++ {
		u := tr.at(i)
		if u.s.Time <= b {
			continue
		}
		if at, ok := h.sentAt(tr, &v, u); ok && at+v.link.Latency < c.Time-h.cfg.MaxRewind {
			missed++
		}
	}
	return missed >= staleBasisUpdates
}

// shooterView is the moment of the shooter's view claim c was made in: its frame, its
// link, the updates it names, its reckoning, and the player whose downlink it was.
func (h *Checker) shooterView(c combat.Claim, link ShooterLink) view {
	v := view{time: c.Time, link: link, applied: c.Applied, mode: c.Reckon, hasMode: true}
	if sr := h.actors[c.Shooter]; sr != nil {
		v.player, v.hasPlayer = sr.owner, true
	}
	return v
}

// staleBasisUpdates is how many newer updates, each due at the shooter more than the
// rewind cap before the claim, make a named basis stale. One is not enough: the
// links the game accepts lose up to 30% of datagrams, in bursts of up to four, so an
// honest shooter may have missed a few updates and still claim on the last it got
// (an honest hit was refused when one lost update sat between). Five in a row lost
// happens to an honest shooter about once in 400 claims at 30% loss, and a basis
// five updates old is at most a second and a half old for a moving tank, which
// publishes at least three a second; a parked tank's heartbeats are older, but it
// stands where its old update puts it.
const staleBasisUpdates = 5

// onMap reports whether p lies over the map.
func (h *Checker) onMap(p mgl64.Vec3) bool {
	lo, hi := h.terr.Min(), h.terr.Max()
	return p[0] >= lo[0] && p[0] <= hi[0] && p[2] >= lo[1] && p[2] <= hi[1]
}

// judge rebuilds the target (record tr) as the shooter saw it when claim c was made
// and decides whether shot s hit it there.
func (h *Checker) judge(c combat.Claim, s combat.Shot, tr *actorRecord, link ShooterLink) combat.Verdict {
	hp, ok := h.rebuild(c.Target, tr, h.shooterView(c, link), c.Observer, true)
	if !ok {
		return combat.Verdict{Reason: combat.RejectTargetDestroyed}
	}
	world := hp.Position.Add(hp.Orientation.Rotate(c.Local))
	miss := world.Sub(s.At(c.Impact)).Len()
	v := combat.Verdict{Rebuilt: hp, Miss: miss, Reason: combat.RejectOffHull}
	// The claimed point must be where the shell was, and the shell must be on the
	// rebuilt hull then: a shell that passed a hand's breadth beside the hull the
	// shooter saw did not hit it, however close the claimed point.
	slack, tol := h.cfg.Slack, h.cfg.Tolerance
	if link.OwnTarget {
		slack, tol = math.Max(slack, DefaultOwnTargetSlack), math.Max(tol, DefaultOwnTargetSlack)
	}
	shell := hp.Orientation.Conjugate().Rotate(s.At(c.Impact).Sub(hp.Position))
	if combat.OnHull(shell, slack) && miss <= tol {
		v.Reason = combat.Accepted
	}
	return v
}

// view is a moment of a peer's view to rebuild.
type view struct {
	time    float64                             // host-clock time of the frame, s
	link    ShooterLink                         // the peer's link (zero: the host's own view)
	applied [combat.ClaimApplied]combat.Applied // the newest updates the peer applied (zero: unknown)
	mode    combat.ReckonMode                   // the peer's reckoning, when hasMode
	hasMode bool
	// player is the peer's player, when hasPlayer: it had the updates the host sent it.
	player    uint32
	hasPlayer bool
}

// appliedAt returns when the peer applied the update stamped ts, relayed at host time
// relayed: known (the view names it), skipped (the view names updates before and after
// it, not it: lost on the way), or assumed (older than what the view names).
func (v *view) appliedAt(ts, relayed float64) (at float64, known, skipped bool) {
	oldest := math.Inf(1)
	for _, a := range v.applied {
		if a.Update == 0 || a.At > v.time {
			continue
		}
		if a.Update == ts && a.At >= relayed-DefaultFutureSlack {
			return a.At, true, false
		}
		oldest = math.Min(oldest, a.Update)
	}
	return 0, false, ts > oldest
}

func finiteApplied(a [combat.ClaimApplied]combat.Applied) bool {
	for _, u := range a {
		if !geom.Finite(u.Update) || !geom.Finite(u.At) {
			return false
		}
	}
	return true
}

// rebuildWindow returns the updates of record r that a rebuild of the peer's view v
// replays, first to last: last the newest the peer had (the basis it names, else the
// newest relayed to it a latency before), first at most rebuildUpdates before it (from
// the last break, if later), the first of those that was sent to the peer. It reports
// false when the peer had none.
func (h *Checker) rebuildWindow(r *actorRecord, v *view) (first, last int, ok bool) {
	last = -1
	for i := 0; i < r.n; i++ {
		u := r.at(i)
		sent, ok := h.sentAt(r, v, u)
		if !ok {
			continue // never sent to the peer
		}
		if sent+v.link.Latency > v.time+DefaultFutureSlack {
			break
		}
		last = i
		if b := v.applied[0].Update; b > 0 && u.s.Time >= b {
			break
		}
	}
	if last < 0 {
		return 0, 0, false
	}
	first = max(0, last-rebuildUpdates)
	for i := last; i > first; i-- {
		if r.at(i).brk {
			first = i
			break
		}
	}
	// The first update the peer was sent from there: the others never reached it.
	for first < last {
		if _, ok := h.sentAt(r, v, r.at(first)); ok {
			break
		}
		first++
	}
	return first, last, true
}

// rebuild runs a peer's reckoning of actor id (record r) over the updates it had at v
// and returns the hull it showed then; clamp clamps it to the ground seen from observer.
func (h *Checker) rebuild(id uint32, r *actorRecord, v view, observer mgl64.Vec3, clamp bool) (combat.HullPose, bool) {
	link := v.link
	first, last, ok := h.rebuildWindow(r, &v)
	if !ok {
		return combat.HullPose{}, false
	}
	// A fresh actor: nothing of an earlier rebuild (interval averages, clamp phase)
	// carries over.
	cfg := h.cfg.Reckon
	if v.hasMode {
		cfg.Algorithm, cfg.Clamp.Mode, cfg.CompensateLatency = v.mode.Algorithm, v.mode.Clamp, v.mode.Compensate
	}
	a := deadreckon.NewActor(cfg)
	a.SetClampPhase(int(id))
	a.SetClockOffset(link.ClockOffset)
	// Peer-local times: host time minus the offset.
	local := func(t float64) float64 { return t - link.ClockOffset }
	u := r.at(first)
	sent, _ := h.sentAt(r, &v, u)
	// Along a route as the peer reckons one: the game's algorithm, which Path
	// falls back to off the route (game.Match.routeReckoning).
	path := cfg.Algorithm == deadreckon.ProjectiveVelocityBlend
	var route *deadreckon.Route
	onRoute := func(u *relayed, t float64) bool {
		if !path || u.prog == nil || v.hasPlayer && u.at >= h.scheduled {
			return false // a state, or one the scheduler sent as the state it implies
		}
		if a.Config().Algorithm != deadreckon.Path {
			c := a.Config()
			c.Algorithm = deadreckon.Path
			a.SetConfig(c)
		}
		if u.route != route {
			route = u.route
			a.SetRoute(u.prog.Route, route)
		}
		_ = a.ReceiveProgress(*u.prog, t) // refused progress was refused by the peer too
		return true
	}
	if t := local(sent + link.Latency); u.brk || !onRoute(u, t) {
		if err := a.Break(u.s, t); err != nil {
			return combat.HullPose{}, false
		}
	}
	for i := first + 1; i <= last; i++ {
		u := r.at(i)
		sent, ok := h.sentAt(r, &v, u)
		if !ok {
			continue
		}
		// The peer applies an update in its first frame after the update arrives (on
		// average half a frame later), or exactly when the claim says, and the
		// blend starts from its frame before, with the velocity it measured over that
		// frame: step the actor the same way.
		t := local(sent + link.Latency + rebuildFrame/2)
		at, known, skipped := v.appliedAt(u.s.Time, sent)
		if skipped && !u.brk {
			continue
		}
		if known {
			t = local(at)
		}
		a.Advance(t - 2*rebuildFrame)
		a.Advance(t - rebuildFrame)
		switch {
		case u.brk:
			_ = a.Break(u.s, t)
		case onRoute(u, t):
		default:
			_ = a.Receive(u.s, t) // refused updates were refused by the peer too
		}
	}
	a.Advance(local(v.time))
	if clamp {
		a.ClampTo(h.terr, observer)
	}
	st := a.Reckoned()
	return combat.HullPose{Actor: id, Position: st.Position, Orientation: st.Orientation}, true
}
