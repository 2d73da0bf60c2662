package game

import (
	"math"
	"testing"

	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
)

// TestBotsPatrol: bots drive, turn, stop now and then, swing their turrets and stay
// on the map.
func TestBotsPatrol(t *testing.T) {
	t.Parallel()
	mp := testmaps.Small(t)
	rig := newRig(t, gametest.Config{})
	const bots = 4
	m := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: bots, Seed: 42}, join(t, rig))
	type track struct {
		dist, turned, turret float64
		stoppedFor, maxStop  float64
		lastYaw, lastTurret  float64
		minY, maxY           float64
	}
	tracks := make([]track, bots)
	var snap Snapshot
	lo, hi := mp.Min(), mp.Max()
	prev := make([][3]float64, bots)
	const secs = 60.0
	for k := 0; k <= int(secs/tick); k++ {
		now := float64(k) * tick
		rig.SetNow(now)
		mustStep(t, m, now, physics.Input{})
		m.Snapshot(&snap)
		for i, v := range snap.Tanks {
			tr := &tracks[i]
			p := v.Position
			if p[0] < lo[0] || p[0] > hi[0] || p[2] < lo[1] || p[2] > hi[1] {
				t.Fatalf("t=%.1f: bot %s left the map at %v", now, v.Name, p)
			}
			yaw := geom.Yaw(v.Orientation)
			if k == 0 {
				tr.lastYaw, tr.lastTurret, tr.minY, tr.maxY = yaw, v.Turret, p[1], p[1]
			} else {
				step := math.Hypot(p[0]-prev[i][0], p[2]-prev[i][2])
				tr.dist += step
				tr.turned += math.Abs(geom.WrapAngle(yaw - tr.lastYaw))
				tr.turret += math.Abs(geom.WrapAngle(v.Turret - tr.lastTurret))
				if step/tick < 0.2 {
					tr.stoppedFor += tick
					tr.maxStop = math.Max(tr.maxStop, tr.stoppedFor)
				} else {
					tr.stoppedFor = 0
				}
			}
			tr.lastYaw, tr.lastTurret = yaw, v.Turret
			tr.minY, tr.maxY = math.Min(tr.minY, p[1]), math.Max(tr.maxY, p[1])
			prev[i] = p
		}
	}
	for i, tr := range tracks {
		t.Logf("%s: %.0f m driven, %.0f° turned, turret %.0f°, longest stop %.1f s, height %.1f..%.1f m",
			snap.Tanks[i].Name, tr.dist, tr.turned*180/math.Pi, tr.turret*180/math.Pi, tr.maxStop, tr.minY, tr.maxY)
		if tr.dist < 150 {
			t.Errorf("bot %d drove only %.0f m in %.0f s", i, tr.dist, secs)
		}
		if tr.turned < math.Pi/2 {
			t.Errorf("bot %d turned only %.0f°", i, tr.turned*180/math.Pi)
		}
		if tr.turret < math.Pi/2 {
			t.Errorf("bot %d swung its turret only %.0f°", i, tr.turret*180/math.Pi)
		}
		if tr.maxY-tr.minY < 2 {
			t.Errorf("bot %d stayed within %.1f m of height: no climbing", i, tr.maxY-tr.minY)
		}
	}
	stops := 0
	for _, tr := range tracks {
		if tr.maxStop >= 1 {
			stops++
		}
	}
	if stops == 0 {
		t.Error("no bot ever stopped for a second: no stop-and-go")
	}
}

// TestBotDeterministic: the same seed and the same poses give the same inputs.
func TestBotDeterministic(t *testing.T) {
	t.Parallel()
	mp := testmaps.Small(t)
	run := func() []physics.Input {
		rig := newRig(t, gametest.Config{})
		m := mustMatch(t, Config{Map: mp, NoPlayer: true, Bots: 2, Seed: 9}, join(t, rig))
		var out []physics.Input
		for k := 0; k < 600; k++ {
			now := float64(k) * tick
			rig.SetNow(now)
			mustStep(t, m, now, physics.Input{})
			for _, tk := range m.tanks {
				out = append(out, tk.body.Input())
			}
		}
		return out
	}
	a, b := run(), run()
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("input %d differs: %+v vs %+v", i, a[i], b[i])
		}
	}
}
