package render

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestWreckVisibilitySetOnChange: with each full model's visibility set only when
// it changes (tankEntry.showModel), every tank's model and wreck still show as the
// plain rule says, frame after frame, while tanks are wrecked and reborn and the
// camera moves so that tanks pass between full models and the crowd batch: a live
// tank drawn in detail shows its model, a wreck drawn in detail its smoking wreck
// instead, and a tank in the crowd neither.
func TestWreckVisibilitySetOnChange(t *testing.T) {
	s := newTestScene(t, 0)
	snap := crowdSnapshot(64)
	snap.Combat.Enabled, snap.Combat.Remaining, snap.Combat.MaxHealth, snap.Combat.Health = true, 300, 100, 100
	shownWrecks, hidden := 0, 0
	for f := range 40 {
		// The camera walks along the line of tanks, so the detailed ones change.
		x := -230 + 11*float64(f)
		s.LookFrom(mgl64.Vec3{x, testGround(x, 0) + 12, -30}, mgl64.Vec3{x + 40, testGround(x+40, 0), 0}, true)
		for i := range snap.Tanks {
			snap.Tanks[i].Wreck = (i+f/4)%5 == 0
		}
		snap.Time += 0.1
		s.Update(snap, 0.1)
		for i := range snap.Tanks {
			tv := &snap.Tanks[i]
			e := s.tanks[tv.ID]
			if e == nil {
				t.Fatalf("frame %d: tank %d has no entry", f, tv.ID)
			}
			want := e.detailed && !tv.Wreck
			if got := e.model.root.Visible(); got != want || e.modelShown != got {
				t.Fatalf("frame %d, tank %d (detailed %v, wreck %v): model visible %v, recorded %v, want %v",
					f, tv.ID, e.detailed, tv.Wreck, got, e.modelShown, want)
			}
			w := s.combat.wrecks[tv.ID]
			wantWreck := e.detailed && tv.Wreck
			if got := w != nil && w.root.Visible(); got != wantWreck {
				t.Fatalf("frame %d, tank %d (detailed %v, wreck %v): wreck shown %v, want %v", f, tv.ID, e.detailed, tv.Wreck, got, wantWreck)
			}
			if wantWreck {
				shownWrecks++
			}
			if !want && !wantWreck {
				hidden++
			}
		}
	}
	if shownWrecks == 0 || hidden == 0 {
		t.Errorf("%d detailed wrecks and %d tanks in the crowd seen: the frames did not try both", shownWrecks, hidden)
	}
}
