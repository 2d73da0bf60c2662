package client

import (
	"math"

	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// An observer's camera (game.Config.Observe): it follows a tank (P or Backspace:
// the next one; the mouse orbits) or flies free (F: W A S D move, Q E or the mouse
// turn). The match reports it to the host, which sends the tanks near it.

// Free camera rates of an observer.
const (
	observeFreeSpeed = 40.0 // m/s: under the host's bound on an observer's place (net.observerSpeed)
	observeFreeTurn  = 1.2  // rad/s with Q and E
)

// observeCam is the matchScreen's observer camera.
type observeCam struct {
	started bool
	free    bool
	pos     mgl64.Vec3 // the free camera's point, on the ground
	heading float64
}

// observeHint is the key hint in the corner for an observer's match s, "" (the
// match's) for a player's: an observer is told all the time that it watches.
func observeHint(s Match) string {
	if o, ok := s.(interface{ Observing() bool }); ok && o.Observing() {
		return "observing · P next tank · F free camera · Tab players · Esc menu"
	}
	return ""
}

// follower is a match that reports which tank an observer's camera follows
// (*game.Match).
type follower interface{ SetFollow(actor uint32) }

// observeFrame runs the observer's camera for a frame of dt seconds: the first
// frame follows the first tank, a followed tank that left hands over to the next,
// and the free camera flies by the held keys. The match learns what it follows.
func (l *matchScreen) observeFrame(dt float64) {
	o := &l.observe
	if !o.started {
		o.started = true
		if l.cfg.Watch == "" {
			l.scene.Watch("*")
		}
		l.scene.Flash("observing: P next tank, F free camera (W A S D, Q E), Tab scores")
	}
	var follow uint32
	if !o.free {
		tv := l.scene.Watched(&l.snap)
		if tv == nil && len(l.snap.Tanks) > 0 {
			l.observeNext()
			tv = l.scene.Watched(&l.snap)
		}
		if tv != nil {
			follow = tv.ID
			o.pos, o.heading = tv.Position, geom.Yaw(tv.Orientation)
		}
	} else {
		o.fly(l.keys.Pressed, l.cfg.Ground, dt)
	}
	// The free point also stands in while there is no tank to follow.
	l.scene.LookAt(o.pos, o.heading)
	if f, ok := l.s.(follower); ok {
		f.SetFollow(follow)
	}
}

// fly moves the free camera by the held keys over dt seconds, on the ground.
func (o *observeCam) fly(pressed func(window.Key) bool, ground func(x, z float64) (float64, bool), dt float64) {
	dt = math.Min(math.Max(dt, 0), 0.1)
	fwd := mgl64.Vec3{math.Cos(o.heading), 0, -math.Sin(o.heading)}
	right := mgl64.Vec3{math.Sin(o.heading), 0, math.Cos(o.heading)}
	var move mgl64.Vec3
	if pressed(window.KeyW) || pressed(window.KeyUp) {
		move = move.Add(fwd)
	}
	if pressed(window.KeyS) || pressed(window.KeyDown) {
		move = move.Sub(fwd)
	}
	if pressed(window.KeyD) || pressed(window.KeyRight) {
		move = move.Add(right)
	}
	if pressed(window.KeyA) || pressed(window.KeyLeft) {
		move = move.Sub(right)
	}
	if pressed(window.KeyQ) {
		o.heading += observeFreeTurn * dt
	}
	if pressed(window.KeyE) {
		o.heading -= observeFreeTurn * dt
	}
	if n := move.Len(); n > 0 {
		o.pos = o.pos.Add(move.Mul(observeFreeSpeed * dt / n))
	}
	if ground != nil {
		if h, ok := ground(o.pos[0], o.pos[2]); ok {
			o.pos[1] = h
		}
	}
}

// observeNext follows the next tank, from the first again after the last.
func (l *matchScreen) observeNext() {
	l.observe.free = false
	name := l.scene.WatchNext(&l.snap)
	if name == "" {
		name = l.scene.WatchNext(&l.snap)
	}
	if name != "" {
		l.scene.Flash("following " + name)
	}
}

// observeFree switches between the free camera, starting where the camera is, and
// following a tank.
func (l *matchScreen) observeFree() {
	o := &l.observe
	if o.free {
		l.observeNext()
		return
	}
	o.free = true
	l.scene.WatchID(0)
	l.scene.Watch("")
	l.scene.Flash("free camera: W A S D move, Q E turn, P follows a tank")
}

// observeKey handles an observer's keys; it reports whether key was one.
func (l *matchScreen) observeKey(key window.Key) bool {
	if !l.snap.Observing {
		return false
	}
	switch key {
	case window.KeyP, window.KeyBackspace:
		l.observeNext()
	case window.KeyF:
		l.observeFree()
	default:
		return false
	}
	return true
}

// observeLook turns an observer's camera with the mouse: the free camera's heading,
// or the orbit around the followed tank; pitch tilts either.
func (l *matchScreen) observeLook(dx, pitch, k float64) {
	if l.observe.free {
		l.observe.heading -= dx * k
	} else {
		l.scene.Chase().Orbit(-dx*k, 0)
	}
	l.scene.Chase().Orbit(0, pitch)
}

// stallHintEvery is how often the hint of a stuck tank shows again while it stays
// stuck, s of match time.
const stallHintEvery = 5.0

// stallHint shows the hint of the player's tank stuck on a slope or against
// something (game.Snapshot.Stall) as it begins, and again every stallHintEvery while
// it lasts.
func (l *matchScreen) stallHint() {
	s := l.snap.Stall
	if s == game.StallNone {
		l.stall = game.StallNone
		return
	}
	if s != l.stall || l.elapsed-l.stallAt >= stallHintEvery {
		l.stall, l.stallAt = s, l.elapsed
		l.scene.Flash(s.Hint())
	}
}
