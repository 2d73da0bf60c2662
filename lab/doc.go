// Package lab is Treadline's dead-reckoning laboratory, the engine of cmd/drlab. It
// plays a true trajectory frame by frame, publishes it as a locally owned actor would
// (deadreckon.Publisher, at a fixed rate or on error thresholds), encodes each update
// with the real wire format (net/wire), carries it over a modelled link (net/impair's
// one link model, impair.Link: latency, jitter, loss in bursts, reordering and
// duplication, run by an impair.Path in simulated time: no sockets, no wall clock),
// reckons it on the remote side every frame with a deadreckon.Actor, clamps it to the
// ground where there is terrain, and measures how far and how smoothly the remote view
// follows the truth.
//
// The truth is a Path: a built-in scenario (BuildScenario: circle, eight, zigzag,
// stopgo, ledge, tank — a tank driven through package physics — pivot, turns — turns
// in place of 5° to 190° through package physics — collision, respawn, stops —
// repeated starts and stops at varying speeds — parked, patrol — a tank on a known
// looping route over the hills — and wander1 to wander3, random keyboard drives over
// the hills whose seeds no tuning has seen; "wander:N", "patrol:N" and "gentle:N",
// stop and go with gentle starts, take any seed) or a recorded CSV trace (ReadTrace,
// Trace.Path). The algorithm "game" runs the game's own dead reckoning,
// game.DeadReckoning(); "path" runs it publishing progress along the route where the
// truth follows one (Path.Route: the patrol). The figures of a run (Result) are
// the mean, 95th percentile and largest position error, the mean heading error, the
// largest per-frame jump |displayed step − true step|, the largest pop (a step off
// the displayed path's own course beyond the truth's, which steady lag does not make),
// the largest per-frame velocity change beyond the truth's, the RMS jerk, depth below
// the ground; what a player watching notices: the overshoot past a stop, the delay of
// a start, how often the tank is marked stale and how often its path turns back; and
// the updates and bytes per second that bought them. Everything is
// deterministic: the same Setup, or the same Options, gives the same result bit for
// bit; Options.Runs averages over several seeds when one lossy run is too noisy.
//
// One run:
//
//	path, _ := lab.BuildScenario("zigzag", 60, 60) // 60 fps for 60 s
//	algo, _ := lab.ParseAlgo("pvb-ts")
//	r, err := lab.Simulate(lab.Setup{
//		Path:    path,
//		Algo:    algo,
//		Publish: lab.PublishConfig{Rate: 3}, // updates per second
//		Network: impair.Link{Latency: 150 * time.Millisecond, Loss: 0.05},
//		Seed:    1,
//	})
//	fmt.Println(r.MeanErrM, r.P95ErrM, r.MaxJumpM, r.BytesPerS)
//
// Whole reports, as drlab prints them: Run with Options (Mode Compare, Table for the
// reproduction of Murphy's Table 1.1, or Budget for the cheapest threshold publishing
// under a p95 error target).
//
// Times are seconds, distances meters, angles radians unless a name says degrees.
// Values of this package's types are not safe for concurrent use; separate runs may go
// on in separate goroutines.
package lab
