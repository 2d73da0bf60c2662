package client

import (
	"github.com/g3n/engine/window"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/render"
)

// action is something a key press does.
type action uint8

const (
	actNone action = iota
	actHelp
	actDebug
	actMenu
	actLeave
	actToggleOverlay
	actAllOverlays
	actAlgorithm
	actNextAlgorithm
	actNextClamp
	actResetCamera
	actRespawn
	actWatchNext
	actChat
	actFire
)

// binding ties a key to an action for the help panel and the dispatcher. Held keys
// (driving, aiming, Tab) have act actNone and are read from the key state each frame.
type binding struct {
	key     window.Key
	name    string
	what    string
	act     action
	overlay render.Overlay
	algo    deadreckon.Algorithm
	// pair names the two rebindable actions (Actions) a held-key row stands for;
	// the help shows the keys they are bound to, not name.
	pair [2]string
}

// bindings lists every key the client understands, in help-panel order.
var bindings = []binding{
	{key: window.KeyW, name: "W / S", what: "throttle ahead / reverse", pair: [2]string{"forward", "back"}},
	{key: window.KeyA, name: "A / D", what: "steer left / right", pair: [2]string{"left", "right"}},
	{key: window.KeyQ, name: "Q / E", what: "turret left / right (aim with keys, Settings)", pair: [2]string{"turret_left", "turret_right"}},
	{key: window.KeyR, name: "R / F", what: "gun up / down (aim with keys, Settings)", pair: [2]string{"gun_up", "gun_down"}},
	{key: window.KeySpace, name: "Space", what: "fire (when the gun is loaded); skip the kill camera", act: actFire},
	{key: -1, name: "mouse", what: "aim: the camera turns, the turret and gun follow"},
	{key: -1, name: "left button", what: "fire"},
	{key: -1, name: "right button (hold)", what: "look around, the aim held"},
	{key: -1, name: "wheel", what: "zoom"},
	{key: window.KeyHome, name: "Home", what: "camera back behind the tank", act: actResetCamera},
	{key: window.KeyTab, name: "Tab (hold)", what: "scoreboard (players list without combat)"},
	{key: -1, name: "PgUp / PgDn, wheel", what: "with Tab held: the scoreboard's pages"},
	{key: window.KeyEnter, name: "Enter", what: "chat: type a line, Enter sends, Esc drops", act: actChat},
	{key: window.KeyEscape, name: "Esc", what: "pause menu: resume, settings, leave", act: actMenu},
	{key: window.KeyF1, name: "F1", what: "this help", act: actHelp},
	{key: window.KeyF3, name: "F3", what: "network figures and counters on / off (shown with any overlay too)", act: actDebug},
	{key: window.KeyBackspace, name: "Backspace", what: "respawn", act: actRespawn},
	{key: window.KeyP, name: "P", what: "watch the next tank (camera follows it), then yourself again", act: actWatchNext},
	{key: window.KeyG, name: "G", what: "overlay: ghost (last known and its projection)", act: actToggleOverlay, overlay: render.OverlayGhost},
	{key: window.KeyT, name: "T", what: "overlay: reckoned path trail", act: actToggleOverlay, overlay: render.OverlayTrail},
	{key: window.KeyX, name: "X", what: "overlay: clamp rays and ground normal", act: actToggleOverlay, overlay: render.OverlayClamp},
	{key: window.KeyV, name: "V", what: "overlay: velocity and acceleration arrows", act: actToggleOverlay, overlay: render.OverlayMotion},
	{key: window.KeyL, name: "L", what: "overlay: update age and error labels", act: actToggleOverlay, overlay: render.OverlayLabels},
	{key: window.KeyH, name: "H", what: "overlay: hits (target as you saw it, as the host rebuilt it, the truth)", act: actToggleOverlay, overlay: render.OverlayHits},
	{key: window.KeyO, name: "O", what: "all overlays on / off", act: actAllOverlays},
	{key: window.Key1, name: "1", what: "algorithm: projective velocity blend", act: actAlgorithm, algo: deadreckon.ProjectiveVelocityBlend},
	{key: window.Key2, name: "2", what: "algorithm: static", act: actAlgorithm, algo: deadreckon.Static},
	{key: window.Key3, name: "3", what: "algorithm: linear", act: actAlgorithm, algo: deadreckon.Linear},
	{key: window.Key4, name: "4", what: "algorithm: quadratic", act: actAlgorithm, algo: deadreckon.Quadratic},
	{key: window.Key5, name: "5", what: "algorithm: cubic Bézier", act: actAlgorithm, algo: deadreckon.CubicBezier},
	{key: window.Key6, name: "6", what: "algorithm: two-path", act: actAlgorithm, algo: deadreckon.TwoPath},
	{key: window.Key7, name: "7", what: "algorithm: delayed (interpolation)", act: actAlgorithm, algo: deadreckon.Delayed},
	{key: window.KeyN, name: "N", what: "next algorithm", act: actNextAlgorithm},
	{key: window.KeyC, name: "C", what: "next ground clamp mode (none, up, always)", act: actNextClamp},
}

// helpLines is the F1 panel: every key and what it does, in bindings order, with
// the driving and aiming keys as set bind them (set normalized).
func helpLines(set Settings) []render.HelpLine {
	lines := make([]render.HelpLine, len(bindings))
	for i, b := range bindings {
		name := b.name
		if b.pair[0] != "" {
			name = set.Keys[b.pair[0]] + " / " + set.Keys[b.pair[1]]
		}
		lines[i] = render.HelpLine{Key: name, What: b.what}
	}
	return lines
}

// bindingFor returns the binding that key k triggers, if any.
func bindingFor(k window.Key) (binding, bool) {
	for _, b := range bindings {
		if b.key == k && b.act != actNone {
			return b, true
		}
	}
	return binding{}, false
}

// Camera rates for the mouse.
const (
	orbitPerPx   = 0.006 // rad of orbit per pixel of mouse move
	zoomPerNotch = 0.9   // distance factor per wheel notch toward the tank
)

// nextClamp returns the ground clamp mode after m: none → up → always → none.
func nextClamp(m deadreckon.ClampMode) deadreckon.ClampMode {
	switch m {
	case deadreckon.ClampNone:
		return deadreckon.ClampUp
	case deadreckon.ClampUp:
		return deadreckon.ClampAlways
	}
	return deadreckon.ClampNone
}

// nextAlgorithm returns the algorithm after a in the enum, wrapping.
func nextAlgorithm(a deadreckon.Algorithm) deadreckon.Algorithm {
	n := a + 1
	if n > deadreckon.Delayed {
		n = deadreckon.ProjectiveVelocityBlend
	}
	return n
}
