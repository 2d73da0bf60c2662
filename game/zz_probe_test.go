package game

import (
	"math"
	"testing"

	"github.com/treadline/treadline/physics"
)

func TestZZProbe(t *testing.T) {
	mp := smallMap(t)
	hub := NewLoopback(LoopbackConfig{Delay: 0.05})
	a := mustMatch(t, Config{Map: mp, Name: "a", Seed: 1}, hub.Join())
	b := mustMatch(t, Config{Map: mp, Name: "b", Seed: 2}, hub.Join())
	pad := mp.Spawns()[4]
	ax, bx, z := pad[0]-18, pad[0]+10, pad[1]
	a.self.body.Teleport(ax, z, 0)
	b.self.body.Teleport(bx, z, math.Pi)
	aID, _ := a.Self()
	bID, _ := b.Self()
	now := 0.0
	for k := 0; k < 9*60; k++ {
		now += tick
		hub.SetNow(now)
		in := physics.Input{}
		if now > 1.5 {
			in.Throttle = 1
		}
		mustStep(t, a, now, in)
		mustStep(t, b, now, physics.Input{})
		if now < 3.5 || now > 6 || k%3 != 0 {
			continue
		}
		pb := a.byID[bID].proxy
		pa := b.byID[aID].proxy
		x1, _, _ := pb.Place()
		v1, _, _ := pb.Velocity()
		x2, _, _ := pa.Place()
		v2, _, _ := pa.Velocity()
		t.Logf("t=%.2f A: a x %.2f v %.2f | pb x %.2f v %.2f gap %.2f || B: b x %.2f v %.2f | pa x %.2f v %.2f gap %.2f", now,
			a.self.body.Pose().Position[0], a.self.body.Pose().Velocity[0], x1, v1, x1-a.self.body.Pose().Position[0]-6.9,
			b.self.body.Pose().Position[0], b.self.body.Pose().Velocity[0], x2, v2, b.self.body.Pose().Position[0]-x2-6.9)
	}
}
