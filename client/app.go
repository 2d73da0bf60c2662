package client

import (
	"context"
	"log/slog"

	"github.com/treadline/treadline/internal/cputime"
	"github.com/treadline/treadline/render"
)

// GameConfig configures RunGame.
type GameConfig struct {
	// Display is the window's: its size and title, and the screenshot or benchmark
	// that ends the run (Screenshot, Frames, Duration, BenchFrames, BenchOut,
	// FixedStep; a screenshot's Duration counts wall time on a connecting screen, and
	// Frames only a match's frames). Display.Viewer, if set, is the window;
	// otherwise RunGame opens one and closes it at the end. A match's own display is
	// its Started.Config.
	Display Display
	// Menu is the main menu. Menu.Settings are the settings the game starts from;
	// Menu.Note, if set, is shown on the first menu.
	Menu MenuConfig
	// First, if set, is the match the command line asks for: the window opens on its
	// connecting screen, there is no menu, and the run ends when that match ends.
	First *Connecting
	// Choose returns the match the menu chose (MenuPractice, MenuHost or MenuJoin),
	// with *s the settings as the player left them; the match's pause menu edits *s.
	// A nil Connecting keeps the menu.
	Choose func(mode MenuMode, s *Settings) *Connecting
	// Say, if set, receives in one line each failure to start a match chosen in the
	// menu (for the terminal), the sentence the window shows.
	Say func(line string)
}

// app is the game on one window: the menu, the connecting screen and the match hand
// the window to each other, and the match's end brings the menu back.
type app struct {
	ctx context.Context
	cfg GameConfig
	v   *render.Viewer
	set *Settings
	log *slog.Logger
}

// RunGame shows the main menu (or, with First, that match's connecting screen) and
// every screen it hands the window to, in the client's one window loop: the menu
// hands over to a match's connecting screen, which shows the start's steps and
// hands over to the match, or back to the menu with a sentence when it fails; the
// match's end brings the menu back with a line saying how it ended. It returns when
// the player quits or closes the window (nil, or with First that match's result:
// what its Started.End returned, or the sentence of its failure to start), ctx ends
// (nil for a match's normal end) or a screenshot or benchmark is done (nil). It
// must be called from the main goroutine.
func RunGame(ctx context.Context, cfg GameConfig) error {
	d := cfg.Display.withDefaults("Treadline")
	a := &app{ctx: ctx, cfg: cfg, log: d.Logger, set: new(Settings)}
	*a.set = cfg.Menu.Settings
	a.set.Normalize()
	a.v = d.Viewer
	if a.v == nil {
		v, err := render.OpenViewer(d.Width, d.Height, d.Title)
		if err != nil {
			return err
		}
		defer v.Close()
		a.v = v
	}
	// The main thread's wait for a CPU so far: with the connecting screen's, it tells
	// the time the client took to show it from the time a loaded machine kept it waiting.
	a.log.Info("window open", "runqueue", cputime.ThreadRunDelay())
	var first screen
	if cfg.First != nil {
		first = newConnectScreen(a, cfg.First)
	} else {
		first = a.menuAt(MenuQuit, cfg.Menu.Note, false)
	}
	return runWindow(ctx, a.v, first, d.window())
}

// menus reports whether the game has a menu to go back to.
func (a *app) menus() bool { return a.cfg.First == nil }

// say tells the terminal line.
func (a *app) say(line string) {
	if a.cfg.Say != nil {
		a.cfg.Say(line)
	}
}

// menuAt is the main menu opened at the page of mode (the main page for MenuQuit
// and MenuPractice) with note shown; askPass asks for the passphrase of the match
// joined last again.
func (a *app) menuAt(mode MenuMode, note string, askPass bool) screen {
	mc := a.cfg.Menu
	mc.Settings = *a.set
	r := newMenuRunner(a.v, mc)
	r.open(mode, askPass)
	if note != "" {
		r.m.note, r.m.changed = note, true
	}
	r.then = func(mode MenuMode, s Settings) (screen, error) {
		*a.set = s
		if mode == MenuQuit {
			return nil, nil
		}
		c := a.cfg.Choose(mode, a.set)
		if c == nil {
			return a.menuAt(MenuQuit, "", false), nil
		}
		return newConnectScreen(a, c), nil
	}
	return r
}

// play makes the screen that plays st on the game's window; the match's end comes
// back to the menu (or, with no menu, ends the run with st.End's result).
func (a *app) play(st *Started) (screen, error) {
	end := func(err error) error {
		if st.End != nil {
			return st.End(err)
		}
		return err
	}
	cfg := st.Config
	cfg.Viewer = a.v
	if cfg.Settings == nil {
		cfg.Settings = a.set
	}
	l, release, err := newMatch(cfg, st.Match)
	if err != nil {
		end(nil)
		return nil, err
	}
	ended := false
	l.after = func(err error, closing bool) (screen, error) {
		if ended {
			return nil, err
		}
		ended = true
		release()
		out := end(err)
		if closing || !a.menus() {
			return nil, out
		}
		note := ""
		if out != nil {
			note = out.Error()
		}
		return a.menuAt(MenuQuit, note, false), nil
	}
	return l, nil
}
