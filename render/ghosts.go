package render

import (
	"github.com/g3n/engine/math32"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
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

// drawSnapshotGhosts draws snap's Ghosts (game.Ghost) as the ghost overlay draws
// ghosts: each a footprint on the ground in its kind's colour, with a heading
// chevron, joined to its tank's footprint by a line on the ground, wherever it
// differs from the tank as shown.
func (s *Scene) drawSnapshotGhosts(snap *game.Snapshot) {
	for i := range snap.Ghosts {
		gh := &snap.Ghosts[i]
		tv := tankByID(snap, gh.Of)
		if tv == nil || !geom.FiniteVec(gh.Position) || !ghostDiffers(gh.Position, gh.Orientation, tv) {
			continue
		}
		c := ghostColor(gh.Kind)
		s.footprint(gh.Position, gh.Orientation, c)
		s.lines.segment(s.onGround(gh.Position, footLift), s.onGround(tv.Position, footLift), c)
	}
}

// tankByID returns the tank of snap with actor id, or nil.
func tankByID(snap *game.Snapshot, id uint32) *game.TankView {
	for i := range snap.Tanks {
		if snap.Tanks[i].ID == id {
			return &snap.Tanks[i]
		}
	}
	return nil
}
