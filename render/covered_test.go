package render

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestCrosshairUnderPanels shows the crosshair in a fight, then opens each panel
// that covers the middle of the picture: the crosshair hides under each, and comes
// back when it closes.
func TestCrosshairUnderPanels(t *testing.T) {
	s, err := NewScene(synthTerrain(128, 2, 32, 2), SceneConfig{})
	if err != nil {
		t.Fatal(err)
	}
	snap := testSnapshot(2)
	me := snap.Tanks[snap.Self].Position
	snap.Combat.Enabled, snap.Combat.HasAim, snap.Combat.Loaded = true, true, 1
	snap.Combat.Aim = me.Add(mgl64.Vec3{40, 0, 0})
	s.Update(snap, 1.0/60)
	s.Update(snap, 1.0/60)
	if !s.combat.cross.Visible() {
		t.Fatal("no panel: crosshair hidden")
	}
	for _, c := range []struct {
		name string
		p    Panels
		menu bool
	}{
		{"help", Panels{Help: true}, false},
		{"scoreboard", Panels{Scores: true}, false},
		{"message", Panels{Message: "Lost the host"}, false},
		{"pause menu", Panels{}, true},
	} {
		s.SetPanels(c.p)
		if c.menu {
			s.ShowMenu(MenuPage{Title: "Paused", Items: [][2]string{{"Resume", ""}}})
		}
		s.Update(snap, 1.0/60)
		if s.combat.cross.Visible() {
			t.Errorf("%s open: crosshair drawn over it", c.name)
		}
		s.HideMenu()
		s.SetPanels(Panels{})
		s.Update(snap, 1.0/60)
		if !s.combat.cross.Visible() {
			t.Errorf("%s closed: crosshair still hidden", c.name)
		}
	}
}
