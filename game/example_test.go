package game_test

import (
	"fmt"
	"log"
	"time"

	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/terrain"
)

// Two peers joined to a host in process, 50 ms of latency from it: one runs three
// bots, the other a player. Each sees the other's tanks, dead-reckoned.
func ExampleNewMatch() {
	mp, err := terrain.Generate(terrain.GenerateConfig{Seed: 7, Size: 256, Samples: 129})
	if err != nil {
		log.Fatal(err)
	}
	rig, err := gametest.New(gametest.Config{Link: impair.Link{Latency: 50 * time.Millisecond}, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	defer rig.Close()
	botLink, err := rig.Join()
	if err != nil {
		log.Fatal(err)
	}
	playerLink, err := rig.Join()
	if err != nil {
		log.Fatal(err)
	}
	// No referee on this host: the bots drive without fighting.
	bots, err := game.NewMatch(game.Config{Map: mp, NoPlayer: true, Bots: 3, Seed: 1}, botLink)
	if err != nil {
		log.Fatal(err)
	}
	player, err := game.NewMatch(game.Config{Map: mp, Name: "ada", Seed: 2}, playerLink)
	if err != nil {
		log.Fatal(err)
	}
	var snap game.Snapshot
	for tick := 1; tick <= 5*60; tick++ {
		now := float64(tick) / 60
		rig.SetNow(now)
		if err := bots.Step(now, physics.Input{}); err != nil {
			log.Fatal(err)
		}
		if err := player.Step(now, physics.Input{Throttle: 1}); err != nil {
			log.Fatal(err)
		}
	}
	player.Snapshot(&snap)
	for i, t := range snap.Tanks {
		fmt.Printf("%-8s local=%-5v self=%v\n", t.Name, t.Local, i == snap.Self)
	}
	// Output:
	// ada      local=true  self=true
	// Ariete   local=false self=false
	// Arjun    local=false self=false
	// Type 10  local=false self=false
}
