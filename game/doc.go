// Package game runs a Treadline match without drawing it: the player's tank and the
// bots this peer owns (physics tanks whose states a deadreckon.Publisher publishes),
// and the tanks other peers own (dead-reckoned by deadreckon.Actors and clamped to the
// ground). The desktop client, the headless host and the tests run the same code.
//
// Each Step is one tick in the order that keeps dead reckoning consistent: the
// player's input; the network events that arrived (the last update of a tank in a tick
// wins); local behaviour (bots choose inputs); reckoning of remote tanks and ground
// clamping; physics, in which every remote tank stands as a physics.Proxy on its
// reckoned path, so local tanks collide with remote ones where they are drawn;
// publishing; the views a Snapshot hands to the renderer; and combat on those views.
//
// A match talks to the other peers and the host's referee through a Link:
// *net.Client, the host's own player (net.Host.Local), or, in tests, a player of a
// host in process on a clock the test moves (package gametest):
//
//	rig, _ := gametest.New(gametest.Config{Link: impair.Link{Latency: 100 * time.Millisecond}})
//	defer rig.Close()
//	la, _ := rig.Join()
//	lb, _ := rig.Join()
//	a, _ := game.NewMatch(game.Config{Map: m, Bots: 3, Seed: 1, NoCombat: true}, la)
//	b, _ := game.NewMatch(game.Config{Map: m, Seed: 2, NoCombat: true}, lb)
//	var snap game.Snapshot
//	for tick := 1; tick <= 600; tick++ {
//		now := float64(tick) / 60
//		rig.SetNow(now)
//		a.Step(now, physics.Input{})
//		b.Step(now, physics.Input{Throttle: 1})
//		b.Snapshot(&snap) // reuses snap's slices: no garbage per frame
//	}
//
// A match keeps a feed of recent notices (Snapshot.Notices): chat lines (Match.Chat
// sends one) and tanks joining, leaving and timing out; other parts of the game add
// theirs (kills) with the unexported notify.
//
// Time is always a parameter of Step: nothing on the simulation path reads the wall
// clock. Package session builds matches on real QUIC sessions (practice, host,
// join, and the headless host); package combat holds the values a fight is made of,
// package referee judges them on the host, and package bot drives and aims bots.
package game
