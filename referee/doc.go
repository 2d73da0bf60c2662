// Package referee is the host's authority over combat: one Referee, the host's
// net.Judge, hears every spawn, relayed update and despawn and every shot and hit
// claim, judges each claim by rebuilding the shooter's view of the target (the
// shooter's own dead reckoning over the updates it had, when it had them), applies
// the damage of the hits it confirms, keeps the scoreboard and the match clock, and
// answers with the events the host sends every player.
//
//	ref, err := referee.New(m, combat.Rules{}, game.DeadReckoning().Reckon)
//	host, err := net.Listen(ctx, net.HostConfig{Judge: ref})
//	…
//	n := ref.Counts() // safe from any goroutine
//
// The values it judges (shots, claims, verdicts, rules) are package combat's; a
// Referee keeps the state. Times are host-clock seconds.
package referee
