// Package combat holds the values every peer and the host agree on about a fight,
// and the pure functions over them: a Shot and its ballistic flight (Shot.At, Sweep
// against terrain, rocks and hull boxes), where it leaves the barrel (Muzzle), a
// shooter's Claim that it hit, the host's Verdict and Reason, the Events the host
// announces, the Rules of damage and the wire messages that carry all of these. It
// keeps no state: the match (package game) flies shells on a peer's screen, the
// referee (package referee) judges claims on the host.
//
// Times are host-clock seconds, distances meters, angles radians, in the world frame
// (Y up) or a tank's hull frame (package tank). A shell's whole flight follows from its
// Shot, so no per-frame shell state crosses the wire:
//
//	origin, dir := combat.Muzzle(pose.Position, pose.Orientation, pose.Turret, pose.Gun)
//	s := combat.Shot{ID: 1, Shooter: actor, Origin: origin, Direction: dir, Time: hostNow}
//	if imp := combat.Sweep(m, s, t0, t1, hulls); imp.Kind == combat.ImpactTank {
//		claim := combat.Claim{Shooter: actor, Shot: s.ID, Target: imp.Target, Time: t1,
//			Impact: imp.Time, Local: imp.Local, Fired: s}
//		msg, err := combat.ClaimMessage(claim) // to the host
//	}
package combat
