package game

import (
	"math"
	"testing"
	"time"

	"github.com/treadline/treadline/internal/testmaps"
	tankspec "github.com/treadline/treadline/tank"

	"github.com/treadline/treadline/game/gametest"
	"github.com/treadline/treadline/net/impair"
	"github.com/treadline/treadline/physics"
)

// TestLocalTankStoppedByRemoteTank: two matches on an in-memory link; a's player
// drives at full throttle into b's player. On a's peer, a's tank stops against the
// proxy of b's tank (at its reckoned pose) instead of driving through it; on b's peer,
// a's reckoned tank overshoots the stop by the latency and nudges b's tank gently, and
// the two settle: a nudge does not feed back into an endless shove. Head-on, both
// tanks push against each other and stay put.
func TestLocalTankStoppedByRemoteTank(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		link gametest.Config
		bIn  physics.Input // b's input while a drives
		// How far b's tank may be shoved back, m, and how deep the owners' tanks may
		// overlap: about the closing speed times the latency. Settled, a's tank stays
		// within maxCreep over the last 3 s: head-on, two tanks at full throttle push
		// each other about on the wire's quantized velocities.
		maxPush, maxOverlap, maxCreep float64
	}{
		{"50 ms, b idle", gametest.Config{Link: impair.Link{Latency: 50 * time.Millisecond}}, physics.Input{}, 0.5, 0.3, 0.5},
		{"100±20 ms, 2% loss, b idle", gametest.Config{Link: impair.Link{Latency: 110 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.02}, Seed: 3}, physics.Input{}, 0.5, 0.3, 0.5},
		{"50 ms, head-on", gametest.Config{Link: impair.Link{Latency: 50 * time.Millisecond}}, physics.Input{Throttle: 1}, math.Inf(1), 1, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			stoppedByRemote(t, c.link, c.bIn, c.maxPush, c.maxOverlap, c.maxCreep)
		})
	}
}

func stoppedByRemote(t *testing.T, link gametest.Config, bIn physics.Input, maxPush, maxOverlap, maxCreep float64) {
	mp := testmaps.Small(t)
	// The test puts the tanks in place by hand, a jump and a turn the host would
	// refuse as implausible.
	link.Limits.PositionSlack, link.Limits.TurnSlack = 1000, 2*math.Pi
	rig := newRig(t, link)
	a := mustMatch(t, Config{Map: mp, Name: "a", Seed: 1}, join(t, rig))
	b := mustMatch(t, Config{Map: mp, Name: "b", Seed: 2}, join(t, rig))
	// On a gently sloping spawn pad: b's tank 28 m ahead of a's, facing it.
	pad := mp.Spawns()[4]
	ax, bx, z := pad[0]-18, pad[0]+10, pad[1]
	a.self.body.Teleport(ax, z, 0)
	b.self.body.Teleport(bx, z, math.Pi)
	bID, _ := b.Self()
	const length = tankspec.DefaultLength

	now := 0.0
	var (
		gapOnA  = math.Inf(1) // smallest gap between a's hull and b's proxy on a's peer, m
		gapTrue = math.Inf(1) // smallest gap between the two tanks as their owners simulate them, m
		settled [2]float64    // range of a's x over the last 3 s, m
		minBX   = math.Inf(1) // b's tank's smallest x once a drives, m
	)
	run := func(secs float64, in, bIn physics.Input) {
		for end := now + secs - 1e-9; now < end; {
			now += tick
			rig.SetNow(now)
			mustStep(t, a, now, in)
			mustStep(t, b, now, bIn)
			rb := a.byID[bID]
			if rb == nil {
				continue // b's spawn has not arrived yet
			}
			px, _, _ := rb.proxy.Place()
			ap, bp := a.self.body.Pose().Position, b.self.body.Pose().Position
			gapOnA = math.Min(gapOnA, px-ap[0]-length)
			gapTrue = math.Min(gapTrue, bp[0]-ap[0]-length)
			minBX = math.Min(minBX, bp[0])
			if end-now < 3 {
				settled = [2]float64{math.Min(settled[0], ap[0]), math.Max(settled[1], ap[0])}
			}
		}
	}
	run(1.5, physics.Input{}, physics.Input{})
	var sa Snapshot
	a.Snapshot(&sa)
	if d := viewOf(t, &sa, bID).Position[0] - bx; math.Abs(d) > 0.1 {
		t.Fatalf("before the run a shows b's tank %.2f m from where it is", d)
	}
	gapOnA, gapTrue, minBX = math.Inf(1), math.Inf(1), math.Inf(1)
	settled = [2]float64{math.Inf(1), math.Inf(-1)}
	run(8, physics.Input{Throttle: 1}, bIn)

	aTank, bTank := a.self.body, b.self.body
	proxy := a.byID[bID].proxy
	ap, bp := aTank.Pose().Position, bTank.Pose().Position
	var maxX float64
	if bIn.Throttle == 0 {
		maxX = bx - length
	} else {
		maxX = bp[0] - length // head-on: wherever they met
	}
	t.Logf("a's tank from x = %.2f to %.2f (last 3 s within %.2f…%.2f), %.2f m/s; b's tank at %.2f (%+.2f m), %.2f m/s; smallest gap %.3f m on a's peer, %.3f m between the owners' tanks; contacts %+v",
		ax, ap[0], settled[0], settled[1], aTank.Pose().Velocity.Len(), bp[0], bp[0]-bx, bTank.Pose().Velocity.Len(), gapOnA, gapTrue, aTank.Contacts())
	if aTank.Contacts().Tanks == 0 || proxy.Contacts() == 0 {
		t.Fatalf("no contact between a's tank and b's proxy: %+v, %d", aTank.Contacts(), proxy.Contacts())
	}
	// The proxy does not give way to a's tank: the hulls meet at a gap of zero
	// (box2d keeps a centimeter of slop).
	if gapOnA < -0.05 {
		t.Errorf("a's tank sank %.3f m into b's proxy", -gapOnA)
	}
	// As the owners simulate them, the tanks overlap by at most what the reckoning
	// overshoots before b's tank is nudged out of the way.
	if gapTrue < -maxOverlap {
		t.Errorf("the owners' tanks overlapped by %.2f m, want ≤ %.1f m", -gapTrue, maxOverlap)
	}
	// Stopped, not through: 8 s of full throttle would carry it some 90 m.
	if settled[1]-settled[0] > maxCreep || settled[1] > maxX+maxCreep {
		t.Errorf("a's tank did not settle: x within %.2f…%.2f m over the last 3 s, b's tank's face at %.2f", settled[0], settled[1], maxX)
	}
	if pushed := math.Max(bx-minBX, 0) + math.Max(bp[0]-bx, 0); bIn.Throttle == 0 && pushed > maxPush {
		t.Errorf("b's tank was shoved %.2f m, want ≤ %.1f m", pushed, maxPush)
	}
}
