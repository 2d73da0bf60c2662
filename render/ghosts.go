package render

import (
	"github.com/g3n/engine/core"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
)

// ghostColor is the colour of a snapshot ghost of kind k: a replay's second
// algorithm in white, the truth and the host's rebuild as the hits overlay draws them.
func ghostColor(k game.GhostKind) math32.Color {
	switch k {
	case game.GhostTruth:
		return truthColor
	case game.GhostRebuilt:
		return projectionColor
	}
	return altColor
}

// ghostLayer draws a snapshot's Ghosts (game.Ghost): a wireframe tank in its kind's
// colour for each, joined to its tank by a line. Models are pooled per kind and
// reused frame to frame.
type ghostLayer struct {
	root  *core.Node
	parts *tankParts
	mats  map[game.GhostKind]*material.Standard
	pool  map[game.GhostKind][]*tankModel
	used  map[game.GhostKind]int
	where map[uint32]mgl64.Vec3 // reused: each tank's position by id
}

func newGhostLayer(parts *tankParts) *ghostLayer {
	return &ghostLayer{root: core.NewNode(), parts: parts, mats: map[game.GhostKind]*material.Standard{},
		pool: map[game.GhostKind][]*tankModel{}, used: map[game.GhostKind]int{}, where: map[uint32]mgl64.Vec3{}}
}

// update shows snap's ghosts and hides the models left over.
func (g *ghostLayer) update(s *Scene, snap *game.Snapshot) {
	clear(g.where)
	for i := range snap.Tanks {
		g.where[snap.Tanks[i].ID] = snap.Tanks[i].Position
	}
	clear(g.used)
	up := mgl64.Vec3{0, 2, 0}
	for i := range snap.Ghosts {
		gh := &snap.Ghosts[i]
		tank, ok := g.where[gh.Of]
		if !ok || !deadreckon.FiniteVec(gh.Position) {
			continue
		}
		m := g.model(gh.Kind)
		m.setPose(vec3(gh.Position), quat(gh.Orientation), gh.Turret, gh.Gun)
		m.root.SetVisible(s.beyondNear(gh.Position, ghostRadius))
		s.lines.segment(tank.Add(up), gh.Position.Add(up), ghostColor(gh.Kind))
	}
	for k, models := range g.pool {
		for _, m := range models[g.used[k]:] {
			m.root.SetVisible(false)
		}
	}
}

// model returns the next free model of kind k, making one when the pool is used up.
func (g *ghostLayer) model(k game.GhostKind) *tankModel {
	n := g.used[k]
	g.used[k] = n + 1
	if n < len(g.pool[k]) {
		return g.pool[k][n]
	}
	mat := g.mats[k]
	if mat == nil {
		mat = ghostMaterial(ghostColor(k))
		g.mats[k] = mat
	}
	m := newTankModel(g.parts, 0, mat)
	g.root.Add(m.root)
	g.pool[k] = append(g.pool[k], m)
	return m
}
