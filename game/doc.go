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
// publishing; the views a Snapshot hands to the renderer; and combat (the host's
// events, shots, shells and claims, on the views just refreshed).
//
// A match talks to the other peers through a Link: *net.Client (a joined player, or
// the host's own from net.Host.Local), or, for tests and headless experiments, a
// player of a real host in process on a clock the caller moves (package gametest):
//
//	rig, err := gametest.New(gametest.Config{
//		Link: impair.Link{Latency: 100 * time.Millisecond, Loss: 0.02}, Seed: 1})
//	if err != nil { … }
//	defer rig.Close()
//	la, err := rig.Join()
//	if err != nil { … }
//	lb, err := rig.Join()
//	if err != nil { … }
//	a, err := game.NewMatch(game.Config{Map: m, NoPlayer: true, Bots: 3, Seed: 1}, la)
//	if err != nil { … }
//	b, err := game.NewMatch(game.Config{Map: m, Seed: 2}, lb)
//	if err != nil { … }
//	var snap game.Snapshot
//	for tick := 1; tick <= 600; tick++ {
//		now := float64(tick) / 60 // seconds on the rig's clock
//		rig.SetNow(now)
//		if err := a.Step(now, physics.Input{}); err != nil { … }
//		if err := b.Step(now, physics.Input{Throttle: 1}); err != nil { … }
//		b.Snapshot(&snap) // reuses snap's slices: no garbage per frame
//	}
//
// A match keeps a feed of recent notices (Snapshot.Notices): chat lines (Match.Chat
// sends one) and tanks joining, leaving and timing out; other parts of the game add
// theirs (kills) with the unexported notify.
//
// Combat's values (shots, hit claims, rules) are package combat's; the host's
// referee is package referee; the bots' driving and aiming are package bot. Package
// session builds matches on real QUIC sessions. Time is always a parameter of Step:
// nothing on the simulation path reads the wall clock.
package game
