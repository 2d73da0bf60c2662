package render

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
	"slices"
	"strings"
	"time"

	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/physics"
)

// Session is the match the client plays: *game.Match satisfies it. Run calls it from
// the window's thread only.
type Session interface {
	// Step advances the match to now (seconds on the session's clock) with the
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
}

// respawner is a Session that can put the player back at a spawn point.
type respawner interface{ Respawn() }

// chatter is a Session that can send a line of chat (*game.Match is one); the line
// comes back in the snapshot's notices.
type chatter interface{ Chat(text string) error }

// firer is a Session whose player's tank can fire.
type firer interface{ Fire() }

// RunConfig configures Run. The zero value opens a DefaultWidth×DefaultHeight window
// and plays until the window closes or the player leaves.
type RunConfig struct {
	// Width and Height are the window size in pixels; if zero, DefaultWidth and
	// DefaultHeight.
	Width, Height int
	// Title is the window title; if empty, "Treadline".
	Title string
	// Terrain is the ground to draw.
	Terrain Terrain
	// Ground, when set, reports the exact ground height, for the camera.
	Ground func(x, z float64) (float64, bool)
	// Raycast, when set, intersects rays with the ground, for hiding the labels of
	// tanks behind hills (see SceneConfig.Raycast).
	Raycast func(origin, dir mgl64.Vec3, maxDist float64) (hit mgl64.Vec3, ok bool)
	// Overlays are the debug overlays shown at start.
	Overlays Overlay
	// Watch names the tank the camera follows at start instead of the player's ("*":
	// the first remote tank); see Scene.Watch.
	Watch string
	// Clock returns the session's time in seconds. If nil, Run uses seconds of wall
	// time since it started.
	Clock func() float64
	// FixedStep, when positive, makes every frame advance the session by exactly this
	// many seconds whatever the wall clock says: screenshots and benchmarks repeat.
	FixedStep float64
	// Screenshot, when set, is a PNG file written from the last frame, after which Run
	// returns: after Frames frames, or after Duration seconds of session time when
	// Frames is zero (one frame when both are zero).
	Screenshot string
	Frames     int
	Duration   float64
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
	Viewer *Viewer
	// Settings are the player's settings (controls, mouse, field of view, quality,
	// volume); if nil, the defaults. The pause menu edits them and calls
	// OnSettings after every change.
	Settings   *Settings
	OnSettings func(Settings)
	// Notice, if set, is shown over the match for its first seconds (where others
	// join a hosted match).
	Notice string
}

// ErrLeft reports that the player left the match from the menu.
var ErrLeft = errors.New("render: player left the match")

// phases of one frame, for -bench-frames.
const (
	phaseSim = iota
	phaseScene
	phaseRender
	phaseSwap
	numPhases
)

var phaseNames = [numPhases]string{"simulation", "scene update", "render", "swap"}

// Run opens the window and plays s until the window is closed (nil), the player
// leaves (ErrLeft), ctx ends (ctx's error), s fails (its error, wrapped), or a
// screenshot or benchmark run completes (nil). It must be called from the main
// goroutine.
func Run(ctx context.Context, cfg RunConfig, s Session) error {
	if cfg.Width <= 0 {
		cfg.Width = DefaultWidth
	}
	if cfg.Height <= 0 {
		cfg.Height = DefaultHeight
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
	set := DefaultSettings()
	if cfg.Settings != nil {
		set = *cfg.Settings
		set.Normalize()
	}
	cfg.Settings = &set
	v := cfg.Viewer
	if v != nil {
		cfg.Width, cfg.Height = v.FramebufferSize()
	}
	scene, err := NewScene(cfg.Terrain, SceneConfig{Width: cfg.Width, Height: cfg.Height, Overlays: cfg.Overlays,
		Ground: cfg.Ground, Raycast: cfg.Raycast, LODDistance: set.LODDistance(), NoShadows: !set.Shadows()})
	if err != nil {
		return err
	}
	scene.Watch(cfg.Watch)
	scene.SetFOV(fovRadians(set.FOV))
	if v == nil {
		if v, err = OpenViewer(cfg.Width, cfg.Height, cfg.Title); err != nil {
			return err
		}
		defer v.Close()
	} else {
		v.Window().SetTitle(cfg.Title)
		// The window outlives this match (the menu comes back): free the scene's
		// meshes and textures with it.
		defer scene.root.DisposeChildren(true)
	}
	l := newLoop(cfg, s, scene, v, log)
	defer v.Window().UnsubscribeAllID(l)
	if cfg.Notice != "" {
		scene.hud.setFlash(cfg.Notice)
		scene.hud.flashLeft = noticeDuration
	}
	return l.run(ctx)
}

// loop is Run's state: input, timing and the benchmark record.
type loop struct {
	cfg   RunConfig
	s     Session
	scene *Scene
	v     *Viewer
	log   *slog.Logger
	keys  *window.KeyState
	snap  game.Snapshot

	aimYaw, aimGun      float64
	aimInit             bool
	dragLeft, dragRight bool
	lastX, lastY        float32
	leave               bool
	ctl                 controls
	pause               *menu
	pauseView           *menuView
	phases              [numPhases][]time.Duration
	drawCalls           int
	watch               watchReport
}

func newLoop(cfg RunConfig, s Session, scene *Scene, v *Viewer, log *slog.Logger) *loop {
	if cfg.Settings == nil {
		def := DefaultSettings()
		cfg.Settings = &def
	}
	l := &loop{cfg: cfg, s: s, scene: scene, v: v, log: log, ctl: controlsOf(*cfg.Settings)}
	w := v.Window()
	l.keys = window.NewKeyState(w)
	w.SubscribeID(window.OnKeyDown, l, func(_ string, ev interface{}) { l.onKey(ev.(*window.KeyEvent).Key) })
	w.SubscribeID(window.OnKeyRepeat, l, func(_ string, ev interface{}) {
		if ev.(*window.KeyEvent).Key == window.KeyBackspace && l.pause == nil {
			l.scene.hud.feed.backspace()
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
		for p := range l.phases {
			l.phases[p] = make([]time.Duration, 0, cfg.BenchFrames)
		}
	}
	return l
}

func (l *loop) run(ctx context.Context) error {
	start := time.Now()
	clock := l.cfg.Clock
	if clock == nil {
		clock = func() float64 { return time.Since(start).Seconds() }
	}
	t0 := clock()
	now := t0
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
		if l.cfg.FixedStep > 0 {
			now = t0 + float64(frame)*l.cfg.FixedStep
			dt = l.cfg.FixedStep
		} else {
			now = clock()
		}

		a := time.Now()
		l.tellCamera()
		in := l.input(dt)
		if err := l.s.Step(now, in); err != nil {
			err = fmt.Errorf("match: %w", err)
			if l.cfg.Screenshot == "" && l.cfg.BenchFrames == 0 {
				l.showLost(ctx, err)
			}
			return err
		}
		l.s.Snapshot(&l.snap)
		l.watch.check(l, now-t0)
		b := time.Now()
		l.scene.Update(&l.snap, dt)
		l.cfg.Sound.Update(&l.snap, l.scene.View(), in.Throttle, dt)
		l.cfg.Sound.Effects(l.snap.Combat.Effects, dt)
		l.drawPause()
		c := time.Now()
		if err := l.v.Draw(l.scene); err != nil {
			return err
		}
		d := time.Now()
		shot := l.cfg.Screenshot != "" &&
			((l.cfg.Frames > 0 && frame >= l.cfg.Frames) || (l.cfg.Frames <= 0 && now-t0 >= l.cfg.Duration-timeEpsilon))
		if shot {
			if err := writePNG(l.cfg.Screenshot, l.v.Capture()); err != nil {
				return err
			}
			l.log.Info("screenshot written", "file", l.cfg.Screenshot, "frames", frame, "tanks", len(l.snap.Tanks))
			l.logTanks()
			return nil
		}
		l.v.Swap()
		e := time.Now()
		if l.cfg.BenchFrames > 0 {
			l.drawCalls += l.v.rend.Stats().GraphicMats + l.v.rend.Stats().Panels
			for p, x := range [numPhases]time.Duration{b.Sub(a), c.Sub(b), d.Sub(c), e.Sub(d)} {
				l.phases[p] = append(l.phases[p], x)
			}
			if frame >= l.cfg.BenchFrames {
				return l.report(len(l.snap.Tanks))
			}
		}
	}
}

// noticeDuration is how long RunConfig.Notice stays on screen, seconds.
const noticeDuration = 20.0

// timeEpsilon absorbs rounding when session times are compared, seconds.
const timeEpsilon = 1e-9

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
	u := l.scene.hud
	u.showMenu, u.showHelp, u.showScores = false, false, false
	u.feed.closeChat()
	u.menu.SetText(words + "\n\nPress any key to quit")
	u.showMenu = true
	u.layout()
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

// input reads the held keys into the player's input and moves the aim.
func (l *loop) input(dt float64) physics.Input {
	var in physics.Input
	if l.scene.hud.showMenu || l.pause != nil || l.scene.hud.feed.open {
		return in
	}
	k := l.keys.Pressed
	c := &l.ctl
	if k(c.forward) || k(window.KeyUp) {
		in.Throttle++
	}
	if k(c.back) || k(window.KeyDown) {
		in.Throttle--
	}
	if k(c.left) || k(window.KeyLeft) {
		in.Steer--
	}
	if k(c.right) || k(window.KeyRight) {
		in.Steer++
	}
	if !l.aimInit && l.scene.haveSelf {
		l.aimYaw, l.aimInit = l.scene.selfHeading, true
	}
	dt = math.Min(math.Max(dt, 0), 0.1)
	if k(c.turretLeft) {
		l.aimYaw += aimYawRate * dt
	}
	if k(c.turretRight) {
		l.aimYaw -= aimYawRate * dt
	}
	if k(c.gunUp) {
		l.aimGun += aimGunRate * dt
	}
	if k(c.gunDown) {
		l.aimGun -= aimGunRate * dt
	}
	if l.dragLeft {
		l.aimYaw = l.scene.selfHeading + l.scene.chase.Yaw
	}
	l.aimYaw = math.Remainder(l.aimYaw, 2*math.Pi)
	l.aimGun = math.Max(aimGunMin, math.Min(aimGunMax, l.aimGun))
	in.AimYaw, in.GunElevation = l.aimYaw, l.aimGun
	l.scene.hud.showScores = k(window.KeyTab)
	return in
}

// onKey handles a key press: the pause menu, the chat box or the leave-match prompt
// take it when open; otherwise its binding acts.
func (l *loop) onKey(key window.Key) {
	u := l.scene.hud
	switch {
	case l.pause != nil:
		l.pauseKey(key)
	case u.feed.open:
		l.chatKey(key)
	case u.showMenu:
		l.leavePromptKey(key)
	default:
		if b, ok := bindingFor(key); ok {
			l.act(b)
		}
	}
}

// leavePromptKey handles a key press while the leave-match prompt shows: Enter leaves,
// Esc stays.
func (l *loop) leavePromptKey(key window.Key) {
	switch key {
	case window.KeyEnter, window.KeyKPEnter:
		l.leave = true
	case window.KeyEscape:
		l.scene.hud.showMenu = false
	}
}

// act does what binding b is for.
func (l *loop) act(b binding) {
	u := l.scene.hud
	switch b.act {
	case actChat:
		l.openChat()
	case actHelp:
		u.showHelp = !u.showHelp
	case actMenu:
		l.closeHelpOrPause()
	case actToggleOverlay:
		l.toggleOverlay(b.overlay)
	case actAllOverlays:
		l.toggleAllOverlays()
	case actAlgorithm:
		l.setAlgorithm(b.algo)
	case actNextAlgorithm:
		l.setAlgorithm(nextAlgorithm(l.s.Algorithm()))
	case actNextClamp:
		c := nextClamp(l.s.Clamp())
		l.s.SetClamp(c)
		u.setFlash("ground clamp: " + clampName(c))
	case actResetCamera:
		l.scene.chase.Yaw, l.scene.chase.Pitch, l.scene.chase.Distance = 0, 0, 0
	case actWatchNext:
		l.watchNext()
	case actFire:
		l.fire()
	case actRespawn:
		l.respawn()
	}
}

// openChat opens the chat box, when the match has chat.
func (l *loop) openChat() {
	u := l.scene.hud
	if _, ok := l.s.(chatter); !ok {
		u.setFlash("no chat in this match")
		return
	}
	u.feed.openChat()
	u.layoutFeed()
}

// closeHelpOrPause closes the help when it shows, and otherwise opens the pause menu.
func (l *loop) closeHelpOrPause() {
	if l.scene.hud.showHelp {
		l.scene.hud.showHelp = false
		return
	}
	l.openPause()
}

// toggleOverlay turns overlay o on or off and says which.
func (l *loop) toggleOverlay(o Overlay) {
	on := l.scene.Overlays() ^ o
	l.scene.SetOverlays(on)
	state := "off"
	if on&o != 0 {
		state = "on"
	}
	l.scene.hud.setFlash(fmt.Sprintf("overlay %s %s", o, state))
}

// toggleAllOverlays turns every overlay on, or all off when all are on.
func (l *loop) toggleAllOverlays() {
	o := OverlayAll
	if l.scene.Overlays() == OverlayAll {
		o = 0
	}
	l.scene.SetOverlays(o)
	l.scene.hud.setFlash("overlays: " + overlayOrNone(o))
}

// watchNext moves the camera on to the next tank, and says whose.
func (l *loop) watchNext() {
	if name := l.scene.WatchNext(&l.snap); name != "" {
		l.scene.hud.setFlash("watching " + name)
	} else {
		l.scene.hud.setFlash("watching your tank")
	}
}

// fire fires the gun, when the match has combat.
func (l *loop) fire() {
	if f, ok := l.s.(firer); ok {
		f.Fire()
	}
}

// respawn asks for a new tank, when the match has combat.
func (l *loop) respawn() {
	if r, ok := l.s.(respawner); ok {
		r.Respawn()
		l.scene.hud.setFlash("respawning")
	}
}

// chatKey handles a key press while the chat box is open: Enter sends the line, Esc
// drops it, Backspace deletes; characters arrive through OnChar.
func (l *loop) chatKey(key window.Key) {
	f := l.scene.hud.feed
	switch key {
	case window.KeyEnter, window.KeyKPEnter:
		text := f.closeChat()
		if strings.TrimSpace(text) == "" {
			return
		}
		if c, ok := l.s.(chatter); ok {
			if err := c.Chat(text); err != nil {
				l.scene.hud.setFlash("chat not sent: " + err.Error())
			}
		}
	case window.KeyEscape:
		f.closeChat()
	case window.KeyBackspace:
		f.backspace()
	}
}

func (l *loop) setAlgorithm(a deadreckon.Algorithm) {
	l.s.SetAlgorithm(a)
	l.scene.hud.setFlash("algorithm: " + a.String())
}

func overlayOrNone(o Overlay) string {
	if o == 0 {
		return "none"
	}
	return o.String()
}

func (l *loop) onMouse(ev *window.MouseEvent, down bool) {
	switch ev.Button {
	case window.MouseButtonLeft:
		l.dragLeft = down
	case window.MouseButtonRight:
		l.dragRight = down
	}
	l.lastX, l.lastY = ev.Xpos, ev.Ypos
}

func (l *loop) onCursor(ev *window.CursorEvent) {
	dx, dy := ev.Xpos-l.lastX, ev.Ypos-l.lastY
	l.lastX, l.lastY = ev.Xpos, ev.Ypos
	if l.dragLeft || l.dragRight {
		k := orbitPerPx * l.cfg.Settings.MouseSensitivity
		pitch := float64(dy) * k
		if l.cfg.Settings.InvertMouse {
			pitch = -pitch
		}
		l.scene.Chase().Orbit(-float64(dx)*k, pitch)
	}
}

// report writes the frame-time split.
func (l *loop) report(tanks int) error {
	w, h := l.v.FramebufferSize()
	n := len(l.phases[0])
	total := make([]time.Duration, n)
	for p := range l.phases {
		for i, x := range l.phases[p] {
			total[i] += x
		}
	}
	mean := func(xs []time.Duration) float64 {
		var s time.Duration
		for _, x := range xs {
			s += x
		}
		return float64(s) / float64(max(1, len(xs))) / 1e6
	}
	pct := func(xs []time.Duration, q float64) float64 {
		ys := slices.Clone(xs)
		slices.Sort(ys)
		if len(ys) == 0 {
			return 0
		}
		return float64(ys[min(len(ys)-1, int(q*float64(len(ys))))]) / 1e6
	}
	tm := mean(total)
	out := l.cfg.BenchOut
	fmt.Fprintf(out, "frame-time split: %d frames, %d tanks, %dx%d\n", n, tanks, w, h)
	fmt.Fprintf(out, "%-13s %9s %9s %9s %7s\n", "phase", "mean ms", "p50 ms", "p95 ms", "share")
	for p := range l.phases {
		m := mean(l.phases[p])
		fmt.Fprintf(out, "%-13s %9.2f %9.2f %9.2f %6.1f%%\n", phaseNames[p], m, pct(l.phases[p], 0.5), pct(l.phases[p], 0.95), 100*m/math.Max(tm, 1e-9))
	}
	fmt.Fprintf(out, "%-13s %9.2f %9.2f %9.2f  (%.1f fps)\n", "total", tm, pct(total, 0.5), pct(total, 0.95), 1000/math.Max(tm, 1e-9))
	fmt.Fprintf(out, "draw calls per frame: %.0f (meshes and HUD panels)\n", float64(l.drawCalls)/float64(max(1, n)))
	return nil
}

// writePNG writes img to path.
func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("render: screenshot: %w", err)
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("render: screenshot %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("render: screenshot %s: %w", path, err)
	}
	return nil
}

// logTanks logs where each tank of the last frame is on the picture (the turret roof),
// so tests and bug reports can match the screenshot against the world.
func (l *loop) logTanks() {
	view := l.scene.View()
	for i := range l.snap.Tanks {
		tv := &l.snap.Tanks[i]
		roof := tv.Position.Add(tv.Orientation.Rotate(defaultShape().roof()))
		x, y, ok := view.Project(roof)
		ok = ok && x >= 0 && y >= 0 && x < float64(view.Width) && y < float64(view.Height)
		l.log.Info("tank", "id", tv.ID, "name", tv.Name, "team", tv.Team, "local", tv.Local, "self", i == l.snap.Self,
			"distance", math.Round(tv.Position.Sub(view.Eye).Len()), "on_screen", ok, "x", int(x), "y", int(y))
	}
}
