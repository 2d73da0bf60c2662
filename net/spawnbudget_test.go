package net

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"
)

// TestSpawnBudget: a remote player that churns spawns and despawns is held to its
// budget (MaxActorsPerPlayer spawns per RespawnInterval, in bursts of twice that and
// two), each refusal counted; an honest player, with one tank or with a peer's
// several bots, is never refused: every tank at a join, a round restart at once, each
// tank respawned once per wreck time and a second alive, and a restart again.
func TestSpawnBudget(t *testing.T) {
	for _, tc := range []struct {
		name  string
		tanks int // MaxActorsPerPlayer
	}{{"one tank", DefaultMaxActorsPerPlayer}, {"a peer's bots", 8}} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { // each case in a bubble of its own
				clk := &ManualClock{}
				h := simHost(t, HostConfig{Clock: clk, Limits: Limits{MaxActorsPerPlayer: tc.tanks, ControlBurst: 1e6}})
				interval := DefaultRespawnInterval

				honest := pipeJoin(t, h, ClientConfig{Name: "ann", Clock: clk})
				tanks := make([]uint32, tc.tanks)
				respawnAll := func(when string) {
					t.Helper()
					for i, id := range tanks {
						if id != 0 {
							if err := honest.Despawn(id); err != nil {
								t.Fatal(err)
							}
						}
						var err error
						if tanks[i], err = honest.Spawn("ann", 1, tankAt(float64(4*i), 0)); err != nil {
							t.Fatalf("%s: tank %d refused: %v", when, i, err)
						}
					}
				}
				respawnAll("join")
				respawnAll("round restart at once")
				for round := range 10 {
					clk.Advance(interval + time.Second)
					respawnAll(fmt.Sprintf("respawn %d after the wreck time", round))
				}
				respawnAll("round restart after the respawns")
				if n := h.Stats().SpawnsThrottled; n != 0 {
					t.Errorf("an honest player had %d spawns refused", n)
				}

				// The churner asks ten times a second for a minute.
				churner := pipeJoin(t, h, ClientConfig{Name: "eve", Clock: clk})
				const (
					asks = 600
					per  = 100 * time.Millisecond
				)
				took := 0
				for range asks {
					clk.Advance(per)
					id, err := churner.Spawn("eve", 2, tankAt(50, 0))
					if err != nil {
						continue
					}
					took++
					if err := churner.Despawn(id); err != nil {
						t.Fatal(err)
					}
				}
				burst := 2*tc.tanks + 2
				earned := float64(tc.tanks) * (asks * per).Seconds() / interval.Seconds()
				if want := burst + int(earned); took < want-1 || took > want+1 {
					t.Errorf("churner spawned %d times in %v, want %d (a burst of %d and %.0f earned)",
						took, asks*per, want, burst, earned)
				}
				if got, want := h.Stats().SpawnsThrottled, uint64(asks-took); got != want {
					t.Errorf("SpawnsThrottled = %d, want the %d refused", got, want)
				}
			})
		})
	}
}
