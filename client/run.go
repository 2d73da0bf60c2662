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
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
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
	// SetCamera tells the match where the camera stands, meters, world frame, for
	// the next Step: the match chooses each remote tank's ground-clamp detail by its
	// distance from it.
	SetCamera(p mgl64.Vec3)
}

// *game.Match is the match the client plays.
var _ Match = (*game.Match)(nil)

// RunConfig configures Run. The zero value opens a DefaultWidth×DefaultHeight window
// and plays until the window closes or the player leaves.
type RunConfig struct {
	// Width and Height are the window size in pixels; if zero, render.DefaultWidth
	// and render.DefaultHeight.
	Width, Height int
	// Title is the window title; if empty, "Treadline".
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
	// Watch names the tank the camera follows at start instead of the player's ("*":
	// the first remote tank); see render.Scene.Watch.
	Watch string
	// Orbit is the chase camera's start angle around the tank it follows, radians
	// (render.Chase.Yaw): 0 looks from behind, π/2 from its right.
	Orbit float64
	// Clock returns the match's time in seconds. If nil, Run uses seconds of wall
	// time since it started.
	Clock func() float64
	// FixedStep, when positive, makes every frame advance the match by exactly this
	// much whatever the wall clock says: screenshots and benchmarks repeat.
	FixedStep time.Duration
	// Screenshot, when set, is a PNG file written from the last frame, after which Run
	// returns: after Frames frames, or after Duration of match time when Frames is
	// zero (one frame when both are zero).
	Screenshot string
	Frames     int
	Duration   time.Duration
	// BenchFrames, when positive, makes Run draw that many frames, write the split of
	// frame time to BenchOut and return.
	BenchFrames int
	// BenchOut receives the benchmark report; if nil, os.Stdout.
	BenchOut io.Writer
	// Logger receives status messages; if nil, slog.Default().
	Logger *slog.Logger
	// Host is the address of the match's host, named when the match ends badly; if
	// empty, messages say "the host".
	Host string
	// Sound, if not nil, plays the match (see OpenSound); Run does not close it.
	Sound *Sound
	// Viewer, if set, is the window to play in (for example the main menu's); Run
	// then does not close it. If nil, Run opens a window and closes it at the end.
	Viewer *render.Viewer
	// Settings are the player's settings (controls, mouse, field of view, quality,
	// volume); if nil, the defaults. The pause menu edits them and calls
	// OnSettings after every change.
	Settings   *Settings
	OnSettings func(Settings)
	// Notice, if set, is shown over the match for its first seconds (where others
	// join a hosted match).
	Notice string
	// Pause, if set, stops the whole match while the pause menu shows (on) and lets
	// it go on after (off), and reports whether it did: a practice alone with bots
	// pauses for real. Otherwise the match goes on behind the menu, the player's tank
	// stopped with its aim held.
	Pause func(on bool) bool
	// KillCam, if set, returns the last seconds of the player's view of the match
	// (replay.ReadRing of session.Session.Recent): after each death of the player's
	// tank, while the wreck waits, the kill camera replays the seconds before it from
	// the shooter's side. Map is the map the match is played on; the kill camera
	// needs both.
	KillCam func() (*replay.Recording, error)
	Map     *terrain.Map
}

// ErrLeft reports that the player left the match from the menu.
var ErrLeft = errors.New("client: player left the match")

// noticeDuration is how long RunConfig.Notice stays on screen.
const noticeDuration = 20 * time.Second

// timeEpsilon absorbs rounding when match times are compared, seconds.
const timeEpsilon = 1e-9

// Run opens the window and plays s until the window is closed (nil), the player
// leaves (ErrLeft), ctx ends (ctx's error), s fails (its error, wrapped), or a
// screenshot or benchmark run completes (nil). It alone steps s, once a frame. It
// must be called from the main goroutine.
func Run(ctx context.Context, cfg RunConfig, s Match) error {
	if cfg.Width <= 0 {
		cfg.Width = render.DefaultWidth
	}
	if cfg.Height <= 0 {
		cfg.Height = render.DefaultHeight
	}
	if cfg.Title == "" {
		cfg.Title = "Treadline"
	}
	if cfg.BenchOut == nil {
		cfg.BenchOut = os.Stdout
	}
	log := cfg.Logger
	if log == nil {
		log = slog.Default()
	}
	if cfg.Screenshot != "" && cfg.Frames <= 0 && cfg.Duration <= 0 {
		cfg.Frames = 1
	}
	set := settingsOr(cfg.Settings)
	cfg.Settings = &set
	v := cfg.Viewer
	if v != nil {
		cfg.Width, cfg.Height = v.FramebufferSize()
	}
	scene, err := render.NewScene(cfg.Terrain, render.SceneConfig{Width: cfg.Width, Height: cfg.Height,
		Overlays: cfg.Overlays, Ground: cfg.Ground, Raycast: cfg.Raycast, LODDistance: set.LODDistance(),
		NoShadows: !set.Shadows(), Help: helpLines(set)})
	if err != nil {
		return err
	}
	scene.Watch(cfg.Watch)
	scene.Chase().Yaw = cfg.Orbit
	scene.SetFOV(fovRadians(set.FOV))
	if v == nil {
		if v, err = render.OpenViewer(cfg.Width, cfg.Height, cfg.Title); err != nil {
			return err
		}
		defer v.Close()
	} else {
		v.Window().SetTitle(cfg.Title)
		// The window outlives this match (the menu comes back): free the scene's
		// meshes and textures with it.
		defer scene.Dispose()
	}
	l := newLoop(cfg, s, scene, v, log)
	defer v.Window().UnsubscribeAllID(l)
	if cfg.Notice != "" {
		scene.FlashFor(cfg.Notice, noticeDuration)
	}
	return l.run(ctx)
}

// loop is Run's state: input, what the HUD shows, timing and the benchmark record.
type loop struct {
	cfg   RunConfig
	s     Match
	scene *render.Scene
	v     *render.Viewer
	log   *slog.Logger
	keys  *window.KeyState
	taps  *keyLatch
	snap  game.Snapshot

	aimYaw, aimGun      float64
	aimInit             bool
	wreck, respawned    bool // the player's tank was a wreck at the last frame; a respawn was asked for
	dragLeft, dragRight bool
	lastX, lastY        float32
	leave               bool
	ctl                 controls
	panels              render.Panels
	pause               *menu
	bench               *bench
	watch               watchReport
	cam                 deathCam
}

func newLoop(cfg RunConfig, s Match, scene *render.Scene, v *render.Viewer, log *slog.Logger) *loop {
	if cfg.Settings == nil {
		def := DefaultSettings()
		cfg.Settings = &def
	}
	l := &loop{cfg: cfg, s: s, scene: scene, v: v, log: log, ctl: controlsOf(*cfg.Settings)}
	l.cam.recent, l.cam.mp = cfg.KillCam, cfg.Map
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
	w.SubscribeID(window.OnScroll, l, func(_ string, ev interface{}) {
		l.scene.Chase().Zoom(math.Pow(zoomPerNotch, float64(ev.(*window.ScrollEvent).Yoffset)))
	})
	if cfg.BenchFrames > 0 {
		l.bench = newBench(cfg.BenchFrames)
	}
	return l
}

func (l *loop) run(ctx context.Context) error {
	start := time.Now()
	clock := l.cfg.Clock
	if clock == nil {
		clock = func() float64 { return time.Since(start).Seconds() }
	}
	step := l.cfg.FixedStep.Seconds()
	t0 := clock()
	lastWall := time.Now()
	for frame := 1; ; frame++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if l.v.ShouldClose() {
			l.log.Info("window closed")
			return nil
		}
		if l.leave {
			return ErrLeft
		}
		wall := time.Now()
		dt := wall.Sub(lastWall).Seconds()
		lastWall = wall
		var now float64
		if step > 0 {
			now = t0 + float64(frame)*step
			dt = step
		} else {
			now = clock()
		}
		done, err := l.frame(ctx, frame, now-t0, now, dt)
		if done || err != nil {
			return err
		}
	}
}

// frame steps the match to now, draws the frame and shows it (or writes the
// screenshot, or the benchmark report, when this is the last frame); done reports
// that Run is over. elapsed is the match time since Run started, seconds; dt the
// wall time since the last frame, seconds.
func (l *loop) frame(ctx context.Context, frame int, elapsed, now, dt float64) (done bool, err error) {
	var t [numPhases + 1]time.Time
	t[0] = time.Now()
	l.tellCamera()
	in := l.input(dt)
	if err := l.s.Step(now, in); err != nil {
		err = fmt.Errorf("match: %w", err)
		if l.cfg.Screenshot == "" && l.cfg.BenchFrames == 0 {
			l.showLost(ctx, err)
		}
		return true, err
	}
	l.s.Snapshot(&l.snap)
	l.afterRespawn()
	l.watch.check(l, elapsed)
	shown := l.cam.frame(l, dt)
	t[1] = time.Now()
	l.scene.SetPanels(l.panels)
	l.scene.Update(shown, dt)
	l.cfg.Sound.Update(&l.snap, l.scene.View(), in.Throttle, dt)
	l.cfg.Sound.Effects(l.snap.Combat.Effects, dt)
	l.drawPause()
	t[2] = time.Now()
	if err := l.v.Draw(l.scene); err != nil {
		return true, err
	}
	t[3] = time.Now()
	if l.shotDue(frame, elapsed) {
		if err := writePNG(l.cfg.Screenshot, l.v.Capture()); err != nil {
			return true, err
		}
		l.log.Info("screenshot written", "file", l.cfg.Screenshot, "frames", frame, "tanks", len(l.snap.Tanks))
		l.logTanks()
		return true, nil
	}
	l.v.Swap()
	t[4] = time.Now()
	if l.bench == nil {
		return false, nil
	}
	l.bench.add(t, l.v.DrawCalls())
	if frame >= l.cfg.BenchFrames {
		w, h := l.v.FramebufferSize()
		l.bench.report(l.cfg.BenchOut, len(l.snap.Tanks), w, h)
		return true, nil
	}
	return false, nil
}

// afterRespawn drops the aim once the player's tank is back from a wreck or a
// respawn was asked for, so the next frame aims where the new tank faces instead of
// swinging the turret to the old aim.
func (l *loop) afterRespawn() {
	was := l.wreck
	l.wreck = l.snap.Combat.Wreck
	if (was && !l.wreck) || l.respawned {
		l.aimInit, l.respawned = false, false
	}
}

// shotDue reports whether the screenshot is taken at this frame, elapsed seconds of
// match time after the first.
func (l *loop) shotDue(frame int, elapsed float64) bool {
	if l.cfg.Screenshot == "" {
		return false
	}
	if l.cfg.Frames > 0 {
		return frame >= l.cfg.Frames
	}
	return elapsed >= l.cfg.Duration.Seconds()-timeEpsilon
}

// tellCamera passes the camera position of the last drawn frame to the match, for
// the next Step.
func (l *loop) tellCamera() {
	if eye, placed := l.scene.Eye(); placed {
		l.s.SetCamera(eye)
	}
}

// showLost keeps drawing the last frame with a person's account of how the match
// ended over it until a key is pressed, the window is closed or ctx ends. The error
// chain goes to the log.
func (l *loop) showLost(ctx context.Context, err error) {
	words, normal := game.Explain(err, l.cfg.Host)
	if normal {
		l.log.Info("match ended", "err", err)
	} else {
		l.log.Error("match ended", "err", err)
	}
	l.cfg.Sound.Update(&game.Snapshot{Self: -1}, l.scene.View(), 0, 0) // the engines fall silent
	l.panels = render.Panels{Message: words + "\n\nPress any key to quit"}
	l.scene.SetPanels(l.panels)
	l.leave = false
	pressed := false
	l.v.Window().SubscribeID(window.OnKeyDown, l, func(string, interface{}) { pressed = true })
	for !pressed && !l.v.ShouldClose() && ctx.Err() == nil {
		l.scene.Update(&l.snap, 1.0/30)
		if l.v.Draw(l.scene) != nil {
			return
		}
		l.v.Swap()
		time.Sleep(30 * time.Millisecond)
	}
}

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
func (l *loop) logTanks() {
	view := l.scene.View()
	for i := range l.snap.Tanks {
		tv := &l.snap.Tanks[i]
		x, y, ok := view.Project(render.TurretRoof(tv))
		ok = ok && x >= 0 && y >= 0 && x < float64(view.Width) && y < float64(view.Height)
		l.log.Info("tank", "id", tv.ID, "name", tv.Name, "team", tv.Team, "local", tv.Local, "self", i == l.snap.Self,
			"distance", math.Round(tv.Position.Sub(view.Eye).Len()), "on_screen", ok, "x", int(x), "y", int(y))
	}
}
