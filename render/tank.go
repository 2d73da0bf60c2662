package render

import (
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
)

// Tank model dimensions in meters, in the tank's local frame (forward +X, up +Y,
// right +Z, origin on the ground under the hull's center).
const (
	hullLength   = 6.4
	hullWidth    = 3.0
	hullHeight   = 1.0
	hullBase     = 0.55 // hull bottom above the ground
	trackWidth   = 0.7
	trackHeight  = 1.0
	turretRadius = 1.2
	turretHeight = 0.75
	barrelLength = 4.2
	barrelRadius = 0.14
	// nameHeight is how far above the tank's origin its name is drawn.
	nameHeight = 4.2
)

// Team colours: team i uses teamColors[i mod len].
var teamColors = [...]math32.Color{
	{R: 0.80, G: 0.22, B: 0.18}, // red
	{R: 0.20, G: 0.38, B: 0.85}, // blue
	{R: 0.90, G: 0.75, B: 0.15}, // yellow
	{R: 0.25, G: 0.70, B: 0.30}, // green
}

// teamColor returns the colour of team t; negative teams wrap too.
func teamColor(t int) math32.Color {
	n := len(teamColors)
	return teamColors[((t%n)+n)%n]
}

// tankParts holds the geometries and materials every tank model shares.
type tankParts struct {
	hull, deck, track, turret, cupola, barrel, mantlet, shadow *geometry.Geometry
	trackMat, deckMat, shadowMat                               *material.Standard
	teamMats                                                   []*material.Standard
	ghostMat, ghostLastMat                                     *material.Standard
}

func newTankParts() *tankParts {
	p := &tankParts{
		hull:    geometry.NewBox(hullLength, hullHeight, hullWidth),
		deck:    geometry.NewBox(hullLength*0.35, 0.12, hullWidth*0.8),
		cupola:  geometry.NewCylinder(0.32, 0.3, 10, 1, true, true),
		shadow:  geometry.NewBox(hullLength+1.2, 0.02, hullWidth+2*trackWidth+0.6),
		track:   geometry.NewBox(hullLength+0.4, trackHeight, trackWidth),
		turret:  geometry.NewCylinder(turretRadius, turretHeight, 16, 1, true, true),
		barrel:  geometry.NewCylinder(barrelRadius, barrelLength, 8, 1, true, true),
		mantlet: geometry.NewBox(0.6, 0.5, 0.9),
	}
	p.trackMat = material.NewStandard(&math32.Color{R: 0.16, G: 0.16, B: 0.15})
	p.deckMat = material.NewStandard(&math32.Color{R: 0.22, G: 0.23, B: 0.21})
	// A soft dark patch under each tank grounds it on the terrain (g3n has no shadows).
	p.shadowMat = material.NewStandard(&math32.Color{R: 0, G: 0, B: 0})
	p.shadowMat.SetOpacity(0.35)
	p.shadowMat.SetTransparent(true)
	p.shadowMat.SetDepthMask(false)
	p.shadowMat.SetPolygonOffset(-1, -1)
	for i := range teamColors {
		m := material.NewStandard(&teamColors[i])
		m.SetSpecularColor(&math32.Color{R: 0.25, G: 0.25, B: 0.25})
		m.SetShininess(20)
		p.teamMats = append(p.teamMats, m)
	}
	p.ghostMat = ghostMaterial(math32.Color{R: 0.55, G: 0.95, B: 1.0}, 0.40)
	p.ghostLastMat = ghostMaterial(math32.Color{R: 1.0, G: 1.0, B: 1.0}, 0.22)
	return p
}

func ghostMaterial(c math32.Color, opacity float32) *material.Standard {
	m := material.NewStandard(&c)
	m.SetEmissiveColor(&math32.Color{R: c.R * 0.4, G: c.G * 0.4, B: c.B * 0.4})
	m.SetOpacity(opacity)
	m.SetTransparent(true)
	m.SetDepthMask(false)
	return m
}

// tankModel is one tank's node tree: root (pose) → hull, tracks, turret (yaw) → gun
// (pitch) → barrel.
type tankModel struct {
	root, turret, gun *core.Node
	bodies            []*graphic.Mesh // meshes that take the team colour
	team              int
}

// newTankModel builds a tank. With ghost set, every part uses mat instead of the team
// and track colours.
func newTankModel(p *tankParts, team int, ghost *material.Standard) *tankModel {
	t := &tankModel{root: core.NewNode(), turret: core.NewNode(), gun: core.NewNode(), team: team}
	body := p.teamMats[((team%len(p.teamMats))+len(p.teamMats))%len(p.teamMats)]
	trackMat, deckMat := p.trackMat, p.deckMat
	if ghost != nil {
		body, trackMat, deckMat = ghost, ghost, ghost
	}
	add := func(parent *core.Node, g *geometry.Geometry, m *material.Standard, x, y, z float32, isBody bool) *graphic.Mesh {
		mesh := graphic.NewMesh(g.Incref(), m)
		mesh.SetPosition(x, y, z)
		parent.Add(mesh)
		if isBody {
			t.bodies = append(t.bodies, mesh)
		}
		return mesh
	}
	if ghost == nil {
		add(t.root, p.shadow, p.shadowMat, 0, 0.06, 0, false)
	}
	add(t.root, p.hull, body, 0, hullBase+hullHeight/2, 0, true)
	add(t.root, p.deck, deckMat, -hullLength*0.3, hullBase+hullHeight+0.06, 0, false)
	add(t.root, p.track, trackMat, 0, trackHeight/2, -(hullWidth/2 + trackWidth/2 - 0.1), false)
	add(t.root, p.track, trackMat, 0, trackHeight/2, hullWidth/2+trackWidth/2-0.1, false)
	t.turret.SetPosition(-0.4, hullBase+hullHeight, 0)
	t.root.Add(t.turret)
	add(t.turret, p.turret, body, 0, turretHeight/2, 0, true)
	add(t.turret, p.cupola, deckMat, -0.35, turretHeight+0.15, 0.45, false)
	t.gun.SetPosition(turretRadius-0.1, turretHeight/2, 0)
	t.turret.Add(t.gun)
	add(t.gun, p.mantlet, body, 0, 0, 0, true)
	barrel := add(t.gun, p.barrel, trackMat, barrelLength/2, 0, 0, false)
	// The cylinder's axis is +Y; lay it along +X.
	barrel.SetRotationZ(-halfPi)
	return t
}

const halfPi = 1.5707963267948966

// setTeam recolours the model for team.
func (t *tankModel) setTeam(p *tankParts, team int) {
	if team == t.team {
		return
	}
	t.team = team
	m := p.teamMats[((team%len(p.teamMats))+len(p.teamMats))%len(p.teamMats)]
	for _, b := range t.bodies {
		b.SetMaterial(m)
	}
}

// setPose places the model: position and orientation in the world, turret yaw and gun
// elevation in radians.
func (t *tankModel) setPose(pos math32.Vector3, q math32.Quaternion, turret, gun float64) {
	t.root.SetPositionVec(&pos)
	t.root.SetQuaternionQuat(&q)
	t.turret.SetRotationY(float32(turret))
	t.gun.SetRotationZ(float32(gun))
}
