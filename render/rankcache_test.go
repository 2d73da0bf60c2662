package render

import (
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// plainRanks is the frame's ranks worked out from nothing: every drawable tank in
// the snapshot's order, the tank nearest the camera's axis within targetCone (the
// first such in the snapshot) and the watched one as targets, sorted by rankCmp.
func plainRanks(s *Scene, snap *game.Snapshot, watched *game.TankView) []crowdRank {
	var out []crowdRank
	eye, fwd := s.view.Eye, s.view.Forward()
	aimed, best := -1, targetCone
	for i := range snap.Tanks {
		tv := &snap.Tanks[i]
		if !geom.FiniteVec(tv.Position) {
			continue
		}
		d := tv.Position.Sub(eye)
		dist := d.Len()
		if c := d.Dot(fwd) / dist; dist > 0 && c > best && i != snap.Self {
			aimed, best = len(out), c
		}
		out = append(out, crowdRank{i: i, dist: dist, target: tv == watched})
	}
	if aimed >= 0 {
		out[aimed].target = true
	}
	slices.SortFunc(out, rankCmp)
	return out
}

// TestRankCacheSameScene: ranking the tanks in the last frame's order and finding
// their entries by last frame's index (rankTanks, entry) give, frame after frame,
// the ranks, the entries, the full models' poses and the crowd batch's vertices
// that a scene made afresh for the frame gives, while the tanks move, swap places
// in the snapshot, leave and come back, lose their position, and the camera jumps.
//
// The scene made afresh costs nearly all of the test (its terrain node, textures
// and HUD): the terrain it is made from is built once, and each change runs a few
// frames. Frames 0–3 only move the tanks, which reshuffles their ranks every frame
// (the sort is tried from the second on); more such frames take the same path.
func TestRankCacheSameScene(t *testing.T) {
	ter := synthTerrain(256, 2, 32, 4)
	newScene := func() *Scene {
		s, err := NewScene(ter, SceneConfig{Width: testW, Height: testH})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := newScene()
	base := crowdSnapshot(200)
	// Two tanks exactly as near the camera's axis, so the aimed tank's tie-break
	// is tried.
	base.Tanks[150].Position = mgl64.Vec3{60, testGround(60, 0), 0}
	base.Tanks[151].Position = mgl64.Vec3{60, testGround(60, 0), 0}
	moved := 0
	for f := range 24 {
		snap := &game.Snapshot{Self: -1, Time: float64(f) * 0.2}
		for i, tv := range base.Tanks {
			switch {
			case f >= 4 && f < 8 && i%7 == 3: // gone for four frames
				continue
			case f >= 14 && i == 5:
				tv.Position = mgl64.Vec3{math.NaN(), 0, 0}
			}
			if i != 150 && i != 151 {
				x, z := tv.Position[0]+3*math.Sin(float64(f+i)), tv.Position[2]+3*math.Cos(float64(f*i))
				tv.Position = mgl64.Vec3{x, testGround(x, z), z}
			}
			tv.Orientation = geom.YawQuat(0.1 * float64(f+i))
			snap.Tanks = append(snap.Tanks, tv)
		}
		if f >= 10 && f < 13 { // the snapshot's order changes
			slices.Reverse(snap.Tanks)
		}
		x := -230.0
		if f >= 18 { // the camera jumps to the other end
			x = 230
		}
		eye := mgl64.Vec3{x, testGround(x, 0) + 12, 0}
		s.LookFrom(eye, mgl64.Vec3{0, testGround(0, 0), 0}, true)
		s.Update(snap, 0.2)

		fresh := newScene()
		fresh.LookFrom(eye, mgl64.Vec3{0, testGround(0, 0), 0}, true)
		fresh.Update(snap, 0.2)

		want := plainRanks(s, snap, s.Watched(snap))
		if len(s.ranks) != len(want) || len(fresh.ranks) != len(want) {
			t.Fatalf("frame %d: %d ranks, fresh scene %d, want %d", f, len(s.ranks), len(fresh.ranks), len(want))
		}
		for r := range want {
			got := s.ranks[r]
			if got.i != want[r].i || got.dist != want[r].dist || got.target != want[r].target || fresh.ranks[r].i != want[r].i {
				t.Fatalf("frame %d, rank %d: %+v (fresh scene %+v), want %+v", f, r, got, fresh.ranks[r], want[r])
			}
			if got.e == nil || got.e.gone || got.e.id != snap.Tanks[got.i].ID || s.tanks[got.e.id] != got.e {
				t.Fatalf("frame %d, rank %d: tank %d has the wrong entry", f, r, snap.Tanks[got.i].ID)
			}
			if got.target {
				continue
			}
			if r > 0 && !want[r-1].target && want[r-1].i > got.i {
				moved++
			}
		}
		if len(s.tanks) != len(fresh.tanks) {
			t.Fatalf("frame %d: %d entries, fresh scene %d", f, len(s.tanks), len(fresh.tanks))
		}
		for id, e := range s.tanks {
			fe := fresh.tanks[id]
			if fe == nil || e.detailed != fe.detailed || e.model.root.Visible() != fe.model.root.Visible() {
				t.Fatalf("frame %d, tank %d: entry %+v, fresh scene %+v", f, id, e, fe)
			}
			if e.detailed && (e.model.root.Position() != fe.model.root.Position() ||
				e.model.root.Quaternion() != fe.model.root.Quaternion() ||
				e.model.turret.Rotation() != fe.model.turret.Rotation()) {
				t.Fatalf("frame %d, tank %d: full model's pose differs from the fresh scene's", f, id)
			}
		}
		if !slices.Equal(s.crowd.buf, fresh.crowd.buf) || !slices.Equal(s.crowd.idx, fresh.crowd.idx) || s.crowd.n != fresh.crowd.n {
			t.Fatalf("frame %d: crowd batch differs from the fresh scene's (%v tanks against %v)", f, s.crowd.n, fresh.crowd.n)
		}
		fresh.Dispose()
	}
	if moved == 0 {
		t.Errorf("no frame ranked tanks out of the snapshot's order: the sort was not tried")
	}
}
