package client

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"github.com/g3n/engine/core"
	"github.com/g3n/engine/window"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/tank"
)

// fakeMatch records what the client asks of the match.
type fakeMatch struct {
	algo      deadreckon.Algorithm
	clamp     deadreckon.ClampMode
	respawns  int
	fired     int
	lastInput physics.Input
	chat      []string
	chatErr   error
	camera    mgl64.Vec3
	detail    game.ViewDetail
	details   int // SetViewDetail calls
}

func (f *fakeMatch) Step(now float64, in physics.Input) error { f.lastInput = in; return nil }
func (f *fakeMatch) Snapshot(dst *game.Snapshot)              {}
func (f *fakeMatch) Algorithm() deadreckon.Algorithm          { return f.algo }
func (f *fakeMatch) SetAlgorithm(a deadreckon.Algorithm)      { f.algo = a }
func (f *fakeMatch) Clamp() deadreckon.ClampMode              { return f.clamp }
func (f *fakeMatch) SetClamp(c deadreckon.ClampMode)          { f.clamp = c }
func (f *fakeMatch) Fire()                                    { f.fired++ }
func (f *fakeMatch) Respawn()                                 { f.respawns++ }
func (f *fakeMatch) SetCameraView(p, _ mgl64.Vec3, _ float64) { f.camera = p }
func (f *fakeMatch) SetViewDetail(d game.ViewDetail)          { f.detail = d; f.details++ }
func (f *fakeMatch) Chat(text string) error {
	if f.chatErr != nil {
		return f.chatErr
	}
	f.chat = append(f.chat, text)
	return nil
}

// TestKeys presses the action keys and checks what they change: the algorithm and
// clamp mode of every remote (through the match), the overlays, the panels,
// firing, and leaving from the menu.
func TestKeys(t *testing.T) {
	s, _ := newTestScene(t)
	f := &fakeMatch{clamp: deadreckon.ClampAlways}
	set := DefaultSettings()
	l := &matchScreen{s: f, scene: s, cfg: RunConfig{Display: Display{Settings: &set}}, ctl: controlsOf(set)}
	press := func(keys ...window.Key) {
		for _, k := range keys {
			l.onKey(k)
		}
	}

	press(window.Key5)
	if f.algo != deadreckon.CubicBezier {
		t.Errorf("key 5: algorithm %v, want bezier", f.algo)
	}
	press(window.KeyN, window.KeyN)
	if f.algo != deadreckon.Delayed {
		t.Errorf("5, N, N: algorithm %v, want delayed", f.algo)
	}
	press(window.KeyN)
	if f.algo != deadreckon.ProjectiveVelocityBlend {
		t.Errorf("N after delayed: algorithm %v, want pvb", f.algo)
	}
	press(window.KeyC)
	if f.clamp != deadreckon.ClampNone {
		t.Errorf("C from always: clamp %v, want none", f.clamp)
	}
	press(window.KeyC)
	if f.clamp != deadreckon.ClampUp {
		t.Errorf("C C: clamp %v, want up", f.clamp)
	}

	press(window.KeyG, window.KeyT)
	if s.Overlays() != render.OverlayGhost|render.OverlayTrail {
		t.Errorf("G T: overlays %v, want ghost,trail", s.Overlays())
	}
	press(window.KeyG)
	if s.Overlays() != render.OverlayTrail {
		t.Errorf("G again: overlays %v, want trail", s.Overlays())
	}
	press(window.KeyO)
	if s.Overlays() != render.OverlayAll {
		t.Errorf("O: overlays %v, want all", s.Overlays())
	}
	press(window.KeyO)
	if s.Overlays() != 0 {
		t.Errorf("O again: overlays %v, want none", s.Overlays())
	}
	press(window.KeyX, window.KeyV, window.KeyL)
	if s.Overlays() != render.OverlayClamp|render.OverlayMotion|render.OverlayLabels {
		t.Errorf("X V L: overlays %v", s.Overlays())
	}

	press(window.KeyBackspace)
	if f.respawns != 1 {
		t.Errorf("Backspace: %d respawns, want 1", f.respawns)
	}
	press(window.KeySpace)
	if f.fired != 1 {
		t.Errorf("Space: fired %d times, want 1", f.fired)
	}

	press(window.KeyF3)
	if !l.panels.Debug {
		t.Errorf("F3 did not show the network counters")
	}
	press(window.KeyF3)
	if l.panels.Debug {
		t.Errorf("F3 again did not hide the network counters")
	}

	press(window.KeyF1)
	if !l.panels.Help {
		t.Errorf("F1 did not open the help")
	}
	press(window.KeyEscape) // Esc first closes the help
	if l.panels.Help || l.pause != nil {
		t.Errorf("Esc over the help: help %v pause menu %v, want both closed", l.panels.Help, l.pause != nil)
	}
	press(window.KeyEscape)
	if l.pause == nil {
		t.Fatalf("Esc did not open the pause menu")
	}
	press(window.Key1) // the pause menu takes the keys
	if f.algo != deadreckon.ProjectiveVelocityBlend || l.leave {
		t.Errorf("key 1 in the menu changed the algorithm to %v or left (%v)", f.algo, l.leave)
	}
	press(window.KeyEscape)
	if l.pause != nil || l.leave {
		t.Errorf("Esc in the menu: menu open %v leave %v, want back to the battle", l.pause != nil, l.leave)
	}
	press(window.KeyEscape, window.KeyEnter) // Resume
	if l.pause != nil || l.leave {
		t.Errorf("Esc, Enter (resume): menu open %v leave %v", l.pause != nil, l.leave)
	}
	press(window.KeyEscape, window.KeyDown, window.KeyDown, window.KeyEnter)
	if !l.leave {
		t.Errorf("Esc, Down, Down, Enter did not leave the match")
	}
}

// TestHeldKeys drives with held keys: W/S throttle, A/D steer, Q/E turret, R/F gun
// (at the tank's rates, within limits, under key aim), Tab for the players list; a
// message over the match stops the tank.
func TestHeldKeys(t *testing.T) {
	s, mp := newTestScene(t)
	s.Update(tanksOn(mp, 1), 1.0/60) // the player's tank faces +X: heading 0
	d := core.NewDispatcher()
	set := DefaultSettings()
	set.KeyAim = true
	l := &matchScreen{s: &fakeMatch{}, scene: s, keys: window.NewKeyState(d), cfg: RunConfig{Display: Display{Settings: &set}}, ctl: controlsOf(set),
		snap: *tanksOn(mp, 1)}
	l.aim.keys = true
	down := func(k window.Key) { d.Dispatch(window.OnKeyDown, &window.KeyEvent{Key: k}) }
	up := func(k window.Key) { d.Dispatch(window.OnKeyUp, &window.KeyEvent{Key: k}) }

	in := l.input(0.1)
	if in.Throttle != 0 || in.Steer != 0 || in.AimYaw != 0 || in.GunElevation != 0 {
		t.Errorf("no keys: input %+v, want zero", in)
	}
	down(window.KeyW)
	down(window.KeyA)
	down(window.KeyQ)
	down(window.KeyR)
	down(window.KeyTab)
	in = l.input(0.1)
	if in.Throttle != 1 || in.Steer != -1 {
		t.Errorf("W A: throttle %v steer %v, want 1 -1", in.Throttle, in.Steer)
	}
	if math.Abs(in.AimYaw-tank.DefaultTurretRate*0.1) > 1e-12 || math.Abs(in.GunElevation-tank.DefaultGunRate*0.1) > 1e-12 {
		t.Errorf("Q R for 0.1 s: aim %v gun %v, want %v %v", in.AimYaw, in.GunElevation, tank.DefaultTurretRate*0.1, tank.DefaultGunRate*0.1)
	}
	if !l.panels.Scores {
		t.Errorf("Tab held: players list hidden")
	}
	for i := 0; i < 50; i++ {
		follow(l, in)
		in = l.input(0.1)
	}
	if in.GunElevation != tank.DefaultGunMax {
		t.Errorf("R held 5 s: gun %v, want the limit %v", in.GunElevation, tank.DefaultGunMax)
	}
	up(window.KeyW)
	up(window.KeyA)
	up(window.KeyTab)
	down(window.KeyS)
	down(window.KeyD)
	in = l.input(0.1)
	if in.Throttle != -1 || in.Steer != 1 || l.panels.Scores {
		t.Errorf("S D: throttle %v steer %v scores %v, want -1 1 false", in.Throttle, in.Steer, l.panels.Scores)
	}
	l.panels.Message = "Lost the connection"
	if held := l.input(0.1); held.Throttle != 0 || held.Steer != 0 || held.AimYaw != in.AimYaw {
		t.Errorf("message shown: input %+v, want the tank stopped, aim held at %v", held, in.AimYaw)
	}
	l.panels.Message = ""

	// Rebound: I drives ahead, W no longer does.
	up(window.KeyS)
	up(window.KeyD)
	set.Keys["forward"] = "I"
	l.ctl = controlsOf(set)
	down(window.KeyW)
	if in = l.input(0.1); in.Throttle != 0 {
		t.Errorf("W after rebinding ahead to I: throttle %v, want 0", in.Throttle)
	}
	down(window.KeyI)
	if in = l.input(0.1); in.Throttle != 1 {
		t.Errorf("I after rebinding ahead to it: throttle %v, want 1", in.Throttle)
	}
}

// TestChatBox opens the chat box with Enter, types (action keys type letters, they
// do not act), deletes, sends with Enter, drops a line with Esc, and says when a line
// was not sent.
func TestChatBox(t *testing.T) {
	s, _ := newTestScene(t)
	f := &fakeMatch{}
	l := &matchScreen{s: f, scene: s}
	typeText := func(text string) {
		for _, r := range text {
			l.onChar(r)
		}
	}
	l.onKey(window.KeyEnter)
	if !l.panels.Chat {
		t.Fatal("Enter did not open the chat box")
	}
	l.onKey(window.KeyG) // an overlay key: while typing it is only a letter
	typeText("gg wpx")
	l.onKey(window.KeyBackspace)
	if s.Overlays() != 0 {
		t.Errorf("a key typed into the chat box toggled overlays %s", s.Overlays())
	}
	if got := l.panels.ChatLine; got != "gg wp" {
		t.Errorf("chat box holds %q", got)
	}
	l.onKey(window.KeyEnter)
	if l.panels.Chat || len(f.chat) != 1 || f.chat[0] != "gg wp" {
		t.Errorf("after Enter: open %v, sent %q", l.panels.Chat, f.chat)
	}
	l.onKey(window.KeyEnter)
	if l.panels.ChatLine != "" {
		t.Errorf("the chat box opened again holding %q", l.panels.ChatLine)
	}
	typeText("never mind")
	l.onKey(window.KeyEscape)
	if l.panels.Chat || len(f.chat) != 1 || l.pause != nil {
		t.Errorf("after Esc: open %v, sent %q, pause menu %v", l.panels.Chat, f.chat, l.pause != nil)
	}
	dropped := l.panels.ChatLine
	l.typeRune('x')
	if l.panels.ChatLine != dropped {
		t.Errorf("typing into the closed chat box changed it to %q", l.panels.ChatLine)
	}
	l.onKey(window.KeyEnter)
	for range chatMaxRunes + 10 {
		l.onChar('é')
	}
	if n := len([]rune(l.panels.ChatLine)); n != chatMaxRunes {
		t.Errorf("the chat line took %d characters, want at most %d", n, chatMaxRunes)
	}
	f.chatErr = errors.New("chat line too long")
	l.onKey(window.KeyEnter)
	if l.panels.Chat || len(f.chat) != 1 {
		t.Errorf("a refused line: open %v, sent %q", l.panels.Chat, f.chat)
	}
}

// TestHelpListsEveryKey: every action key is bound once, every algorithm has a key,
// and the help lists every binding.
func TestHelpListsEveryKey(t *testing.T) {
	lines := map[render.HelpLine]bool{}
	for _, h := range helpLines(DefaultSettings()) {
		lines[h] = true
	}
	for _, b := range bindings {
		if !lines[render.HelpLine{Key: b.name, What: b.what}] {
			t.Errorf("help lacks %q (%s)", b.name, b.what)
		}
	}
	seen := map[int]string{}
	for _, b := range bindings {
		if b.act == actNone || b.key < 0 {
			continue
		}
		if prev, dup := seen[int(b.key)]; dup {
			t.Errorf("key %s and %s share a key code", prev, b.name)
		}
		seen[int(b.key)] = b.name
	}
	for a := deadreckon.ProjectiveVelocityBlend; a <= deadreckon.Delayed; a++ {
		found := false
		for _, b := range bindings {
			found = found || (b.act == actAlgorithm && b.algo == a)
		}
		if !found {
			t.Errorf("no key selects algorithm %v", a)
		}
	}
}

func TestCycles(t *testing.T) {
	c := deadreckon.ClampNone
	for _, want := range []deadreckon.ClampMode{deadreckon.ClampUp, deadreckon.ClampAlways, deadreckon.ClampNone} {
		c = nextClamp(c)
		if c != want {
			t.Fatalf("nextClamp = %v, want %v", c, want)
		}
	}
	a := deadreckon.ProjectiveVelocityBlend
	for i := 0; i < 7; i++ {
		a = nextAlgorithm(a)
	}
	if a != deadreckon.ProjectiveVelocityBlend {
		t.Errorf("seven nextAlgorithm steps end at %v, want pvb", a)
	}
}

// TestScoreboardPaging: with Tab held, PgDn, PgUp and the wheel turn the scoreboard's
// pages within the pages it has, and it opens again on its first page; without Tab
// the wheel zooms.
func TestScoreboardPaging(t *testing.T) {
	s, mp := newTestScene(t)
	snap := tanksOn(mp, 2)
	snap.Combat.Enabled = true
	for i := range 300 {
		snap.Combat.Scores = append(snap.Combat.Scores, combat.Score{Name: fmt.Sprintf("p%03d", i), Team: 1 + i%2})
	}
	l := &matchScreen{s: &fakeMatch{}, scene: s}
	show := func() {
		s.SetPanels(l.panels)
		s.Update(snap, 0.2) // past the HUD's text interval: the board is laid out
	}
	l.panels.Scores = true
	show()
	_, pages := s.ScoresPages()
	if pages < 3 {
		t.Fatalf("a board of 300 lines in a %d×%d window has %d pages", testW, testH, pages)
	}
	l.onKey(window.KeyPageDown)
	l.onKey(window.KeyPageDown)
	show()
	if l.panels.ScoresPage != 2 {
		t.Errorf("two PgDn: page %d, want 2", l.panels.ScoresPage)
	}
	l.onScroll(1) // a notch toward the player: back a page
	show()
	if page, _ := s.ScoresPages(); page != 1 || l.panels.ScoresPage != 1 {
		t.Errorf("wheel up: page %d (shown %d), want 1", l.panels.ScoresPage, page)
	}
	for range pages + 3 {
		l.onScroll(-1)
		show()
	}
	if l.panels.ScoresPage != pages-1 {
		t.Errorf("past the end: page %d, want the last, %d", l.panels.ScoresPage, pages-1)
	}
	l.onKey(window.KeyPageUp)
	if l.panels.ScoresPage != pages-2 {
		t.Errorf("PgUp from the last page: page %d, want %d", l.panels.ScoresPage, pages-2)
	}
	l.panels.Scores = false
	d := s.Chase().Distance
	l.onScroll(1)
	if s.Chase().Distance == d || l.panels.ScoresPage != pages-2 {
		t.Errorf("wheel without the scoreboard: distance %v → %v, page %d", d, s.Chase().Distance, l.panels.ScoresPage)
	}
}
