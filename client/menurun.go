package client

import (
	"context"
	"math"
	"time"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/render"
)

// MenuConfig configures RunMenu.
type MenuConfig struct {
	// Settings are the player's settings the menu starts from and edits.
	Settings Settings
	// Check, if set, vets a choice before the menu ends with it; an error is shown
	// on the menu (for example an address that cannot be joined) and the menu stays.
	Check func(MenuMode, Settings) error
	// Apply, if set, runs after every change of the settings (to save them).
	Apply func(Settings)
	// Note, if set, is shown on the main screen at start (how the last match ended).
	Note string
	// Find, if set, makes the Join menu look for matches while it is open: on the
	// local network and on Settings.Lists. If nil, the Join menu lists none (an
	// address is typed in).
	Find *FindConfig
}

// menuRunner is the main menu on a window: its model, its view and the event
// subscriptions it removes when done.
type menuRunner struct {
	v    *render.Viewer
	cfg  MenuConfig
	s    Settings
	m    *menu
	view *render.MenuView
	mode MenuMode
	done bool
	// then, if set, is the screen a choice hands the window to (nil for Quit and a
	// closed menu); otherwise the choice ends the window loop.
	then func(MenuMode, Settings) (screen, error)
	// open opens a page of the menu (see mainMenu).
	openAt func(mode MenuMode, askPass bool)
}

func newMenuRunner(v *render.Viewer, cfg MenuConfig) *menuRunner {
	r := &menuRunner{v: v, cfg: cfg, s: cfg.Settings}
	r.s.Normalize()
	apply := func() {
		if r.cfg.Apply != nil {
			r.cfg.Apply(r.s)
		}
	}
	r.m, r.openAt = mainMenu(&r.s, r.choose, apply, cfg.Find)
	r.m.note = cfg.Note
	r.view = render.NewMenuView(v.FramebufferSize())
	win := v.Window()
	win.SubscribeID(window.OnKeyDown, r, func(_ string, ev interface{}) { r.m.key(ev.(*window.KeyEvent).Key) })
	win.SubscribeID(window.OnKeyRepeat, r, func(_ string, ev interface{}) { r.m.key(ev.(*window.KeyEvent).Key) })
	win.SubscribeID(window.OnChar, r, func(_ string, ev interface{}) { r.m.char(ev.(*window.CharEvent).Char) })
	return r
}

// choose ends the menu with mode, unless the Check refuses it.
func (r *menuRunner) choose(mode MenuMode) {
	if r.cfg.Check != nil && mode != MenuQuit {
		if err := r.cfg.Check(mode, r.s); err != nil {
			r.m.note, r.m.changed = err.Error(), true
			return
		}
	}
	if r.cfg.Apply != nil {
		r.cfg.Apply(r.s)
	}
	r.mode, r.done = mode, true
}

// menuFrame is how often the menu draws: it needs no more than ~60 frames a second.
const menuFrame = 15 * time.Millisecond

// Layout lays the menu out for the framebuffer.
func (r *menuRunner) Layout(w, h int) { r.view.Resize(w, h) }

// Update ends the menu once the player chose or left it, and otherwise brings the
// page up to date (the Join menu's search changes it).
func (r *menuRunner) Update(*frame) (screen, error) {
	if r.done || r.m.closed {
		if r.then == nil {
			return nil, nil
		}
		r.close()
		mode := r.mode
		if !r.done {
			mode = MenuQuit
		}
		return r.then(mode, r.s)
	}
	r.refresh()
	return r, nil
}

// refresh runs the menu's timers and shows its page when it changed.
func (r *menuRunner) refresh() {
	r.m.tick()
	if r.m.changed {
		r.m.changed = false
		r.view.Show(r.m.page())
	}
}

// Draw draws the menu.
func (r *menuRunner) Draw(v *render.Viewer, _ *frame) error { return v.DrawMenu(r.view) }

func (r *menuRunner) rest() time.Duration { return menuFrame }

// open shows the page of mode over the main page: Host a match, or Join a match
// (and Join by address when the match joined last was typed in); askPass asks for
// the passphrase of the match joined last again.
func (r *menuRunner) open(mode MenuMode, askPass bool) { r.openAt(mode, askPass) }

// release lets go of the menu when the window loop ends.
func (r *menuRunner) release() { r.close() }

// close ends the menu's screens (the Join menu's search) and removes its event
// subscriptions.
func (r *menuRunner) close() {
	r.m.end()
	r.v.Window().UnsubscribeAllID(r)
}

// RunMenu shows the main menu on v until the player chooses (Practice, Host, Join or
// Quit), closes the window (MenuQuit) or ctx ends (its error). It returns the choice
// and the settings as the player left them (Settings.Last holds the Host and Join
// screens' values). It must be called from the main goroutine.
func RunMenu(ctx context.Context, v *render.Viewer, cfg MenuConfig) (MenuMode, Settings, error) {
	r := newMenuRunner(v, cfg)
	defer r.close()
	if err := runWindow(ctx, v, r, windowConfig{}); err != nil || !r.done {
		return MenuQuit, r.s, err
	}
	return r.mode, r.s, nil
}

// fovRadians converts a settings field of view to radians.
func fovRadians(deg float64) float64 { return deg * math.Pi / 180 }
