// Package gltest runs a package's drawing tests: GLFW and OpenGL must be used from the
// main OS thread, so TestMain hands the main goroutine (locked to that thread by
// render's init) to a Harness, which serves Do calls on it while the tests run on
// other goroutines. With -race the drawing tests run in a child `go test` built
// without the race detector, whose pointer checks reject g3n's vertex uploads (it
// casts buffers to a 512 MB array), and the window is not opened in the parent.
//
// A package's test files use it like this:
//
//	var gl gltest.Harness
//	var testViewer *render.Viewer
//
//	func TestMain(m *testing.M) {
//		gl.Main(m, "^(TestDraws|TestMenu)$", func() (func(), error) {
//			v, err := render.OpenViewer(640, 360, "test")
//			if err != nil {
//				return nil, err
//			}
//			testViewer = v
//			return v.Close, nil
//		})
//	}
package gltest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// Harness serves work on the main OS thread to the tests. The zero value is ready;
// Main must be called once, from TestMain.
type Harness struct {
	once  sync.Once
	calls chan func()
	// noWindow says why no window is open, once Main has decided.
	noWindow error
}

// ErrNoDisplay reports that DISPLAY is not set, so no window can open.
var ErrNoDisplay = errors.New("DISPLAY is not set; run under xvfb-run for the drawing tests")

// ErrInChild reports that the drawing tests ran in a child process built without
// -race instead of this one.
var ErrInChild = errors.New("drawing tests ran in a child process built without -race")

func (h *Harness) init() { h.once.Do(func() { h.calls = make(chan func()) }) }

// Main opens the test window with open (unless there is no display, or this is a
// -race build, whose drawing tests, those matching the regular expression drawing,
// run in a child process), runs m's tests on another goroutine while serving Do
// calls on this one, closes the window and exits with the tests' code (failing when
// the child failed). open returns the function that closes the window.
func (h *Harness) Main(m *testing.M, drawing string, open func() (closeWindow func(), err error)) {
	h.init()
	if !flag.Parsed() {
		flag.Parse() // for testing.Verbose, passed on to the child
	}
	// child reports whether the drawing tests passed in the child process, once it
	// has ended; it is nil when there is none.
	var child chan bool
	closeWindow := func() {}
	switch {
	case os.Getenv("DISPLAY") == "":
		h.noWindow = ErrNoDisplay
	case raceDetector:
		h.noWindow = ErrInChild
		// The child draws its frames while the tests here run: each mostly waits on
		// the other's share of the CPU, not on the other's end.
		child = make(chan bool, 1)
		go func() { child <- runWithoutRace(drawing) }()
	default:
		c, err := open()
		if err != nil {
			h.noWindow = err
		} else {
			closeWindow = c
		}
	}
	done := make(chan int)
	go func() { done <- m.Run() }()
	for {
		select {
		case f := <-h.calls:
			f()
		case code := <-done:
			closeWindow()
			if child != nil && !<-child && code == 0 {
				code = 1
			}
			os.Exit(code)
		}
	}
}

// NoWindow returns why no test window is open, or nil when one is.
func (h *Harness) NoWindow() error { return h.noWindow }

// Do runs f on the main OS thread and waits for it.
func (h *Harness) Do(f func()) {
	h.init()
	done := make(chan struct{})
	h.calls <- func() { defer close(done); f() }
	<-done
}

// runWithoutRace runs the tests matching drawing in a child `go test` of the current
// package built without -race, and reports whether they passed. Its output is held
// and printed whole when it ends, not mixed into the lines of the tests running here.
func runWithoutRace(drawing string) bool {
	args := []string{"test", "-count=1", "-run", drawing}
	if testing.Verbose() {
		args = append(args, "-v")
	}
	cmd := exec.Command("go", append(args, ".")...) // go test puts its own toolchain first on PATH
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	fmt.Printf("drawing tests run without -race in a child process: %s\n%s", strings.Join(cmd.Args, " "), out.Bytes())
	if err != nil {
		fmt.Println("drawing tests failed:", err)
		return false
	}
	return true
}
