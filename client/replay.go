package client

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/assets/maps"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/record"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/replay"
	"github.com/treadline/treadline/session"
)

// ReplayConfig configures RunReplay. The zero value opens a default window, follows
// the recorder's own tank and plays from the start at normal speed.
type ReplayConfig struct {
	// Display is the window and what it shows at start, as in a match; the replay
	// viewer takes no benchmark (BenchFrames).
	Display
	// Seek is where playback starts, from the recording's start.
	Seek time.Duration
	// Speed is the playback speed at start; if zero, 1.
	Speed float64
	// Alt, when set, shows every tank as a second algorithm shows it from the start
	// (the A/B ghost).
	Alt *deadreckon.Algorithm
}

// replayBindings are the replay viewer's keys, in help-panel order.
var replayBindings = []render.HelpLine{
	{Key: "Space", What: "play / pause"},
	{Key: "← / →", What: "back / ahead 5 s"},
	{Key: "PageUp / PageDown", What: "back / ahead 30 s"},
	{Key: "Home / End", What: "start / end"},
	{Key: "- / =", What: "slower / faster (0.25× to 4×)"},
	{Key: ". / ,", What: "a frame ahead / back (pauses)"},
	{Key: "click the timeline", What: "go there"},
	{Key: "1 … 7", What: "re-reckon every tank: pvb, static, linear, quadratic, bezier, twopath, delayed"},
	{Key: "B", What: "A/B: a second algorithm's view of every tank, as a white ghost"},
	{Key: "N", What: "the A/B ghost's next algorithm"},
	{Key: "Y", What: "truth (magenta ghost, where the recording has it) with its error"},
	{Key: "K", What: "kill camera: the seconds before your last death, as the shooter saw them"},
	{Key: "P", What: "follow the next tank"},
	{Key: "F", What: "free camera: W A S D move, Q E turn"},
	{Key: "drag / wheel", What: "orbit / zoom"},
	{Key: "G T X V L H O", What: "overlays: ghost, trail, clamp, motion, labels, hits, all"},
	{Key: "C", What: "next ground clamp mode"},
	{Key: "F1", What: "this help"},
	{Key: "Esc", What: "leave the replay"},
}

// replayHint is the key hint in the corner of the replay viewer.
const replayHint = "F1 keys · Space play/pause · ←→ seek · 1–7 algorithm · B A/B · K kill camera"

// Replay viewer constants.
const (
	seekShort, seekLong = 5.0, 30.0  // s
	freeSpeed           = 30.0       // m/s of the free camera
	freeTurn            = 1.2        // rad/s of the free camera
	replayFrame         = 1.0 / 60.0 // s, a step back
)

// RunReplay opens the window and plays p until the window is closed or the viewer
// leaves (nil), ctx ends (its error), or a screenshot is written (nil). It must be
// called from the main goroutine.
func RunReplay(ctx context.Context, cfg ReplayConfig, p *replay.Player) error {
	cfg.Display = cfg.withDefaults("Treadline — replay")
	cfg.BenchFrames = 0
	set := *cfg.Settings
	scene, err := render.NewScene(cfg.Terrain, render.SceneConfig{Width: cfg.Width, Height: cfg.Height,
		Overlays: cfg.Overlays, Ground: cfg.Ground, Raycast: cfg.Raycast, LODDistance: set.LODDistance(),
		NoShadows: !set.Shadows(), Help: replayBindings, Hint: replayHint})
	if err != nil {
		return err
	}
	scene.SetFOV(fovRadians(set.FOV))
	scene.Chase().Yaw = cfg.Orbit
	v, done, err := cfg.open(scene)
	if err != nil {
		return err
	}
	defer done()
	l, err := newReplayScreen(cfg, set, p, scene, v)
	if err != nil {
		return err
	}
	defer v.Window().UnsubscribeAllID(l)
	return runWindow(ctx, v, l, cfg.window())
}

// replayScreen is RunReplay's state.
type replayScreen struct {
	cfg   ReplayConfig
	set   Settings
	p     *replay.Player
	scene *render.Scene
	v     *render.Viewer
	log   *slog.Logger
	keys  *window.KeyState
	snap  game.Snapshot
	tl    render.Timeline

	panels      render.Panels
	leave       bool
	free        bool
	freePos     mgl64.Vec3
	freeHeading float64
	drag        bool
	moved       bool // the mouse moved since the button went down
	lastX       float32
	lastY       float32
	err         error   // a failed seek or re-reckoning, to end the loop with
	zoomed      bool    // the kill camera has the camera
	start       float64 // the replay's time at the first frame, s
}

func newReplayScreen(cfg ReplayConfig, set Settings, p *replay.Player, scene *render.Scene, v *render.Viewer) (*replayScreen, error) {
	l := &replayScreen{cfg: cfg, set: set, p: p, scene: scene, v: v, log: cfg.Logger}
	rec := p.Recording()
	for _, k := range rec.Kills {
		l.tl.Marks = append(l.tl.Marks, k.Time)
	}
	l.tl.Start, l.tl.End = rec.Start, rec.End
	p.SetSpeed(cfg.Speed)
	if cfg.Alt != nil {
		if err := p.SetAlt(true, *cfg.Alt); err != nil {
			return nil, err
		}
	}
	if err := p.Seek(rec.Start + cfg.Seek.Seconds()); err != nil {
		return nil, err
	}
	watch := cfg.Watch
	if watch == "" {
		watch = rec.Meta.Recorder
	}
	if watch == "" {
		watch = "*"
	}
	scene.Watch(watch)
	if cfg.KillCam {
		l.killCam()
	}
	w := v.Window()
	l.keys = window.NewKeyState(w)
	w.SubscribeID(window.OnKeyDown, l, func(_ string, ev interface{}) { l.onKey(ev.(*window.KeyEvent)) })
	w.SubscribeID(window.OnKeyRepeat, l, func(_ string, ev interface{}) { l.onRepeat(ev.(*window.KeyEvent).Key) })
	w.SubscribeID(window.OnMouseDown, l, func(_ string, ev interface{}) { l.onMouse(ev.(*window.MouseEvent), true) })
	w.SubscribeID(window.OnMouseUp, l, func(_ string, ev interface{}) { l.onMouse(ev.(*window.MouseEvent), false) })
	w.SubscribeID(window.OnCursor, l, func(_ string, ev interface{}) { l.onCursor(ev.(*window.CursorEvent)) })
	w.SubscribeID(window.OnScroll, l, func(_ string, ev interface{}) {
		l.scene.Chase().Zoom(math.Pow(zoomPerNotch, float64(ev.(*window.ScrollEvent).Yoffset)))
	})
	return l, nil
}

// Layout sizes the scene to the framebuffer.
func (l *replayScreen) Layout(w, h int) {
	if sw, sh := l.scene.Size(); sw != w || sh != h {
		l.scene.Resize(w, h)
	}
}

// Update plays the frame's dt of wall time (at most a quarter of a second) and takes
// the snapshot; the viewer's leaving or a failed seek ends it.
func (l *replayScreen) Update(f *frame) (screen, error) {
	switch {
	case l.leave:
		return nil, nil
	case l.err != nil:
		return nil, l.err
	}
	if f.n == 1 {
		l.start = l.p.Time()
	}
	dt := math.Min(f.dt, 0.25)
	l.moveFree(dt)
	if eye, ok := l.scene.Eye(); ok {
		// As a live match is told: the tanks out of the picture and away from
		// the camera are reckoned in low mode.
		v := l.scene.View()
		l.p.SetCameraView(eye, v.Forward(), v.HalfAngle())
	}
	if err := l.p.Advance(dt); err != nil {
		return nil, err
	}
	l.p.Snapshot(&l.snap)
	l.aimKillCam()
	l.tl.Now, l.tl.Status = l.p.Time(), l.status()
	l.panels.Timeline = &l.tl
	return l, nil
}

// release lets go of the replay's goroutines (replay.Player.Close) when the window
// loop ends while it shows.
func (l *replayScreen) release() { l.p.Close() }

// Draw draws the frame.
func (l *replayScreen) Draw(v *render.Viewer, f *frame) error {
	l.scene.SetPanels(l.panels)
	l.scene.Update(&l.snap, math.Min(f.dt, 0.25))
	f.mark(phaseRender)
	return v.Draw(l.scene)
}

// played reports whether d of the viewer's time has passed since the first frame
// (d times the speed of the recording), or the recording is over.
func (l *replayScreen) played(d time.Duration) bool {
	return l.p.Time()-l.start >= d.Seconds()*l.p.Speed()-timeEpsilon || l.p.Time() >= l.p.Recording().End
}

// shot logs the screenshot.
func (l *replayScreen) shot(file string, n int) {
	l.log.Info("screenshot written", "file", file, "frames", n, "time", l.p.Time())
}

// tanks is how many tanks the last frame showed.
func (l *replayScreen) tanks() int { return len(l.snap.Tanks) }

func (l *replayScreen) modes() [deadreckon.NumModes]int { return l.snap.Modes }

// status is the line above the timeline.
func (l *replayScreen) status() string {
	p := l.p
	var b strings.Builder
	if p.Paused() {
		b.WriteString("paused")
	} else {
		b.WriteString("playing")
	}
	fmt.Fprintf(&b, " %g×   %s / %s   %s", p.Speed(), record.Clock(p.Time()-l.tl.Start), record.Clock(l.tl.End-l.tl.Start),
		p.Algorithm())
	if on, a := p.Alt(); on {
		fmt.Fprintf(&b, "   B: %s (white)", a)
	}
	watched := l.scene.Watched(&l.snap)
	k, killCam := p.KillCamOn()
	if killCam {
		// The target is the tank to measure: as the shooter saw it.
		fmt.Fprintf(&b, "   KILL CAMERA: %s by %s, as %s saw it", l.tankName(k.Target), l.tankName(k.Shooter), l.tankName(k.Shooter))
		l.ghostErrors(&b, k.Target, "the truth (magenta)", "the host's rebuild (cyan)")
		return b.String()
	}
	if watched != nil && p.Truth() {
		l.ghostErrors(&b, watched.ID, "truth (magenta): "+watched.Name, "")
	}
	if l.free {
		b.WriteString("   free camera")
	} else if watched != nil {
		fmt.Fprintf(&b, "   following %s", watched.Name)
	}
	return b.String()
}

// ghostErrors writes how far tank id is shown from its truth ghost (truth names it)
// and, if rebuilt names it, from the host's rebuild.
func (l *replayScreen) ghostErrors(b *strings.Builder, id uint32, truth, rebuilt string) {
	for _, g := range l.snap.Ghosts {
		switch {
		case g.Of != id:
		case g.Kind == game.GhostTruth && truth != "":
			fmt.Fprintf(b, "   %s off by %.2f m", truth, g.Error)
		case g.Kind == game.GhostRebuilt && rebuilt != "":
			fmt.Fprintf(b, "   %s off by %.2f m", rebuilt, g.Error)
		}
	}
}

// tankName names the tank with actor id.
func (l *replayScreen) tankName(id uint32) string {
	if t := l.p.Recording().Tanks[id]; t != nil && t.Name != "" {
		return t.Name
	}
	return fmt.Sprintf("tank %d", id)
}

// onKey handles a key press.
func (l *replayScreen) onKey(ev *window.KeyEvent) {
	if l.panels.Help && ev.Key != window.KeyF1 {
		l.panels.Help = false
		return
	}
	if l.seekKey(ev.Key) || l.viewKey(ev.Key) || l.overlayKey(ev.Key) {
		return
	}
	if a, ok := algorithmKey(ev.Key); ok {
		l.try(l.p.SetAlgorithm(a))
		l.scene.Flash("every tank re-reckoned: " + a.String())
	}
}

// onRepeat steps on while an arrow or a frame key is held.
func (l *replayScreen) onRepeat(k window.Key) {
	switch k {
	case window.KeyLeft, window.KeyRight, window.KeyPeriod, window.KeyComma:
		l.seekKey(k)
	}
}

// try keeps the first error of a seek or re-reckoning, which ends the viewer.
func (l *replayScreen) try(err error) {
	if err != nil && l.err == nil {
		l.err = err
	}
}

// seekKey handles the playback keys; it reports whether k was one.
func (l *replayScreen) seekKey(k window.Key) bool {
	p := l.p
	switch k {
	case window.KeySpace:
		p.SetPaused(!p.Paused())
	case window.KeyLeft:
		l.seek(p.Time() - seekShort)
	case window.KeyRight:
		l.seek(p.Time() + seekShort)
	case window.KeyPageUp:
		l.seek(p.Time() - seekLong)
	case window.KeyPageDown:
		l.seek(p.Time() + seekLong)
	case window.KeyHome:
		l.seek(l.tl.Start)
	case window.KeyEnd:
		l.seek(l.tl.End)
	case window.KeyMinus, window.KeyKPSubtract:
		p.SetSpeed(p.Speed() / 2)
		l.scene.Flash(fmt.Sprintf("speed %g×", p.Speed()))
	case window.KeyEqual, window.KeyKPAdd:
		p.SetSpeed(p.Speed() * 2)
		l.scene.Flash(fmt.Sprintf("speed %g×", p.Speed()))
	case window.KeyPeriod:
		l.try(p.StepFrame())
	case window.KeyComma:
		p.SetPaused(true)
		l.seek(p.Time() - replayFrame)
	default:
		return false
	}
	return true
}

// seek moves the replay to t, leaving the kill camera.
func (l *replayScreen) seek(t float64) {
	l.p.StopKillCam()
	l.try(l.p.Seek(t))
}

// viewKey handles the camera, comparison and kill camera keys; it reports whether k
// was one.
func (l *replayScreen) viewKey(k window.Key) bool {
	p := l.p
	switch k {
	case window.KeyEscape:
		l.leave = true
	case window.KeyF1:
		l.panels.Help = !l.panels.Help
	case window.KeyB:
		on, a := p.Alt()
		if a == p.Algorithm() {
			a = nextAlgorithm(a)
		}
		l.try(p.SetAlt(!on, a))
	case window.KeyN:
		_, a := p.Alt()
		a = nextAlgorithm(a)
		l.try(p.SetAlt(true, a))
		l.scene.Flash("A/B ghost: " + a.String())
	case window.KeyY:
		p.SetTruth(!p.Truth())
	case window.KeyK:
		l.killCam()
	case window.KeyP:
		l.free = false
		if name := l.scene.WatchNext(&l.snap); name != "" {
			l.scene.Flash("following " + name)
		}
	case window.KeyF:
		l.toggleFree()
	case window.KeyC:
		c := nextClamp(p.Clamp())
		l.try(p.SetClamp(c))
		l.scene.Flash("ground clamp: " + c.String())
	default:
		return false
	}
	return true
}

// overlayKey toggles the overlay bound to k (as in a match); it reports whether k
// was one.
func (l *replayScreen) overlayKey(k window.Key) bool {
	b, ok := bindingFor(k)
	switch {
	case !ok:
		return false
	case b.act == actToggleOverlay:
		on := l.scene.Overlays() ^ b.overlay
		l.scene.SetOverlays(on)
		l.scene.Flash(fmt.Sprintf("overlay %s %s", b.overlay, onOff(on&b.overlay != 0)))
	case b.act == actAllOverlays:
		o := render.OverlayAll
		if l.scene.Overlays() == render.OverlayAll {
			o = 0
		}
		l.scene.SetOverlays(o)
	default:
		return false
	}
	return true
}

// algorithmKey returns the algorithm keys 1–7 choose.
func algorithmKey(k window.Key) (deadreckon.Algorithm, bool) {
	if b, ok := bindingFor(k); ok && b.act == actAlgorithm {
		return b.algo, true
	}
	return 0, false
}

// killCam starts the kill camera on the recorder's last death so far (or the last
// kill), or stops it when it is on.
func (l *replayScreen) killCam() {
	if _, on := l.p.KillCamOn(); on {
		l.p.StopKillCam()
		l.scene.Watch(l.p.Recording().Meta.Recorder)
		return
	}
	k, ok := l.p.KillBefore(l.p.Time())
	if !ok {
		l.scene.Flash("no tank has been destroyed yet")
		return
	}
	l.free = false
	l.try(l.p.KillCam(k))
	l.scene.WatchID(k.Shooter)
}

// aimKillCam puts the kill camera on the shooter's turret, looking at its target.
func (l *replayScreen) aimKillCam() {
	k, on := l.p.KillCamOn()
	if !on {
		l.scene.MarkKill(0, 0, "")
		if l.zoomed {
			l.scene.LookFrom(mgl64.Vec3{}, mgl64.Vec3{}, false)
			l.scene.SetFOV(fovRadians(l.set.FOV))
			l.zoomed = false
		}
		return
	}
	eye, look, fov, ok := killCamShot(&l.snap, k, fovRadians(l.set.FOV))
	if !ok {
		return
	}
	l.scene.WatchID(k.Shooter)
	l.scene.LookFrom(eye, look, true)
	l.scene.SetFOV(fov)
	l.scene.MarkKill(k.Shooter, k.Target, "")
	l.zoomed = true
}

// toggleFree switches between the free camera and following a tank.
func (l *replayScreen) toggleFree() {
	l.free = !l.free
	if !l.free {
		l.scene.Watch(l.p.Recording().Meta.Recorder)
		return
	}
	if tv := l.scene.Watched(&l.snap); tv != nil {
		l.freePos, l.freeHeading = tv.Position, geom.Yaw(tv.Orientation)
	} else if eye, ok := l.scene.Eye(); ok {
		l.freePos = eye
	}
	l.scene.WatchID(0)
	l.scene.Watch("")
	l.scene.LookAt(l.freePos, l.freeHeading)
}

// moveFree moves the free camera by the held keys over dt seconds.
func (l *replayScreen) moveFree(dt float64) {
	if !l.free {
		return
	}
	k := l.keys.Pressed
	fwd := mgl64.Vec3{math.Cos(l.freeHeading), 0, -math.Sin(l.freeHeading)}
	right := mgl64.Vec3{math.Sin(l.freeHeading), 0, math.Cos(l.freeHeading)}
	var move mgl64.Vec3
	if k(window.KeyW) {
		move = move.Add(fwd)
	}
	if k(window.KeyS) {
		move = move.Sub(fwd)
	}
	if k(window.KeyD) {
		move = move.Add(right)
	}
	if k(window.KeyA) {
		move = move.Sub(right)
	}
	if k(window.KeyQ) {
		l.freeHeading += freeTurn * dt
	}
	if k(window.KeyE) {
		l.freeHeading -= freeTurn * dt
	}
	l.freePos = l.freePos.Add(move.Mul(freeSpeed * dt))
	if l.cfg.Ground != nil {
		if h, ok := l.cfg.Ground(l.freePos[0], l.freePos[2]); ok {
			l.freePos[1] = h
		}
	}
	l.scene.LookAt(l.freePos, l.freeHeading)
}

// onMouse starts and ends a drag; a click on the timeline seeks there.
func (l *replayScreen) onMouse(ev *window.MouseEvent, down bool) {
	if ev.Button != window.MouseButtonLeft && ev.Button != window.MouseButtonRight {
		return
	}
	if down {
		l.drag, l.moved = true, false
		l.lastX, l.lastY = ev.Xpos, ev.Ypos
		return
	}
	l.drag = false
	if !l.moved {
		if t, ok := l.scene.TimelineAt(l.pixels(ev.Xpos, ev.Ypos)); ok {
			l.seek(t)
		}
	}
}

// pixels turns window coordinates into picture pixels.
func (l *replayScreen) pixels(x, y float32) (float32, float32) {
	ww, wh := l.v.Window().GetSize()
	fw, fh := l.v.FramebufferSize()
	if ww <= 0 || wh <= 0 {
		return x, y
	}
	return x * float32(fw) / float32(ww), y * float32(fh) / float32(wh)
}

// onCursor orbits the camera while a button is held.
func (l *replayScreen) onCursor(ev *window.CursorEvent) {
	dx, dy := ev.Xpos-l.lastX, ev.Ypos-l.lastY
	l.lastX, l.lastY = ev.Xpos, ev.Ypos
	if !l.drag || (math.Abs(float64(dx)) < 1 && math.Abs(float64(dy)) < 1) {
		return
	}
	l.moved = true
	k := orbitPerPx * l.set.MouseSensitivity
	pitch := float64(dy) * k
	if l.set.InvertMouse {
		pitch = -pitch
	}
	l.scene.Chase().Orbit(-float64(dx)*k, pitch)
}

// LoadReplay loads the recording at path and the map it was made on, by the name in
// its metadata (if none, session.DefaultMapName), from mapDir, if set, or the maps
// built into the program (maps.Library), and returns a player for it, with a line
// saying where a damaged file stopped (empty for a whole one).
func LoadReplay(path, mapDir string, log *slog.Logger) (*replay.Player, string, error) {
	rec, err := replay.Load(path)
	if err != nil {
		return nil, "", err
	}
	name := rec.Meta.Map
	if name == "" {
		name = session.DefaultMapName
	}
	mp, err := maps.Library{Dirs: []string{mapDir}}.Load(name)
	if err != nil {
		return nil, "", fmt.Errorf("replay: the recording was made on map %q: %w", name, err)
	}
	p, err := replay.NewPlayer(rec, replay.PlayerConfig{Map: mp, Logger: log})
	if err != nil {
		return nil, "", err
	}
	stopped := ""
	if rec.Stopped != nil {
		stopped = rec.Stopped.Error()
	}
	return p, stopped, nil
}
