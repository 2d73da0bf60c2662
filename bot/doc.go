// Package bot drives and aims computer tanks as a player would: a Driver patrols
// waypoints across the map, turns, slows, pauses and backs out when stuck, producing
// the same physics.Input a player's keys do; a Gunner picks the nearest enemy in
// sight and range, leads it over the shell's flight and fires with a human error that
// settles after a reaction delay, at an easy, normal or hard Difficulty. A Duelist is
// both, for tanks the caller simulates outside a match (the lab's duel).
//
// Every random draw comes from a seed, so the same seed and the same poses give the
// same inputs:
//
//	d := bot.NewDriver(bot.Config{Map: m, Seed: 1})
//	g := bot.NewGunner(m, bot.Hard, 2)
//	in := d.Drive(now, pose, others)
//	if a := g.Aim(now, pose, targets, loaded); a.Engaged {
//		in.AimYaw, in.GunElevation = a.AimYaw, a.GunElevation
//	}
package bot
