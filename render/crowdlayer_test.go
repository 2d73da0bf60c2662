package render

import (
	"bytes"
	"testing"
)

// TestMinimapCrowdLayer: a crowd's discs and dots are drawn minimapCrowdInterval
// apart, and the redraws between put the cone and the arrows on the layer as it
// was: a tank that moved shows its dot where it was until the layer is drawn again,
// and then where it is.
func TestMinimapCrowdLayer(t *testing.T) {
	s := newTestScene(t, 0)
	m := s.minimap
	snap := battleSnapshot()
	s.Update(snap, 0.25)
	if m.crowdDirty || m.crowdSince != 0 {
		t.Fatalf("the first crowd redraw left the layer undrawn (dirty %v, %v s old)", m.crowdDirty, m.crowdSince)
	}
	layer := bytes.Clone(m.crowd.Pix)
	// A far tank of a pack, not the player's nor its squad's, moves 60 m.
	moved := -1
	for i := range snap.Tanks {
		if tv := &snap.Tanks[i]; i != snap.Self && !m.inSquad(tv) && tv.Position.Len() > 150 {
			moved = i
			break
		}
	}
	if moved < 0 {
		t.Fatal("no far tank in the battle")
	}
	snap.Tanks[moved].Position[0] += 60
	s.Update(snap, minimapInterval) // a redraw, the layer not due
	if !bytes.Equal(layer, m.crowd.Pix) {
		t.Errorf("a redraw %v s after the layer's drew the layer again", minimapInterval)
	}
	s.Update(snap, minimapCrowdInterval) // due
	if bytes.Equal(layer, m.crowd.Pix) {
		t.Errorf("the layer %v s old was not drawn again: the moved tank's dot stays where it was", minimapInterval+minimapCrowdInterval)
	}
}
