// Package bot drives and aims computer-controlled tanks. A Driver patrols the map and
// turns its turret like a player would, producing one physics.Input per tick; a
// Gunner leads and fires at enemies at a Difficulty; a Duelist joins both for tanks
// simulated outside a match (the lab's duel). Everything random comes from a seed, so
// the same seed and the same poses give the same inputs.
//
//	d := bot.NewDriver(bot.Config{Map: terr, Seed: 7})
//	tank.SetInput(d.Drive(now, tank.Pose(), others))
package bot
