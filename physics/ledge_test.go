package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/terrain"
)

// TestLedgeNoRoll drives off the shipped map's "ledge" landmark straight and at a
// slant, so the hull straddles the ~11 m cliff with one or two corners over the drop.
// The pose is deadreckon.ClampPose's: it rests on the contacts at its middle's level,
// never rolled or pitched into the drop beyond DefaultMaxTilt (45°; 70° before), never
// below the ground, and it falls down the cliff as a body falls (deadreckon.Fall), as
// its remote copies do.
func TestLedgeNoRoll(t *testing.T) {
	m, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	lm, ok := m.Landmark("ledge")
	if !ok {
		t.Fatal(`no "ledge" landmark`)
	}
	for _, slant := range []float64{0, 35, -35} {
		w := newWorld(t, MapConfig(m))
		yaw := lm.Yaw + slant*math.Pi/180
		tk := addTank(t, w, lm.X, lm.Z, yaw)
		tk.SetInput(Input{Throttle: 0.6, AimYaw: yaw})
		top, dropped, worst, leftTop := tk.Pose().Position[1], false, 0.0, 0.0
		for w.Time() < 12 && !dropped {
			w.Tick()
			p := tk.Pose()
			up := p.Orientation.Rotate(mgl64.Vec3{0, 1, 0})
			tilt := math.Acos(math.Min(1, up[1])) * 180 / math.Pi
			worst = math.Max(worst, tilt)
			if tilt > 45+1e-6 {
				t.Fatalf("slant %v°, t = %.2f s: hull tilted %.1f° at %v", slant, w.Time(), tilt, p.Position)
			}
			// The ground as drawn and ray-cast: the map's triangles.
			if h, ok := m.SurfaceAt(p.Position[0], p.Position[2]); ok && p.Position[1] < h-1e-6 {
				t.Fatalf("slant %v°, t = %.2f s: hull %.2f m below the ground", slant, w.Time(), h-p.Position[1])
			}
			top = math.Max(top, p.Position[1])
			if leftTop == 0 && top-p.Position[1] > 0.5 {
				leftTop = w.Time()
			}
			dropped = top-p.Position[1] > 8
		}
		// From 0.5 m to 8 m below the top no faster than gravity lets it:
		// √(2·8/g) − √(2·0.5/g) = 0.96 s from rest (it drives off a slope: a little less).
		if fall := w.Time() - leftTop; fall < 0.85 {
			t.Errorf("slant %v°: fell 8 m in %.2f s", slant, fall)
		}
		if !dropped {
			t.Fatalf("slant %v°: never dropped off the ledge (at %v)", slant, tk.Pose().Position)
		}
		t.Logf("slant %v°: dropped at t = %.2f s, largest tilt %.1f°", slant, w.Time(), worst)
	}
}
