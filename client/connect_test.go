package client

import (
	"context"
	"errors"
	"fmt"
	"image"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
)

// TestFailureSentence: each way a start can fail reads as one sentence that names
// the host's address once, whatever wraps the error.
func TestFailureSentence(t *testing.T) {
	const addr = "203.0.113.5:7777"
	join := func(f net.JoinFailure, detail string, err error) error {
		return fmt.Errorf("start join match: %w", &net.JoinError{Addr: addr, Failure: f, Detail: detail, Err: err})
	}
	for _, c := range []struct {
		name string
		err  error
		addr string
		want string // the sentence starts with this
	}{
		{"unreachable host", join(net.JoinNoAnswer, "", net.ErrNoAnswer), addr, "No answer from " + addr + ": check the address and port"},
		{"wrong passphrase", join(net.JoinWrongPassphrase, "", net.ErrWrongPassphrase), addr,
			"The match at " + addr + " needs a passphrase and the one given is wrong or missing"},
		{"host full", join(net.JoinFull, "", net.ErrRefused), addr, "The match at " + addr + " is full: try again later"},
		{"version mismatch", join(net.JoinVersion, "the host speaks protocol version 9, this program version 8", wire.ErrVersion), addr,
			"The host at " + addr + " runs another version of Treadline (the host speaks protocol version 9"},
		{"no answer over a bad link", join(net.JoinTooSlow, "", context.DeadlineExceeded), addr,
			"The host at " + addr + " answered, but the join did not get through this link in time"},
		{"spawn unanswered", fmt.Errorf("start join match: join: game: spawn player: %w", net.ErrSpawnUnanswered), addr,
			"The host at " + addr + " let you in, but its answer to placing your tank did not get through this link in time"},
		{"fingerprint mismatch", join(net.JoinFingerprint, "", net.ErrFingerprintMismatch), addr,
			"The host at " + addr + " is not the one you trusted before"},
		{"name taken", join(net.JoinNameTaken, "", net.ErrRefused), addr, "A player at " + addr + " already uses your name"},
		{"other map", errors.New(`join: map "valley" here spans ±256 m, the host's ±512 m: not the same map`), addr,
			"Could not join the match at " + addr + ` (join: map "valley" here spans ±256 m, the host's ±512 m: not the same map): try again.`},
		{"told", &told{words: "The port is taken.", err: errors.New("listen: in use")}, "", "The port is taken."},
		{"practice", errors.New("practice: listen: no loopback"), "", "The match could not start: practice: listen: no loopback."},
	} {
		got := failureSentence(c.err, c.addr)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%s: %q\nwant %q…", c.name, got, c.want)
		}
		if c.addr != "" && strings.Count(got, c.addr) != 1 {
			t.Errorf("%s: %q names %s %d times, want once", c.name, got, c.addr, strings.Count(got, c.addr))
		}
		if !strings.HasSuffix(got, ".") || strings.Contains(got, "\n") || strings.Contains(got, "start join match") {
			t.Errorf("%s: %q is not one plain sentence", c.name, got)
		}
	}
	if !wrongPassphrase(join(net.JoinWrongPassphrase, "", errors.New("refused"))) || wrongPassphrase(join(net.JoinFull, "", net.ErrRefused)) {
		t.Error("wrongPassphrase does not tell a passphrase refusal from a full match")
	}
}

// TestWrapText: a long note breaks at spaces into lines of at most the width.
func TestWrapText(t *testing.T) {
	got := wrapText("No answer from 203.0.113.5:7777: check the address and port, that the host is running.", 30)
	for _, l := range strings.Split(got, "\n") {
		if len([]rune(l)) > 30 || l == "" {
			t.Errorf("line %q of %q", l, got)
		}
	}
	if strings.ReplaceAll(got, "\n", " ") != "No answer from 203.0.113.5:7777: check the address and port, that the host is running." {
		t.Errorf("wrapText lost words: %q", got)
	}
}

// litPixels counts the light grey and white pixels of img: the menu's text.
func litPixels(img image.Image) int {
	n := 0
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			if c := rgb(img, x, y); min(c[0], c[1], c[2]) > 100 && max(c[0], c[1], c[2])-min(c[0], c[1], c[2]) < 40 {
				n++
			}
		}
	}
	return n
}

// TestConnectingScreen: the window shows a start at once, its steps as they pass
// with their times, and a failure in one sentence: with no menu it stays until a key
// is pressed and ends the run with that sentence; with the menu it hands over to the
// Join menu with the sentence as its note, asking again for a wrong passphrase. Esc
// cancels the start.
func TestConnectingScreen(t *testing.T) {
	v := needViewer(t)
	dir := shotDir(t)
	const addr = "127.0.0.1:9"
	fail := make(chan error, 1)
	c := &Connecting{Title: "Connecting to " + addr + "…", Mode: MenuJoin, Addr: addr,
		Start: func(ctx context.Context, step func(string)) (*Started, error) {
			step("Reaching the host (handshake)")
			select {
			case err := <-fail:
				return nil, err
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}}
	def := DefaultSettings()
	newApp := func(ctx context.Context, first *Connecting) *app {
		return &app{ctx: ctx, cfg: GameConfig{First: first, Menu: MenuConfig{Settings: def}}, v: v, set: &def, log: slog.Default()}
	}
	shot := func(name string) string { return filepath.Join(dir, "connecting-"+name+".png") }

	// Connecting: drawn within a second, the step and its time showing; the end of
	// the window loop cancels the start.
	var s *connectScreen
	var err error
	began := time.Now()
	gl.Do(func() {
		s = newConnectScreen(newApp(context.Background(), c), c)
		err = runWindow(context.Background(), v, s, windowConfig{Screenshot: shot("waiting"), Duration: 500 * time.Millisecond})
	})
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(began); took > 5*time.Second {
		t.Errorf("the connecting screenshot took %v, want about 0.5 s", took)
	}
	p := s.page(time.Now())
	if p.Title != c.Title || len(p.Items) != 1 || p.Items[0][0] != "Reaching the host (handshake)" || !strings.HasSuffix(p.Items[0][1], "s…") ||
		p.Hint != "Esc cancels" {
		t.Errorf("connecting page %+v", p)
	}
	select {
	case <-s.done:
		if !errors.Is(s.err, context.Canceled) {
			t.Errorf("the start ended with %v, want it cancelled", s.err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the end of the window loop did not cancel the start")
	}
	waiting := litPixels(readPNG(t, shot("waiting")))
	if waiting < 200 {
		t.Errorf("the connecting screen shows %d lit pixels: not drawn", waiting)
	}

	// A failure with no menu: the sentence stays until a key is pressed, and ends
	// the run with it.
	fail <- &net.JoinError{Addr: addr, Failure: net.JoinNoAnswer, Err: net.ErrNoAnswer}
	gl.Do(func() {
		s = newConnectScreen(newApp(context.Background(), c), c)
		for i := 0; i < 400 && s.failed == nil; i++ {
			s.Update(&frame{n: i + 1})
			time.Sleep(5 * time.Millisecond)
		}
		if next, _ := s.Update(&frame{n: 1}); next != s {
			t.Errorf("the failure's sentence handed over to %T before a key was pressed", next)
		}
		err = runWindow(context.Background(), v, s, windowConfig{Screenshot: shot("failed"), Duration: 200 * time.Millisecond})
	})
	if err != nil {
		t.Fatal(err)
	}
	p = s.page(time.Now())
	if !strings.HasPrefix(strings.ReplaceAll(p.Hint, "\n", " "), "No answer from "+addr+": check the address and port") ||
		!strings.HasSuffix(p.Hint, "Press any key to quit") || p.Items[0][1] != "failed" {
		t.Errorf("failure page %+v", p)
	}
	if lit := litPixels(readPNG(t, shot("failed"))); lit < waiting+500 {
		t.Errorf("the failure shows %d lit pixels, the connecting screen %d: no sentence drawn", lit, waiting)
	}
	gl.Do(func() {
		s.pressed = true // its key subscription ended with the loop
		_, err = s.Update(&frame{n: 1})
	})
	if err == nil || !strings.HasPrefix(err.Error(), "No answer from "+addr) || !errors.Is(err, net.ErrNoAnswer) {
		t.Errorf("after a key the run ends with %v, want the sentence wrapping the chain", err)
	}

	// A failure in a benchmark run (no menu, no one to press a key) ends the run
	// with the sentence at once instead of waiting for ever.
	gl.Do(func() {
		c3 := *c
		c3.Start = func(context.Context, func(string)) (*Started, error) {
			return nil, &net.JoinError{Addr: addr, Failure: net.JoinNoAnswer, Err: net.ErrNoAnswer}
		}
		a := newApp(context.Background(), &c3)
		a.cfg.Display.BenchFrames = 10
		s3 := newConnectScreen(a, &c3)
		var next screen = s3
		for i := 0; i < 400 && next == s3; i++ {
			next, err = s3.Update(&frame{n: i + 1})
			time.Sleep(5 * time.Millisecond)
		}
		if next != nil {
			t.Errorf("a benchmark's failed start handed over to %T, want the run ended", next)
		}
	})
	if err == nil || !strings.HasPrefix(err.Error(), "No answer from "+addr) || !errors.Is(err, net.ErrNoAnswer) {
		t.Errorf("a benchmark's failed start ends the run with %v, want the sentence wrapping the chain", err)
	}

	// With the menu: a wrong passphrase goes back to the Join menu asking for it.
	var title, note string
	gl.Do(func() {
		def.Last.JoinAddr, def.Last.JoinVia, def.Last.JoinName = addr+"#ab", "lan", "ann's match"
		fail <- &net.JoinError{Addr: addr, Failure: net.JoinWrongPassphrase, Err: net.ErrWrongPassphrase}
		c2 := *c
		c2.Start = func(ctx context.Context, step func(string)) (*Started, error) { return nil, <-fail }
		s2 := newConnectScreen(newApp(context.Background(), nil), &c2)
		var next screen = s2
		for i := 0; i < 400 && next == s2; i++ {
			next, _ = s2.Update(&frame{n: i + 1})
			time.Sleep(5 * time.Millisecond)
		}
		if r, ok := next.(*menuRunner); ok {
			title, note = r.m.top().title, r.m.note
			if r.m.stack[len(r.m.stack)-2].title != "Join a match" || !r.m.editing {
				t.Errorf("the passphrase is asked over %q, editing %v; want over the Join menu, editing", r.m.stack[len(r.m.stack)-2].title, r.m.editing)
			}
			r.release()
		} else {
			t.Errorf("a failed join handed over to %T, want the menu", next)
		}
	})
	if title != "Passphrase for ann's match" || !strings.HasPrefix(note, "The match at "+addr+" needs a passphrase") {
		t.Errorf("after a wrong passphrase the menu shows %q with the note %q", title, note)
	}

	// Esc cancels: back to the Join menu, the start's context ended.
	gl.Do(func() {
		cancelled := make(chan struct{})
		c3 := *c
		c3.Start = func(ctx context.Context, step func(string)) (*Started, error) {
			<-ctx.Done()
			close(cancelled)
			return nil, ctx.Err()
		}
		s3 := newConnectScreen(newApp(context.Background(), nil), &c3)
		v.Window().Dispatch(window.OnKeyDown, &window.KeyEvent{Key: window.KeyEscape})
		next, _ := s3.Update(&frame{n: 1})
		r, ok := next.(*menuRunner)
		if !ok || r.m.top().title != "Join a match" {
			t.Errorf("Esc handed over to %T, want the Join menu", next)
		}
		if ok {
			r.release()
		}
		select {
		case <-cancelled:
		case <-time.After(5 * time.Second):
			t.Error("Esc did not end the start's context")
		}
	})
}
