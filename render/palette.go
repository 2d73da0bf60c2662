package render

import "github.com/g3n/engine/math32"

// The palette: every colour the HUD, the overlays, combat and the menus use, in one
// place, so that one meaning has one colour (the hits overlay's rebuilt hull is the
// ghost overlay's projection colour: both are a reckoned state). The team colours
// are with the tank model (tank.go); the sky's and the ground's with them.

// panelBg is the HUD panels' background colour.
var panelBg = math32.Color{R: 0.05, G: 0.06, B: 0.08}

// backdrop is panelBg at opacity a.
func backdrop(a float32) math32.Color4 {
	return math32.Color4{R: panelBg.R, G: panelBg.G, B: panelBg.B, A: a}
}

// Overlay colours; the legend (legend.go) names each.
var (
	// lastKnownColor is the ghost of the last state received; projectionColor the
	// ghost of that state projected to now.
	lastKnownColor  = math32.Color{R: 1, G: 0.86, B: 0.15}
	projectionColor = math32.Color{R: 0.2, G: 0.85, B: 1}
	ghostLinkColor  = math32.Color{R: 0.85, G: 0.85, B: 0.85}
	errorColor      = math32.Color{R: 1, G: 0.25, B: 0.25}
	rayColor        = math32.Color{R: 1, G: 0.2, B: 1}
	normalColor     = math32.Color{R: 0.45, G: 0.55, B: 1}
	velocityColor   = math32.Color{R: 0.2, G: 1, B: 0.3}
	accelColor      = math32.Color{R: 1, G: 0.5, B: 0.1}
	// altColor is a replay's second algorithm's ghost (A/B).
	altColor = math32.Color{R: 1, G: 1, B: 1}
)

// Combat's look.
var (
	tracerColor  = math32.Color{R: 1, G: 0.85, B: 0.35}
	aimColor     = math32.Color{R: 0.3, G: 1, B: 0.4}
	aimLoadColor = math32.Color{R: 0.75, G: 0.75, B: 0.75}
	// aimBlockColor is the gun marker's when the ground or a rock stops the shell
	// short of the aim (game.CombatView.AimBlocked).
	aimBlockColor = math32.Color{R: 1, G: 0.25, B: 0.15}
	// sightColor is the aim marker's: where the camera, and so the player, aims.
	sightColor = math32.Color4{R: 1, G: 1, B: 1, A: 0.95}
	// The hits overlay: the hull as the shooter saw it, as the host rebuilt it
	// (projectionColor) and where it truly was.
	shownColor     = math32.Color{R: 1, G: 0.9, B: 0.2}
	truthColor     = math32.Color{R: 1, G: 0.3, B: 0.9}
	wreckTint      = math32.Color{R: 0.13, G: 0.12, B: 0.11}
	flashColor     = math32.Color{R: 1, G: 0.9, B: 0.45}
	dustColor      = math32.Color{R: 0.55, G: 0.45, B: 0.32}
	fireballColor  = math32.Color{R: 1, G: 0.4, B: 0.08}
	smokeColor     = math32.Color{R: 0.22, G: 0.22, B: 0.22}
	hitSparkColor  = math32.Color{R: 1, G: 0.65, B: 0.2}
	shellHeadColor = math32.Color{R: 1, G: 0.95, B: 0.6}
	// protectColor rings a tank under spawn protection.
	protectColor = math32.Color{R: 0.75, G: 0.95, B: 1}
)

// Menu colours.
var (
	menuText     = math32.Color{R: 0.92, G: 0.93, B: 0.95}
	menuDim      = math32.Color{R: 0.62, G: 0.66, B: 0.72}
	menuSelected = math32.Color4{R: 0.85, G: 0.55, B: 0.15, A: 0.9}
	menuPanel    = backdrop(0.82)
	// menuBackdrop is what the main menu is drawn over.
	menuBackdrop = math32.Color{R: 0.16, G: 0.2, B: 0.26}
)

// teamNames names the team colours, in teamColors order.
var teamNames = [len(teamColors)]string{"red", "blue", "yellow", "green"}

// TeamColorIndex returns the colour a tank of team t wears, as an index into the team
// colours (0 red, 1 blue, 2 yellow, 3 green): teams wrap, negative ones too.
func TeamColorIndex(t int) int { return teamIndex(t) }

// TeamColorName names the colour a tank of team t wears ("red", "blue", "yellow",
// "green").
func TeamColorName(t int) string { return teamNames[teamIndex(t)] }
