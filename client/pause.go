package client

import "github.com/g3n/engine/window"

// openPause shows the pause menu (Esc in a match): resume, settings, leave. A match
// that can pause (RunConfig.Pause) stops; any other goes on behind it, the player's
// tank stopped with its aim held.
func (l *matchScreen) openPause() {
	set := l.cfg.Settings
	apply := func() {
		l.applySettings()
		if l.cfg.OnSettings != nil {
			l.cfg.OnSettings(*set)
		}
	}
	l.pause = pauseMenu(set, l.closePause, func() { l.leave = true }, apply)
	if l.cfg.Pause != nil && l.cfg.Pause(true) {
		l.pause.stack[0].hint = "the match is paused · Esc back to the battle"
		l.pause.changed = true
	}
	l.drawPause()
}

// closePause hides the pause menu, and lets a paused match go on.
func (l *matchScreen) closePause() {
	l.pause = nil
	l.scene.HideMenu()
	if l.cfg.Pause != nil {
		l.cfg.Pause(false)
	}
}

// pauseKey passes a key to the pause menu; Esc on its first screen resumes.
func (l *matchScreen) pauseKey(k window.Key) {
	l.pause.key(k)
	if l.pause != nil && l.pause.closed {
		l.closePause()
	}
}

// onChar passes a typed character to the pause menu (the name field), or else to the
// chat line.
func (l *matchScreen) onChar(r rune) {
	if l.pause != nil {
		l.pause.char(r)
		return
	}
	l.typeRune(r)
}

// applySettings puts the settings into effect at once: controls, field of view and
// volume (mouse sensitivity and inversion are read as the mouse moves).
func (l *matchScreen) applySettings() {
	set := l.cfg.Settings
	l.ctl = controlsOf(*set)
	if l.aim.keys != set.KeyAim {
		l.aim.keys, l.aim.ready = set.KeyAim, false
	}
	l.scene.SetHelp(helpLines(*set))
	l.scene.SetFOV(fovRadians(set.FOV))
	vol := set.Volume
	if set.Mute {
		vol = 0
	}
	l.cfg.Sound.SetVolume(vol)
}

// drawPause passes the pause menu's page to the scene when it changed, before a frame
// is drawn.
func (l *matchScreen) drawPause() {
	if l.pause == nil || !l.pause.changed {
		return
	}
	l.pause.changed = false
	l.scene.ShowMenu(l.pause.page())
}
