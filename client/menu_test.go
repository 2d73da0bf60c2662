package client

import (
	"context"
	"image"
	"image/png"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/render"
)

// shotDir is where the menu tests write their screenshots: $TREADLINE_SHOTS when set
// (to look at them), otherwise a temporary directory.
func shotDir(t *testing.T) string {
	if d := os.Getenv("TREADLINE_SHOTS"); d != "" {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		return d
	}
	return t.TempDir()
}

// highlightPixels counts the pixels of the selected row's colour.
func highlightPixels(img *image.RGBA) int {
	n := 0
	for i := 0; i+3 < len(img.Pix); i += 4 {
		r, g, b := int(img.Pix[i]), int(img.Pix[i+1]), int(img.Pix[i+2])
		if r > 150 && g > 80 && g < 160 && b < 80 && r-b > 100 {
			n++
		}
	}
	return n
}

// TestMenuFlow drives the main menu with synthetic key and character events through
// the window's own dispatcher: every screen is drawn and captured, the Host and Join
// fields and the settings are edited, a key is rebound, and the choice and the saved
// settings are checked; a second menu started from the saved file shows them again.
func TestMenuFlow(t *testing.T) {
	v := needViewer(t)
	dir := shotDir(t)
	path := filepath.Join(t.TempDir(), "settings.json")
	saves := 0
	cfg := MenuConfig{
		Settings: DefaultSettings(),
		Apply: func(s Settings) {
			saves++
			if err := s.Save(path); err != nil {
				t.Error(err)
			}
		},
	}
	var r *menuRunner
	var shots = map[string]*image.RGBA{}
	gl.Do(func() {
		r = newMenuRunner(v, cfg)
		w := v.Window()
		press := func(keys ...window.Key) {
			for _, k := range keys {
				w.Dispatch(window.OnKeyDown, &window.KeyEvent{Key: k})
			}
		}
		typeText := func(s string) {
			for _, c := range s {
				w.Dispatch(window.OnChar, &window.CharEvent{Char: c})
			}
		}
		shot := func(name string) {
			if err := r.frame(); err != nil {
				t.Fatal(err)
			}
			img := v.Capture()
			v.Swap()
			shots[name] = img
			f, err := os.Create(filepath.Join(dir, "menu-"+name+".png"))
			if err != nil {
				t.Fatal(err)
			}
			png.Encode(f, img)
			f.Close()
		}
		defer r.close()
		shot("main")

		press(window.KeyDown, window.KeyEnter) // Host a match…
		press(window.KeyEnter, window.KeyBackspace, window.KeyBackspace, window.KeyBackspace, window.KeyBackspace)
		typeText("99x01") // the port takes digits only: 9901
		press(window.KeyEnter, window.KeyDown, window.KeyEnter)
		typeText("secret")
		press(window.KeyEnter, window.KeyDown, window.KeyRight, window.KeyRight) // 6 bots
		shot("host")
		press(window.KeyEscape)

		press(window.KeyDown, window.KeyEnter) // Join a match…
		shot("join-none")
		press(window.KeyEnter) // no matches found: type an address
		press(window.KeyEnter)
		typeText("127.0.0.1:7777")
		press(window.KeyEnter, window.KeyDown, window.KeyEnter)
		typeText("ann")
		press(window.KeyEnter)
		shot("join")
		press(window.KeyEscape, window.KeyEscape)

		press(window.KeyDown, window.KeyEnter)                  // Settings…
		press(window.KeyDown, window.KeyRight)                  // team: blue
		press(window.KeyDown, window.KeyRight, window.KeyRight) // sensitivity 1.2
		press(window.KeyDown, window.KeyEnter)                  // invert on
		press(window.KeyDown, window.KeyRight)                  // aim with: keys
		press(window.KeyDown, window.KeyRight)                  // FOV 65
		press(window.KeyDown, window.KeyRight)                  // quality high
		press(window.KeyDown, window.KeyLeft, window.KeyLeft)   // volume 60 %
		shot("settings")
		press(window.KeyDown, window.KeyDown, window.KeyRight) // record matches: on
		press(window.KeyDown, window.KeyEnter)                 // Keys…
		press(window.KeyEnter, window.KeyI)                    // ahead: I
		press(window.KeyDown, window.KeyEnter, window.KeyI)    // back: I is taken
		shot("keys")
		press(window.KeyEscape, window.KeyEscape)       // back to the main screen
		press(window.KeyUp, window.KeyUp, window.KeyUp) // from Settings up to Practice
		press(window.KeyEnter)
	})
	if !r.done || r.mode != MenuPractice {
		t.Fatalf("after Enter on Practice: done %v mode %v", r.done, r.mode)
	}
	s := r.s
	if s.Last.HostPort != 9901 || s.Last.HostPass != "secret" || s.Last.HostBots != DefaultHostBots+2 {
		t.Errorf("host fields: %+v", s.Last)
	}
	if s.Last.JoinAddr != "127.0.0.1:7777" || s.Name != "ann" {
		t.Errorf("join fields: address %q name %q", s.Last.JoinAddr, s.Name)
	}
	if s.Team != 1 || s.MouseSensitivity != 1.2 || !s.InvertMouse || !s.KeyAim || s.FOV != 65 || s.Quality != "high" || s.Volume != 0.6 || !s.Record {
		t.Errorf("settings: %+v", s)
	}
	if s.Keys["forward"] != "I" || s.Keys["back"] != "S" {
		t.Errorf("keys: forward %q back %q, want I and S (I was taken)", s.Keys["forward"], s.Keys["back"])
	}
	for name, img := range shots {
		if n := highlightPixels(img); n < 500 {
			t.Errorf("screen %s: %d highlighted pixels; the selected row is not drawn", name, n)
		}
	}
	if saves == 0 {
		t.Fatal("the menu never saved the settings")
	}

	// Settings persist across runs: a new menu from the saved file starts from them.
	loaded, err := LoadSettings(path)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.Name != s.Name || loaded.Keys["forward"] != "I" || loaded.FOV != 65 || loaded.Last != s.Last || loaded.Volume != 0.6 {
		t.Errorf("reloaded settings differ:\n got %+v\nwant %+v", loaded, s)
	}
	gl.Do(func() {
		r2 := newMenuRunner(v, MenuConfig{Settings: loaded})
		defer r2.close()
		w := v.Window()
		for _, k := range []window.Key{window.KeyDown, window.KeyDown, window.KeyEnter, window.KeyEnter} {
			w.Dispatch(window.OnKeyDown, &window.KeyEvent{Key: k})
		}
		items := r2.m.page().Items
		if items[0][1] != "127.0.0.1:7777" || items[1][1] != "ann" {
			t.Errorf("the Join screen of the next run shows %q", items)
		}
	})
}

// TestPauseMenu opens the pause menu over a match, draws it and captures it.
func TestPauseMenu(t *testing.T) {
	v := needViewer(t)
	dir := shotDir(t)
	s, mp := newTestScene(t)
	var img *image.RGBA
	gl.Do(func() {
		l := newMatchScreen(RunConfig{}, &fakeMatch{}, s, v, nil)
		defer v.Window().UnsubscribeAllID(l)
		s.Update(tanksOn(mp, 3), 1.0/60)
		l.onKey(window.KeyEscape)
		l.drawPause()
		if err := v.Draw(s); err != nil {
			t.Fatal(err)
		}
		img = v.Capture()
		v.Swap()
	})
	f, err := os.Create(filepath.Join(dir, "menu-pause.png"))
	if err != nil {
		t.Fatal(err)
	}
	png.Encode(f, img)
	f.Close()
	if n := highlightPixels(img); n < 500 {
		t.Errorf("pause menu: %d highlighted pixels; the menu is not drawn", n)
	}
}

// TestRunInMenuWindow plays two matches in one window, as the main menu does: Run
// takes the given viewer, leaves it open, and drops its input handlers and scene when
// it returns, so keys after a match reach only the menu.
func TestRunInMenuWindow(t *testing.T) {
	v := needViewer(t)
	shot := filepath.Join(t.TempDir(), "match.png")
	mp := testMap(t)
	for i := range 2 {
		sess := &stepMatch{snap: tanksOn(mp, 2)}
		var err error
		gl.Do(func() {
			err = Run(context.Background(), RunConfig{Display: Display{Viewer: v, Terrain: render.TerrainFromMap(mp, 0),
				Screenshot: shot, Frames: 2, FixedStep: 50 * time.Millisecond, Logger: slog.New(slog.DiscardHandler)}}, sess)
		})
		if err != nil {
			t.Fatalf("match %d in the menu's window: %v", i+1, err)
		}
		if sess.steps != 2 {
			t.Errorf("match %d: %d steps, want 2", i+1, sess.steps)
		}
	}
	var after *menuRunner
	gl.Do(func() {
		after = newMenuRunner(v, MenuConfig{Settings: DefaultSettings()})
		defer after.close()
		// A leftover match handler would see this key too; only the menu must.
		v.Window().Dispatch(window.OnKeyDown, &window.KeyEvent{Key: window.KeyDown})
	})
	if sel := after.m.page().Selected; sel != 1 {
		t.Errorf("after two matches, Down moved the menu to row %d, want 1", sel)
	}
}

// frame draws the menu once into the framebuffer (without swapping), as the window
// loop does.
func (r *menuRunner) frame() error {
	r.refresh()
	return r.Draw(r.v, nil)
}
