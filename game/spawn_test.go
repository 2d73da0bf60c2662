package game

import (
	"errors"
	"testing"
	"time"

	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/referee"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// TestSpawnsNeverOverlap: a match of 64 tanks (the player and 63 bots) on the shipped
// valley, and on a small generated map, puts every tank at least spawnClearance from
// every other, none inside a rock, all on the map; a respawn keeps the rule. A full
// match of 512 is expanse's (TestLargeMatch).
func TestSpawnsNeverOverlap(t *testing.T) {
	valley, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, mp := range map[string]*terrain.Map{"valley": valley, "small": testmaps.Small(t)} {
		t.Run(name, func(t *testing.T) {
			// One peer owns every tank of a full match, and spawns them all at once.
			const bots = 63
			rig := newRig(t, gametest.Config{Limits: net.Limits{MaxActorsPerPlayer: bots + 1,
				ControlBurst: 2 * (bots + 1)}})
			m := mustMatch(t, Config{Map: mp, Bots: bots, Seed: 3}, join(t, rig))
			m.Respawn()
			var snap Snapshot
			m.Snapshot(&snap)
			if len(snap.Tanks) != bots+1 {
				t.Fatalf("%d tanks, want %d", len(snap.Tanks), bots+1)
			}
			const slack = 1e-6
			for i, a := range snap.Tanks {
				pa := mgl64.Vec2{a.Position[0], a.Position[2]}
				if !mp.Contains(pa[0], pa[1]) {
					t.Errorf("%s spawned off the map at %v", a.Name, pa)
				}
				for _, o := range mp.Obstacles() {
					if d := pa.Sub(mgl64.Vec2{o.X, o.Z}).Len(); d < o.Radius+spawnClearance/2-slack {
						t.Errorf("%s spawned %.1f m from a rock of radius %.1f", a.Name, d, o.Radius)
					}
				}
				for _, b := range snap.Tanks[i+1:] {
					if d := pa.Sub(mgl64.Vec2{b.Position[0], b.Position[2]}).Len(); d < spawnClearance-slack {
						t.Errorf("%s and %s spawned %.1f m apart, want at least %v", a.Name, b.Name, d, spawnClearance)
					}
				}
			}
		})
	}
}

// TestRespawnsFairly respawns the player again and again among enemy bots on the
// shipped map: never within combat.SpawnDiedNear of where the tank was, and nearly always where
// no enemy within a gunner's range can see it.
func TestRespawnsFairly(t *testing.T) {
	t.Parallel()
	valley, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	judge, err := referee.New(valley, combat.Rules{}, DeadReckoning().Reckon)
	if err != nil {
		t.Fatal(err)
	}
	rig := newRig(t, gametest.Config{Judge: judge})
	bots := mustMatch(t, Config{Map: valley, NoPlayer: true, Bots: 6, Seed: 5, Difficulty: bot.Easy}, join(t, rig))
	me := mustMatch(t, Config{Map: valley, Name: "me", Team: 2, Seed: 6}, join(t, rig))
	now := 0.0
	step := func(d float64) {
		for end := now + d; now < end; now += 1.0 / 30 {
			rig.SetNow(now)
			mustStep(t, bots, now, physics.Input{})
			mustStep(t, me, now, physics.Input{Throttle: 1})
		}
	}
	step(3)
	const n = 20
	seen := 0
	for i := 0; i < n; i++ {
		before := me.self.body.Pose().Position
		me.Respawn()
		step(0.1)
		var snap Snapshot
		me.Snapshot(&snap)
		p := me.self.body.Pose().Position
		if d := (mgl64.Vec2{p[0] - before[0], p[2] - before[2]}).Len(); d < combat.SpawnDiedNear {
			t.Errorf("respawn %d: %.0f m from where the tank was, want at least %v", i, d, combat.SpawnDiedNear)
		}
		for _, tv := range snap.Tanks {
			if tv.Local || !combat.Enemies(2, tv.Team) {
				continue
			}
			eye := tv.Position.Add(mgl64.Vec3{0, 2.4, 0})
			to := p.Add(mgl64.Vec3{0, 1.8, 0}).Sub(eye)
			if l := to.Len(); l < bot.DefaultGunnerRange {
				if _, hit := valley.Raycast(eye, to, l); !hit {
					seen++
					break
				}
			}
		}
		// Two seconds of driving and the bots' moves between respawns: each finds the
		// enemies elsewhere and the tank away from its spawn, at half the simulation of four.
		step(2)
	}
	t.Logf("%d of %d respawns in an enemy's sight", seen, n)
	if seen > n/10 {
		t.Errorf("%d of %d respawns in an enemy's sight within %v m, want at most %d", seen, n, bot.DefaultGunnerRange, n/10)
	}
}

// TestJoinerSpawnsClearOfTheMatch: a player joining a match of bots over a lagged link
// knows nothing of them when it picks its spawn; once the host's answer brings them,
// its tank stands clear of every tank and out of every enemy's sight.
func TestJoinerSpawnsClearOfTheMatch(t *testing.T) {
	t.Parallel()
	valley, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	for seed := uint64(1); seed <= 10; seed++ {
		judge, err := referee.New(valley, combat.Rules{}, DeadReckoning().Reckon)
		if err != nil {
			t.Fatal(err)
		}
		rig := newRig(t, gametest.Config{Judge: judge, Seed: seed, Link: impair.Link{Latency: 100 * time.Millisecond}})
		bots := mustMatch(t, Config{Map: valley, NoPlayer: true, Bots: 7, Seed: seed + 1}, join(t, rig))
		me := mustMatch(t, Config{Map: valley, Name: "me", Team: 2, Seed: seed}, join(t, rig))
		p := me.self.body.Pose().Position
		at := mgl64.Vec2{p[0], p[2]}
		for _, b := range bots.tanks {
			bp := b.body.Pose().Position
			if d := at.Sub(mgl64.Vec2{bp[0], bp[2]}).Len(); d < spawnClearance {
				t.Errorf("seed %d: the player spawned %.1f m from %s, want at least %v", seed, d, b.name, spawnClearance)
			}
			if !combat.Enemies(2, b.team) {
				continue
			}
			eye := bp.Add(mgl64.Vec3{0, 2.4, 0})
			to := p.Add(mgl64.Vec3{0, 1.8, 0}).Sub(eye)
			if l := to.Len(); l < bot.DefaultGunnerRange {
				if _, hit := valley.Raycast(eye, to, l); !hit {
					t.Errorf("seed %d: the player spawned in the sight of %s, %.0f m away", seed, b.name, l)
				}
			}
		}
	}
}

// refusingLink is a scriptLink whose host refuses spawns while refuse is set; it
// counts the spawns asked for.
type refusingLink struct {
	scriptLink
	refuse bool
	asked  int
}

func (l *refusingLink) Spawn(name string, team int, s deadreckon.State) (uint32, error) {
	l.asked++
	if l.refuse {
		return 0, errors.New("spawn: refused by the host")
	}
	return l.scriptLink.Spawn(name, team, s)
}

// TestRefusedRespawnBacksOff: a respawn the host takes is asked on the Step that
// wants it; one the host refuses is asked again after 0.05 s, then twice as long
// each time up to 2 s, not on every frame; once taken, the wait starts over.
func TestRefusedRespawnBacksOff(t *testing.T) {
	link := &refusingLink{}
	m := mustMatch(t, Config{Map: testmaps.Small(t)}, link)
	run := func(d float64) {
		for end := link.now + d; link.now < end; {
			link.now += tick
			mustStep(t, m, link.now, physics.Input{})
		}
	}
	run(0.5)
	respawn := func() (asked int) {
		from := link.asked
		m.Respawn()
		run(tick)
		return link.asked - from
	}
	if n := respawn(); n != 1 {
		t.Fatalf("a respawn the host takes asked %d times on its Step, want 1", n)
	}

	link.refuse = true
	from := link.asked
	respawn()
	run(5)
	// Asked at 0, then 0.05, 0.15, 0.35, 0.75, 1.55 and 3.15 s: 7 in 5 s (300 frames).
	if n := link.asked - from; n != 7 {
		t.Errorf("a refused respawn was asked %d times in 5 s, want 7", n)
	}
	m.Respawn() // pressing respawn does not skip the wait
	run(tick)
	if n := link.asked - from; n != 7 {
		t.Errorf("pressing respawn while refused asked at once (%d asks)", n)
	}

	link.refuse = false
	run(2)
	if m.self.spawnFailed {
		t.Fatal("the tank is still out of the match 2 s after the host takes spawns again")
	}
	link.refuse = true
	from = link.asked
	respawn()
	run(0.1)
	if n := link.asked - from; n != 2 {
		t.Errorf("after a respawn the host took, a refused one was asked %d times in 0.1 s, want 2 (the wait starts over)", n)
	}
}
