package game

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/terrain"
)

// TestSpawnsNeverOverlap: a full match (the player and MaxBots bots) on the shipped
// map, and on a small generated one, puts every tank at least spawnClearance from
// every other, none inside a rock, all on the map; a respawn keeps the rule.
func TestSpawnsNeverOverlap(t *testing.T) {
	valley, err := terrain.Load("../assets/maps/valley.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, mp := range map[string]*terrain.Map{"valley": valley, "small": testmaps.Small(t)} {
		t.Run(name, func(t *testing.T) {
			// One peer owns every tank of a full match, and spawns them all at once.
			rig := newRig(t, gametest.Config{Limits: net.Limits{MaxActorsPerPlayer: MaxBots + 1,
				ControlBurst: 2 * (MaxBots + 1)}})
			m := mustMatch(t, Config{Map: mp, Bots: MaxBots, Seed: 3}, join(t, rig))
			m.Respawn()
			var snap Snapshot
			m.Snapshot(&snap)
			if len(snap.Tanks) != MaxBots+1 {
				t.Fatalf("%d tanks, want %d", len(snap.Tanks), MaxBots+1)
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
