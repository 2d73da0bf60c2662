package physics

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/treadline/treadline/internal/cputime"
)

// BenchmarkPhysicsStep runs one fixed step of 64 tanks driving about the shipped map
// (with the three-point ground clamp of each) and reports ns per step and per tank.
func BenchmarkPhysicsStep(b *testing.B) {
	w := newWorld(b, MapConfig(valley(b)))
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

// BenchmarkPhysicsStepWithProxies runs one fixed step of 32 tanks and 32 proxies of
// remote tanks, each proxy moved along a circle every step, on the shipped map, and
// reports ns per step and per body.
func BenchmarkPhysicsStepWithProxies(b *testing.B) {
	w := newWorld(b, MapConfig(valley(b)))
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 32
	var proxies []*Proxy
	for i := 0; i < 2*n; i++ {
		// An 8 × 8 grid 40 m apart, tanks and proxies alternating.
		x, z := float64(i%8)*40-140, float64(i/8)*40-140
		if i%2 == 0 {
			tk, err := w.AddTank(TankSpec{}, x, z, rng.Float64()*2*math.Pi)
			if err != nil {
				b.Fatal(err)
			}
			tk.SetInput(Input{Throttle: rng.Float64()*1.2 - 0.2, Steer: rng.Float64()*2 - 1})
			continue
		}
		p, err := w.AddProxy(TankSpec{}, x, z, 0)
		if err != nil {
			b.Fatal(err)
		}
		proxies = append(proxies, p)
	}
	move := func() {
		t := w.FrameTime()
		for i, p := range proxies {
			// Circles of 15 m at 8 m/s about the proxy's grid cell.
			a := 8.0/15*t + float64(i)
			cx, cz := float64((2*i+1)%8)*40-140, float64((2*i+1)/8)*40-140
			_ = p.MoveTo(cx+15*math.Cos(a), cz-15*math.Sin(a), a+math.Pi/2,
				-8*math.Sin(a), -8*math.Cos(a), 8.0/15)
		}
	}
	for i := 0; i < 120; i++ { // get moving
		move()
		w.Tick()
	}
	b.ReportAllocs()
	steps := 0
	for b.Loop() {
		move()
		w.Tick()
		steps++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(steps)/(2*n), "ns/body")
}

// BenchmarkPhysicsStepSleepingProxies measures one fixed step of a client's world in
// a 512-tank match: its own tank and 511 proxies, all but a few far from it and
// asleep.
func BenchmarkPhysicsStepSleepingProxies(b *testing.B) {
	w := newWorld(b, MapConfig(valley(b)))
	tk, err := w.AddTank(TankSpec{}, 0, 0, 0)
	if err != nil {
		b.Fatal(err)
	}
	tk.SetInput(Input{Throttle: 0.5, Steer: 0.3})
	for i := range 511 {
		// A grid 12 m apart about the tank: a few within the wake distance.
		x, z := float64(i%23-11)*12+6, float64(i/23-11)*12+6
		if _, err := w.AddProxy(TankSpec{}, x, z, 0); err != nil {
			b.Fatal(err)
		}
	}
	for range 60 {
		w.Tick()
	}
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		w.Tick()
	}
	// CPU time: on a shared machine wall time includes waiting for a core.
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(b.N)/1e3, "cpu-µs/step")
	asleep := 0
	for _, p := range w.Proxies() {
		if p.Asleep() {
			asleep++
		}
	}
	b.ReportMetric(float64(asleep), "asleep")
}
