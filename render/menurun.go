package render

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/g3n/engine/camera"
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/window"
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
}

// menuRunner is the main menu on a window: its model, its view and the event
// subscriptions it removes when done.
type menuRunner struct {
	v    *Viewer
	cfg  MenuConfig
	s    Settings
	m    *menu
	view *menuView
	root *core.Node
	cam  *camera.Camera
	mode MenuMode
	done bool
}

func newMenuRunner(v *Viewer, cfg MenuConfig) *menuRunner {
	r := &menuRunner{v: v, cfg: cfg, s: cfg.Settings, root: core.NewNode()}
	r.s.Normalize()
	apply := func() {
		if r.cfg.Apply != nil {
			r.cfg.Apply(r.s)
		}
	}
	r.m = mainMenu(&r.s, r.choose, apply)
	r.m.note = cfg.Note
	w, h := v.FramebufferSize()
	r.view = newMenuView(max(w, 1), max(h, 1))
	r.root.Add(r.view.root)
	r.cam = camera.NewPerspective(1, 0.1, 10, 60, camera.Vertical)
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

// frame draws the menu once into the framebuffer (without swapping).
func (r *menuRunner) frame() error {
	w, h := r.v.FramebufferSize()
	if w > 0 && h > 0 {
		if w != r.view.w || h != r.view.h {
			r.view.resize(w, h, r.m)
		}
		r.v.gs.Viewport(0, 0, int32(w), int32(h)) // panels size themselves by it
	}
	r.view.show(r.m)
	r.v.gs.ClearColor(menuBackdrop.R, menuBackdrop.G, menuBackdrop.B, 1)
	r.v.gs.Clear(gls.COLOR_BUFFER_BIT | gls.DEPTH_BUFFER_BIT)
	if err := r.v.rend.Render(r.root, r.cam); err != nil {
		return fmt.Errorf("render menu: %w", err)
	}
	return nil
}

// close removes the menu's event subscriptions and restores the sky's clear colour.
func (r *menuRunner) close() {
	r.v.Window().UnsubscribeAllID(r)
	r.v.gs.ClearColor(skyHorizon.R, skyHorizon.G, skyHorizon.B, 1)
}

// RunMenu shows the main menu on v until the player chooses (Practice, Host, Join or
// Quit), closes the window (MenuQuit) or ctx ends (its error). It returns the choice
// and the settings as the player left them (Settings.Last holds the Host and Join
// screens' values). It must be called from the main goroutine.
func RunMenu(ctx context.Context, v *Viewer, cfg MenuConfig) (MenuMode, Settings, error) {
	r := newMenuRunner(v, cfg)
	defer r.close()
	for !r.done {
		if err := ctx.Err(); err != nil {
			return MenuQuit, r.s, err
		}
		if v.ShouldClose() || r.m.closed {
			return MenuQuit, r.s, nil
		}
		if err := r.frame(); err != nil {
			return MenuQuit, r.s, err
		}
		v.Swap()
		time.Sleep(15 * time.Millisecond) // a menu needs no more than ~60 frames a second
	}
	return r.mode, r.s, nil
}

// fovRadians converts a settings field of view to radians.
func fovRadians(deg float64) float64 { return deg * math.Pi / 180 }

// SetFOV sets the camera's vertical field of view, radians.
func (s *Scene) SetFOV(fovY float64) {
	s.cam.SetFov(float32(fovY * 180 / math.Pi))
	s.view.FovY = fovY
}
