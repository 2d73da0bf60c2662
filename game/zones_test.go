package game

import (
	"testing"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
)

// TestZonedPublishing: in a match whose host rations each player's downlink (more
// tanks than its ZonesAbove), every local tank publishes with ZonedHeartbeatCopy,
// a player's who was there when the scheduler came on and one's who joins after;
// in a small match, on the same host settings but its threshold, none copies.
func TestZonedPublishing(t *testing.T) {
	mp := testmaps.Small(t)
	for _, tc := range []struct {
		name  string
		above int
		want  float64
	}{
		{"large", 4, ZonedHeartbeatCopy},
		{"small", 0, deadreckon.Off}, // net's default, 64 tanks
	} {
		t.Run(tc.name, func(t *testing.T) {
			rig := newRig(t, gametest.Config{Seed: 1, Limits: net.Limits{ZonesAbove: tc.above, MaxActorsPerPlayer: 8, ControlBurst: 16}})
			a := mustMatch(t, Config{Map: mp, Name: "ann", Bots: 5, Seed: 1}, join(t, rig))
			now := 0.0
			for ; now < 1; now += 1.0 / 30 {
				stepAll(t, rig, now, a)
			}
			b := mustMatch(t, Config{Map: mp, Name: "bob", Seed: 2}, join(t, rig))
			for ; now < 2; now += 1.0 / 30 {
				stepAll(t, rig, now, a, b)
			}
			for _, m := range []*Match{a, b} {
				if m.Zoned() != (tc.want != deadreckon.Off) {
					t.Errorf("%s: Zoned() %v", m.cfg.Name, m.Zoned())
				}
				n := 0
				for _, tk := range m.tanks {
					if !tk.local {
						continue
					}
					n++
					if got := tk.pub.Config().HeartbeatCopy; got != tc.want {
						t.Errorf("%s: tank %d publishes with HeartbeatCopy %v, want %v", m.cfg.Name, tk.id, got, tc.want)
					}
				}
				if n == 0 {
					t.Errorf("%s: no local tank", m.cfg.Name)
				}
			}
		})
	}
}
