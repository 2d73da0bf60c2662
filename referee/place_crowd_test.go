package referee

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/testmaps"
)

// TestPlaceCrowdNeverStacks: 511 tanks placed in one instant on valley, as a round's
// restart of a full match places them (each asked for off the spawn area, so the host
// puts every one), enter at least combat.SpawnClearance from each other and clear of
// the rocks. Valley's spawn area holds far fewer: the places past it are taken, not the
// pad a tank already stands on (a tank put on another is pushed off at once, a jump the
// host's movement check refuses).
func TestPlaceCrowdNeverStacks(t *testing.T) {
	m := testmaps.Valley(t)
	r, err := New(m, combat.Rules{}, game.DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	const n, at = 511, 1.0
	lo := m.Min()
	corner := mgl64.Vec2{lo[0] + 20, lo[1] + 20}
	y, _ := m.HeightAt(corner[0], corner[1])
	var placed []mgl64.Vec2
	outside := 0
	for i := range n {
		asked := deadreckon.NewState(mgl64.Vec3{corner[0], y, corner[1]})
		asked.Time = at
		id := uint32(i + 1)
		s, err := r.Place(id, "bot", 1+i%2, asked, at)
		if err != nil {
			t.Fatal(err)
		}
		r.Spawned(id, id, "bot", 1+i%2, s, at)
		c := mgl64.Vec2{s.Position[0], s.Position[2]}
		if !combat.InSpawnArea(m, c, 0) {
			outside++
		}
		if !insideMargin(m, c) {
			t.Errorf("tank %d placed at %v, within %v m of the border", i, c, combat.SpawnMargin)
		}
		if !r.clearOfRocks(c) {
			t.Errorf("tank %d placed at %v, on a rock", i, c)
		}
		for j, q := range placed {
			if d := q.Sub(c).Len(); d < combat.SpawnClearance-1e-6 {
				t.Fatalf("tank %d placed at %v, %.1f m from tank %d: stacked", i, c, d, j)
			}
		}
		placed = append(placed, c)
	}
	t.Logf("%d tanks placed, %d past the spawn area", n, outside)
	if outside == 0 {
		t.Error("every tank fit in the spawn area: the test no longer fills it")
	}
}

// BenchmarkPlaceCrowd measures the host's placement of one more spawn among 511 tanks
// on valley, every place of its spawn area taken: the worst of a full match's restart,
// which places hundreds in one instant on the host's loop.
func BenchmarkPlaceCrowd(b *testing.B) {
	m := testmaps.Valley(b)
	r, err := New(m, combat.Rules{}, game.DeadReckoning().Reckon)
	if err != nil {
		b.Fatal(err)
	}
	const n, at = 511, 1.0
	lo := m.Min()
	y, _ := m.HeightAt(lo[0]+20, lo[1]+20)
	asked := deadreckon.NewState(mgl64.Vec3{lo[0] + 20, y, lo[1] + 20})
	asked.Time = at
	for i := range n {
		id := uint32(i + 1)
		s, err := r.Place(id, "bot", 1+i%2, asked, at)
		if err != nil {
			b.Fatal(err)
		}
		r.Spawned(id, id, "bot", 1+i%2, s, at)
	}
	b.ResetTimer()
	for range b.N {
		if _, err := r.Place(n+1, "bot", 1, asked, at); err != nil {
			b.Fatal(err)
		}
	}
}
