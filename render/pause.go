package render

import "github.com/g3n/engine/window"

// openPause shows the pause menu (Esc in a match): resume, settings, leave. The match
// goes on behind it; the player's tank stops.
func (l *loop) openPause() {
	set := l.cfg.Settings
	apply := func() {
		l.applySettings()
		if l.cfg.OnSettings != nil {
			l.cfg.OnSettings(*set)
		}
	}
	l.pause = pauseMenu(set, l.closePause, func() { l.leave = true }, apply)
	if l.pauseView == nil {
		w, h := l.scene.Size()
		l.pauseView = newMenuView(w, h)
		l.scene.root.Add(l.pauseView.root)
	}
	l.pauseView.root.SetVisible(true)
	l.pauseView.resize(l.scene.cfg.Width, l.scene.cfg.Height, l.pause)
}

// closePause hides the pause menu.
func (l *loop) closePause() {
	l.pause = nil
	if l.pauseView != nil {
		l.pauseView.root.SetVisible(false)
	}
}

// pauseKey passes a key to the pause menu; Esc on its first screen resumes.
func (l *loop) pauseKey(k window.Key) {
	l.pause.key(k)
	if l.pause != nil && l.pause.closed {
		l.closePause()
	}
}

// onChar passes a typed character to the pause menu (the name field), or else to the
// chat line.
func (l *loop) onChar(r rune) {
	if l.pause != nil {
		l.pause.char(r)
		return
	}
	l.scene.hud.feed.typeRune(r)
}

// applySettings puts the settings into effect at once: controls, field of view and
// volume (mouse sensitivity and inversion are read as the mouse moves).
func (l *loop) applySettings() {
	set := l.cfg.Settings
	l.ctl = controlsOf(*set)
	l.scene.SetFOV(fovRadians(set.FOV))
	vol := set.Volume
	if set.Mute {
		vol = 0
	}
	l.cfg.Sound.SetVolume(vol)
}

// drawPause refreshes the pause menu's texts and size before a frame is drawn.
func (l *loop) drawPause() {
	if l.pause == nil {
		return
	}
	if w, h := l.scene.Size(); w != l.pauseView.w || h != l.pauseView.h {
		l.pauseView.resize(w, h, l.pause)
	}
	l.pauseView.show(l.pause)
}
