package client

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/render"
)

// scriptScreen is a screen that hands over to next after handAt frames (if next is
// set), and records what the window loop asked of it.
type scriptScreen struct {
	view           *render.MenuView
	next           screen
	handAt         int
	layouts        [][2]int
	updates, draws int
	ns             []int
	dts            []float64
	shots          []int
	ended          []error
}

func (s *scriptScreen) Layout(w, h int) { s.layouts = append(s.layouts, [2]int{w, h}) }

func (s *scriptScreen) Update(f *frame) (screen, error) {
	s.updates++
	s.ns, s.dts = append(s.ns, f.n), append(s.dts, f.dt)
	if s.next != nil && f.n >= s.handAt {
		return s.next, nil
	}
	return s, nil
}

func (s *scriptScreen) Draw(v *render.Viewer, f *frame) error {
	s.draws++
	return v.DrawMenu(s.view)
}

// gaugedScreen is a scriptScreen a screenshot can end: it has played d once it drew
// d/FixedStep frames.
type gaugedScreen struct{ scriptScreen }

func (s *gaugedScreen) Update(f *frame) (screen, error) {
	s.scriptScreen.Update(f)
	return s, nil
}

func (s *gaugedScreen) played(d time.Duration) bool {
	return float64(s.updates)*(time.Second/20).Seconds() >= d.Seconds()-timeEpsilon
}
func (s *gaugedScreen) shot(file string, n int) { s.shots = append(s.shots, n) }
func (s *gaugedScreen) tanks() int              { return 0 }
func (s *gaugedScreen) modes() [deadreckon.NumModes]int {
	return [deadreckon.NumModes]int{}
}
func (s *gaugedScreen) end(cause error) error {
	s.ended = append(s.ended, cause)
	return errors.New("ended")
}

// TestWindowLoop drives screens through the one window loop: a screen hands over
// to the next, whose frames count from one after a fresh Layout, the handing
// frame is not drawn, and the screenshot is taken from the next screen's frame
// once its Duration has played at the fixed step; a closed window ends the loop
// with what the screen's end says.
func TestWindowLoop(t *testing.T) {
	v := needViewer(t)
	shot := filepath.Join(t.TempDir(), "loop.png")
	var first *scriptScreen
	var second *gaugedScreen
	var err error
	gl.Do(func() {
		w, h := v.FramebufferSize()
		second = &gaugedScreen{scriptScreen{view: render.NewMenuView(w, h)}}
		first = &scriptScreen{view: render.NewMenuView(w, h), next: second, handAt: 3}
		err = runWindow(context.Background(), v, first, windowConfig{FixedStep: time.Second / 20,
			Screenshot: shot, Duration: 200 * time.Millisecond})
	})
	if err != nil {
		t.Fatal(err)
	}
	if first.updates != 3 || first.draws != 2 || len(first.layouts) != 1 {
		t.Errorf("first screen: %d updates, %d draws, %d layouts; want 3, 2 (the handing frame is not drawn), 1",
			first.updates, first.draws, len(first.layouts))
	}
	if len(second.layouts) != 1 || second.updates != 4 || second.draws != 4 {
		t.Errorf("second screen: %v layouts, %d updates, %d draws; want 1, 4, 4 (0.2 s at 0.05 s a frame)",
			second.layouts, second.updates, second.draws)
	}
	if len(second.ns) == 0 || second.ns[0] != 1 || second.dts[0] != 0.05 {
		t.Errorf("second screen's frames %v with dt %v: want them counted from 1 at 0.05 s", second.ns, second.dts)
	}
	if len(second.shots) != 1 || second.shots[0] != 4 {
		t.Errorf("screenshots at frames %v, want [4]", second.shots)
	}
	if _, err := os.Stat(shot); err != nil {
		t.Errorf("screenshot not written: %v", err)
	}

	gl.Do(func() {
		v.SetShouldClose()
		err = runWindow(context.Background(), v, second, windowConfig{})
		v.Window().SetShouldClose(false)
	})
	if err == nil || err.Error() != "ended" || len(second.ended) != 1 || second.ended[0] != nil {
		t.Errorf("closed window: err %v, end called with %v; want the screen's end(nil)", err, second.ended)
	}
}
