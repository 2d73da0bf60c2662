package lab

import (
	"math"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// speedTol is the tolerance on a frame's measured speed, m/s: the truth is integrated
// at 1 ms steps, so a chord differs from the arc by far less.
const speedTol = 1e-3

func TestScenariosMoveAsDescribed(t *testing.T) {
	for _, c := range []struct {
		name     string
		minSpeed float64 // m/s, horizontal
		maxSpeed float64
	}{
		{"circle", circleSpeed, circleSpeed},
		{"eight", eightSpeed, eightSpeed},
		{"zigzag", zigzagSpeed, zigzagSpeed},
		{"stopgo", 0, stopGoTopSpeed},
		{"ledge", ledgeSpeed, ledgeSpeed},
	} {
		p, err := BuildScenario(c.name, 60, 60)
		if err != nil {
			t.Fatal(err)
		}
		if len(p.Poses) != 3600 || p.Duration() != 60 {
			t.Errorf("%s: %d frames covering %v s, want 3600 and 60 s", c.name, len(p.Poses), p.Duration())
		}
		stood := false
		for i := 1; i < len(p.Poses); i++ {
			a, b := p.Poses[i-1], p.Poses[i]
			if b.Time-a.Time-p.FrameInterval > 1e-9 {
				t.Fatalf("%s: frame %d at %v after %v", c.name, i, b.Time, a.Time)
			}
			d := b.Position.Sub(a.Position)
			v := math.Hypot(d.X(), d.Z()) / p.FrameInterval
			if v < c.minSpeed-speedTol || v > c.maxSpeed+speedTol {
				t.Fatalf("%s: frame %d horizontal speed %v m/s, want %v…%v", c.name, i, v, c.minSpeed, c.maxSpeed)
			}
			if v < 0.01 {
				stood = true
				continue
			}
			// The vehicle faces where it goes.
			travel := math.Atan2(-d.Z(), d.X())
			ha, hb := geom.Yaw(a.Orientation), geom.Yaw(b.Orientation)
			mid := ha + headingDiff(hb, ha)/2
			if e := math.Abs(headingDiff(travel, mid)); e > 0.01 { // 0.6°; curvature flips inside a frame bend the chord
				t.Fatalf("%s: frame %d travels at %.3f° but faces %.3f°", c.name, i, mgl64.RadToDeg(travel), mgl64.RadToDeg(mid))
			}
		}
		if c.name == "stopgo" && !stood {
			t.Errorf("stopgo never stood still")
		}
		for i, pose := range p.Poses {
			for _, v := range []float64{pose.Position.X(), pose.Position.Z()} {
				if math.Abs(v) > 256 {
					t.Fatalf("%s: frame %d at %v leaves the 512 m map", c.name, i, pose.Position)
				}
			}
		}
		if describeScenario(c.name) == "" {
			t.Errorf("%s has no description", c.name)
		}
	}
}

func TestLedgeFallsAndLands(t *testing.T) {
	p, err := BuildScenario("ledge", 240, 40)
	if err != nil {
		t.Fatal(err)
	}
	g := ledgeGround{}
	fallStart, fallEnd := -1.0, -1.0
	for _, pose := range p.Poses {
		h, _ := g.HeightAt(pose.Position.X(), pose.Position.Z())
		if pose.Position.Y() < h-1e-9 {
			t.Fatalf("truth below the ground at %v (ground %v)", pose.Position, h)
		}
		air := pose.Position.Y() > h+1e-6
		if air && fallStart < 0 {
			fallStart = pose.Time
		}
		if !air && fallStart >= 0 && fallEnd < 0 {
			fallEnd = pose.Time
		}
	}
	// A 5 m drop takes √(2h/g) ≈ 1.01 s.
	want := math.Sqrt(2 * ledgeHeight / deadreckon.Gravity)
	if got := fallEnd - fallStart; math.Abs(got-want) > 0.02 {
		t.Errorf("fell for %.3f s, want %.3f s", got, want)
	}
	// The ramp pitches the vehicle nose up by atan(5/50) going west.
	var pitched bool
	for _, pose := range p.Poses {
		if x, z := pose.Position.X(), pose.Position.Z(); z < 0 && x > 5 && x < 45 {
			f := pose.Orientation.Rotate(mgl64.Vec3{1, 0, 0})
			pitch := math.Asin(f.Y())
			if math.Abs(pitch-math.Atan(ledgeHeight/ledgeRampLength)) > 1e-6 {
				t.Fatalf("on the ramp at %v pitch is %.4f rad, want %.4f", pose.Position, pitch, math.Atan(ledgeHeight/ledgeRampLength))
			}
			pitched = true
		}
	}
	if !pitched {
		t.Error("the ledge track never climbed the ramp")
	}
}

func TestLedgeGround(t *testing.T) {
	g := ledgeGround{}
	for _, c := range []struct{ x, z, h float64 }{
		{-10, 5, ledgeHeight}, {10, 5, 0}, {-10, -5, ledgeHeight}, {25, -5, ledgeHeight / 2}, {60, -5, 0},
	} {
		if h, ok := g.HeightAt(c.x, c.z); !ok || math.Abs(h-c.h) > 1e-12 {
			t.Errorf("HeightAt(%v, %v) = %v, %v; want %v", c.x, c.z, h, ok, c.h)
		}
	}
	if _, ok := g.RayDown(-10, 2, 5); ok {
		t.Error("a ray starting inside the plateau hit it")
	}
	if h, ok := g.RayDown(10, 2, 5); !ok || h != 0 {
		t.Errorf("RayDown below the cliff = %v, %v; want 0, true", h, ok)
	}
	if n, _ := g.NormalAt(25, -5); math.Abs(n.Len()-1) > 1e-12 || n.X() <= 0 {
		t.Errorf("ramp normal %v, want a unit vector leaning +X", n)
	}
}

func TestBuildScenarioRejects(t *testing.T) {
	for _, c := range []struct {
		name          string
		fps, duration float64
		want          string
	}{
		{"square", 60, 10, "unknown scenario"},
		{"wander:", 60, 10, "unknown scenario"},
		{"wander:-1", 60, 10, "unknown scenario"},
		{"circle", 0, 10, "frame rate"},
		{"circle", 60, -1, "duration"},
		{"circle", math.NaN(), 10, "frame rate"},
	} {
		if _, err := BuildScenario(c.name, c.fps, c.duration); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("BuildScenario(%q, %v, %v) error %v, want %q", c.name, c.fps, c.duration, err, c.want)
		}
	}
}

// TestWanderOfAnySeed: "wander:N" is the drive wander scenario N's builder makes with
// seed N, so wander:1 is wander1 frame for frame.
func TestWanderOfAnySeed(t *testing.T) {
	a, err := BuildScenario("wander1", 60, 10)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildScenario(WanderPrefix+"1", 60, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Poses) != len(b.Poses) || b.Ground == nil || b.Collide.Obstacles == nil {
		t.Fatalf("wander:1 has %d frames, ground %v, obstacles %v; want wander1's %d on its ground", len(b.Poses), b.Ground != nil, b.Collide.Obstacles != nil, len(a.Poses))
	}
	for i := range a.Poses {
		if a.Poses[i] != b.Poses[i] {
			t.Fatalf("frame %d: wander:1 at %+v, wander1 at %+v", i, b.Poses[i], a.Poses[i])
		}
	}
	if describeScenario(WanderPrefix+"77") == "" {
		t.Errorf("wander:77 has no description")
	}
}

func TestTankScenario(t *testing.T) {
	a, err := BuildScenario("tank", 60, 20)
	if err != nil {
		t.Fatal(err)
	}
	b, err := BuildScenario("tank", 60, 20)
	if err != nil {
		t.Fatal(err)
	}
	travelled := 0.0
	for i, p := range a.Poses {
		if p != b.Poses[i] {
			t.Fatalf("two builds differ at frame %d: %+v vs %+v", i, p, b.Poses[i])
		}
		h, ok := a.Ground.HeightAt(p.Position.X(), p.Position.Z())
		if !ok || math.Abs(p.Position.Y()-h) > 0.05 {
			t.Fatalf("frame %d at %v is not on the ground (height %v, %v)", i, p.Position, h, ok)
		}
		if i > 0 {
			travelled += p.Position.Sub(a.Poses[i-1].Position).Len()
		}
	}
	if travelled < 50 {
		t.Errorf("the tank drove %.1f m in 20 s, want a real drive (> 50 m)", travelled)
	}
	if a.Clamp != deadreckon.ClampAlways {
		t.Errorf("tank clamp mode %v, want ClampAlways", a.Clamp)
	}
}
