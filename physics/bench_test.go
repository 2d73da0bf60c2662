package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/treadline/treadline/terrain"
)

// BenchmarkPhysicsStep runs one fixed step of 64 tanks driving about the shipped map
// (with the three-point ground clamp of each) and reports ns per step and per tank.
func BenchmarkPhysicsStep(b *testing.B) {
	m, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		b.Fatal(err)
	}
	w, err := NewWorld(MapConfig(m))
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 64; i++ {
		// An 8 × 8 grid 40 m apart, so tanks meet now and then.
		x, z := float64(i%8)*40-140, float64(i/8)*40-140
		if _, err := w.AddTank(TankSpec{}, x, z, rng.Float64()*2*math.Pi); err != nil {
			b.Fatal(err)
		}
	}
	inputs := func() {
		for _, tk := range w.Tanks() {
			tk.SetInput(Input{Throttle: rng.Float64()*1.2 - 0.2, Steer: rng.Float64()*2 - 1, AimYaw: rng.Float64() * 6})
		}
	}
	inputs()
	for i := 0; i < 120; i++ { // get moving
		w.Tick()
	}
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		if n%120 == 0 {
			inputs()
		}
		w.Tick()
		n++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n)/64, "ns/tank")
}
