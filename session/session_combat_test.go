package session

import (
	"bytes"
	"context"
	"github.com/treadline/treadline/internal/memnet"
	"image/png"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/bot"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// TestPracticeCombatOverQUIC: in a practice match over QUIC on an in-memory network
// in a synctest bubble (100 ms ± 20 ms and 2 % loss each way), the player's shots reach the host's judge, whose
// verdicts come back, and the bots' shots (their Fire events) and the scoreboard reach
// the player. The match is on skirmishMap, where every tank starts in an enemy's
// range and sight, so the first shots come within seconds.
func TestPracticeCombatOverQUIC(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("a match over QUIC; skipped with -short")
	}
	synctest.Test(t, func(t *testing.T) {
		lan := memnet.New()
		mp := skirmishMap(t)
		m, sess, err := Practice(context.Background(), PracticeConfig{Wrap: lan.Wrap,
			Match: game.Config{Map: mp, Name: "gunner", Team: 2, Difficulty: bot.Hard}, Bots: 5})
		if err != nil {
			t.Fatalf("Practice: %v", err)
		}
		defer sess.Close()
		var snap game.Snapshot
		tick := time.NewTicker(time.Second / 60)
		defer tick.Stop()
		var sawScores, sawTheirShell, sawVerdict bool
		end := time.Now().Add(45 * time.Second) // ends as soon as all three are seen, in seconds; a loaded machine needs longer
		in := physics.Input{}
		gunner := bot.NewGunner(mp, bot.Hard, 1)
		var targets []bot.Target
		var frames, alive, engaged, fired int // what the player's gunner did, for a failure's message
		for time.Now().Before(end) && !(sawScores && sawTheirShell && sawVerdict) {
			<-tick.C
			if err := m.Step(m.Now(), in); err != nil {
				t.Fatalf("Step: %v", err)
			}
			m.Snapshot(&snap)
			frames++
			// The player aims and fires as a hard bot would.
			if snap.Self >= 0 && !snap.Combat.Wreck {
				alive++
				me := &snap.Tanks[snap.Self]
				targets = targets[:0]
				for _, tv := range snap.Tanks {
					targets = append(targets, bot.Target{ID: tv.ID, Position: tv.Position, Velocity: tv.Velocity,
						Enemy: tv.ID != me.ID && !tv.Wreck && combat.Enemies(me.Team, tv.Team)})
				}
				pose := physics.Pose{Position: me.Position, Orientation: me.Orientation, Turret: me.Turret, Gun: me.Gun}
				a := gunner.Aim(snap.Time, pose, targets, snap.Combat.Loaded >= 1)
				in = physics.Input{AimYaw: a.AimYaw, GunElevation: a.GunElevation}
				if a.Engaged {
					engaged++
				} else {
					// The player starts in its enemies' range; should none be in its
					// gunner's sight, it drives at the nearest until one is.
					in.AimYaw = geom.Yaw(me.Orientation)
					if to, ok := nearestEnemy(me, targets, snap.Tanks); ok {
						in.Steer = -math.Max(-1, math.Min(1, 2*geom.WrapAngle(math.Atan2(-to[2], to[0])-geom.Yaw(me.Orientation))))
						in.Throttle = 0.7
					}
				}
				if a.Fire {
					m.Fire()
					fired++
				}
			}
			sawScores = sawScores || (snap.Combat.Enabled && len(snap.Combat.Scores) == 6)
			for _, sh := range snap.Combat.Shells {
				sawTheirShell = sawTheirShell || !sh.Own
			}
			for _, e := range snap.Combat.Effects { // a bot's muzzle flash: its Fire arrived
				if e.Kind == game.EffectMuzzle && snap.Self >= 0 && e.Point.Sub(snap.Tanks[snap.Self].Position).Len() > 10 {
					sawTheirShell = true
				}
			}
			for _, h := range snap.Combat.Hits {
				sawVerdict = sawVerdict || h.Decided
			}
		}
		t.Logf("scoreboard %v, a bot's shell %v, a verdict on the player's claim %v; %d frames, %d with a live tank, %d engaged, %d fired; scores %+v",
			sawScores, sawTheirShell, sawVerdict, frames, alive, engaged, fired, snap.Combat.Scores)
		if !sawScores {
			t.Error("the host's scoreboard never reached the player")
		}
		if !sawTheirShell {
			t.Error("no bot's shot ever reached the player")
		}
		if !sawVerdict {
			t.Error("the host never answered a hit claim of the player's")
		}
	})
}

// nearestEnemy returns the way from me to the nearest enemy among targets (the
// tanks of the snapshot, in order), and whether there is one.
func nearestEnemy(me *game.TankView, targets []bot.Target, tanks []game.TankView) (mgl64.Vec3, bool) {
	var to mgl64.Vec3
	best := math.Inf(1)
	for i := range targets {
		if d := tanks[i].Position.Sub(me.Position); targets[i].Enemy && d.Len() < best {
			to, best = d, d.Len()
		}
	}
	return to, !math.IsInf(best, 1)
}

// skirmishMap returns the small test map (testmaps.Small) with its spawn points moved
// onto its level floor, in two rows 80 m apart: whichever row a tank's team takes, its
// enemies start in the hard gunner's range (bot.DefaultGunnerRange) and in its sight,
// so a practice's first shots need no drive across the map.
func skirmishMap(t *testing.T) *terrain.Map {
	t.Helper()
	small := testmaps.Small(t)
	var floor terrain.Landmark
	for _, l := range small.Landmarks() {
		if l.Name == "floor" {
			floor = l
		}
	}
	if floor.Name == "" {
		t.Fatal("the small test map has no floor landmark")
	}
	s := small.Sidecar("skirmish.png")
	s.Spawns = s.Spawns[:0]
	for _, dx := range []float64{-40, 40} {
		for _, dz := range []float64{-15, 0, 15} {
			s.Spawns = append(s.Spawns, terrain.Spawn{X: floor.X + dx, Z: floor.Z + dz})
		}
	}
	var img bytes.Buffer
	if err := png.Encode(&img, small.Heightmap()); err != nil {
		t.Fatalf("encode the small map's heights: %v", err)
	}
	mp, err := terrain.Decode(s, &img)
	if err != nil {
		t.Fatalf("skirmish map: %v", err)
	}
	return mp
}
