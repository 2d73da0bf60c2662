package render

import (
	"errors"
	"fmt"
	"image"
	"os"
	"runtime"

	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/renderer"
	"github.com/g3n/engine/window"
)

// ErrWindowOpen reports a second OpenViewer in one process: the windowing layer keeps
// one window per process.
var ErrWindowOpen = errors.New("render: a window is already open in this process")

// ErrNoDisplay reports that there is no display to open a window on.
var ErrNoDisplay = errors.New("render: no display: DISPLAY is not set (run from a desktop session, or under xvfb-run without one)")

// CheckDisplay returns ErrNoDisplay when there is clearly no display to open a window
// on (on Linux: neither DISPLAY nor WAYLAND_DISPLAY is set), so a program can say so
// before it starts a match. A nil result does not promise that opening will succeed.
func CheckDisplay() error {
	if runtime.GOOS == "linux" && os.Getenv("DISPLAY") == "" && os.Getenv("WAYLAND_DISPLAY") == "" {
		return ErrNoDisplay
	}
	return nil
}

// Viewer is the desktop window and its OpenGL renderer. There is at most one per
// process, and it must be used from the main OS thread: the package locks the main
// goroutine to it in init, so call OpenViewer and every Viewer method from main (or,
// in tests, from TestMain).
type Viewer struct {
	win  *window.GlfwWindow
	gs   *gls.GLS
	rend *renderer.Renderer
}

// OpenViewer opens a window of width×height pixels titled title, with an OpenGL 3.3
// core context and Treadline's shaders. It fails with a clear error when no display
// is available.
func OpenViewer(width, height int, title string) (v *Viewer, err error) {
	if width < 1 || height < 1 {
		return nil, fmt.Errorf("render: window size %dx%d is not positive", width, height)
	}
	if windowOpen() {
		return nil, ErrWindowOpen
	}
	if err := CheckDisplay(); err != nil {
		return nil, err
	}
	// GLFW reports a missing display with a panic from deep inside window.Init.
	defer func() {
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("render: open window: %v", r)
		}
	}()
	if err := window.Init(width, height, title); err != nil {
		return nil, fmt.Errorf("render: open window (is a display available?): %w", err)
	}
	w := window.Get().(*window.GlfwWindow)
	v = &Viewer{win: w, gs: w.Gls()}
	v.rend = renderer.NewRenderer(v.gs)
	if err := v.rend.AddDefaultShaders(); err != nil {
		return nil, fmt.Errorf("render: shaders: %w", err)
	}
	addShaders(v.rend)
	v.gs.ClearColor(skyHorizon.R, skyHorizon.G, skyHorizon.B, 1)
	w.SetSwapInterval(0)
	return v, nil
}

// windowOpen reports whether the windowing layer already holds a window.
func windowOpen() (open bool) {
	defer func() {
		if recover() != nil {
			open = false
		}
	}()
	return window.Get() != nil
}

// Window returns the underlying g3n window, for subscribing to input events.
func (v *Viewer) Window() *window.GlfwWindow { return v.win }

// GLFW's cursor input mode and its values (glfw.CursorMode, glfw.CursorNormal,
// glfw.CursorDisabled), written out so that render does not import GLFW itself.
const (
	glfwCursorMode     = 0x00033001
	glfwCursorNormal   = 0x00034001
	glfwCursorDisabled = 0x00034003
)

// CaptureCursor hides the cursor and keeps it in the window, reporting unbounded
// motion (for mouse aim), when on; off gives it back.
func (v *Viewer) CaptureCursor(on bool) {
	mode := glfwCursorNormal
	if on {
		mode = glfwCursorDisabled
	}
	v.win.SetInputMode(glfwCursorMode, mode)
}

// FramebufferSize returns the drawable size in pixels.
func (v *Viewer) FramebufferSize() (w, h int) { return v.win.GetFramebufferSize() }

// Draw clears the framebuffer and draws s into it, sized to the framebuffer.
func (v *Viewer) Draw(s *Scene) error {
	w, h := v.FramebufferSize()
	if w > 0 && h > 0 {
		if sw, sh := s.Size(); sw != w || sh != h {
			s.Resize(w, h)
		}
		v.gs.Viewport(0, 0, int32(w), int32(h))
	}
	v.gs.Clear(gls.COLOR_BUFFER_BIT | gls.DEPTH_BUFFER_BIT)
	return s.Draw(v.rend)
}

// DrawCalls returns how many meshes and HUD panels the last Draw drew.
func (v *Viewer) DrawCalls() int {
	st := v.rend.Stats()
	return st.GraphicMats + st.Panels
}

// Swap shows the drawn frame and processes window events.
func (v *Viewer) Swap() {
	v.win.SwapBuffers()
	v.win.PollEvents()
}

// ShouldClose reports whether the user asked to close the window.
func (v *Viewer) ShouldClose() bool { return v.win.ShouldClose() }

// SetShouldClose asks the loop to close the window.
func (v *Viewer) SetShouldClose() { v.win.SetShouldClose(true) }

// Capture reads the frame just drawn (call it after Draw and before Swap) into an
// image, top row first.
func (v *Viewer) Capture() *image.RGBA {
	w, h := v.FramebufferSize()
	data := v.gs.ReadPixels(0, 0, w, h, gls.RGBA, gls.UNSIGNED_BYTE)
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	stride := 4 * w
	for y := 0; y < h; y++ {
		src := data[(h-1-y)*stride : (h-y)*stride]
		copy(img.Pix[y*img.Stride:], src)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
	return img
}

// Close destroys the window. The Viewer must not be used afterwards.
func (v *Viewer) Close() { v.win.Destroy() }
