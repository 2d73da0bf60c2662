// Package combat holds the values of tank combat that every peer and the host share:
// a fired Shot and its ballistic flight (Muzzle, Sweep), the tanks' hit box (HullPose,
// OnHull), the Rules of damage, a shooter's hit Claim, the host's Verdict and Reason,
// the Events the host announces, and their conversions to and from the wire messages
// of package net/wire. Everything here is a value or a pure function: the host's
// state lives in package referee, a peer's in package game.
//
// World frame: meters, seconds, Y up; times are host-clock seconds.
//
//	origin, dir := combat.Muzzle(pose.Position, pose.Orientation, pose.Turret, pose.Gun)
//	shot := combat.Shot{ID: 1, Shooter: actor, Origin: origin, Direction: dir, Time: hostNow}
//	imp := combat.Sweep(terr, shot, t0, t1, hulls) // what the shell meets in [t0, t1]
package combat
