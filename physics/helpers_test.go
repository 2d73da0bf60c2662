package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/terrain"
)

// plane is an unbounded analytic plane through the origin with unit normal n.
type plane struct{ n mgl64.Vec3 }

// slope returns a plane rising at deg degrees toward +X.
func slope(deg float64) plane {
	th := deg * math.Pi / 180
	return plane{mgl64.Vec3{-math.Sin(th), math.Cos(th), 0}}
}

func (p plane) HeightAt(x, z float64) (float64, bool)    { return -(p.n[0]*x + p.n[2]*z) / p.n[1], true }
func (p plane) NormalAt(x, z float64) (mgl64.Vec3, bool) { return p.n, true }
func (p plane) RayDown(x, y, z float64) (float64, bool) {
	h, _ := p.HeightAt(x, z)
	return h, h <= y
}

// valley loads the shipped valley map.
func valley(t testing.TB) *terrain.Map {
	t.Helper()
	m, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func newWorld(t testing.TB, cfg WorldConfig) *World {
	t.Helper()
	w, err := NewWorld(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

func addTank(t testing.TB, w *World, x, z, yaw float64) *Tank {
	t.Helper()
	tk, err := w.AddTank(TankSpec{}, x, z, yaw)
	if err != nil {
		t.Fatal(err)
	}
	return tk
}

// run ticks w for the given seconds.
func run(w *World, seconds float64) {
	for n := int(math.Round(seconds / w.FixedStep())); n > 0; n-- {
		w.Tick()
	}
}

// speed is the tank's ground speed, m/s.
func speed(tk *Tank) float64 { return tk.Pose().Velocity.Len() }

// forward returns the tank's forward axis in the world.
func forward(p Pose) mgl64.Vec3 { return p.Orientation.Rotate(mgl64.Vec3{1, 0, 0}) }

func deg(rad float64) float64 { return rad * 180 / math.Pi }
