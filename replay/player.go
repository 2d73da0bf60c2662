package replay

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"sort"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// Playback limits and defaults.
const (
	// MinSpeed and MaxSpeed bound the playback speed.
	MinSpeed, MaxSpeed = 0.25, 4.0
	// FrameStep is the step of StepFrame in a recording without ticks, s.
	FrameStep = 1.0 / 60
	// seekStep is the step a seek fast-forwards with until seekSettle before its
	// target, and the step after, s: coarse steps are cheap, fine ones let the
	// reckoning settle as it would have.
	seekStep, seekFine, seekSettle = 0.1, 1.0 / 60, 2.0
	// truthGap is the widest gap between two true poses that is interpolated, s.
	truthGap = 0.5
	// KillCamLead is how long before a kill the kill camera starts, s.
	KillCamLead = 5.0
	// KillCamTail is how long after the kill it keeps playing, s.
	KillCamTail = 1.5
	// replayLookahead is how far past the present, beyond the link's latency, the
	// replay hands the Delayed algorithm its updates, s: a heartbeat, the longest
	// gap between two updates of a tank.
	replayLookahead = 1.0
	// replayDelay is the Delayed algorithm's delay in a replay, s: all but zero, for
	// the updates around the present are already there.
	replayDelay = 1e-3
)

// PlayerConfig sets up a Player. Map is required.
type PlayerConfig struct {
	// Map is the battlefield the recording was made on (its Meta.Map).
	Map *terrain.Map
	// DeadReckoning is how the replay reckons every tank from its recorded updates;
	// if zero, the recording's own (Meta.DeadReckoning) with the Delayed algorithm,
	// the right way to watch a recording (see Player).
	DeadReckoning deadreckon.PublisherConfig
	// Logger receives the replay's match log lines; if nil, none.
	Logger *slog.Logger
}

// Player plays a Recording back through a game.Match on a Link, so that every tank
// is reckoned from its recorded updates as a live client would, with any algorithm:
// play, pause, seek, speed, frame steps; a second algorithm's view of every tank (A/B)
// and, where the recording has it, the truth, each with its error; and a kill camera.
//
// Delayed dead reckoning is its default. Live, it shows every tank a fixed delay in
// the past, the price of interpolating between two real updates instead of
// extrapolating past the last one. In a recording the future has already arrived: the
// Player hands the delayed reckoner each update early, by the link's latency and a
// heartbeat, and cuts its delay to a millisecond, so it interpolates between real
// updates at every instant and shows each tank where it was at that instant: no
// overshoot, no pop, no lag. Switching to another algorithm replays what a live
// player with that algorithm would have seen.
//
// A Player is not safe for concurrent use.
type Player struct {
	rec    *Recording
	cfg    PlayerConfig
	dr     deadreckon.PublisherConfig
	link   *Link
	match  *game.Match
	t      float64
	speed  float64
	paused bool
	camera mgl64.Vec3
	hasCam bool
	// forward and halfAngle are the camera's view (SetCameraView), when hasView.
	forward   mgl64.Vec3
	halfAngle float64
	hasView   bool
	detail    game.ViewDetail // which of the views' costlier fields the match fills

	alt    alternate
	truth  bool
	kill   *killCam
	closed bool // Close was called: every match the player makes is closed
}

// NewPlayer returns a player paused at the start of rec.
func NewPlayer(rec *Recording, cfg PlayerConfig) (*Player, error) {
	if cfg.Map == nil {
		return nil, errors.New("replay: no map")
	}
	p := &Player{rec: rec, cfg: cfg, speed: 1, truth: true}
	p.dr = cfg.DeadReckoning
	if p.dr == (deadreckon.PublisherConfig{}) {
		p.dr = rec.Meta.DeadReckoning
		if p.dr == (deadreckon.PublisherConfig{}) {
			p.dr = game.DeadReckoning()
		}
		p.dr.Reckon.Algorithm = deadreckon.Delayed
	}
	p.alt.algo = deadreckon.ProjectiveVelocityBlend
	p.fitDelay()
	if err := p.restart(); err != nil {
		return nil, err
	}
	return p, nil
}

// fitDelay gives the Delayed algorithm the replay's delay: the recording holds the
// future, so it need not wait for it.
func (p *Player) fitDelay() {
	if p.dr.Reckon.Algorithm == deadreckon.Delayed {
		p.dr.Reckon.Delay = replayDelay
	}
}

// restart rebuilds the match at the start of the recording.
func (p *Player) restart() error {
	p.link = NewLink(p.rec)
	m, err := game.NewMatch(game.Config{Map: p.cfg.Map, NoPlayer: true, DeadReckoning: p.dr,
		Logger: p.cfg.Logger}, p.link)
	if err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	if p.match != nil {
		p.match.Close() // its reckoning's goroutines, in a large match
	}
	if p.closed {
		m.Close()
	}
	p.match, p.t = m, p.rec.Start
	p.alt.reset()
	p.applyLead()
	if p.hasCam {
		m.SetCamera(p.camera)
	}
	if p.hasView {
		m.SetCameraView(p.camera, p.forward, p.halfAngle)
	}
	m.SetViewDetail(p.detail)
	return nil
}

// applyLead sets how early the link hands out updates: for the Delayed algorithm,
// the link's latency and a heartbeat, so that the update after the present has
// always arrived and the delayed reckoner, whose delay the replay makes all but
// zero, interpolates the present between two real updates.
func (p *Player) applyLead() {
	lead := 0.0
	if p.dr.Reckon.Algorithm == deadreckon.Delayed {
		lead = p.rec.Latency() + replayLookahead
	}
	p.link.SetLead(lead)
}

// Close stops the goroutines the replay's match starts to reckon a crowd of more
// than 256 tanks (game.Match.Close): a caller done with a player closes it, or those
// goroutines, each on a thread of its own, outlive it. The player stays usable, and
// reckons on the caller's goroutine from then on. Close is idempotent.
func (p *Player) Close() {
	p.closed = true
	p.match.Close()
}

// Closed reports whether Close was called.
func (p *Player) Closed() bool { return p.closed }

// Map returns the map the replay plays on.
func (p *Player) Map() *terrain.Map { return p.cfg.Map }

// Recording returns the recording played.
func (p *Player) Recording() *Recording { return p.rec }

// Time returns the replay's time, s on the recorder's clock.
func (p *Player) Time() float64 { return p.t }

// Speed returns the playback speed; Paused whether playback is paused.
func (p *Player) Speed() float64 { return p.speed }

// Paused reports whether playback is paused.
func (p *Player) Paused() bool { return p.paused }

// SetPaused pauses or resumes playback.
func (p *Player) SetPaused(on bool) { p.paused = on }

// SetSpeed sets the playback speed, clamped to MinSpeed…MaxSpeed.
func (p *Player) SetSpeed(s float64) {
	if !(s > 0) {
		s = 1
	}
	p.speed = math.Max(MinSpeed, math.Min(MaxSpeed, s))
}

// SetCamera tells the replay where the camera stands, for the clamp's level of
// detail.
func (p *Player) SetCamera(c mgl64.Vec3) {
	if geom.FiniteVec(c) {
		p.camera, p.hasCam = c, true
		p.match.SetCamera(c)
		p.alt.camera = c
	}
}

// SetCameraView tells the replay where the camera stands and looks, as
// game.Match.SetCameraView tells a live match: eye in world meters, forward the
// view's axis (any length) and halfAngle the half-angle of a cone that holds the
// picture, rad. The replay then reckons the tanks in the picture and near the camera
// in full and the others in low mode, as the live match does; until it is told,
// every tank counts as out of view. A view that is not finite, a zero axis or a
// half-angle outside (0, π) is ignored.
func (p *Player) SetCameraView(eye, forward mgl64.Vec3, halfAngle float64) {
	if !geom.FiniteVec(eye) || !geom.FiniteVec(forward) || !(forward.Len() > 0) || !(halfAngle > 0 && halfAngle < math.Pi) {
		return
	}
	p.SetCamera(eye)
	p.forward, p.halfAngle, p.hasView = forward, halfAngle, true
	p.match.SetCameraView(eye, forward, halfAngle)
}

// SetViewDetail says which of the snapshots' costlier fields the next steps fill
// (game.Match.SetViewDetail): a viewer whose overlays read neither the ghosts'
// projection nor the trails spares projecting every tank's last-known state at every
// step. The zero value, the default, fills everything.
func (p *Player) SetViewDetail(d game.ViewDetail) {
	p.detail = d
	p.match.SetViewDetail(d)
}

// Advance plays on for dt seconds of wall time at the playback speed (nothing when
// paused) and returns the match's error, if any.
func (p *Player) Advance(dt float64) error {
	if p.paused || !(dt > 0) {
		return nil
	}
	return p.stepTo(p.t + dt*p.speed)
}

// StepFrame plays on to the recorder's next tick (or FrameStep without ticks) and
// pauses.
func (p *Player) StepFrame() error {
	p.paused = true
	fr := p.rec.Frames
	i := sort.Search(len(fr), func(i int) bool { return fr[i].Time > p.t+1e-9 })
	next := p.t + FrameStep
	if i < len(fr) {
		next = fr[i].Time
	}
	return p.stepTo(next)
}

// Seek moves the replay to time t (clamped to the recording). Seeking back replays
// from the start, fast.
func (p *Player) Seek(t float64) error {
	_, err := p.SeekSteps(t, 0)
	return err
}

// SeekSteps is Seek in parts: it takes at most n of the seek's steps (n ≤ 0: all)
// and reports whether the replay has reached t, so that a caller can spread a long
// seek over several frames. Its steps are Seek's, so a seek done in parts ends where
// one done at once does, in the same state.
func (p *Player) SeekSteps(t float64, n int) (done bool, err error) {
	t = math.Max(p.rec.Start, math.Min(p.rec.End, t))
	if t < p.t {
		if err := p.restart(); err != nil {
			return false, err
		}
	}
	for taken := 0; p.t < t; taken++ {
		if n > 0 && taken == n {
			return false, nil
		}
		// Fast up to seekSettle before t, then at a live client's rate.
		next := math.Min(p.t+seekFine, t)
		if p.t < t-seekSettle {
			next = math.Min(p.t+seekStep, t-seekSettle)
		}
		if err := p.stepTo(next); err != nil {
			return false, err
		}
	}
	return true, nil
}

// stepTo steps the match to t, at most game.DefaultMaxStep at a time.
func (p *Player) stepTo(t float64) error {
	t = math.Min(t, p.rec.End+KillCamTail)
	for p.t < t {
		p.t = math.Min(t, p.t+game.DefaultMaxStep)
		if err := p.step(p.t); err != nil {
			return err
		}
	}
	if p.kill != nil && p.t >= p.kill.until {
		p.kill = nil
	}
	return nil
}

// step runs one tick of the replay at time t.
func (p *Player) step(t float64) error {
	p.link.SetNow(t)
	if err := p.match.Step(t, physics.Input{}); err != nil {
		return fmt.Errorf("replay: %w", err)
	}
	p.alt.feed(p.rec, t, p.cfg.Map)
	if p.kill != nil {
		p.kill.feed(t, p.rec.ClockOffset(t), p.cfg.Map, p.camera)
	}
	return nil
}

// Algorithm returns the algorithm the replay reckons every tank with.
func (p *Player) Algorithm() deadreckon.Algorithm { return p.dr.Reckon.Algorithm }

// SetAlgorithm re-reckons every tank with a, from the recorded stream: the replay
// starts over and comes back to where it was.
func (p *Player) SetAlgorithm(a deadreckon.Algorithm) error {
	p.dr.Reckon.Algorithm = a
	p.fitDelay()
	return p.reload()
}

// Clamp returns the ground clamp the replay uses; SetClamp changes it as
// SetAlgorithm does the algorithm.
func (p *Player) Clamp() deadreckon.ClampMode { return p.dr.Reckon.Clamp.Mode }

// SetClamp re-reckons every tank with ground clamp mode c.
func (p *Player) SetClamp(c deadreckon.ClampMode) error {
	p.dr.Reckon.Clamp.Mode = c
	return p.reload()
}

// reload replays up to the present time with the reckoning in force.
func (p *Player) reload() error {
	t := p.t
	if err := p.restart(); err != nil {
		return err
	}
	return p.Seek(t)
}

// SetAlt shows (on) or hides every tank as algorithm a shows it, as a ghost: the A/B
// comparison. The second view is reckoned as live, from each update at its recorded
// time.
func (p *Player) SetAlt(on bool, a deadreckon.Algorithm) error {
	if p.alt.on == on && p.alt.algo == a {
		return nil
	}
	p.alt.on, p.alt.algo = on, a
	p.alt.cfg = p.dr.Reckon
	p.alt.cfg.Algorithm = a
	if !on {
		p.alt.reset()
		return nil
	}
	return p.reload()
}

// Alt reports whether the A/B ghost is shown, and its algorithm.
func (p *Player) Alt() (bool, deadreckon.Algorithm) { return p.alt.on, p.alt.algo }

// SetTruth shows or hides the true poses the recording holds.
func (p *Player) SetTruth(on bool) { p.truth = on }

// Truth reports whether true poses are shown.
func (p *Player) Truth() bool { return p.truth }

// Err returns the replay match's error, if any.
func (p *Player) Err() error { return p.match.Err() }

// Snapshot fills dst with the replay as it stands: the match's snapshot with the A/B
// ghosts, the true poses and their errors, and the kill camera's view.
func (p *Player) Snapshot(dst *game.Snapshot) {
	p.match.Snapshot(dst)
	if p.kill != nil {
		p.kill.apply(dst)
	}
	for i := range dst.Tanks {
		tv := &dst.Tanks[i]
		if p.alt.on {
			if a := p.alt.actors[tv.ID]; a != nil && a.HasState() {
				dst.Ghosts = append(dst.Ghosts, ghostOf(game.GhostAlt, tv, a.Reckoned()))
			}
		}
		if p.truth {
			if t := p.rec.Tanks[tv.ID]; t != nil {
				if pose, ok := t.TruthAt(p.t, truthGap); ok {
					g := game.Ghost{Kind: game.GhostTruth, Of: tv.ID, Position: pose.Position,
						Orientation: pose.Orientation, Turret: pose.Turret, Gun: pose.Gun}
					g.Error = pose.Position.Sub(tv.Position).Len()
					dst.Ghosts = append(dst.Ghosts, g)
				}
			}
		}
	}
}

// ghostOf is a ghost of kind k for tank tv at state s.
func ghostOf(k game.GhostKind, tv *game.TankView, s deadreckon.State) game.Ghost {
	g := game.Ghost{Kind: k, Of: tv.ID, Position: s.Position, Orientation: s.Orientation}
	if s.NumArticulations > 0 {
		g.Turret = s.Articulations[0].Angle
	}
	if s.NumArticulations > 1 {
		g.Gun = s.Articulations[1].Angle
	}
	g.Error = s.Position.Sub(tv.Position).Len()
	return g
}
