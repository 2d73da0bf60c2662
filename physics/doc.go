// Package physics drives Treadline's tanks: a box2d world on the ground plane (zero
// gravity in 2D) stepped at a fixed 60 Hz, with the ground's slopes acting on every
// hull and each hull's 3D pose taken from deadreckon's three-point ground clamp, so
// local tanks sit on the ground exactly as remote copies of them do.
//
// # Frames
//
// Meters, seconds, radians; Y up, right-handed. The box2d plane maps to the world as
// world X = box2d x, world Z = −box2d y, and yaw = box2d angle (a counter-clockwise
// box2d turn is a positive yaw about +Y). A hull faces +X locally with +Z on its
// right; yaw ψ turns its forward to (cos ψ, 0, −sin ψ).
//
// # The tank
//
// The default TankSpec is a 50 t main battle tank of tank.Default()'s shape,
// 6.9 m × 3.6 m. Its two tracks, TrackGauge apart, are driven as a steering drive
// that pushes them apart toward the commanded yaw rate and a main drive that pushes
// them together toward the commanded speed; steering has the first call on the
// tracks' traction (60 % of the weight for both), driving gets the rest and the
// engine's 800 kW at the tracks. The result:
// 0 → 14 m/s in about 8 s, governed at 15 m/s ahead and 6 m/s astern, stopping from
// 15 m/s in about 18 m; turning in place at 35°/s, pivoting on one track, or arcing.
// Tracks grip sideways (a lateral impulse up to 0.8 of the load kills side slip), roll
// with 4 % resistance, and skid against yawing with a resistance that falls as the
// turn widens. Gravity's downhill pull from the ground normal acts on the hull, so a
// tank climbs at P / (m·g·(sin θ + 0.04·cos θ)) (about 7.7 m/s on 10°, 4.3 m/s on
// 20°), cannot climb beyond about 30°, and slides down a steeper slope with its
// tracks braked. Hulls collide with one another (continuously, so they never pass
// through), with proxies of tanks owned elsewhere, with rocks (static circles) and
// with the border (static edges). The
// turret turns toward Input.AimYaw at 40°/s; the gun moves toward
// Input.GunElevation at 20°/s, limited to −8°…+20°.
//
// The same inputs from the same start give the same trajectory on the same build:
// nothing reads the clock, and Step only ever runs whole fixed steps.
//
// # Tanks owned elsewhere
//
// A tank another peer owns is not simulated here: its owner's physics moves it and
// dead reckoning shows it. It stands in the world as a Proxy, a kinematic body with
// its footprint that MoveTo puts on the reckoned path before every Step, so local
// tanks collide with it where it is drawn. Local tanks stop against a proxy; a proxy
// moves by velocity (never by teleporting), passes through rocks, the border and other
// proxies, and advances into a local tank no faster than ProxyPushSpeed (0.5 m/s),
// measured where the hulls touch so that a spin counts too, trailing its path meanwhile. Its owner meets this peer's tank as an immovable proxy
// too, so what a proxy pushes here is only the reckoning's overshoot over the
// latency: kept gentle, it nudges rather than flings, and the two peers settle
// instead of shoving each other along. A proxy that appears on a tank (or a tank on a
// proxy) passes through it until they part. A proxy farther than ProxyWake from every
// tank sleeps out of box2d and follows its path on paper (Proxy.Asleep).
//
// # Usage
//
//	w, err := physics.NewWorld(physics.MapConfig(m)) // m is a *terrain.Map
//	tank, err := w.AddTank(physics.TankSpec{}, x, z, yaw)
//	remote, err := w.AddProxy(physics.TankSpec{}, rx, rz, ryaw) // a tank owned elsewhere
//	for each frame {
//		tank.SetInput(physics.Input{Throttle: 1, Steer: -0.3, AimYaw: aim, GunElevation: 0.05})
//		remote.MoveTo(x, z, yaw, vx, vz, yawRate) // its reckoned path, as of w.FrameTime()
//		w.Step(frameSeconds)                // whole 60 Hz steps; the rest carries over
//		publisher.Update(tank.Pose().Sample()) // deadreckon decides what to send
//		draw(tank.Interpolated(w.Alpha()))     // smooth at any frame rate
//	}
package physics
