package deadreckon

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func BenchmarkProbeSize(b *testing.B) {
	for _, n := range []int{500, 10000} {
		for _, alg := range []Algorithm{Static, ProjectiveVelocityBlend, 100} {
			b.Run(alg.String()+"/"+string(rune('0'+n/500)), func(b *testing.B) {
				r := NewReckoner(ReckonerConfig{Workers: 1})
				hs := make([]Handle, n)
				cfg := Config{Algorithm: alg}
				var g Ground
				if alg == 100 {
					cfg = Config{Clamp: Clamp{Mode: ClampAlways, NearDistance: 1e9}}
					g = Plane{SlopeX: 0.1}
				}
				for i := range hs {
					hs[i] = r.Add(cfg)
				}
				fl := newFleet(n, 7)
				now := 0.0
				for i := 0; i < 30; i++ {
					now += frame
					fl.deliver(r, hs, now)
					r.Advance(now, g, mgl64.Vec3{})
				}
				cpu0 := cpuTime()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					now += frame
					r.Advance(now, g, mgl64.Vec3{})
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/float64(n), "cpu-ns/actor")
			})
		}
	}
}

func BenchmarkProbeClamp(b *testing.B) {
	var g Ground = Plane{SlopeX: 0.1}
	c := Clamp{Mode: ClampAlways}.withDefaults()
	var r ClampResult
	q := YawQuat(0.3)
	for i := 0; i < b.N; i++ {
		clamp3(g, mgl64.Vec3{float64(i & 1023), 1, 2}, q, &c, &r)
	}
}

func BenchmarkProbeGroundOrient(b *testing.B) {
	n := mgl64.Vec3{-0.1, 1, 0}.Normalize()
	var q mgl64.Quat
	for i := 0; i < b.N; i++ {
		q = groundOrientation(mgl64.Vec3{1, 0, float64(i&7) * 0.01}, n)
	}
	_ = q
}

func BenchmarkProbeAxisRot(b *testing.B) {
	var q mgl64.Quat
	for i := 0; i < b.N; i++ {
		q = axisRotation(mgl64.Vec3{0, 1, 0}, float64(i&1023)*0.001)
	}
	_ = q
}
