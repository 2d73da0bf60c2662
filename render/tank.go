package render

import (
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
)

// Tank model dimensions in meters, in the tank's local frame (forward +X, up +Y,
// right +Z, origin on the ground under the middle of the hull's footprint).
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
)

// Team colours: team i uses teamColors[i mod len].
var teamColors = [...]math32.Color{
	{R: 0.80, G: 0.22, B: 0.18}, // red
	{R: 0.20, G: 0.38, B: 0.85}, // blue
	{R: 0.90, G: 0.75, B: 0.15}, // yellow
	{R: 0.25, G: 0.70, B: 0.30}, // green
}

// teamIndex returns the index in teamColors of team t; negative teams wrap too.
func teamIndex(t int) int {
	n := len(teamColors)
	return ((t % n) + n) % n
}

// teamColor returns the colour of team t.
func teamColor(t int) math32.Color { return teamColors[teamIndex(t)] }

// tankParts holds the geometries and materials every tank model shares. Each tank is
// three vertex-coloured meshes (hull with tracks, turret, gun) and a shadow: four draw
// calls, which matters with software rendering.
type tankParts struct {
	hull, turret, gun []*geometry.Geometry // per team colour
	shadow            *geometry.Geometry
	solidMat          *material.Standard
	shadowMat         *material.Standard
	shadows           bool // tanks get a shadow patch
}

var (
	trackColor = math32.Color{R: 0.16, G: 0.16, B: 0.15}
	deckColor  = math32.Color{R: 0.24, G: 0.25, B: 0.23}
)

func newTankParts(shadows bool) *tankParts {
	p := &tankParts{shadows: shadows}
	for _, c := range teamColors {
		var hull, turret, gun meshBuilder
		hull.box([3]float32{0, hullBase + hullHeight/2, 0}, hullLength, hullHeight, hullWidth, c)
		// A sloped-looking glacis: a slimmer box on the front of the hull.
		hull.box([3]float32{hullLength/2 + 0.25, hullBase + hullHeight*0.35, 0}, 0.5, hullHeight*0.7, hullWidth*0.9, c)
		hull.box([3]float32{-hullLength * 0.3, hullBase + hullHeight + 0.06, 0}, hullLength*0.35, 0.12, hullWidth*0.8, deckColor)
		for _, side := range [2]float32{-1, 1} {
			z := side * (hullWidth/2 + trackWidth/2 - 0.1)
			hull.box([3]float32{0, trackHeight / 2, z}, hullLength+0.4, trackHeight, trackWidth, trackColor)
		}
		turret.cylinder([3]float32{0, turretHeight / 2, 0}, turretRadius, turretHeight, 16, 1, c)
		turret.cylinder([3]float32{-0.6, turretHeight + 0.15, 0.55}, 0.32, 0.3, 10, 1, deckColor)
		gun.box([3]float32{0, 0, 0}, 0.6, 0.5, 0.9, c)
		gun.cylinder([3]float32{barrelLength / 2, 0, 0}, barrelRadius, barrelLength, 8, 0, trackColor)
		p.hull = append(p.hull, hull.geometry())
		p.turret = append(p.turret, turret.geometry())
		p.gun = append(p.gun, gun.geometry())
	}
	var shadow meshBuilder
	shadow.box([3]float32{0, 0.06, 0}, hullLength+1.2, 0.02, hullWidth+2*trackWidth+0.6, math32.Color{})
	p.shadow = shadow.geometry()

	p.solidMat = material.NewStandard(&math32.Color{R: 1, G: 1, B: 1})
	p.solidMat.SetShader(terrainShader)
	// A soft dark patch under each tank grounds it on the terrain (g3n has no shadows).
	p.shadowMat = material.NewStandard(&math32.Color{R: 0, G: 0, B: 0})
	p.shadowMat.SetOpacity(0.35)
	p.shadowMat.SetTransparent(true)
	p.shadowMat.SetDepthMask(false)
	p.shadowMat.SetPolygonOffset(-1, -1)
	return p
}

// overlayScale is how much larger than a tank a model drawn in its place is (a
// wreck), so that it wraps the tank instead of sharing its surfaces.
const overlayScale = 1.04

// tankModel is one tank's node tree: root (pose) → hull mesh, shadow, turret node
// (yaw) → turret mesh, gun node (pitch) → gun mesh.
type tankModel struct {
	root, turret, gun          *core.Node
	hullMesh, turMesh, gunMesh *graphic.Mesh
	team                       int
}

// newTankModel builds a tank in team's colours, or, with over set, one drawn with
// over (a wreck), overlayScale larger and without a shadow.
func newTankModel(p *tankParts, team int, over *material.Standard) *tankModel {
	t := &tankModel{root: core.NewNode(), turret: core.NewNode(), gun: core.NewNode(), team: team}
	mat := p.solidMat
	if over != nil {
		mat = over
	}
	k := teamIndex(team)
	t.hullMesh = sharedMesh(p.hull[k], mat)
	t.turMesh = sharedMesh(p.turret[k], mat)
	t.gunMesh = sharedMesh(p.gun[k], mat)
	if over == nil && p.shadows {
		t.root.Add(sharedMesh(p.shadow, p.shadowMat))
	} else {
		t.root.SetScale(overlayScale, overlayScale, overlayScale)
	}
	t.root.Add(t.hullMesh)
	t.turret.SetPosition(-0.4, hullBase+hullHeight, 0)
	t.root.Add(t.turret)
	t.turret.Add(t.turMesh)
	t.gun.SetPosition(turretRadius-0.1, turretHeight/2, 0)
	t.turret.Add(t.gun)
	t.gun.Add(t.gunMesh)
	return t
}

// setTeam recolours the model for team (a rare event: the meshes are replaced).
func (t *tankModel) setTeam(p *tankParts, team int) {
	old := teamIndex(t.team)
	t.team = team
	k := teamIndex(team)
	if k == old {
		return
	}
	swap := func(parent *core.Node, m **graphic.Mesh, g *geometry.Geometry) {
		old := *m
		mat := old.GetMaterial(0).(*material.Standard)
		parent.Remove(old)
		*m = sharedMesh(g, mat)
		old.Dispose()
		parent.Add(*m)
	}
	swap(t.root, &t.hullMesh, p.hull[k])
	swap(t.turret, &t.turMesh, p.turret[k])
	swap(t.gun, &t.gunMesh, p.gun[k])
}

// sharedMesh returns a mesh of the shared geometry g and material m, taking a
// reference to each so that disposing of the mesh leaves them intact for the others
// (g3n resets a material whose last reference is disposed).
func sharedMesh(g *geometry.Geometry, m *material.Standard) *graphic.Mesh {
	m.Incref()
	return graphic.NewMesh(g.Incref(), m)
}

// setPose places the model: position and orientation in the world, turret yaw and gun
// elevation in radians.
func (t *tankModel) setPose(pos math32.Vector3, q math32.Quaternion, turret, gun float64) {
	t.root.SetPositionVec(&pos)
	t.root.SetQuaternionQuat(&q)
	t.turret.SetRotationY(float32(turret))
	t.gun.SetRotationZ(float32(gun))
}
