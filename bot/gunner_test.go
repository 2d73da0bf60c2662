package bot

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

func TestGunnerLeadsAndHitsAMovingTank(t *testing.T) {
	m, w, tank, at := gunnerStand(t)
	for _, d := range []Difficulty{Hard, Normal, Easy} {
		g := NewGunner(m, d, 5)
		hits, shots := 0, 0
		// A target crossing at 6 m/s, 80 m ahead (within every difficulty's range);
		// the gunner's tank stands still.
		start := at(80, -30)
		vel := mgl64.Vec3{0, 0, 6}
		loaded := 0.0
		for frame := 0; frame < 600; frame++ {
			now := float64(frame) / 60
			pos := start.Add(vel.Mul(now))
			pos[1], _ = m.HeightAt(pos[0], pos[2])
			aim := g.Aim(now, tank.Pose(), []Target{{ID: 2, Position: pos, Velocity: vel, Enemy: true}}, now >= loaded)
			if !aim.Engaged {
				t.Fatalf("%v: target in plain sight not engaged", d)
			}
			tank.SetInput(physics.Input{AimYaw: aim.AimYaw, GunElevation: aim.GunElevation})
			w.Step(1.0 / 60)
			if !aim.Fire {
				continue
			}
			if now-g.seenAt < g.skill.reaction {
				t.Errorf("%v fired %.2f s after seeing its target, before its reaction time", d, now-g.seenAt)
			}
			shots++
			loaded = now + 1
			p := tank.Pose()
			o, dir := combat.Muzzle(p.Position, p.Orientation, p.Turret, p.Gun)
			s := combat.Shot{ID: 1, Shooter: 1, Origin: o, Direction: dir, Time: now}
			for ft := now; ft < now+2; ft += 1.0 / 60 {
				tp := start.Add(vel.Mul(ft + 1.0/60))
				tp[1], _ = m.HeightAt(tp[0], tp[2])
				imp := combat.Sweep(m, s, ft, ft+1.0/60, []combat.HullPose{{Actor: 2, Position: tp, Orientation: mgl64.QuatIdent()}})
				if imp.Kind == combat.ImpactTank {
					hits++
				}
				if imp.Kind != combat.ImpactNone {
					break
				}
			}
		}
		t.Logf("%v: %d of %d shots hit", d, hits, shots)
		if shots < 3 {
			t.Errorf("%v: only %d shots in 10 s", d, shots)
		}
		if d == Hard && hits*2 < shots {
			t.Errorf("hard gunner hit %d of %d shots at a steady crossing target", hits, shots)
		}
	}
	if _, err := ParseDifficulty("brutal"); err == nil {
		t.Error("unknown difficulty accepted")
	}
	if d, err := ParseDifficulty("hard"); err != nil || d != Hard || d.String() != "hard" {
		t.Errorf("hard: %v %v", d, err)
	}
}

// TestGunnersEngageWithinTheirRange: the easier the bot, the nearer it must be to an
// enemy in plain sight to engage it.
func TestGunnersEngageWithinTheirRange(t *testing.T) {
	m, _, tank, at := gunnerStand(t)
	for _, c := range []struct {
		d       Difficulty
		dist    float64 // m
		engages bool
	}{
		{Easy, 90, true}, {Easy, 110, false},
		{Normal, 110, true}, {Normal, 130, false},
		{Hard, 130, true}, {Hard, DefaultGunnerRange + 10, false},
	} {
		g := NewGunner(m, c.d, 5)
		aim := g.Aim(0, tank.Pose(), []Target{{ID: 2, Position: at(c.dist, 0), Enemy: true}}, false)
		if aim.Engaged != c.engages {
			t.Errorf("%v gunner, enemy %v m away: engaged %v, want %v", c.d, c.dist, aim.Engaged, c.engages)
		}
	}
}

// TestGunnersSpreadTheirFire: of two enemies in sight, a gunner takes the nearer,
// unless another of its peer's gunners already aims at it (80 m then counts as 120).
func TestGunnersSpreadTheirFire(t *testing.T) {
	m, _, tank, at := gunnerStand(t)
	for _, c := range []struct {
		engaged int
		want    uint32
	}{{0, 2}, {1, 3}, {2, 3}} {
		g := NewGunner(m, Normal, 5)
		aim := g.Aim(0, tank.Pose(), []Target{
			{ID: 2, Position: at(80, -10), Enemy: true, Engaged: c.engaged},
			{ID: 3, Position: at(100, 10), Enemy: true},
		}, false)
		if aim.Target != c.want {
			t.Errorf("nearer enemy engaged by %d others: aims at %d, want %d", c.engaged, aim.Target, c.want)
		}
	}
}

// gunnerStand puts a gunner's tank on the valley's floor and returns the map, its
// world, the tank and where a point dx, dz m from the tank lies on the ground.
func gunnerStand(t *testing.T) (*terrain.Map, *physics.World, *physics.Tank, func(dx, dz float64) mgl64.Vec3) {
	t.Helper()
	m := testmaps.Valley(t)
	floor, _ := m.Landmark("floor")
	w, err := physics.NewWorld(physics.MapConfig(m))
	if err != nil {
		t.Fatal(err)
	}
	tank, err := w.AddTank(physics.TankSpec{}, floor.X, floor.Z, 0)
	if err != nil {
		t.Fatal(err)
	}
	return m, w, tank, func(dx, dz float64) mgl64.Vec3 {
		h, _ := m.HeightAt(floor.X+dx, floor.Z+dz)
		return mgl64.Vec3{floor.X + dx, h, floor.Z + dz}
	}
}
