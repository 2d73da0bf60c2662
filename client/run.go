package client

import (
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"io"
	"log/slog"
	"math"
	"os"
	"time"

	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/cputime"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/terrain"
)

// Match is the match the client steps and draws: *game.Match implements it. Every
// method is required, so a match type that lacks one fails to compile instead of losing a
// key's action unnoticed. Run calls it from the window's thread only.
type Match interface {
	// Step advances the match to now (seconds on the match's clock) with the
	// player's input. An error ends Run (for example, the host was lost).
	Step(now float64, in physics.Input) error
	// Snapshot fills dst with what to draw.
	Snapshot(dst *game.Snapshot)
	// Algorithm and Clamp report, and SetAlgorithm and SetClamp change, how every
	// remote tank is reckoned and clamped.
	Algorithm() deadreckon.Algorithm
	SetAlgorithm(a deadreckon.Algorithm)
	Clamp() deadreckon.ClampMode
	SetClamp(c deadreckon.ClampMode)
	// Fire fires the player's gun when it is loaded; a match without combat does
	// nothing.
	Fire()
	// Respawn puts the player back at a spawn point.
	Respawn()
	// Chat sends a line of chat, which comes back in the snapshot's notices; an
	// error says why it was not sent.
	Chat(text string) error
	// SetCameraView tells the match where the camera stands, meters, world frame,
	// where it looks (forward, any length) and the half-angle of a cone holding the
	// picture, radians, for the next Step: the match chooses each remote tank's
	// ground-clamp detail and priority mode by its distance from it and whether it
	// is in view.
	SetCameraView(eye, forward mgl64.Vec3, halfAngle float64)
	// SetViewDetail says which of the snapshot's costlier fields the next frames
	// need: the ones the overlays on read (render.Overlay.ViewDetail).
	SetViewDetail(d game.ViewDetail)
}

// *game.Match is the match the client plays.
var _ Match = (*game.Match)(nil)

// Display is what the live match (RunConfig) and the replay viewer (ReplayConfig)
// share: the window, the ground, the camera and overlays at start, the kill camera,
// and the pictures and benchmarks that end a run. Its zero value opens a
// render.DefaultWidth×render.DefaultHeight window and runs until it is closed.
type Display struct {
	// Width and Height are the window size in pixels; if zero, render.DefaultWidth
	// and render.DefaultHeight.
	Width, Height int
	// Title is the window title; if empty, "Treadline" for a match and "Treadline —
	// replay" for the replay viewer.
	Title string
	// Terrain is the ground to draw.
	Terrain render.Terrain
	// Ground, when set, reports the exact ground height, for the camera.
	Ground func(x, z float64) (float64, bool)
	// Raycast, when set, intersects rays with the ground, for hiding the labels of
	// tanks behind hills (see render.SceneConfig.Raycast).
	Raycast func(origin, dir mgl64.Vec3, maxDist float64) (hit mgl64.Vec3, ok bool)
	// Overlays are the debug overlays shown at start.
	Overlays render.Overlay
	// Watch names the tank the camera follows at start (see render.Scene.Watch; "*":
	// the first remote tank); if empty, the player's own in a match and the
	// recorder's in a replay.
	Watch string
	// Orbit is the chase camera's start angle around the tank it follows, radians
	// (render.Chase.Yaw): 0 looks from behind, π/2 from its right.
	Orbit float64
	// KillCam turns the kill camera on: in a match, after each death of the
	// player's tank, while the wreck waits, it replays the seconds before it from
	// the shooter's side (it needs RunConfig.Recent and Map); in the replay viewer it
	// starts on the kill camera of the recorder's last death before Seek (or the
	// last kill before it).
	KillCam bool
	// FixedStep, when positive, makes every frame advance the match or the replay by
	// exactly this much whatever the wall clock says: screenshots and benchmarks
	// repeat.
	FixedStep time.Duration
	// Screenshot, when set, is a PNG file written from the last frame, after which
	// the run ends: after Frames frames, or after Duration of match (or replay)
	// time when Frames is zero (one frame when both are zero).
	Screenshot string
	Frames     int
	Duration   time.Duration
	// Scoreboard holds the scoreboard open, as Tab held does (for a screenshot of
	// it).
	Scoreboard bool
	// BenchFrames, when positive, makes the run draw that many frames, write the
	// split of frame time to BenchOut and end.
	BenchFrames int
	// BenchOut receives the benchmark report; if nil, os.Stdout.
	BenchOut io.Writer
	// Logger receives status messages; if nil, slog.Default().
	Logger *slog.Logger
	// Viewer, if set, is the window to play in (for example the main menu's); it is
	// then not closed. If nil, a window is opened and closed at the end.
	Viewer *render.Viewer
	// Settings are the player's settings (controls, mouse, field of view, quality,
	// volume); if nil, the defaults.
	Settings *Settings
}

// withDefaults fills in d's defaults, title being the window's.
func (d Display) withDefaults(title string) Display {
	if d.Width <= 0 {
		d.Width = render.DefaultWidth
	}
	if d.Height <= 0 {
		d.Height = render.DefaultHeight
	}
	if d.Title == "" {
		d.Title = title
	}
	if d.BenchOut == nil {
		d.BenchOut = os.Stdout
	}
	if d.Logger == nil {
		d.Logger = slog.Default()
	}
	if d.Screenshot != "" && d.Frames <= 0 && d.Duration <= 0 {
		d.Frames = 1
	}
	set := settingsOr(d.Settings)
	d.Settings = &set
	if d.Viewer != nil {
		d.Width, d.Height = d.Viewer.FramebufferSize()
	}
	return d
}

// window is the loop's share of d: pacing, screenshots and benchmarks.
func (d Display) window() windowConfig {
	return windowConfig{FixedStep: d.FixedStep, Screenshot: d.Screenshot, Frames: d.Frames, Duration: d.Duration,
		BenchFrames: d.BenchFrames, BenchOut: d.BenchOut}
}

// open returns d's window, opening one when d has none, and a function that closes
// what open opened (the window, or else scene, which the window outlives).
func (d Display) open(scene *render.Scene) (*render.Viewer, func(), error) {
	if d.Viewer != nil {
		d.Viewer.Window().SetTitle(d.Title)
		return d.Viewer, scene.Dispose, nil
	}
	v, err := render.OpenViewer(d.Width, d.Height, d.Title)
	if err != nil {
		return nil, nil, err
	}
	return v, v.Close, nil
}

// RunConfig configures Run. The zero value opens a DefaultWidth×DefaultHeight window
// and plays until the window closes or the player leaves.
type RunConfig struct {
	Display
	// Clock returns the match's time in seconds. If nil, Run uses seconds of wall
	// time since it started.
	Clock func() float64
	// Host is the address of the match's host, named when the match ends badly; if
	// empty, messages say "the host".
	Host string
	// Sound, if not nil, plays the match (see OpenSound); Run does not close it.
	Sound *Sound
	// OnSettings, if set, runs after every change the pause menu makes to the
	// settings.
	OnSettings func(Settings)
	// Notice, if set, is shown over the match for its first seconds (where others
	// join a hosted match).
	Notice string
	// Pause, if set, stops the whole match while the pause menu shows (on) and lets
	// it go on after (off), and reports whether it did: a practice alone with bots
	// pauses for real. Otherwise the match goes on behind the menu, the player's tank
	// stopped with its aim held.
	Pause func(on bool) bool
	// Recent returns the last seconds of the player's view of the match
	// (replay.ReadRing of session.Session.Recent), and Map is the map the match is
	// played on: the kill camera (Display.KillCam) needs both.
	Recent func() (*replay.Recording, error)
	Map    *terrain.Map
	// Recording, if set, reports whether the match is being recorded into a file
	// (session.Session.Recording); the HUD shows "● REC" while it is.
	Recording func() bool
}

// ErrLeft reports that the player left the match from the menu.
var ErrLeft = errors.New("client: player left the match")

// noticeDuration is how long RunConfig.Notice stays on screen.
const noticeDuration = 20 * time.Second

// timeEpsilon absorbs rounding when match times are compared, seconds.
const timeEpsilon = 1e-9

// Run opens the window and plays s until the window is closed (nil), the player
// leaves (ErrLeft), ctx ends (ctx's error), s fails (its error, wrapped, after a
// panel has said so and a key was pressed), or a screenshot or benchmark run
// completes (nil). It alone steps s, once a frame. It must be called from the main
// goroutine.
func Run(ctx context.Context, cfg RunConfig, s Match) error {
	l, release, err := newMatch(cfg, s)
	if err != nil {
		return err
	}
	defer release()
	return runWindow(ctx, l.v, l, l.cfg.window())
}

// newMatch makes the screen that plays s as cfg says, on cfg.Viewer or a window it
// opens, and returns it with the function that lets go of what it made.
func newMatch(cfg RunConfig, s Match) (*matchScreen, func(), error) {
	cfg.Display = cfg.withDefaults("Treadline")
	set := cfg.Settings
	scene, err := render.NewScene(cfg.Terrain, render.SceneConfig{Width: cfg.Width, Height: cfg.Height,
		Overlays: cfg.Overlays, Ground: cfg.Ground, Raycast: cfg.Raycast, LODDistance: set.LODDistance(),
		NoShadows: !set.Shadows(), Help: helpLines(*set), Hint: observeHint(s)})
	if err != nil {
		return nil, nil, err
	}
	scene.Watch(cfg.Watch)
	scene.Chase().Yaw = cfg.Orbit
	scene.SetFOV(fovRadians(set.FOV))
	v, done, err := cfg.open(scene)
	if err != nil {
		scene.Dispose()
		return nil, nil, err
	}
	l := newMatchScreen(cfg, s, scene, v, cfg.Logger)
	if cfg.Notice != "" {
		scene.FlashFor(cfg.Notice, noticeDuration)
	}
	return l, func() {
		v.Window().UnsubscribeAllID(l)
		v.Window().UnsubscribeAllID(l.taps)
		done()
	}, nil
}

// matchScreen is the screen that plays a match: input, what the HUD shows and the
// match's clock.
type matchScreen struct {
	cfg   RunConfig
	s     Match
	scene *render.Scene
	v     *render.Viewer
	log   *slog.Logger
	keys  *window.KeyState
	taps  *keyLatch
	snap  game.Snapshot

	aim                 aimer
	hullBuf             []combat.HullPose // reused by hulls
	cursorSeen          bool              // lastX and lastY hold the cursor
	captured            bool              // the cursor is kept in the window (captureCursor)
	wreck, respawned    bool              // the player's tank was a wreck at the last frame; a respawn was asked for
	selfID              uint32            // the player's tank's actor id at the last frame (0: none)
	dragLeft, dragRight bool
	lastX, lastY        float32
	leave               bool
	ctl                 controls
	panels              render.Panels
	pause               *menu
	watch               watchReport
	cam                 deathCam
	observe             observeCam // an observer's camera (observe.go)
	stall               game.Stall // the stuck tank's hint shown last, and when (s of elapsed)
	stallAt             float64
	clock               func() float64 // the match's time, s
	t0, elapsed         float64        // the match's time at the first frame, and since then, s
	in                  physics.Input  // the last frame's input
	shown               *game.Snapshot // the last frame's picture: the match's or the kill camera's
	timing              bool           // the match times the parts of its steps (stepTimes)
	// after, if set, runs when the match ends, with how it ended: it returns the
	// screen to show next (nil: none) and the run's error. closing says the window
	// loop ends anyway (a closed window, a cancelled context, a finished screenshot).
	// Without it the match's end ends the window loop with that error.
	after func(err error, closing bool) (screen, error)
}

func newMatchScreen(cfg RunConfig, s Match, scene *render.Scene, v *render.Viewer, log *slog.Logger) *matchScreen {
	if cfg.Settings == nil {
		def := DefaultSettings()
		cfg.Settings = &def
	}
	l := &matchScreen{cfg: cfg, s: s, scene: scene, v: v, log: log, ctl: controlsOf(*cfg.Settings)}
	l.aim.keys = cfg.Settings.KeyAim
	if cfg.KillCam {
		l.cam.recent, l.cam.mp = cfg.Recent, cfg.Map
	}
	w := v.Window()
	l.keys = window.NewKeyState(w)
	l.taps = newKeyLatch(w)
	w.SubscribeID(window.OnKeyDown, l, func(_ string, ev interface{}) { l.onKey(ev.(*window.KeyEvent).Key) })
	w.SubscribeID(window.OnKeyRepeat, l, func(_ string, ev interface{}) {
		if ev.(*window.KeyEvent).Key == window.KeyBackspace && l.pause == nil {
			l.backspace()
		}
	})
	w.SubscribeID(window.OnChar, l, func(_ string, ev interface{}) { l.onChar(ev.(*window.CharEvent).Char) })
	w.SubscribeID(window.OnMouseDown, l, func(_ string, ev interface{}) { l.onMouse(ev.(*window.MouseEvent), true) })
	w.SubscribeID(window.OnMouseUp, l, func(_ string, ev interface{}) { l.onMouse(ev.(*window.MouseEvent), false) })
	w.SubscribeID(window.OnCursor, l, func(_ string, ev interface{}) { l.onCursor(ev.(*window.CursorEvent)) })
	w.SubscribeID(window.OnScroll, l, func(_ string, ev interface{}) { l.onScroll(float64(ev.(*window.ScrollEvent).Yoffset)) })
	return l
}

// Layout sizes the scene to the framebuffer.
func (l *matchScreen) Layout(w, h int) {
	if sw, sh := l.scene.Size(); sw != w || sh != h {
		l.scene.Resize(w, h)
	}
}

// Update steps the match to the frame's time with the player's input and takes its
// snapshot. When the match fails it hands over to the panel saying how it ended
// (lostScreen), except in a screenshot or benchmark run.
func (l *matchScreen) Update(f *frame) (screen, error) {
	if l.leave {
		return l.finish(ErrLeft)
	}
	l.captureCursor(true)
	if f.n == 1 {
		start := time.Now()
		if l.clock = l.cfg.Clock; l.clock == nil {
			l.clock = func() float64 { return time.Since(start).Seconds() }
		}
		l.t0 = l.clock()
	}
	now := l.clock()
	if f.fixed {
		now = l.t0 + float64(f.n)*f.dt
	}
	l.elapsed = now - l.t0
	l.tellCamera()
	l.in = l.input(f.dt)
	// After the input, so an overlay just turned on has its fields this frame.
	l.s.SetViewDetail(l.scene.Overlays().ViewDetail())
	if err := l.s.Step(now, l.in); err != nil {
		err = fmt.Errorf("match: %w", err)
		if l.cfg.Screenshot == "" && l.cfg.BenchFrames == 0 {
			return newLostScreen(l, err), nil
		}
		return l.finish(err)
	}
	l.s.Snapshot(&l.snap)
	if l.snap.Observing {
		l.observeFrame(f.dt)
	}
	l.markGun()
	l.stallHint()
	l.afterRespawn()
	l.watch.check(l, l.elapsed)
	l.shown = l.cam.frame(l, f.dt)
	return l, nil
}

// Draw brings the scene, the sound and the pause menu up to the frame and draws it.
func (l *matchScreen) Draw(v *render.Viewer, f *frame) error {
	l.bringUp(f)
	f.mark(phaseRender)
	return v.Draw(l.scene)
}

// bringUp brings the scene, the sound and the pause menu up to the frame, all that
// Draw does but the drawing: a test that looks at some frames only draws those.
func (l *matchScreen) bringUp(f *frame) {
	l.panels.Recording = l.cfg.Recording != nil && l.cfg.Recording()
	l.scene.SetPanels(l.panels)
	l.scene.Update(l.shown, f.dt)
	l.cfg.Sound.Update(&l.snap, l.scene.View(), l.in.Throttle, f.dt)
	l.cfg.Sound.Effects(l.snap.Combat.Effects, f.dt)
	l.drawPause()
}

// end logs a closed window; the match ends with cause.
func (l *matchScreen) end(cause error) error {
	l.captureCursor(false)
	if cause == nil {
		l.log.Info("window closed")
	}
	return l.closing(cause)
}

// finish ends the match with err and returns what comes next: see after.
func (l *matchScreen) finish(err error) (screen, error) {
	l.captureCursor(false)
	l.cam.release()
	if l.after == nil {
		return nil, err
	}
	return l.after(err, false)
}

// closing ends the match with err as the window loop ends, and returns the run's
// error.
func (l *matchScreen) closing(err error) error {
	l.cam.release()
	if l.after == nil {
		return err
	}
	_, err = l.after(err, true)
	return err
}

// release ends the match, if it has not ended, when the window loop ends.
func (l *matchScreen) release() { l.closing(nil) }

// played reports whether d of match time has passed since the first frame.
func (l *matchScreen) played(d time.Duration) bool {
	return l.elapsed >= d.Seconds()-timeEpsilon
}

// shot logs the screenshot and where each tank is on it.
func (l *matchScreen) shot(file string, n int) {
	l.log.Info("screenshot written", "file", file, "frames", n, "tanks", len(l.snap.Tanks))
	l.logTanks()
}

// tanks is how many tanks the match's last snapshot holds.
func (l *matchScreen) tanks() int { return len(l.snap.Tanks) }

// modes is how many remote tanks the last Step reckoned in each priority mode.
func (l *matchScreen) modes() [deadreckon.NumModes]int { return l.snap.Modes }

// workerCPU is the CPU time the match's worker threads have used so far, when it
// has them (game.Match.WorkerCPU: a large match's reckoning).
func (l *matchScreen) workerCPU() (time.Duration, bool) {
	if w, ok := l.s.(interface{ WorkerCPU() (time.Duration, bool) }); ok {
		return w.WorkerCPU()
	}
	return 0, false
}

// stepTimes starts timing the parts of the match's steps on the main thread's CPU
// clock, if it has not started, and returns their sums so far, when the match can
// time them (game.Match.TimeSteps).
func (l *matchScreen) stepTimes() (game.StepTimes, bool) {
	m, ok := l.s.(interface {
		TimeSteps(clock func() time.Duration)
		StepTimes() game.StepTimes
	})
	if !ok {
		return game.StepTimes{}, false
	}
	if !l.timing {
		m.TimeSteps(threadCPU)
		l.timing = true
	}
	return m.StepTimes(), true
}

// threadCPU is the calling thread's CPU time so far, 0 where it cannot be read.
func threadCPU() time.Duration {
	c, _ := cputime.Thread()
	return c
}

// afterRespawn drops the aim once the player's tank is back from a wreck, a respawn
// was asked for, or the tank is a new one (a new actor id), so the next frame aims
// where the new tank faces instead of swinging the turret to the old aim. The id
// catches what the wreck's end alone misses: the match may move a tank just
// respawned again, with a new id and heading, when its place turns out taken or in
// an enemy's sight (a crowded spawn), and the aim reset at the wreck's end held the
// first place's heading, so the camera looked off the hull and the turret swung
// round to it.
func (l *matchScreen) afterRespawn() {
	was := l.wreck
	l.wreck = l.snap.Combat.Wreck
	var id uint32
	if i := l.snap.Self; i >= 0 && i < len(l.snap.Tanks) {
		id = l.snap.Tanks[i].ID
	}
	if (was && !l.wreck) || l.respawned || id != l.selfID {
		l.aim.ready, l.respawned = false, false
	}
	l.selfID = id
}

// tellCamera passes the camera position of the last drawn frame to the match, for
// the next Step.
func (l *matchScreen) tellCamera() {
	if eye, placed := l.scene.Eye(); placed {
		v := l.scene.View()
		l.s.SetCameraView(eye, v.Forward(), v.HalfAngle())
	}
}

// lostScreen keeps drawing the match's last frame with a person's account of how
// the match ended over it until a key is pressed, the window is closed or the
// context ends; each ends Run with the match's error. The error chain goes to the
// log.
type lostScreen struct {
	l       *matchScreen
	err     error
	pressed bool
}

// lostFrame is how often lostScreen draws.
const lostFrame = 30 * time.Millisecond

func newLostScreen(l *matchScreen, err error) *lostScreen {
	words, normal := game.Explain(err, l.cfg.Host)
	if normal {
		l.log.Info("match ended", "err", err)
	} else {
		l.log.Error("match ended", "err", err)
	}
	l.captureCursor(false)
	l.cfg.Sound.Update(&game.Snapshot{Self: -1}, l.scene.View(), 0, 0) // the engines fall silent
	then := "quit"
	if l.after != nil {
		then = "go on"
	}
	l.panels = render.Panels{Message: words + "\n\nPress any key to " + then}
	l.scene.SetPanels(l.panels)
	l.leave = false
	ls := &lostScreen{l: l, err: err}
	l.v.Window().SubscribeID(window.OnKeyDown, l, func(string, interface{}) { ls.pressed = true })
	return ls
}

func (s *lostScreen) Layout(w, h int) { s.l.Layout(w, h) }

func (s *lostScreen) Update(*frame) (screen, error) {
	if s.pressed {
		return s.l.finish(s.err)
	}
	return s, nil
}

func (s *lostScreen) Draw(v *render.Viewer, _ *frame) error {
	s.l.scene.Update(&s.l.snap, lostFrame.Seconds())
	if v.Draw(s.l.scene) != nil {
		return s.err
	}
	return nil
}

func (s *lostScreen) rest() time.Duration { return lostFrame }
func (s *lostScreen) end(error) error     { return s.l.closing(s.err) }
func (s *lostScreen) release()            { s.l.release() }

// writePNG writes img to path.
func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("client: screenshot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("client: screenshot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("client: screenshot %s: %w", path, err)
	}
	return nil
}

// logTanks logs where each tank of the last frame is on the picture (the turret roof),
// so tests and bug reports can match the screenshot against the world.
func (l *matchScreen) logTanks() {
	view := l.scene.View()
	for i := range l.snap.Tanks {
		tv := &l.snap.Tanks[i]
		x, y, ok := view.Project(render.TurretRoof(tv))
		ok = ok && x >= 0 && y >= 0 && x < float64(view.Width) && y < float64(view.Height)
		l.log.Info("tank", "id", tv.ID, "name", tv.Name, "team", tv.Team, "local", tv.Local, "self", i == l.snap.Self,
			"distance", math.Round(tv.Position.Sub(view.Eye).Len()), "on_screen", ok, "x", int(x), "y", int(y))
	}
}
