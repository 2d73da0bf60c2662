package referee

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/deadreckon"
)

// sentView returns the target's hull as a shooter shows it at host time tm, frames
// of 1/60 s, when the host sent it only the updates in sent (update time → host time
// sent), and the updates it applied, newest first.
func (f *fight) sentView(tm float64, sent map[float64]float64) (combat.HullPose, [combat.ClaimApplied]combat.Applied) {
	a := deadreckon.NewActor(f.reckon)
	a.SetClampPhase(2)
	a.SetClockOffset(0)
	var applied [combat.ClaimApplied]combat.Applied
	next := 0
	for frame := 0.0; frame <= tm+1e-9; frame += 1.0 / 60 {
		for next < len(f.updates) {
			u := f.updates[next]
			at, ok := sent[u.s.Time]
			if u.brk {
				at, ok = u.at, true
			}
			if ok && at+f.link.Latency >= frame {
				break
			}
			next++
			if !ok {
				continue
			}
			if u.brk {
				_ = a.Break(u.s, frame)
			} else {
				_ = a.Receive(u.s, frame)
			}
			copy(applied[1:], applied[:])
			applied[0] = combat.Applied{Update: u.s.Time, At: frame}
		}
		a.Advance(frame)
		a.ClampTo(f.m, f.shooter.Position)
	}
	r := a.Reckoned()
	return combat.HullPose{Actor: 2, Position: r.Position, Orientation: r.Orientation}, applied
}

// TestClaimsJudgedOnWhatTheShooterWasSent: with the downlink budget, the host sends a
// far shooter some of the target's updates, late. A claim on what it was sent is
// honest: the checker rebuilds from those sends (net.Witness), where a checker that
// assumed every relayed update reached the shooter would call the basis stale and
// refuse it, and a claim on the updates the shooter was never sent (where the target
// truly is) is refused.
func TestClaimsJudgedOnWhatTheShooterWasSent(t *testing.T) {
	// The host sends player 1 the target's update of t = 2 s at 2.3 s and nothing newer:
	// everything else is far down its priority list.
	// The target stops dead at 2.5 s; the shooter, sent nothing newer, shows it driving on.
	const stop = 2.5
	sent := map[float64]float64{}
	f := newStoppingFight(t, stop)
	for _, u := range f.updates[1:] {
		if u.s.Time == 2 {
			sent[u.s.Time] = u.at + 0.3
		}
	}
	const fired = 5.0
	origin := f.shooter.Position.Add(mgl64.Vec3{4.9, 1.9, 0})
	shoot := func(show func(float64) (combat.HullPose, [combat.ClaimApplied]combat.Applied)) (combat.Shot, combat.Claim) {
		aimAt, _ := show(fired + 0.3)
		dir := aimAt.Position.Add(mgl64.Vec3{0, 1.2, 0}).Sub(origin)
		el, _ := combat.BallisticElevation(math.Hypot(dir[0], dir[2]), dir[1])
		yaw := math.Atan2(dir[2], dir[0])
		s := combat.Shot{ID: 1, Shooter: 1, Origin: origin, Time: fired,
			Direction: mgl64.Vec3{math.Cos(el) * math.Cos(yaw), math.Sin(el), math.Cos(el) * math.Sin(yaw)}}
		for frame := fired + 1.0/60; frame < fired+2; frame += 1.0 / 60 {
			hp, applied := show(frame)
			if imp := combat.Sweep(f.m, s, frame-1.0/60, frame, []combat.HullPose{hp}); imp.Kind == combat.ImpactTank {
				return s, combat.Claim{Shooter: 1, Shot: 1, Target: 2, Time: frame, Impact: imp.Time, Local: imp.Local,
					Applied: applied, Fired: s, Observer: f.shooter.Position, Reckon: combat.ModeOf(f.reckon)}
			}
		}
		t.Fatal("the test shot never struck")
		return s, combat.Claim{}
	}
	onSent := func(tm float64) (combat.HullPose, [combat.ClaimApplied]combat.Applied) { return f.sentView(tm, sent) }
	judge := func(witness bool, show func(float64) (combat.HullPose, [combat.ClaimApplied]combat.Applied)) combat.Reason {
		g := newStoppingFight(t, stop)
		if witness {
			for _, u := range g.updates[1:] {
				if at, ok := sent[u.s.Time]; ok {
					g.check.Sent(1, 2, u.s, at)
				}
			}
			// The scheduler sends player 2 (the target's owner) the shooter's updates:
			// the host's scheduler runs from the start.
			g.check.Sent(2, 1, g.shooter, 0.05)
		}
		s, c := shoot(show)
		if r := g.check.Fired(s, s.Time+0.1); r != combat.Accepted {
			t.Fatalf("fire refused: %v", r)
		}
		return g.check.Check(c, c.Time+0.1, g.link).Reason
	}
	if got := judge(true, onSent); got != combat.Accepted {
		t.Errorf("a hit on what the shooter was sent, judged on the sends: %v, want accepted", got)
	}
	if got := judge(false, onSent); got == combat.Accepted {
		t.Errorf("a hit on what the shooter was sent, judged as if every update reached it: accepted, want refused (the check cannot tell)")
	}
	if got := judge(true, f.shownAt); got == combat.Accepted {
		t.Errorf("a hit on updates the shooter was never sent: accepted, want refused")
	}
}
