package client

import (
	"fmt"
	"math"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/terrain"
)

// KillCamMemory is how much of the player's view a match keeps in memory for the
// kill camera (session.Recording.Recent): the longest replay, the seconds before it
// that settle its reckoning, and a margin.
const KillCamMemory = 10 * time.Second

// The kill camera's framing and timing.
const (
	// killCamHeight and killCamBack place the kill camera over the shooter's
	// turret and a little behind it, m.
	killCamHeight, killCamBack = 4.0, 3.0
	// killCamFrame is the half-height of the kill camera's view at its target, m,
	// and killCamMinFOV its narrowest field of view, rad.
	killCamFrame, killCamMinFOV = 10.0, 8 * math.Pi / 180
	// deathCamMinLead and deathCamMaxLead bound how long before the kill a live
	// kill camera starts, s: it fits between the death and the respawn.
	deathCamMinLead, deathCamMaxLead = 2.0, replay.KillCamLead
	// deathCamStale is how long before the end of what the match kept the kill may
	// lie and still be this death's, s.
	deathCamStale = 2.0
)

// killCamShot is where the kill camera stands and looks for kill k in snap: over the
// shooter's turret and a little behind it, looking at the target, with the narrow
// field of view of a gunner's sight (no wider than fov, rad). ok is false when either
// tank is missing from snap.
func killCamShot(snap *game.Snapshot, k replay.Kill, fov float64) (eye, look mgl64.Vec3, fovY float64, ok bool) {
	var shooter, target *game.TankView
	for i := range snap.Tanks {
		switch tv := &snap.Tanks[i]; tv.ID {
		case k.Shooter:
			shooter = tv
		case k.Target:
			target = tv
		}
	}
	if shooter == nil || target == nil {
		return eye, look, fov, false
	}
	d := target.Position.Sub(shooter.Position)
	d[1] = 0
	if n := d.Len(); n > 1e-6 {
		d = d.Mul(killCamBack / n)
	}
	eye = shooter.Position.Add(mgl64.Vec3{0, killCamHeight, 0}).Sub(d)
	look = target.Position.Add(mgl64.Vec3{0, 1.5, 0})
	// Zoom in as a gunner's sight does: the target fills a good part of the picture.
	fovY = 2 * math.Atan(killCamFrame/math.Max(1, look.Sub(eye).Len()))
	return eye, look, math.Max(killCamMinFOV, math.Min(fov, fovY)), true
}

// deathCam is the kill camera of a live match: when the player's tank is destroyed,
// it replays, while the wreck waits, the seconds before the kill from the shooter's
// side (replay.Player's kill camera) out of what the match kept in memory, and shows
// that instead of the match. The match itself goes on untouched. It ends at the
// respawn, at the end of the replay, or when the player skips it (Fire).
type deathCam struct {
	recent func() (*replay.Recording, error)
	mp     *terrain.Map

	p      *replay.Player
	kill   replay.Kill
	snap   game.Snapshot
	tl     render.Timeline
	on     bool
	spent  bool // this death's kill camera ran, was skipped or could not run
	killer string
	shown  int // the respawn countdown in the status, s
	// seeking is set while p seeks to lead seconds before the kill, a part at each
	// frame (seek); askedAt is the screen's elapsed time when the death asked for
	// the kill camera, from which it then plays as if it had started at once.
	seeking bool
	lead    float64
	askedAt float64
}

// killCamSeekChunk is how many of the replay's steps the kill camera's seek takes
// between looks at the clock, and killCamSeekBudget the least time it spends seeking
// in a frame, s; it spends up to half the last frame's time. Seeking to the kill's
// lead replays the seconds kept before it, 0.2 to 0.5 s of the main thread's time in
// a battle of 512 tanks: done in one frame, that froze the picture at each death.
const (
	killCamSeekChunk  = 4
	killCamSeekBudget = 0.010
)

// frame runs the kill camera for one frame of the live match, whose snapshot is
// l.snap, and returns the snapshot to draw: the kill camera's while it plays.
func (c *deathCam) frame(l *matchScreen, dt float64) *game.Snapshot {
	live := &l.snap
	if c.recent == nil || c.mp == nil {
		return live
	}
	if !live.Combat.Wreck {
		c.stop(l)
		c.spent = false
		return live
	}
	if !c.on && !c.seeking && !c.spent {
		c.spent = true
		if err := c.start(l); err != nil {
			l.log.Info("no kill camera", "err", err)
			return live
		}
	}
	if c.seeking {
		if err := c.seek(l, dt); err != nil {
			l.log.Info("no kill camera", "err", err)
			c.stop(l)
			return live
		}
	}
	if !c.on {
		return live // the wreck, while the kill camera's replay seeks
	}
	// As the live match is told (Update): the fields the overlays on now read.
	c.p.SetViewDetail(l.scene.Overlays().ViewDetail())
	if err := c.p.Advance(dt); err != nil {
		l.log.Info("kill camera", "err", err)
		c.stop(l)
		return live
	}
	if _, on := c.p.KillCamOn(); !on {
		c.stop(l)
		return live
	}
	c.p.Snapshot(&c.snap)
	// The figures and the link warning go on telling the live match's link.
	c.snap.Net, c.snap.Algorithm, c.snap.Clamp = live.Net, live.Algorithm, live.Clamp
	c.snap.LatencyCompensation = live.LatencyCompensation
	if eye, look, fov, ok := killCamView(c.p, &c.snap, c.kill, l); ok {
		l.scene.WatchID(c.kill.Shooter)
		l.scene.LookFrom(eye, look, true)
		l.scene.SetFOV(fov)
		l.scene.MarkKill(c.kill.Shooter, c.kill.Target, "you") // the player's own death
	}
	c.tl.Now = c.p.Time()
	if s := int(math.Ceil(live.Combat.RespawnIn)); s != c.shown || c.tl.Status == "" {
		c.shown = s
		c.tl.Status = fmt.Sprintf("KILL CAMERA: %s destroyed you, as %s saw it · magenta: where you were · cyan: the host's check of the hit · respawn in %d s · Space skips",
			c.killer, c.killer, s)
	}
	l.panels.Timeline = &c.tl
	return &c.snap
}

// start builds the replay of this death from what the match kept.
func (c *deathCam) start(l *matchScreen) error {
	rec, err := c.recent()
	if err != nil {
		return err
	}
	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: c.mp})
	if err != nil {
		return err
	}
	defer func() {
		if c.p != p {
			p.Close() // not played: its reckoning's goroutines end with it
		}
	}()
	// The kill of the player's tank; the last of the player's tanks without one (a
	// host's bots are the player's too).
	k, ok := p.LastDeath()
	if self := l.snap.Self; self >= 0 && self < len(l.snap.Tanks) {
		k, ok = p.KillOf(l.snap.Tanks[self].ID)
	}
	if !ok || rec.End-k.Time > deathCamStale {
		return replay.ErrNoKill
	}
	lead := math.Max(deathCamMinLead, math.Min(deathCamMaxLead, l.snap.Combat.RespawnIn-replay.KillCamTail))
	// The seek to the kill's lead shows none of its steps, and each step fills the
	// views afresh: the first step shown fills what the overlays then read.
	p.SetViewDetail(game.ViewDetail{NoProjection: true, NoTrails: true})
	// The replay reckons in full only the tanks its picture shows and those near
	// its camera, as the live match does (game.Match.SetCameraView). Its first
	// picture is framed on the two tanks where the live match last showed them, a
	// few seconds on: near enough that both are reckoned in full from the seek on,
	// so neither changes mode on the first frame shown.
	killCamView(p, &l.snap, k, l)
	c.p, c.kill, c.lead, c.seeking, c.askedAt = p, k, lead, true, l.elapsed
	c.killer = l.snap.Combat.KilledBy
	if t := rec.Tanks[k.Shooter]; t != nil && t.Name != "" {
		c.killer = t.Name
	}
	return nil
}

// seek takes the next part of the replay's seek to the kill's lead: as much of it as
// fits in half the last frame's time, dt s (at least killCamSeekBudget), or all of it
// in a run with a fixed step, whose frames must not depend on the machine. Once
// there, the kill camera starts, caught up to where it would be had it started when
// asked: it still ends at the respawn.
func (c *deathCam) seek(l *matchScreen, dt float64) error {
	to := c.kill.Time - c.lead
	until := math.Inf(1)
	if l.cfg.FixedStep <= 0 {
		until = l.clock() + math.Max(killCamSeekBudget, dt/2)
	}
	for {
		done, err := c.p.SeekSteps(to, killCamSeekChunk)
		if err != nil {
			return err
		}
		if done {
			break
		}
		if l.clock() >= until {
			return nil // on at the next frame
		}
	}
	c.seeking = false
	if err := c.p.KillCamFor(c.kill, c.lead); err != nil { // there already: no seek
		return err
	}
	start := c.p.Time() // the lead, within what the match kept
	if late := l.elapsed - c.askedAt; late > 0 {
		if err := c.p.Advance(late); err != nil {
			return err
		}
	}
	c.on, c.shown = true, -1
	c.tl = render.Timeline{Start: start, End: c.kill.Time + replay.KillCamTail, Now: c.p.Time(), Marks: []float64{c.kill.Time}}
	return nil
}

// killCamView frames kill k's shot on the tanks in snap (killCamShot) and tells
// replay p that view for its next steps. ok is false, and p is told nothing, when
// either tank is missing from snap.
func killCamView(p *replay.Player, snap *game.Snapshot, k replay.Kill, l *matchScreen) (eye, look mgl64.Vec3, fov float64, ok bool) {
	eye, look, fov, ok = killCamShot(snap, k, fovRadians(l.cfg.Settings.FOV))
	if ok {
		v := l.scene.View()
		v.FovY = fov
		p.SetCameraView(eye, look.Sub(eye), v.HalfAngle())
	}
	return eye, look, fov, ok
}

// stop ends the kill camera, or its seek, lets go of its replay, and gives the camera
// back to the match if it played.
func (c *deathCam) stop(l *matchScreen) {
	c.release() // whatever state a failed start or seek left it in
	was := c.on
	c.on, c.seeking, c.p = false, false, nil
	if !was {
		return
	}
	l.scene.LookFrom(mgl64.Vec3{}, mgl64.Vec3{}, false)
	l.scene.MarkKill(0, 0, "")
	l.scene.SetFOV(fovRadians(l.cfg.Settings.FOV))
	l.scene.Watch(l.cfg.Watch)
	l.panels.Timeline = nil
}

// release ends the goroutines the kill camera's replay reckons a crowd on
// (replay.Player.Close), when it stops or the match screen lets go of everything.
// The replay stays readable.
func (c *deathCam) release() {
	if c.p != nil {
		c.p.Close()
	}
}

// skip ends the kill camera at the player's word, or its seek before it plays; it
// reports whether one played or sought.
func (c *deathCam) skip(l *matchScreen) bool {
	if !c.on && !c.seeking {
		return false
	}
	c.stop(l)
	l.scene.Flash("kill camera skipped")
	return true
}
