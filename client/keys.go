package client

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/terrain"
)

// chatMaxRunes is the longest line the chat box takes.
const chatMaxRunes = game.MaxChatBytes / 2

// input reads the held keys into the player's input and moves the aim.
func (l *matchScreen) input(dt float64) physics.Input {
	defer l.taps.clear()
	if l.panels.Message != "" || l.pause != nil || l.panels.Chat {
		// The tank stops but holds its aim: nothing the player did not steer moves.
		return l.heldAim()
	}
	var in physics.Input
	// Held now, or tapped since the last frame (a tap shorter than a frame).
	k := func(key window.Key) bool { return l.keys.Pressed(key) || l.taps.pressed(key) }
	c := &l.ctl
	if k(c.forward) || k(window.KeyUp) {
		in.Throttle++
	}
	if k(c.back) || k(window.KeyDown) {
		in.Throttle--
	}
	if k(c.left) || k(window.KeyLeft) {
		in.Steer--
	}
	if k(c.right) || k(window.KeyRight) {
		in.Steer++
	}
	open := k(window.KeyTab) || l.cfg.Scoreboard
	if open && !l.panels.Scores {
		l.panels.ScoresPage = 0 // the scoreboard opens on its first page
	}
	l.panels.Scores = open
	if l.snap.Observing {
		return physics.Input{} // the keys fly the camera (observe.go)
	}
	held := aimKeys{left: k(c.turretLeft), right: k(c.turretRight), up: k(c.gunUp), down: k(c.gunDown)}
	aim := l.aimFrame(held, dt)
	in.AimYaw, in.GunElevation = aim.AimYaw, aim.GunElevation
	return in
}

// aimFrame runs the aimer for this frame: the chase camera's orbit, the line of
// sight from the last frame's camera, and the turret's and gun's aim. Without a
// tank of the player's, the aim is held.
func (l *matchScreen) aimFrame(held aimKeys, dt float64) physics.Input {
	me, ok := l.self()
	if !ok {
		return l.aim.in
	}
	if !l.aim.ready {
		l.aim.reset(me)
	}
	view := l.scene.View()
	var sight mgl64.Vec3
	if _, placed := l.scene.Eye(); placed {
		sight = sightPoint(view.Eye, view.Forward(), l.cfg.Raycast, l.hulls(), l.snap.Tanks[l.snap.Self].ID)
	} else {
		sight = mgl64.Vec3{math.NaN()}
	}
	in := l.aim.update(me, sight, l.dragRight, held, dt)
	l.scene.Chase().Yaw = l.aim.orbit(me)
	return in
}

// self returns the pose of the player's tank in the match's last snapshot, and
// false when there is none.
func (l *matchScreen) self() (gunPose, bool) {
	i := l.snap.Self
	if i < 0 || i >= len(l.snap.Tanks) || !geom.FiniteVec(l.snap.Tanks[i].Position) {
		return gunPose{}, false
	}
	t := &l.snap.Tanks[i]
	return gunPose{Position: t.Position, Orientation: t.Orientation, Turret: t.Turret, Gun: t.Gun}, true
}

// hulls returns the hulls of the match's last snapshot that stop a line of sight:
// every tank but the wrecks.
func (l *matchScreen) hulls() []combat.HullPose {
	l.hullBuf = l.hullBuf[:0]
	for i := range l.snap.Tanks {
		t := &l.snap.Tanks[i]
		if !t.Wreck && geom.FiniteVec(t.Position) {
			l.hullBuf = append(l.hullBuf, combat.HullPose{Actor: t.ID, Position: t.Position, Orientation: t.Orientation})
		}
	}
	return l.hullBuf
}

// captureCursor keeps the cursor in the window, hidden, while the mouse aims (a
// match in play, no panel taking the keys, aiming with the mouse, a person playing
// rather than a screenshot or benchmark), and gives it back otherwise.
func (l *matchScreen) captureCursor(on bool) {
	on = on && !l.aim.keys && l.pause == nil && !l.panels.Chat && l.panels.Message == "" &&
		l.cfg.FixedStep == 0 && l.cfg.Screenshot == "" && l.cfg.BenchFrames == 0
	if on != l.captured && l.v != nil {
		l.v.CaptureCursor(on)
		l.captured, l.cursorSeen = on, false // the next position is a new origin
	}
}

// markGun puts the gun marker of the match's last snapshot where gunMark says for
// this frame's aim: where the gun lies now, at the aim point's range when its shell
// would meet nothing nearer, and blocked when the ground or a rock stops it short of
// the aim point.
func (l *matchScreen) markGun() {
	me, ok := l.self()
	if !ok || !l.aim.ready {
		return
	}
	cv := &l.snap.Combat
	var mp *terrain.Map
	if m, ok := l.s.(interface{ Terrain() *terrain.Map }); ok {
		mp = m.Terrain()
	}
	m := gunMark(me, l.aim.point, mp, l.cfg.Raycast, l.hulls(), l.snap.Tanks[l.snap.Self].ID)
	cv.Aim, cv.HasAim, cv.AimBlocked = m.Point, true, m.Blocked
}

// heldAim is the input while a panel takes the keys (pause menu, chat, a message):
// no throttle or steer, the turret and gun held where they were aimed.
func (l *matchScreen) heldAim() physics.Input {
	if !l.aim.ready {
		if me, ok := l.self(); ok {
			l.aim.reset(me)
		}
	}
	return l.aim.in
}

// onKey handles a key press: the pause menu, the chat box or the message over the
// match take it when open; otherwise its binding acts.
func (l *matchScreen) onKey(key window.Key) {
	switch {
	case l.pause != nil:
		l.pauseKey(key)
	case l.panels.Chat:
		l.chatKey(key)
	case l.panels.Message != "":
		l.messageKey(key)
	case l.panels.Scores && key == window.KeyPageUp:
		l.turnScores(-1)
	case l.panels.Scores && key == window.KeyPageDown:
		l.turnScores(1)
	case l.observeKey(key):
	default:
		if b, ok := bindingFor(key); ok {
			l.act(b)
		}
	}
}

// turnScores turns the open scoreboard by d pages, within its pages.
func (l *matchScreen) turnScores(d int) {
	_, pages := l.scene.ScoresPages()
	l.panels.ScoresPage = min(max(l.panels.ScoresPage+d, 0), pages-1)
}

// onScroll turns the scoreboard's pages while it is open (a notch away from the
// player, the next page), and otherwise zooms the chase camera.
func (l *matchScreen) onScroll(notches float64) {
	if l.panels.Scores {
		switch {
		case notches < 0:
			l.turnScores(1)
		case notches > 0:
			l.turnScores(-1)
		}
		return
	}
	l.scene.Chase().Zoom(math.Pow(zoomPerNotch, notches))
}

// messageKey handles a key press while a message shows over the match: Enter leaves,
// Esc hides it.
func (l *matchScreen) messageKey(key window.Key) {
	switch key {
	case window.KeyEnter, window.KeyKPEnter:
		l.leave = true
	case window.KeyEscape:
		l.panels.Message = ""
	}
}

// act does what binding b is for.
func (l *matchScreen) act(b binding) {
	switch b.act {
	case actChat:
		l.panels.Chat, l.panels.ChatLine = true, ""
	case actHelp:
		l.panels.Help = !l.panels.Help
	case actDebug:
		l.panels.Debug = !l.panels.Debug
	case actMenu:
		l.closeHelpOrPause()
	case actToggleOverlay:
		l.toggleOverlay(b.overlay)
	case actAllOverlays:
		l.toggleAllOverlays()
	case actAlgorithm:
		l.setAlgorithm(b.algo)
	case actNextAlgorithm:
		l.setAlgorithm(nextAlgorithm(l.s.Algorithm()))
	case actNextClamp:
		c := nextClamp(l.s.Clamp())
		l.s.SetClamp(c)
		l.scene.Flash("ground clamp: " + c.String())
	case actResetCamera:
		c := l.scene.Chase()
		c.Yaw, c.Pitch, c.Distance = 0, 0, 0
		if me, ok := l.self(); ok {
			l.aim.camYaw = geom.Yaw(me.Orientation)
		}
	case actWatchNext:
		l.watchNext()
	case actFire:
		if !l.cam.skip(l) {
			l.s.Fire()
		}
	case actRespawn:
		l.s.Respawn()
		l.respawned = true
		l.scene.Flash("respawning")
	}
}

// closeHelpOrPause closes the help when it shows, and otherwise opens the pause menu.
func (l *matchScreen) closeHelpOrPause() {
	if l.panels.Help {
		l.panels.Help = false
		return
	}
	l.openPause()
}

// toggleOverlay turns overlay o on or off and says which.
func (l *matchScreen) toggleOverlay(o render.Overlay) {
	on := l.scene.Overlays() ^ o
	l.scene.SetOverlays(on)
	state := "off"
	if on&o != 0 {
		state = "on"
	}
	l.scene.Flash(fmt.Sprintf("overlay %s %s", o, state))
}

// toggleAllOverlays turns every overlay on, or all off when all are on.
func (l *matchScreen) toggleAllOverlays() {
	o := render.OverlayAll
	if l.scene.Overlays() == render.OverlayAll {
		o = 0
	}
	l.scene.SetOverlays(o)
	l.scene.Flash("overlays: " + overlayOrNone(o))
}

// watchNext moves the camera on to the next tank, and says whose.
func (l *matchScreen) watchNext() {
	if name := l.scene.WatchNext(&l.snap); name != "" {
		l.scene.Flash("watching " + name)
	} else {
		l.scene.Flash("watching your tank")
	}
}

// chatKey handles a key press while the chat box is open: Enter sends the line, Esc
// drops it, Backspace deletes; characters arrive through OnChar.
func (l *matchScreen) chatKey(key window.Key) {
	switch key {
	case window.KeyEnter, window.KeyKPEnter:
		text := l.panels.ChatLine
		l.panels.Chat = false
		if strings.TrimSpace(text) == "" {
			return
		}
		if err := l.s.Chat(text); err != nil {
			l.scene.Flash("chat not sent: " + err.Error())
		}
	case window.KeyEscape:
		l.panels.Chat = false
	case window.KeyBackspace:
		l.backspace()
	}
}

// typeRune adds r to the chat line, when the chat box is open and the line has room.
func (l *matchScreen) typeRune(r rune) {
	p := &l.panels
	if !p.Chat || r < ' ' || utf8.RuneCountInString(p.ChatLine) >= chatMaxRunes {
		return
	}
	p.ChatLine += string(r)
}

// backspace removes the chat line's last character.
func (l *matchScreen) backspace() {
	p := &l.panels
	if p.Chat && p.ChatLine != "" {
		_, n := utf8.DecodeLastRuneInString(p.ChatLine)
		p.ChatLine = p.ChatLine[:len(p.ChatLine)-n]
	}
}

func (l *matchScreen) setAlgorithm(a deadreckon.Algorithm) {
	l.s.SetAlgorithm(a)
	l.scene.Flash("algorithm: " + a.String())
}

func overlayOrNone(o render.Overlay) string {
	if o == 0 {
		return "none"
	}
	return o.String()
}

// onMouse handles a mouse button: the left fires (or skips the kill camera), the
// right held looks around without moving the aim; under key aim, either held lets
// the mouse tilt the camera.
func (l *matchScreen) onMouse(ev *window.MouseEvent, down bool) {
	switch ev.Button {
	case window.MouseButtonLeft:
		l.dragLeft = down
		if down && l.pause == nil && !l.panels.Chat && l.panels.Message == "" {
			l.act(binding{act: actFire})
		}
	case window.MouseButtonRight:
		l.dragRight = down
	}
	l.lastX, l.lastY = ev.Xpos, ev.Ypos
}

// onCursor turns the camera with the mouse: always under mouse aim (the turret
// follows where it looks), while a button is held under key aim (the camera only
// tilts there: it looks along the turret). It does nothing while a panel takes the
// keys.
func (l *matchScreen) onCursor(ev *window.CursorEvent) {
	dx, dy := float64(ev.Xpos-l.lastX), float64(ev.Ypos-l.lastY)
	l.lastX, l.lastY = ev.Xpos, ev.Ypos
	if !l.cursorSeen {
		l.cursorSeen = true
		return
	}
	if l.pause != nil || l.panels.Chat || l.panels.Message != "" {
		return
	}
	if l.aim.keys && !l.dragLeft && !l.dragRight {
		return
	}
	k := orbitPerPx * l.cfg.Settings.MouseSensitivity
	pitch := dy * k
	if l.cfg.Settings.InvertMouse {
		pitch = -pitch
	}
	if l.snap.Observing {
		l.observeLook(dx, pitch, k)
		return
	}
	l.aim.look(dx, k)
	l.scene.Chase().Orbit(0, pitch)
}
