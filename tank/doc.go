// Package tank is the one specification of a Treadline tank: the size of its hull,
// where its turret and gun turn, how long its barrel is and how fast it moves. The
// physics builds its body from a Spec, the referee judges hits on the Spec's hull box
// and the renderer draws the Spec, so what a player sees, what collides and what is
// hit are one shape.
//
// Frames, as everywhere in Treadline: meters, radians, Y up, right-handed. The hull
// frame has forward +X, up +Y and right +Z, with its origin on the ground under the
// middle of the hull's footprint. The turret frame is the hull frame turned by the
// turret yaw about +Y at TurretPivot; the gun frame is the turret frame pitched by
// the gun elevation about +Z at GunPivot, with the barrel along its +X.
//
//	s := tank.Default()
//	lo, hi := s.HullMin(), s.HullMax() // the hit box, hull frame
//	origin, dir := s.Muzzle(turret, gun) // where a shell leaves, hull frame
package tank
