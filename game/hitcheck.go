package game

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	tankspec "github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// Defaults for HitCheckConfig.
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
	// is on it at the claimed impact time, m. The rebuild repeats the shooter's reckoning on the updates it had,
	// when it had them, so it lands within millimetres of the shooter's view (the
	// lab's rebuild error: median 0, 95th percentile under 1 cm at 150 ms ± 30 ms and 5%
	// loss); 2 cm keeps hits that graze an edge, and refuses near misses.
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
	// lies between the claim's frame and the one before it.
	DefaultMaxFrame = 0.1
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

// HitCheckConfig sets up a HitChecker. The zero value takes every default.
type HitCheckConfig struct {
	// Reckon is how shooters reckon remote tanks: the host rebuilds their view with it.
	// It must be the configuration the shooters' matches use (Match.ActorConfig).
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

func (c HitCheckConfig) withDefaults() HitCheckConfig {
	if !(c.MaxRewind > 0) {
		c.MaxRewind = DefaultMaxRewind
	}
	if !(c.Tolerance > 0) {
		c.Tolerance = DefaultHitTolerance
	}
	if !(c.Reload > 0) {
		c.Reload = DefaultReload
	}
	if !(c.Slack > 0) {
		c.Slack = DefaultHitSlack
	}
	return c
}

// Reason says why the host refused a shot or a hit claim; Accepted (zero) is no refusal.
type Reason uint8

// The reasons a claim is refused.
const (
	Accepted Reason = iota
	// RejectUnknownShot: no such shot was fired.
	RejectUnknownShot
	// RejectShooterDead: the shooter was destroyed, or had respawned, when it fired.
	RejectShooterDead
	// RejectReload: the shot came sooner after the shooter's previous one than the reload.
	RejectReload
	// RejectImpossible: the shell's time or range is impossible (stamped in the future,
	// impact before firing or after the shell's lifetime, origin out of the shooter's
	// reach, impact time outside the claim's frame).
	RejectImpossible
	// RejectRewind: the claim is older than the rewind cap.
	RejectRewind
	// RejectTerrain: the shell's path meets the terrain or a rock before the impact.
	RejectTerrain
	// RejectTargetDestroyed: the target was already destroyed, or has left the match.
	RejectTargetDestroyed
	// RejectTargetBreak: the target had a continuity break (teleport, respawn) the
	// shooter had not seen when it claimed.
	RejectTargetBreak
	// RejectOffHull: the impact is not on the target's hull as the shooter saw it.
	RejectOffHull
	// NumReasons is the number of reasons, Accepted included.
	NumReasons
)

var reasonNames = [NumReasons]string{"accepted", "unknown_shot", "shooter_dead", "reload", "impossible_time_or_range",
	"rewind_cap", "behind_terrain", "target_destroyed", "target_break", "off_hull"}

// String returns the reason's name as the lab's JSON spells it.
func (r Reason) String() string {
	if r < NumReasons {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", uint8(r))
}

// Claim is a shooter's report that its shell hit a tank on its screen.
type Claim struct {
	// Shooter and Shot identify the shot (the shooter's actor id and the shot's ID).
	Shooter, Shot uint32
	// Target is the actor id of the tank hit.
	Target uint32
	// Time is the host-clock time of the shooter's frame that showed the hit, s.
	Time float64
	// Impact is the host-clock time the shell reached the hull, s, within the frame
	// that ends at Time.
	Impact float64
	// Local is the impact point in the target's hull frame, m.
	Local mgl64.Vec3
	// Fired is the shot itself, so that a claim overtaking its fire event (sent
	// reliably, perhaps retransmitted) can still be judged.
	Fired Shot
	// Reckon is how the shooter reckons remote tanks: a player may switch algorithm,
	// clamp mode and latency compensation (Match.SetAlgorithm…), and the host rebuilds
	// with the shooter's own.
	Reckon ReckonMode
	// Observer is where the shooter clamped remote tanks from (its player's tank, or
	// the origin without one), world meters: the clamp's rays depend on the distance.
	Observer mgl64.Vec3
	// Applied are the newest updates of the target the shooter had applied, newest
	// first (zero entries: unknown). They tell the host which of the updates it relayed
	// the shooter saw (some are lost on the way) and when, so that the rebuilt blends
	// start where the shooter's did and compensate the same latency.
	Applied [ClaimApplied]Applied
}

// ReckonMode is the part of a peer's remote-tank reckoning it may change at run time.
type ReckonMode struct {
	Algorithm  deadreckon.Algorithm
	Clamp      deadreckon.ClampMode
	Compensate bool
}

// Byte packs m for the wire: algorithm in bits 0–2, clamp mode in bits 3–4, latency
// compensation in bit 5.
func (m ReckonMode) Byte() uint8 {
	b := uint8(m.Algorithm)&7 | uint8(m.Clamp)&3<<3
	if m.Compensate {
		b |= 1 << 5
	}
	return b
}

// ReckonModeOf unpacks a ReckonMode byte.
func ReckonModeOf(b uint8) ReckonMode {
	return ReckonMode{Algorithm: deadreckon.Algorithm(b & 7), Clamp: deadreckon.ClampMode(b >> 3 & 3), Compensate: b&(1<<5) != 0}
}

// ModeOf returns the reckoning mode of configuration c.
func ModeOf(c deadreckon.Config) ReckonMode {
	return ReckonMode{Algorithm: c.Algorithm, Clamp: c.Clamp.Mode, Compensate: c.CompensateLatency}
}

// ClaimApplied is how many applied updates a claim names.
const ClaimApplied = 4

// Applied says when a peer applied an update of an actor.
type Applied struct {
	// Update is the update's owner timestamp, host-clock seconds.
	Update float64
	// At is the host-clock time of the frame the peer applied it in, s.
	At float64
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

// Verdict is the host's decision on a claim.
type Verdict struct {
	// Reason is Accepted or why the claim was refused.
	Reason Reason
	// Rebuilt is the target's hull as the host rebuilt the shooter's view (valid once
	// the rebuild ran).
	Rebuilt HullPose
	// Miss is the distance between the shell at the impact time and the claimed impact
	// point on the rebuilt hull, m (valid once the rebuild ran).
	Miss float64
	// Duplicate reports a repeat of a claim already judged; it is not counted.
	Duplicate bool
}

// relayed is one update the host relayed, with its host time.
type relayed struct {
	s   deadreckon.State
	at  float64
	brk bool // a continuity break (spawn)
}

// actorRecord is the host's history of one actor.
type actorRecord struct {
	owner     uint32
	ring      [hitHistory]relayed
	n, head   int // count and index of the oldest
	breakAt   float64
	destroyed float64 // host time it was destroyed; +Inf while alive
	gone      float64 // host time it left the match; +Inf while in it
	lastShot  float64
	shot      bool
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
	shot    Shot
	verdict Reason // Accepted, or why the shot itself is void
	judged  bool   // a claim about it was judged
	heard   float64
}

// HitChecker is the host's judge of who hit whom. It keeps a short history of the
// updates the host relayed for each actor, with their host times; for a claim it
// rebuilds the shooter's view of the target by running the same deadreckon code the
// shooter runs over the updates the shooter had (each arrived one host-to-shooter
// latency after the host relayed it), to the claim's time, clamped to the same ground,
// and accepts when the claimed impact point, placed on that hull, lies on the shell's
// path. It decides; it applies no damage (Referee does).
//
// A HitChecker is not safe for concurrent use. Times are host-clock seconds.
type HitChecker struct {
	cfg    HitCheckConfig
	terr   *terrain.Map
	actors map[uint32]*actorRecord
	shots  map[shotKey]*shotRecord
	counts [NumReasons]uint64
}

// NewHitChecker returns a judge for matches on terrain m.
func NewHitChecker(m *terrain.Map, cfg HitCheckConfig) *HitChecker {
	if m == nil {
		panic("game: NewHitChecker without a map")
	}
	cfg = cfg.withDefaults()
	return &HitChecker{cfg: cfg, terr: m, actors: make(map[uint32]*actorRecord),
		shots: make(map[shotKey]*shotRecord)}
}

// Config returns the checker's configuration with defaults filled in.
func (h *HitChecker) Config() HitCheckConfig { return h.cfg }

// Spawned records that actor (owned by owner) entered the match, or re-entered it at a
// new place (a continuity break), with state s at host time at.
func (h *HitChecker) Spawned(actor, owner uint32, s deadreckon.State, at float64) {
	r := h.actors[actor]
	if r == nil {
		r = &actorRecord{owner: owner, destroyed: math.Inf(1), gone: math.Inf(1)}
		h.actors[actor] = r
	}
	r.add(relayed{s: s, at: at, brk: true})
	r.breakAt = at
}

// Relayed records that the host relayed update s of actor at host time at. Updates of
// unknown actors are ignored.
func (h *HitChecker) Relayed(actor uint32, s deadreckon.State, at float64) {
	if r := h.actors[actor]; r != nil {
		r.add(relayed{s: s, at: at})
	}
}

// Destroyed records that actor was destroyed at host time at.
func (h *HitChecker) Destroyed(actor uint32, at float64) {
	if r := h.actors[actor]; r != nil && at < r.destroyed {
		r.destroyed = at
	}
}

// Despawned records that actor left the match at host time at. Its record stays a
// while, so late claims about it are answered; Forget drops old records.
func (h *HitChecker) Despawned(actor uint32, at float64) {
	if r := h.actors[actor]; r != nil && at < r.gone {
		r.gone = at
	}
}

// Forget drops the records of actors gone and shots fired before host time before.
func (h *HitChecker) Forget(before float64) {
	for id, r := range h.actors {
		if r.gone < before {
			delete(h.actors, id)
		}
	}
	for k, s := range h.shots {
		if s.shot.Time+ShellLifetime < before {
			delete(h.shots, k)
		}
	}
}

// Counts returns how many claims and shots were refused, by reason (index Accepted
// counts accepted claims).
func (h *HitChecker) Counts() [NumReasons]uint64 { return h.counts }

// Fired records shot s, heard by the host at host time at, and says whether it is a
// valid shot: the shooter in the match and alive, the reload respected, the time
// plausible and the origin within the muzzle's reach of where the shooter last said it
// was. Claims about a void shot are refused for the same reason.
func (h *HitChecker) Fired(s Shot, at float64) Reason {
	k := shotKey{s.Shooter, s.ID}
	if _, dup := h.shots[k]; dup {
		return RejectUnknownShot // a repeated shot id
	}
	v := h.fire(s, at)
	h.shots[k] = &shotRecord{shot: s, verdict: v, heard: at}
	return v
}

func (h *HitChecker) fire(s Shot, at float64) Reason {
	r := h.actors[s.Shooter]
	switch {
	case r == nil || r.gone <= s.Time || r.destroyed <= s.Time:
		return RejectShooterDead
	case !s.Valid() || s.Time > at+DefaultFutureSlack || s.Time < at-ShellLifetime:
		// Fire events travel reliably and may be retransmitted: only a shot older
		// than a shell's whole flight, or stamped in the future, is impossible.
		return RejectImpossible
	case r.shot && s.Time-r.lastShot < h.cfg.Reload-DefaultReloadSlack:
		return RejectReload
	}
	if p, ok := h.reported(s.Shooter, r, s.Time); ok && s.Origin.Sub(p).Len() > tankspec.Default().MuzzleReach()+DefaultOriginSlack {
		return RejectImpossible
	}
	r.shot, r.lastShot = true, s.Time
	return Accepted
}

// reported returns where the host itself showed actor id (record r) at host time t:
// the peers' reckoning, on the updates as they reached the host.
func (h *HitChecker) reported(id uint32, r *actorRecord, t float64) (mgl64.Vec3, bool) {
	hp, ok := h.rebuild(id, r, view{time: t}, mgl64.Vec3{}, false)
	return hp.Position, ok
}

// Check judges claim c, arrived at host time at, from a shooter whose link the host
// measured as link, and counts the outcome. A shot is judged once: claims are sent
// unreliably and repeated, and the repeats of a judged claim come back as Duplicate
// verdicts, not counted. A claim about a shot the host has not heard of yet registers
// the shot it carries, as Fired would.
func (h *HitChecker) Check(c Claim, at float64, link ShooterLink) Verdict {
	k := shotKey{c.Shooter, c.Shot}
	sr := h.shots[k]
	if sr == nil && c.Fired.Shooter == c.Shooter && c.Fired.ID == c.Shot {
		h.Fired(c.Fired, at)
		sr = h.shots[k]
	}
	if sr != nil && sr.judged {
		return Verdict{Reason: RejectUnknownShot, Duplicate: true}
	}
	v := h.check(c, at, link)
	if sr != nil {
		sr.judged = true
	}
	h.counts[v.Reason]++
	return v
}

func (h *HitChecker) check(c Claim, at float64, link ShooterLink) Verdict {
	sr := h.shots[shotKey{c.Shooter, c.Shot}]
	if sr == nil {
		return Verdict{Reason: RejectUnknownShot}
	}
	if sr.verdict != Accepted {
		return Verdict{Reason: sr.verdict}
	}
	s := sr.shot
	if r := h.claimPossible(c, s, at); r != Accepted {
		return Verdict{Reason: r}
	}
	tr := h.actors[c.Target]
	if r := h.targetHittable(c, s, tr, at, link); r != Accepted {
		return Verdict{Reason: r}
	}
	return h.judge(c, s, tr, link)
}

// claimPossible checks claim c about shot s, arrived at host time at, on its own:
// finite, its impact within the shell's flight and the claim's frame, and not older
// than the host rewinds.
func (h *HitChecker) claimPossible(c Claim, s Shot, at float64) Reason {
	switch {
	case !deadreckon.Finite(c.Time) || !deadreckon.Finite(c.Impact) || !deadreckon.FiniteVec(c.Local) || !deadreckon.FiniteVec(c.Observer) || !finiteApplied(c.Applied):
		return RejectImpossible
	case c.Impact < s.Time-1e-6 || c.Impact > s.Time+ShellLifetime || c.Impact > c.Time+1e-6 ||
		c.Impact < c.Time-DefaultMaxFrame || c.Time > at+DefaultFutureSlack:
		return RejectImpossible
	case at-c.Time > h.cfg.MaxRewind:
		return RejectRewind
	}
	return Accepted
}

// targetHittable checks what the host knows of the target (record tr) without
// rebuilding the shooter's view: alive, another tank, the point on a hull, no terrain
// in the way, and no break the shooter could not have seen.
func (h *HitChecker) targetHittable(c Claim, s Shot, tr *actorRecord, at float64, link ShooterLink) Reason {
	if tr == nil || tr.destroyed <= at || tr.gone <= at || c.Target == c.Shooter {
		return RejectTargetDestroyed
	}
	if !OnHull(c.Local, 0.02) {
		return RejectOffHull
	}
	// Terrain and rocks along the path, up to just before the impact.
	if imp := SweepPath(h.terr, s, s.Time, c.Impact-entryPast, nil); imp.Kind == ImpactGround || imp.Kind == ImpactRock {
		return RejectTerrain
	}
	seen := c.Time - link.Latency // relayed by then, the shooter had it by c.Time
	if tr.breakAt > seen && tr.breakAt <= at {
		return RejectTargetBreak
	}
	return Accepted
}

// judge rebuilds the target (record tr) as the shooter saw it when claim c was made
// and decides whether shot s hit it there.
func (h *HitChecker) judge(c Claim, s Shot, tr *actorRecord, link ShooterLink) Verdict {
	hp, ok := h.rebuild(c.Target, tr, view{time: c.Time, link: link, applied: c.Applied, mode: c.Reckon, hasMode: true}, c.Observer, true)
	if !ok {
		return Verdict{Reason: RejectTargetDestroyed}
	}
	world := hp.Position.Add(hp.Orientation.Rotate(c.Local))
	miss := world.Sub(s.At(c.Impact)).Len()
	v := Verdict{Rebuilt: hp, Miss: miss, Reason: RejectOffHull}
	// The claimed point must be where the shell was, and the shell must be on the
	// rebuilt hull then: a shell that passed a hand's breadth beside the hull the
	// shooter saw did not hit it, however close the claimed point.
	slack, tol := h.cfg.Slack, h.cfg.Tolerance
	if link.OwnTarget {
		slack, tol = math.Max(slack, DefaultOwnTargetSlack), math.Max(tol, DefaultOwnTargetSlack)
	}
	shell := hp.Orientation.Conjugate().Rotate(s.At(c.Impact).Sub(hp.Position))
	if OnHull(shell, slack) && miss <= tol {
		v.Reason = Accepted
	}
	return v
}

// view is a moment of a peer's view to rebuild.
type view struct {
	time    float64               // host-clock time of the frame, s
	link    ShooterLink           // the peer's link (zero: the host's own view)
	applied [ClaimApplied]Applied // the newest updates the peer applied (zero: unknown)
	mode    ReckonMode            // the peer's reckoning, when hasMode
	hasMode bool
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

func finiteApplied(a [ClaimApplied]Applied) bool {
	for _, u := range a {
		if !deadreckon.Finite(u.Update) || !deadreckon.Finite(u.At) {
			return false
		}
	}
	return true
}

// rebuild runs a peer's reckoning of actor id (record r) over the updates it had at v
// and returns the hull it showed then; clamp clamps it to the ground seen from observer.
func (h *HitChecker) rebuild(id uint32, r *actorRecord, v view, observer mgl64.Vec3, clamp bool) (HullPose, bool) {
	link := v.link
	// The newest update the peer had: the basis it names, else the newest relayed a
	// latency before.
	last := -1
	for i := 0; i < r.n; i++ {
		u := r.at(i)
		if u.at+link.Latency > v.time+DefaultFutureSlack {
			break
		}
		last = i
		if b := v.applied[0].Update; b > 0 && u.s.Time >= b {
			break
		}
	}
	if last < 0 {
		return HullPose{}, false
	}
	first := max(0, last-rebuildUpdates)
	for i := last; i > first; i-- {
		if r.at(i).brk {
			first = i
			break
		}
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
	if err := a.Break(u.s, local(u.at+link.Latency)); err != nil {
		return HullPose{}, false
	}
	for i := first + 1; i <= last; i++ {
		u := r.at(i)
		// The peer applies an update in its first frame after the update arrives (on
		// average half a frame later), or exactly when the claim says, and the
		// blend starts from its frame before, with the velocity it measured over that
		// frame: step the actor the same way.
		t := local(u.at + link.Latency + rebuildFrame/2)
		at, known, skipped := v.appliedAt(u.s.Time, u.at)
		if skipped && !u.brk {
			continue
		}
		if known {
			t = local(at)
		}
		a.Advance(t - 2*rebuildFrame)
		a.Advance(t - rebuildFrame)
		if u.brk {
			_ = a.Break(u.s, t)
		} else {
			_ = a.Receive(u.s, t) // refused updates were refused by the peer too
		}
	}
	a.Advance(local(v.time))
	if clamp {
		a.ClampTo(h.terr, observer)
	}
	st := a.Reckoned()
	return HullPose{Actor: id, Position: st.Position, Orientation: st.Orientation}, true
}
