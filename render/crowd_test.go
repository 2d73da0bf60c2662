package render

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// crowdSnapshot returns n tanks on a 512 m map, none the player's: the first nearest
// the camera LookFrom places at (-240, …, 0) looking along +X, the rest spread
// farther out over the map, alternately red and blue.
func crowdSnapshot(n int) *game.Snapshot {
	snap := &game.Snapshot{Self: -1}
	for i := 0; i < n; i++ {
		x := -225 + 460*float64(i)/float64(max(1, n-1))
		z := 40 * math.Sin(float64(i)*2.1)
		snap.Tanks = append(snap.Tanks, game.TankView{ID: uint32(i + 1), Name: fmt.Sprintf("tank-%d", i), Team: i % 2,
			Position: mgl64.Vec3{x, testGround(x, z), z}, Orientation: geom.YawQuat(0.3 * float64(i)), Turret: 0.2})
	}
	return snap
}

// lookAlongX puts the camera of s at the west edge of the 512 m test map, looking east.
func lookAlongX(s *Scene) {
	eye := mgl64.Vec3{-240, testGround(-240, 0) + 12, 0}
	s.LookFrom(eye, mgl64.Vec3{240, testGround(240, 0), 0}, true)
}

// TestCrowdKeepsDrawCallsFlat: however many tanks a snapshot holds, at most
// DetailModels are full models; the others are drawn at low detail or as markers,
// all in one mesh.
func TestCrowdKeepsDrawCallsFlat(t *testing.T) {
	for _, n := range []int{8, 64, 512} {
		s := newTestScene(t, 0)
		lookAlongX(s)
		snap := crowdSnapshot(n)
		s.Update(snap, 1.0/60)
		full, low, markers := s.CrowdCounts()
		if full > DetailModels {
			t.Errorf("%d tanks: %d full models, want at most %d", n, full, DetailModels)
		}
		if full+low+markers == 0 || low+markers == 0 {
			t.Errorf("%d tanks: %d full, %d low, %d markers: the crowd is empty", n, full, low, markers)
		}
		if n == 512 && markers == 0 {
			t.Errorf("512 tanks: no markers beyond %.0f m", MarkerDistance)
		}
		meshes := 0
		for _, e := range s.tanks {
			if e.model.root.Visible() {
				meshes++
			}
		}
		if meshes != full {
			t.Errorf("%d tanks: %d models visible, CrowdCounts says %d", n, meshes, full)
		}
	}
}

// TestFarTankStillDrawn: a tank beyond DetailDistance (low detail) and one beyond
// MarkerDistance (a marker) both show their team colour where the camera sees them.
func TestFarTankStillDrawn(t *testing.T) {
	v := needViewer(t)
	s := newTestScene(t, 0)
	lookAlongX(s)
	snap := &game.Snapshot{Self: -1}
	place := func(id uint32, team int, x, z float64) {
		snap.Tanks = append(snap.Tanks, game.TankView{ID: id, Team: team,
			Position: mgl64.Vec3{x, testGround(x, z), z}, Orientation: geom.YawQuat(1.2)})
	}
	place(1, 1, -40, 0)  // 200 m: low detail, blue
	place(2, 0, 235, 25) // 475 m: a marker, red
	img := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 3)
	savePNG(t, img, "crowd-far.png")
	if full, low, markers := s.CrowdCounts(); full != 0 || low != 1 || markers != 1 {
		t.Fatalf("%d full, %d low, %d markers, want 0, 1 and 1", full, low, markers)
	}
	view := s.View()
	for _, c := range []struct {
		tv   *game.TankView
		lift float64
		red  bool
	}{
		{&snap.Tanks[0], 1.2, false},
		{&snap.Tanks[1], 0.5 * 475 * markerAngle, true},
	} {
		x, y, ok := view.Project(c.tv.Position.Add(mgl64.Vec3{0, c.lift, 0}))
		if !ok {
			t.Fatalf("tank %d is not in view", c.tv.ID)
		}
		r, g, b := meanRGB(img, int(x), int(y), 0)
		switch {
		case c.red && !(r > g+0.15 && r > b+0.15):
			t.Errorf("marker of tank %d at pixel (%.0f, %.0f): %.2f %.2f %.2f is not red", c.tv.ID, x, y, r, g, b)
		case !c.red && !(b > r+0.15 && b > g+0.1):
			t.Errorf("low-detail tank %d at pixel (%.0f, %.0f): %.2f %.2f %.2f is not blue", c.tv.ID, x, y, r, g, b)
		}
	}
}

// TestLabelCapKeepsTheNearest: with more tanks in view than LabelCap, the labels
// drawn are at most LabelCap, the nearest tanks carry theirs (their pixels change
// when the names are taken away) and the farthest carry none.
func TestLabelCapKeepsTheNearest(t *testing.T) {
	v := needViewer(t)
	s := newTestScene(t, 0)
	eye := mgl64.Vec3{-250, testGround(-250, 0) + 30, 0}
	s.LookFrom(eye, mgl64.Vec3{-100, testGround(-100, 0), 0}, true)
	snap := &game.Snapshot{Self: -1}
	for i := 0; i < 40; i++ {
		x, z := -225+8*float64(i), float64(i%5-2)*(2+0.6*float64(i))
		snap.Tanks = append(snap.Tanks, game.TankView{ID: uint32(i + 1), Name: fmt.Sprintf("t%02d", i), Team: i % 2,
			Position: mgl64.Vec3{x, testGround(x, z), z}, Orientation: geom.YawQuat(0)})
	}
	named := drawFrames(t, v, s, func(int) *game.Snapshot { return snap }, 3)
	savePNG(t, named, "crowd-labels.png")
	visible := 0
	type box struct{ x, y, w, h float32 }
	var near []box
	for i := range snap.Tanks {
		e := s.tanks[snap.Tanks[i].ID]
		if !e.labelled() {
			if i < 3 {
				t.Errorf("tank %d, among the 3 nearest, has no label", i)
			}
			continue
		}
		visible++
		if i >= len(snap.Tanks)-10 {
			t.Errorf("tank %d, among the 10 farthest, has a label", i)
		}
		if i < 3 {
			p := e.name.Position()
			w, h := e.name.Size()
			near = append(near, box{p.X, p.Y, w, h})
		}
	}
	if visible > LabelCap || visible < LabelCap/2 {
		t.Errorf("%d labels drawn, want %d to %d", visible, LabelCap/2, LabelCap)
	}
	unnamed := *snap
	unnamed.Tanks = append([]game.TankView(nil), snap.Tanks...)
	for i := range unnamed.Tanks {
		unnamed.Tanks[i].Name = ""
	}
	bare := drawFrames(t, v, s, func(int) *game.Snapshot { return &unnamed }, 3)
	for k, b := range near {
		changed := 0
		for y := int(b.y); y < int(b.y+b.h) && y < testH; y++ {
			for x := int(b.x); x < int(b.x+b.w) && x < testW; x++ {
				c1, c2 := named.RGBAAt(x, y), bare.RGBAAt(x, y)
				if absDiff(c1.R, c2.R) > 8 || absDiff(c1.G, c2.G) > 8 || absDiff(c1.B, c2.B) > 8 {
					changed++
				}
			}
		}
		if changed < int(b.w*b.h/10) {
			t.Errorf("label of near tank %d: %d of %.0f pixels differ from the picture without names", k, changed, b.w*b.h)
		}
	}
}

// TestCrowdPutTransforms: the batch puts each vertex of a part where its matrix takes
// it, with its normal turned by the matrix's rotation, in the part's colour, and
// indexes each face as two triangles.
func TestCrowdPutTransforms(t *testing.T) {
	s, err := NewScene(synthTerrain(256, 2, 32, 4), SceneConfig{})
	if err != nil {
		t.Fatal(err)
	}
	b := s.crowd
	b.reset()
	m := mgl32.Translate3D(3, -2, 7).Mul4(mgl32.HomogRotate3D(0.7, mgl32.Vec3{0.3, 1, -0.2}.Normalize())).Mul4(mgl32.Scale3D(1.6, 1, 1))
	c := math32.Color{R: 0.1, G: 0.5, B: 0.9}
	b.put(b.hull, mgl32.Ident4(), c)
	b.put(b.turret, m, c)
	if got, want := len(b.buf), 9*(len(b.hull)+len(b.turret)); got != want {
		t.Fatalf("%d floats, want %d", got, want)
	}
	for k, v := range b.turret {
		o := b.buf[9*(len(b.hull)+k):]
		p, n := m.Mul4x1(v.p.Vec4(1)), m.Mul4x1(v.n.Vec4(0))
		for i := range 3 {
			if math.Abs(float64(o[i]-p[i])) > 1e-5 || math.Abs(float64(o[3+i]-n[i])) > 1e-5 {
				t.Fatalf("vertex %d: %v, want position %v normal %v", k, o[:6], p.Vec3(), n.Vec3())
			}
		}
		if o[6] != c.R || o[7] != c.G || o[8] != c.B {
			t.Fatalf("vertex %d: colour %v, want %v", k, o[6:9], c)
		}
	}
	base := uint32(len(b.hull))
	if got := b.idx[len(b.idx)-6:]; got[0] != base+uint32(len(b.turret))-4 || got[5] != base+uint32(len(b.turret))-1 {
		t.Errorf("last face indexed %v, want its four vertices from %d", got, base+uint32(len(b.turret))-4)
	}
}

// TestLabelsQueuedAsByEveryRank: the frame's labels, which stop looking at tanks
// once they are beyond reach of a label, are the ones a walk over every tank in rank
// order picks by each one's own turret roof (roofPoint, its distance, its anchor on
// the picture and the ground between), LabelCap at most, over random crowds from 20
// to 900 m away, some behind hills and some off the picture, the cap filled or not.
func TestLabelsQueuedAsByEveryRank(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := newTestScene(t, 0)
	for trial := range 16 {
		eye := mgl64.Vec3{-240, testGround(-240, 0) + 4 + 30*rng.Float64(), -200 + 400*rng.Float64()}
		look := mgl64.Vec3{0, testGround(0, 0), -200 + 400*rng.Float64()}
		s.LookFrom(eye, look, true)
		snap := &game.Snapshot{Self: -1}
		n := 20 + rng.IntN(300)
		for i := range n {
			d := 20 + 880*math.Pow(rng.Float64(), 0.5+2*float64(trial%3))
			a := look.Sub(eye)
			yaw := math.Atan2(a[2], a[0]) + (rng.Float64()-0.5)*1.6
			x, z := eye[0]+d*math.Cos(yaw), eye[2]+d*math.Sin(yaw)
			snap.Tanks = append(snap.Tanks, game.TankView{ID: uint32(i + 1), Name: fmt.Sprintf("t%d", i), Team: i % 2,
				Position: mgl64.Vec3{x, testGround(x, z), z}, Orientation: geom.YawQuat(rng.Float64() * 6), Turret: rng.Float64()})
		}
		s.Update(snap, 1.0/60)
		// Update placed and cleared its queue; queue the same frame's again.
		s.queueLabels(snap)
		var gotIDs, want []uint32
		for _, c := range s.labelQueue {
			for id, e := range s.tanks {
				if e == c.e {
					gotIDs = append(gotIDs, id)
				}
			}
		}
		up := s.view.Orientation.Rotate(mgl64.Vec3{0, defaultShape().turretRadius, 0})
		for _, r := range s.ranks {
			if len(want) == LabelCap {
				break
			}
			tv := &snap.Tanks[r.i]
			roof := roofPoint(tv)
			if roof.Sub(s.view.Eye).Len() > labelMaxDistance {
				continue
			}
			x, y, ok := s.view.Project(roof.Add(up))
			if !ok || x < 0 || y < 0 || x > float64(s.view.Width) || y > float64(s.view.Height) || s.occluded(roof) {
				continue
			}
			want = append(want, tv.ID)
		}
		if !slices.Equal(gotIDs, want) {
			t.Errorf("trial %d, %d tanks: labels queued for %v, every rank's walk gives %v", trial, n, gotIDs, want)
		}
		if trial < 3 {
			t.Logf("trial %d: %d tanks, %d labelled", trial, n, len(want))
		}
	}
}
