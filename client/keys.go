package client

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/render"
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
	heading := l.initAim()
	dt = math.Min(math.Max(dt, 0), 0.1)
	if k(c.turretLeft) {
		l.aimYaw += aimYawRate * dt
	}
	if k(c.turretRight) {
		l.aimYaw -= aimYawRate * dt
	}
	if k(c.gunUp) {
		l.aimGun += aimGunRate * dt
	}
	if k(c.gunDown) {
		l.aimGun -= aimGunRate * dt
	}
	if l.dragLeft {
		l.aimYaw = heading + l.scene.Chase().Yaw
	}
	l.aimYaw = math.Remainder(l.aimYaw, 2*math.Pi)
	l.aimGun = math.Max(aimGunMin, math.Min(aimGunMax, l.aimGun))
	in.AimYaw, in.GunElevation = l.aimYaw, l.aimGun
	l.panels.Scores = k(window.KeyTab)
	return in
}

// initAim points the aim where the player's tank faces when there is no aim yet (at
// the start, and after a respawn), and returns the tank's heading, rad.
func (l *matchScreen) initAim() float64 {
	heading, haveSelf := l.scene.SelfHeading()
	if !l.aimInit && haveSelf {
		l.aimYaw, l.aimGun, l.aimInit = heading, 0, true
	}
	return heading
}

// heldAim is the input while a panel takes the keys (pause menu, chat, a message):
// no throttle or steer, the turret and gun held where they were aimed.
func (l *matchScreen) heldAim() physics.Input {
	l.initAim()
	if !l.aimInit {
		return physics.Input{}
	}
	return physics.Input{AimYaw: l.aimYaw, GunElevation: l.aimGun}
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
	default:
		if b, ok := bindingFor(key); ok {
			l.act(b)
		}
	}
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

func (l *matchScreen) onMouse(ev *window.MouseEvent, down bool) {
	switch ev.Button {
	case window.MouseButtonLeft:
		l.dragLeft = down
	case window.MouseButtonRight:
		l.dragRight = down
	}
	l.lastX, l.lastY = ev.Xpos, ev.Ypos
}

func (l *matchScreen) onCursor(ev *window.CursorEvent) {
	dx, dy := ev.Xpos-l.lastX, ev.Ypos-l.lastY
	l.lastX, l.lastY = ev.Xpos, ev.Ypos
	if l.dragLeft || l.dragRight {
		k := orbitPerPx * l.cfg.Settings.MouseSensitivity
		pitch := float64(dy) * k
		if l.cfg.Settings.InvertMouse {
			pitch = -pitch
		}
		l.scene.Chase().Orbit(-float64(dx)*k, pitch)
	}
}
