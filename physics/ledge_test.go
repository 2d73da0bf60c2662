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

// TestFallThroughSkippedTime drives off valley's ledge while the frames come late: a
// frame that skips time (World.Skip, or a Step past MaxSteps) simulates less than the
// clock moved. The hull's states are stamped on that clock (the frame time given, less
// the Alpha steps still owed), and a host holds a tank in the air to a fall under
// gravity from where it first left the ground, timed on it: the hull must fall at
// least that fast on the clock, however late the frames. Timed by the steps run, it
// fell as slowly as the frames came.
func TestFallThroughSkippedTime(t *testing.T) {
	m, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	lm, ok := m.Landmark("ledge")
	if !ok {
		t.Fatal(`no "ledge" landmark`)
	}
	// above is how far above the ground under its middle a hull counts as in the
	// air, m: the clamp rests it up to supportStep above it on the ground.
	const above, slack = 0.35, 1e-9
	// Each frame steps the world and returns the frame time it gave it, s; every
	// third comes late.
	frames := []struct {
		name  string
		frame func(w *World, i int) float64
	}{
		{"on time", func(w *World, i int) float64 { w.Step(w.FixedStep()); return w.FixedStep() }},
		{"skipped by the caller", func(w *World, i int) float64 {
			dt := w.FixedStep()
			if i%3 == 0 {
				w.Skip(0.2) // as game.Match does with a frame over its MaxStep
				dt += 0.2
			}
			w.Step(w.FixedStep())
			return dt
		}},
		{"past MaxSteps", func(w *World, i int) float64 {
			dt := w.FixedStep()
			if i%3 == 0 {
				dt = 0.35 // 21 steps' worth, 8 run
			}
			w.Step(dt)
			return dt
		}},
	}
	for _, f := range frames {
		t.Run(f.name, func(t *testing.T) {
			w := newWorld(t, MapConfig(m))
			tk := addTank(t, w, lm.X, lm.Z, lm.Yaw)
			tk.SetInput(Input{Throttle: 0.6, AimYaw: lm.Yaw})
			top, low := tk.Pose().Position[1], math.Inf(1)
			air, airY, airAt, inAir := false, 0.0, 0.0, 0
			given := 0.0 // frame time given to the world, s
			for i := 1; w.Time() < 12; i++ {
				given += f.frame(w, i)
				clock := given - w.Alpha()*w.FixedStep() // the pose's stamp
				p := tk.Pose()
				g, _ := m.SurfaceAt(p.Position[0], p.Position[2])
				y := p.Position[1]
				top, low = math.Max(top, y), math.Min(low, y)
				switch {
				case y-g <= above:
					air = false
				case !air:
					air, airY, airAt = true, y, clock
				default:
					inAir++
					d := clock - airAt
					if want := airY - 0.5*9.81*d*d; y > want+slack {
						t.Fatalf("%.2f s on the clock (%.2f s simulated): %.3f m above a fall from %.2f m %.2f s before",
							clock, w.Time(), y-want, airY, d)
					}
				}
			}
			if top-low < 8 || inAir < 3 {
				t.Fatalf("dropped %.1f m, %d frames in the air: never fell off the ledge", top-low, inAir)
			}
			t.Logf("dropped %.1f m, %d frames in the air", top-low, inAir)
		})
	}
}
