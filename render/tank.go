package render

import (
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/tank"
)

// The tank model's proportions that the tank.Spec leaves to the drawing, m.
const (
	hullBase     = 0.55 // hull bottom above the ground
	trackWidth   = 0.6
	trackHeight  = 1.0
	trackTuck    = 0.1  // how far the hull reaches under each track's inner edge
	glacisLength = 0.5  // the sloped-looking plate on the front of the hull
	cupolaHeight = 0.1  // the commander's cupola on the turret roof
	turretInset  = 0.1  // the gun's trunnion this far inside the turret's edge
	barrelRadius = 0.14 //
)

// box is an axis-aligned box of the model: its centre and size, m.
type box struct{ center, size mgl64.Vec3 }

// tankShape is the tank model's geometry in the hull frame, m (forward +X, up +Y,
// right +Z, origin on the ground under the middle of the footprint), derived from a
// tank.Spec: the tracks span its footprint, the cupola tops its height, the turret and
// gun turn at its pivots and the barrel is its barrel, so the tank drawn is the hull
// box that collides and is hit, and shells leave the drawn muzzle.
type tankShape struct {
	// length, width and height are the spec's hull box: the footprint over the
	// tracks and the top of the cupola.
	length, width, height float64
	hull, glacis, deck    box    // hull body, front plate, engine deck
	tracks                [2]box // left, right
	turretPivot           mgl64.Vec3
	// The turret is a cylinder standing on its pivot; the cupola a smaller one on its
	// roof (turret frame).
	turretRadius, turretHeight float64
	cupola                     mgl64.Vec3 // centre of the cupola, turret frame
	cupolaRadius               float64
	gunPivot                   mgl64.Vec3 // turret frame
	barrelLength               float64
	shadow                     box
}

// shapeOf returns the model of a tank of spec s.
func shapeOf(s tank.Spec) tankShape {
	s = s.WithDefaults()
	length, width := s.Length, s.Width
	deckY := s.TurretPivot[1] // the turret ring sits on the hull's top
	hullH := deckY - hullBase
	hullW := width - 2*trackWidth + 2*trackTuck
	hullL := length - glacisLength
	hullX := -glacisLength / 2 // the body's front meets the glacis; its rear, the tracks' rear
	sh := tankShape{length: length, width: width, height: s.Height}
	sh.hull = box{mgl64.Vec3{hullX, hullBase + hullH/2, 0}, mgl64.Vec3{hullL, hullH, hullW}}
	sh.glacis = box{mgl64.Vec3{length/2 - glacisLength/2, hullBase + hullH*0.35, 0}, mgl64.Vec3{glacisLength, hullH * 0.7, hullW * 0.9}}
	sh.deck = box{mgl64.Vec3{hullX - hullL*0.3, deckY + 0.06, 0}, mgl64.Vec3{hullL * 0.35, 0.12, hullW * 0.8}}
	for i, side := range [2]float64{-1, 1} {
		sh.tracks[i] = box{mgl64.Vec3{0, trackHeight / 2, side * (width/2 - trackWidth/2)}, mgl64.Vec3{length, trackHeight, trackWidth}}
	}
	sh.turretPivot = s.TurretPivot
	sh.turretRadius = s.GunPivot[0] + turretInset
	sh.turretHeight = s.Height - deckY - cupolaHeight
	sh.cupola, sh.cupolaRadius = mgl64.Vec3{-0.6, sh.turretHeight + cupolaHeight/2, 0.55}, 0.32
	sh.gunPivot = s.GunPivot
	sh.barrelLength = s.BarrelLength
	sh.shadow = box{mgl64.Vec3{0, 0.06, 0}, mgl64.Vec3{length + 0.8, 0.02, width + 0.8}}
	return sh
}

// defaultShape is the model of the game's tank.
func defaultShape() tankShape { return shapeOf(tank.Default()) }

// roof returns the middle of the turret roof, hull frame, m.
func (sh tankShape) roof() mgl64.Vec3 { return sh.turretPivot.Add(mgl64.Vec3{0, sh.turretHeight, 0}) }

// f32 converts a model position or size for g3n.
func f32(v mgl64.Vec3) [3]float32 { return [3]float32{float32(v[0]), float32(v[1]), float32(v[2])} }

// addBox adds model box b to mesh m in colour c.
func addBox(m *meshBuilder, b box, c math32.Color) {
	p := f32(b.size)
	m.box(f32(b.center), p[0], p[1], p[2], c)
}

// Team colours: team i uses teamColors[i mod len].
var teamColors = [...]math32.Color{
	{R: 0.80, G: 0.22, B: 0.18}, // red
	{R: 0.20, G: 0.38, B: 0.85}, // blue
	{R: 0.90, G: 0.75, B: 0.15}, // yellow
	{R: 0.25, G: 0.70, B: 0.30}, // green
}

// disColor is a DIS entity's colour (game.TeamDIS): another simulation's, on no
// team, so not a team colour.
var disColor = math32.Color{R: 0.62, G: 0.42, B: 0.88}

// teamIndex returns the index in teamColors of team t; negative teams wrap too.
func teamIndex(t int) int {
	n := len(teamColors)
	return ((t % n) + n) % n
}

// colorIndex returns the index of team t's colour among the tank models' colours:
// teamColors, then disColor for game.TeamDIS.
func colorIndex(t int) int {
	if t == game.TeamDIS {
		return len(teamColors)
	}
	return teamIndex(t)
}

// teamColor returns the colour of team t (disColor for game.TeamDIS).
func teamColor(t int) math32.Color {
	if t == game.TeamDIS {
		return disColor
	}
	return teamColors[teamIndex(t)]
}

// tankParts holds the geometries and materials every tank model shares. Each tank is
// three vertex-coloured meshes (hull with tracks, turret, gun) and a shadow: four draw
// calls, which matters with software rendering.
type tankParts struct {
	hull, turret, gun []*geometry.Geometry // per colour (colorIndex)
	shadow            *geometry.Geometry
	solidMat          *material.Standard
	shadowMat         *material.Standard
	shadows           bool      // tanks get a shadow patch
	shape             tankShape // what the meshes are built from
}

var (
	trackColor = math32.Color{R: 0.16, G: 0.16, B: 0.15}
	deckColor  = math32.Color{R: 0.24, G: 0.25, B: 0.23}
)

func newTankParts(shadows bool) *tankParts {
	p := &tankParts{shadows: shadows, shape: defaultShape()}
	sh := p.shape
	for _, c := range append(teamColors[:], disColor) {
		var hull, turret, gun meshBuilder
		addBox(&hull, sh.hull, c)
		addBox(&hull, sh.glacis, c)
		addBox(&hull, sh.deck, deckColor)
		for _, t := range sh.tracks {
			addBox(&hull, t, trackColor)
		}
		turret.cylinder([3]float32{0, float32(sh.turretHeight / 2), 0}, float32(sh.turretRadius), float32(sh.turretHeight), 16, 1, c)
		turret.cylinder(f32(sh.cupola), float32(sh.cupolaRadius), cupolaHeight, 10, 1, deckColor)
		gun.box([3]float32{0, 0, 0}, 0.6, 0.5, 0.9, c)
		gun.cylinder([3]float32{float32(sh.barrelLength / 2), 0, 0}, barrelRadius, float32(sh.barrelLength), 8, 0, trackColor)
		p.hull = append(p.hull, hull.geometry())
		p.turret = append(p.turret, turret.geometry())
		p.gun = append(p.gun, gun.geometry())
	}
	var shadow meshBuilder
	addBox(&shadow, sh.shadow, math32.Color{})
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
	k := colorIndex(team)
	t.hullMesh = sharedMesh(p.hull[k], mat)
	t.turMesh = sharedMesh(p.turret[k], mat)
	t.gunMesh = sharedMesh(p.gun[k], mat)
	if over == nil && p.shadows {
		t.root.Add(sharedMesh(p.shadow, p.shadowMat))
	} else {
		t.root.SetScale(overlayScale, overlayScale, overlayScale)
	}
	t.root.Add(t.hullMesh)
	tp, gp := f32(p.shape.turretPivot), f32(p.shape.gunPivot)
	t.turret.SetPosition(tp[0], tp[1], tp[2])
	t.root.Add(t.turret)
	t.turret.Add(t.turMesh)
	t.gun.SetPosition(gp[0], gp[1], gp[2])
	t.turret.Add(t.gun)
	t.gun.Add(t.gunMesh)
	return t
}

// setTeam recolours the model for team (a rare event: the meshes are replaced).
func (t *tankModel) setTeam(p *tankParts, team int) {
	old := colorIndex(t.team)
	t.team = team
	k := colorIndex(team)
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
