// Package deadreckon makes remote actors in a networked game look believable: it
// dead-reckons each actor between the state updates its owner publishes, blends
// every correction smoothly, clamps the result to the ground, and tells the owner
// when an update is worth sending.
//
// The default algorithm is projective velocity blending: at each update a new blend
// starts from what is displayed (position and instantaneous velocity), projects it
// with a velocity blended toward the last-known one, projects the last-known state
// too, and lerps from the first projection to the second as the normalized time
// T̂ = Tt/ΔT goes from 0 to 1. Past T̂ = 1 the actor follows the last-known projection.
// Orientation is blended the same way with a short-path slerp, articulations with
// wrapped angles. Static, Linear, Quadratic (DIS), CubicBezier, TwoPath and Delayed
// (buffered snapshot interpolation) are there for comparison and special cases, and
// so are the nine DIS models, DISStatic to DISFVB (ProjectDIS), which snap to each
// update as DIS entities do. Path is Murphy's path-based dead reckoning: an actor on a
// Route both sides know is published by its Progress along it (PathPublisher,
// Actor.SetRoute, Actor.ReceiveProgress) and reckoned along the route.
//
// Units are meters, seconds and radians in a right-handed, Y-up world; an actor faces
// +X with +Y up and +Z to its right. Time is always a parameter: nothing here reads a
// clock, so runs are reproducible.
//
// A receiving peer keeps one Actor per remote actor and, per frame:
//
//	a := deadreckon.NewActor(deadreckon.Config{CompensateLatency: true,
//		Clamp: deadreckon.Clamp{Mode: deadreckon.ClampAlways, Offset: 1.1,
//			Footprint: [3]mgl64.Vec3{{2.4, 0, 0}, {-1.2, 0, -1.8}, {-1.2, 0, 1.8}}}})
//	...
//	a.SetClockOffset(offset) // host − local, from the clock sync
//	if err := a.Receive(state, now); err != nil { dropped++ } // each update
//	a.Advance(now)                                           // once per frame
//	a.ClampTo(ground, camera)
//	draw(a.Reckoned())
//
// The game does exactly this for its tanks. A Reckoner holds many actors in pages and
// advances and clamps them on several goroutines: it pays off for crowds of hundreds
// (BenchmarkReckon), not for a match of a few dozen tanks. Its AdvanceWith runs a
// caller's Hooks on each actor in the same pass, just before and after it advances
// (apply its updates, read what it shows), so the workers share that work too.
//
// The owning peer, per frame:
//
//	p := deadreckon.NewPublisher(deadreckon.PublisherConfig{}, seed)
//	...
//	if d, s := p.Update(sample); d != deadreckon.NoUpdate {
//		send(s) // the whole state; d says whether it is a heartbeat
//	}
//
// Local actors sit on the ground with ClampPose, the same clamp remote actors use.
package deadreckon
