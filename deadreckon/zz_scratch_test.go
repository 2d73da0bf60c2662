package deadreckon

import (
	"fmt"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func BenchmarkZZN(b *testing.B) {
	for _, n := range []int{256, 10000} {
		for _, cl := range []bool{false, true} {
			b.Run(fmt.Sprintf("n%d-clamp%v", n, cl), func(b *testing.B) {
				cfg := Config{}
				var g Ground
				if cl {
					cfg.Clamp = Clamp{Mode: ClampAlways, Offset: 1, NearDistance: math.Inf(1)}
					g = fleetGround()
				}
				r := NewReckoner(ReckonerConfig{Workers: 1})
				hs := make([]Handle, n)
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
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					now += 1e-3 // no updates: pure frame cost
					r.Advance(now, g, mgl64.Vec3{})
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/actor")
			})
		}
	}
}

func BenchmarkZZClamp(b *testing.B) {
	var g Ground = fleetGround()
	c := Clamp{Mode: ClampAlways, Offset: 1, NearDistance: math.Inf(1)}.withDefaults()
	qs := make([]mgl64.Quat, 64)
	for i := range qs {
		qs[i] = YawQuat(float64(i) * 0.7)
	}
	var r ClampResult
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clamp3(g, mgl64.Vec3{float64(i & 127), 3, 5}, qs[i&63], &c, &r)
	}
}
func BenchmarkZZSincos(b *testing.B) {
	x := 0.0
	for i := 0; i < b.N; i++ {
		s, c := math.Sincos(float64(i&1023) * 1e-3)
		x += s + c
	}
	_ = x
}

func TestZZSincos(t *testing.T) {
	for i := -100000; i <= 100000; i++ {
		x := float64(i) * 1e-5
		s, c := sincos(x)
		ms, mc := math.Sincos(x)
		if s != ms || c != mc {
			t.Fatalf("%v: %v %v vs %v %v", x, s, c, ms, mc)
		}
	}
}
func BenchmarkZZSincos2(b *testing.B) {
	x := 0.0
	for i := 0; i < b.N; i++ {
		s, c := sincos(float64(i&1023) * 1e-3)
		x += s + c
	}
	_ = x
}

func BenchmarkZZClampConst(b *testing.B) {
	var g Ground = fleetGround()
	c := Clamp{Mode: ClampAlways, Offset: 1, NearDistance: math.Inf(1)}.withDefaults()
	qs := make([]mgl64.Quat, 64)
	for i := range qs {
		qs[i] = YawQuat(0.3 + float64(i)*0.001)
	}
	var r ClampResult
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clamp3(g, mgl64.Vec3{float64(i & 127), 3, 5}, qs[i&63], &c, &r)
	}
}
