// Package referee is the host's authority over combat. A Referee implements net.Judge,
// the one entry point the host's run loop calls: it hears spawns, relayed updates,
// shots and hit claims, judges each claim with its Checker (which rebuilds the
// shooter's view of the target from the updates the host relayed), applies damage by
// the combat.Rules, keeps the scores and the round clock, and hands back the events
// every peer is sent. A Mover implements net.Mover: it holds every update to what
// the match's one tank can do on the map's ground.
//
//	ref, err := referee.New(terr, combat.Rules{}, game.DeadReckoning().Reckon)
//	if err != nil {
//		return err
//	}
//	host, err := net.Listen(ctx, net.HostConfig{Judge: ref,
//		Mover: referee.NewMover(tank.Spec{}, terr.SurfaceAt) /* … */})
//
// The lab uses a Checker alone to measure who-hit-whom. Times are host-clock seconds.
package referee
