package physics

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

type plane struct{ n mgl64.Vec3 }

func (p plane) HeightAt(x, z float64) (float64, bool) { return -(p.n[0]*x + p.n[2]*z) / p.n[1], true }
func (p plane) NormalAt(x, z float64) (mgl64.Vec3, bool) { return p.n, true }
func (p plane) RayDown(x, y, z float64) (float64, bool) {
	h, _ := p.HeightAt(x, z)
	return h, h <= y
}

func TestProbe(t *testing.T) {
	w, _ := NewWorld(WorldConfig{})
	tk, _ := w.AddTank(TankSpec{}, 0, 0, 0)
	tk.SetInput(Input{Throttle: 1})
	for i := 0; i < 60*30; i++ {
		w.Tick()
		p := tk.Pose()
		if i%60 == 59 {
			t.Logf("t=%.0f x=%.1f v=%.2f", w.Time(), p.Position[0], p.Velocity.Len())
		}
	}
	x0 := tk.Pose().Position[0]
	tk.SetInput(Input{})
	for i := 0; i < 60*10; i++ {
		w.Tick()
	}
	t.Logf("stop dist %.2f v %.3f", tk.Pose().Position[0]-x0, tk.Pose().Velocity.Len())
	tk.SetInput(Input{Steer: 1})
	y0 := tk.Pose().Yaw
	for i := 0; i < 60*3; i++ {
		w.Tick()
	}
	t.Logf("turn rate %.3f deg/s yaw %.2f pos %v", tk.Pose().AngularVelocity[1]*180/math.Pi, (tk.Pose().Yaw-y0)*180/math.Pi, tk.Pose().Position)
	for _, deg := range []float64{10, 20, 30, 35} {
		th := deg * math.Pi / 180
		// slope rising toward +X
		w, _ := NewWorld(WorldConfig{Ground: plane{mgl64.Vec3{-math.Sin(th), math.Cos(th), 0}}})
		tk, _ := w.AddTank(TankSpec{}, 0, 0, 0)
		tk.SetInput(Input{Throttle: 1})
		for i := 0; i < 60*30; i++ {
			w.Tick()
		}
		p := tk.Pose()
		a, _, _ := p.Orientation.Rotate(mgl64.Vec3{1, 0, 0}).Elem()
		t.Logf("climb %v: v=%.2f pos=%v pitchcos=%.3f", deg, p.Velocity.Len(), p.Position, a)
		tk.SetInput(Input{AimYaw: math.NaN()})
		x := p.Position[0]
		for i := 0; i < 60*10; i++ {
			w.Tick()
		}
		t.Logf("   idle: dx=%.2f v=%.2f", tk.Pose().Position[0]-x, tk.Pose().Velocity.Len())
	}
}
