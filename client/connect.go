package client

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/cputime"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/render"
)

// Connecting is a match to start, as the connecting screen shows it while it starts:
// the window shows the steps as they pass, Esc cancels, and a failure is said in one
// sentence.
type Connecting struct {
	// Title heads the connecting screen: "Connecting to NAME (ADDR)…".
	Title string
	// Mode is the kind of match (MenuPractice, MenuHost or MenuJoin): the menu page
	// a cancel or a failure goes back to.
	Mode MenuMode
	// Addr is the host's address, host:port, named by a failure's sentence; empty
	// when the match is not a join.
	Addr string
	// Start starts the match on a goroutine of its own, telling each step through
	// step as it begins (safe to call from any goroutine). ctx ends when the player
	// cancels or the window closes. A failure returns an error; one with a
	// Sentence() string method says that sentence to the player.
	Start func(ctx context.Context, step func(what string)) (*Started, error)
}

// Started is a match Connecting.Start started.
type Started struct {
	// Match is the match to play.
	Match Match
	// Config is how to play it (Config.Viewer is the game's window).
	Config RunConfig
	// End, if set, runs once when the match ends, with how it ended (as Run would
	// return it; nil for a closed window or a finished screenshot, context.Canceled
	// for a cancel): it lets go of the match's session and returns the run's
	// result, nil for a normal end and otherwise an error that reads as a person's
	// sentence. It may run on any goroutine.
	End func(err error) error
}

// connectFrame is how often the connecting screen draws.
const connectFrame = 50 * time.Millisecond

// connectStep is one step of a start, and when it began.
type connectStep struct {
	what string
	at   time.Time
}

// connectScreen shows a match starting: the title, each step with its time, and Esc
// to cancel. Start runs on its own goroutine; the screen polls it every frame and
// hands over to the match, or, on a failure, to the menu with the sentence (or, with
// no menu, shows the sentence until a key is pressed).
type connectScreen struct {
	a      *app
	c      *Connecting
	view   *render.MenuView
	cancel context.CancelFunc
	began  time.Time
	shown  string // the page last shown, to rebuild it only on a change

	mu    sync.Mutex
	steps []connectStep // guarded by mu

	done    chan struct{} // closed when Start returned, with started and err set
	started *Started
	err     error

	esc, pressed bool   // keys since the last frame
	failed       error  // the failure, shown until a key is pressed (no menu)
	words        string // the failure's sentence
	released     bool
	handed       bool // the match started and plays on
	drawing      bool // the match started and its scene is built next
}

func newConnectScreen(a *app, c *Connecting) *connectScreen {
	s := &connectScreen{a: a, c: c, view: render.NewMenuView(a.v.FramebufferSize()), began: time.Now(), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(a.ctx)
	s.cancel = cancel
	go func() {
		defer close(s.done)
		s.started, s.err = c.Start(ctx, s.step)
	}()
	a.v.Window().SubscribeID(window.OnKeyDown, s, func(_ string, ev interface{}) {
		s.pressed = true
		if ev.(*window.KeyEvent).Key == window.KeyEscape {
			s.esc = true
		}
	})
	return s
}

// step records that the start began what.
func (s *connectScreen) step(what string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, connectStep{what: what, at: time.Now()})
}

// Layout lays the page out for the framebuffer.
func (s *connectScreen) Layout(w, h int) { s.view.Resize(w, h) }

// Update hands over to the match once it started, or to what a failure or a cancel
// leads to.
func (s *connectScreen) Update(*frame) (screen, error) {
	esc, pressed := s.esc, s.pressed
	s.esc, s.pressed = false, false
	if s.failed != nil {
		if pressed {
			s.release()
			return nil, s.failed
		}
		return s, nil
	}
	select {
	case <-s.done:
		return s.finished()
	default:
	}
	if esc {
		s.release()
		if s.a.menus() {
			return s.a.menuAt(s.c.Mode, "", false), nil
		}
		return nil, nil // started with a match flag: Esc quits
	}
	return s, nil
}

// finished hands over once Start returned: to the match, or after a failure to the
// menu (or to the failure's sentence, shown until a key is pressed).
func (s *connectScreen) finished() (screen, error) {
	if s.err == nil && !s.drawing {
		// Building the match's scene holds the window for a moment: say so first.
		s.drawing = true
		s.step("Drawing the map")
		return s, nil
	}
	if s.err == nil {
		next, err := s.a.play(s.started)
		if err == nil {
			s.handed = true
			s.release()
			return next, nil
		}
		s.err = err
	}
	s.words = failureSentence(s.err, s.c.Addr)
	s.a.log.Info("match could not start", "err", s.err)
	if !s.a.menus() {
		s.failed = &told{words: s.words, err: s.err}
		if s.a.cfg.Display.BenchFrames > 0 {
			// A benchmark counts only a match's frames and no one is there to press a
			// key: the sentence would stay up for ever. The run ends with it.
			s.release()
			return nil, s.failed
		}
		return s, nil
	}
	s.a.say(s.words)
	s.release()
	return s.a.menuAt(s.c.Mode, s.words, wrongPassphrase(s.err)), nil
}

// Draw draws the page: the steps so far with their times, or the failure.
func (s *connectScreen) Draw(v *render.Viewer, f *frame) error {
	if f.n == 1 && s.shown == "" {
		s.a.log.Info("connecting", "title", s.c.Title, "runqueue", cputime.ThreadRunDelay())
	}
	p := s.page(time.Now())
	if key := fmt.Sprint(p); key != s.shown {
		s.shown = key
		s.view.Show(p)
	}
	return v.DrawMenu(s.view)
}

// page is what the screen shows at now.
func (s *connectScreen) page(now time.Time) render.MenuPage {
	s.mu.Lock()
	steps := append([]connectStep(nil), s.steps...)
	s.mu.Unlock()
	p := render.MenuPage{Title: s.c.Title, Selected: len(steps) - 1, Hint: "Esc cancels"}
	if s.failed != nil {
		p.Selected, p.Hint = -1, wrapText(s.words, noteWidth)+"\n\nPress any key to quit"
	}
	for i, st := range steps {
		if i+1 < len(steps) {
			p.Items = append(p.Items, [2]string{st.what, fmt.Sprintf("done in %.1f s", steps[i+1].at.Sub(st.at).Seconds())})
			continue
		}
		if s.failed != nil {
			p.Items = append(p.Items, [2]string{st.what, "failed"})
			continue
		}
		p.Items = append(p.Items, [2]string{st.what, fmt.Sprintf("%.1f s…", now.Sub(st.at).Seconds())})
	}
	if len(steps) == 0 {
		p.Items = append(p.Items, [2]string{"Starting", fmt.Sprintf("%.1f s…", now.Sub(s.began).Seconds())})
		p.Selected = 0
	}
	return p
}

func (s *connectScreen) rest() time.Duration { return connectFrame }

// waiting marks the connecting screen as one shown before a match: a screenshot
// counts its wall time, not its frames (see shotDue).
func (s *connectScreen) waiting() {}

// played reports whether d of wall time has passed since the screen opened.
func (s *connectScreen) played(d time.Duration) bool { return time.Since(s.began) >= d }

// shot logs the screenshot.
func (s *connectScreen) shot(file string, n int) {
	s.a.log.Info("screenshot written", "file", file, "frames", n, "screen", "connecting")
}

func (s *connectScreen) tanks() int { return 0 }

func (s *connectScreen) modes() [deadreckon.NumModes]int { return [deadreckon.NumModes]int{} }

// end returns the failure shown, if any, when the window is closed or the context
// ends; the start is cancelled.
func (s *connectScreen) end(cause error) error {
	s.release()
	if s.failed != nil {
		return s.failed
	}
	return cause
}

// release cancels the start and removes the screen's event subscription. A match
// that starts all the same is ended at once.
func (s *connectScreen) release() {
	if s.released {
		return
	}
	s.released = true
	s.a.v.Window().UnsubscribeAllID(s)
	if s.handed {
		return // the match runs under the start's context
	}
	s.cancel()
	if s.err != nil {
		return
	}
	go func() {
		<-s.done
		if s.started != nil && s.started.End != nil {
			s.started.End(context.Canceled)
		}
	}()
}

// told is an error said to the player in one sentence, wrapping the chain.
type told struct {
	words string
	err   error
}

func (e *told) Error() string    { return e.words }
func (e *told) Unwrap() error    { return e.err }
func (e *told) Sentence() string { return e.words }

// failureSentence says in one sentence why a match could not start; addr is the
// host's address when the match was a join. An error that has a sentence of its own
// (net.JoinError, and any with a Sentence method) says it.
func failureSentence(err error, addr string) string {
	var said interface{ Sentence() string }
	if errors.As(err, &said) {
		return said.Sentence()
	}
	if addr == "" {
		return "The match could not start: " + strings.TrimSuffix(err.Error(), ".") + "."
	}
	switch {
	case errors.Is(err, net.ErrSpawnUnanswered):
		return fmt.Sprintf("The host at %s let you in, but its answer to placing your tank did not get through this link in time: "+
			"try again, or from a better connection.", addr)
	case errors.Is(err, context.DeadlineExceeded):
		return fmt.Sprintf("The join to %s did not finish in time over this link: try again, or from a better connection.", addr)
	}
	return fmt.Sprintf("Could not join the match at %s (%s): try again.", addr, strings.TrimSuffix(err.Error(), "."))
}

// wrongPassphrase reports whether err is a join refused for its passphrase.
func wrongPassphrase(err error) bool {
	var je *net.JoinError
	return errors.Is(err, net.ErrWrongPassphrase) || errors.As(err, &je) && je.Failure == net.JoinWrongPassphrase
}

// noteWidth is how many characters a line of a long note or sentence holds.
const noteWidth = 64

// wrapText breaks s into lines of at most width characters at spaces (a longer word
// keeps a line of its own).
func wrapText(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		l := len([]rune(w))
		switch {
		case i == 0:
		case n+1+l > width:
			b.WriteByte('\n')
			n = 0
		default:
			b.WriteByte(' ')
			n++
		}
		b.WriteString(w)
		n += l
	}
	return b.String()
}
