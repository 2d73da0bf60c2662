package game

import (
	"fmt"
	"testing"

	"github.com/go-gl/mathgl/mgl64"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
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

// TestZonedKeepsSilentTanks: while the host rations each player's downlink, a
// remote tank it has sent nothing of for longer than RemoveAfter stays in the match,
// shown stale, with no timeout in the feed (the host may hold a far tank back that
// long when the near ones fill the budget, and it would not come back), until
// ZonedSilence times RemoveAfter; once the scheduler goes off, a tank silent since
// before is removed RemoveAfter later, not at once for the silence it kept while the
// host rationed.
func TestZonedKeepsSilentTanks(t *testing.T) {
	mp := testmaps.Small(t)
	rig := newRig(t, gametest.Config{Limits: net.Limits{ZonesAbove: 4, MaxActorsPerPlayer: 8}})
	owner := join(t, rig)
	const removeAfter = 2
	m := mustMatch(t, Config{Map: mp, NoPlayer: true, RemoveAfter: removeAfter,
		DeadReckoning: reckoning(func(c *deadreckon.Config) {
			c.Heartbeat, c.StaleHeartbeats = 0.5, deadreckon.DefaultStaleHeartbeats // stale after 1.2 s
		})}, join(t, rig))
	var ids []uint32
	for i := range 5 {
		id, err := owner.Spawn(fmt.Sprintf("t%d", i), 1, deadreckon.NewState(mgl64.Vec3{20 * float64(i), 0, 0}))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	// t0 is silent from the start, t1 from 5 s on; the others keep talking.
	var snap Snapshot
	now := 0.0
	run := func(until float64) {
		for ; now < until; now += 0.1 {
			for k, id := range ids {
				if k == 0 || k == 1 && now >= 5 {
					continue
				}
				_ = owner.Publish(id, deadreckon.NewState(mgl64.Vec3{20 * float64(id), 0, now}))
			}
			rig.SetNow(now)
			mustStep(t, m, now, physics.Input{})
			m.Snapshot(&snap)
		}
	}
	has := func(id uint32) *TankView {
		for i := range snap.Tanks {
			if snap.Tanks[i].ID == id {
				return &snap.Tanks[i]
			}
		}
		return nil
	}
	timeouts := func() (who []string) {
		for _, n := range noticesOf(m, NoticeTimeout) {
			who = append(who, n.Who)
		}
		return who
	}
	limit := float64(removeAfter * ZonedSilence)
	run(limit - 0.5)
	if !m.Zoned() {
		t.Fatal("the host never said it rations the downlink")
	}
	if v := has(ids[0]); v == nil || !v.Stale {
		t.Fatalf("after %.1f s of silence in a zoned match: tank %v, want it kept and stale", now, v)
	}
	if who := timeouts(); len(who) != 0 {
		t.Errorf("timeouts %v in a zoned match within ZonedSilence × RemoveAfter", who)
	}
	run(limit + 0.5)
	if has(ids[0]) != nil {
		t.Fatalf("a tank silent for %.1f s kept in a zoned match, want it gone after %v s", now, limit)
	}
	if who := timeouts(); len(who) != 1 || who[0] != "t0" {
		t.Errorf("timeouts %v, want t0's", who)
	}

	// Down to three tanks: the host stops rationing, with t1 silent for 3.5 s.
	for _, id := range ids[3:] {
		if err := owner.Despawn(id); err != nil {
			t.Fatal(err)
		}
	}
	ids = ids[:3]
	off := now
	run(off + 1.5)
	if m.Zoned() {
		t.Fatal("the host still rations the downlink with three tanks")
	}
	if has(ids[1]) == nil {
		t.Fatalf("the silent tank removed %.1f s after the host stopped rationing, want RemoveAfter (2 s)", now-off)
	}
	run(off + 3)
	if has(ids[1]) != nil {
		t.Fatalf("the silent tank kept %.1f s after the host stopped rationing", now-off)
	}
	if who := timeouts(); len(who) != 2 || who[1] != "t1" {
		t.Errorf("timeouts %v, want t0's then t1's", who)
	}
	if len(snap.Tanks) != 1 {
		t.Errorf("%d tanks left, want the one that spoke", len(snap.Tanks))
	}
}
