package deadreckon

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestBreakResetsVelocity: a 10 m/s actor teleported 155 m publishes the break with
// zero velocity, and its remote is at the new place, not 200 m beyond it (defect 2).
func TestBreakResetsVelocity(t *testing.T) {
	p := NewPublisher(PublisherConfig{}, 1)
	remote := NewActor(Config{})
	var st State
	var d Decision
	for f := 0; f <= 60; f++ {
		now := float64(f) * frame
		s := Sample{Time: now, Position: mgl64.Vec3{10 * now, 0, 0}}
		if f == 60 {
			s.Position, s.Break = mgl64.Vec3{10*now + 155, 0, 0}, true
		}
		d, st = p.Update(s)
		if d != NoUpdate {
			apply := remote.Receive
			if s.Break {
				apply = remote.Break
			}
			if err := apply(st, now); err != nil {
				t.Fatal(err)
			}
		}
		remote.Advance(now)
	}
	if d != FullUpdate || st.Velocity.Len() > 1e-9 || st.Acceleration.Len() > 1e-9 {
		t.Fatalf("break published %v with velocity %v, acceleration %v; want a full update at rest", d, st.Velocity, st.Acceleration)
	}
	remote.Advance(1 + 0.2)
	if x := remote.Reckoned().Position[0]; math.Abs(x-165) > 0.5 {
		t.Errorf("remote 0.2 s after the break at x = %.2f, want about 165", x)
	}
}

// TestLimitAcrossPi: a joint limited to [150°, 210°] shows 200° as 200°, not as the
// wrapped −160° clamped to 150° (defect 7).
func TestLimitAcrossPi(t *testing.T) {
	cfg := Config{}
	cfg.ArticulationLimits[0] = AngleLimit{Min: 150 * deg, Max: 210 * deg}
	for _, alg := range []Algorithm{ProjectiveVelocityBlend, TwoPath, Linear} {
		cfg.Algorithm = alg
		a := NewActor(cfg)
		s := NewState(mgl64.Vec3{})
		s.NumArticulations = 1
		s.Articulations[0].Angle = 200 * deg
		if err := a.Receive(s, 0); err != nil {
			t.Fatal(err)
		}
		s.Time = 0.1
		s.Articulations[0].Angle = 205 * deg
		_ = a.Receive(s, 0.1)
		for _, now := range []float64{0.1, 0.2, 1} {
			a.Advance(now)
			got := a.Reckoned().Articulations[0].Angle / deg
			if got < 199.9 || got > 205.1 {
				t.Errorf("%v at %v s: joint shows %.2f°, want 200–205°", alg, now, got)
			}
		}
	}
}

// TestBlendIsC1: at an update the displayed velocity does not step (defect 4): the
// largest per-frame change of the displayed velocity across the update is what the
// blend's bending accounts for, far below the paper's lerp step (P'0 − P0)/ΔT.
func TestBlendIsC1(t *testing.T) {
	dv := func(linear bool) float64 {
		a := NewActor(Config{LinearBlend: linear})
		s := NewState(mgl64.Vec3{})
		s.Velocity = mgl64.Vec3{5, 0, 0}
		_ = a.Receive(s, 0)
		var prev, prevV mgl64.Vec3
		worst := 0.0
		for f := 1; f <= 60; f++ {
			now := float64(f) * frame
			if f == 30 {
				// The same velocity, from a place 0.3 m aside: a pure position fix.
				u := s
				u.Time, u.Position = now, mgl64.Vec3{5 * now, 0, 0.3}
				_ = a.Receive(u, now)
			}
			a.Advance(now)
			p := a.Reckoned().Position
			v := p.Sub(prev).Mul(1 / frame)
			if f > 2 {
				worst = math.Max(worst, v.Sub(prevV).Len())
			}
			prev, prevV = p, v
		}
		return worst
	}
	smooth, paper := dv(false), dv(true)
	// The paper's lerp steps by 0.3 m / ΔT = 0.9 m/s at the update.
	// The smoothstep's is its bending, 6·0.3 m/ΔT² over one frame (0.27 m/s).
	if paper < 0.8 || smooth > 0.3 {
		t.Errorf("largest per-frame velocity change: smoothstep %.3f m/s, linear %.3f m/s; want the smoothstep's under 0.3 m/s", smooth, paper)
	}
}

// TestAccelerationCap: an acceleration above the cap is published capped, a one-frame
// spike far above it (an impact) as zero (the paper's damping is an option), and a
// stop dead against an obstacle is not published as a deceleration that would
// project the tank backwards (defect 5).
func TestAccelerationCap(t *testing.T) {
	for _, damp := range []bool{false, true} {
		p := NewPublisher(PublisherConfig{Heartbeat: 1000, DampAcceleration: damp, PositionThreshold: 1e6}, 1)
		var st State
		x, v := 0.0, 0.0
		for f := 0; f <= 150; f++ {
			switch {
			case f == 30:
				v = 15 // launched: 900 m/s² for a frame
			case f == 90:
				v = 0 // stops dead
			case f > 120:
				v += 1.5 * DefaultAccelerationCap * frame // a hard push, above the cap
			}
			x += v * frame
			_, st = p.Update(Sample{Time: float64(f) * frame, Position: mgl64.Vec3{x, 0, 0}, Full: f == 30 || f == 90 || f == 150})
			switch f {
			case 30:
				if a := st.Acceleration.Len(); a != 0 {
					t.Errorf("damp %v: published launch acceleration %.1f m/s², want 0 (a spike)", damp, a)
				}
			case 90:
				if st.Acceleration[0] < -1e-9 {
					t.Errorf("damp %v: a stopped tank published with %.1f m/s² backwards", damp, st.Acceleration[0])
				}
			case 150:
				if a := st.Acceleration.Len(); !damp && math.Abs(a-DefaultAccelerationCap) > 1e-6 {
					t.Errorf("damp %v: published %.1f m/s² for a sustained %.1f, want capped at %v", damp, a, 1.5*DefaultAccelerationCap, DefaultAccelerationCap)
				}
			}
		}
	}
}

// TestOneHorizon: the owner's publisher and a remote reckon one update the same way,
// acceleration held past the horizon, on either side of latency compensation: with
// no latency the remote shows exactly the publisher's own reckoning (defect 1).
func TestOneHorizon(t *testing.T) {
	cfg := Config{CompensateLatency: true, UpdateInterval: 0.2}
	p := NewPublisher(PublisherConfig{Reckon: cfg, PositionThreshold: 1e6, OrientationThreshold: 10, Heartbeat: 1000}, 1)
	remote := NewActor(cfg)
	remote.SetClockOffset(0)
	for f := 0; f <= 240; f++ {
		now := float64(f) * frame
		v := math.Max(0, 10-6*math.Max(0, now-1)) // brakes from 10 m/s at 1 s
		x := 10*math.Min(now, 1) + (10*math.Max(0, now-1) - 3*math.Pow(math.Max(0, now-1), 2))
		if v == 0 {
			x = 10 + 10*10/(2*6.0)
		}
		d, st := p.Update(Sample{Time: now, Position: mgl64.Vec3{x, 0, 0}, Full: f == 75})
		if d != NoUpdate {
			_ = remote.Receive(st, now)
		}
		remote.Advance(now)
		if got, want := remote.Reckoned().Position, p.Reckoned().Position; f >= 75 && !vecNear(got, want, 1e-9) {
			t.Fatalf("at %.3f s the remote shows %v, the publisher reckons %v", now, got, want)
		}
	}
	// Braking published at 1.25 s is integrated for the horizon only: the projection
	// slows, then holds the speed reached instead of reversing.
	if v := p.Reckoned().Velocity[0]; v < -1e-9 {
		t.Errorf("self-reckoned velocity %.2f m/s: the braking was projected into reverse", v)
	}
}

// TestSilentActorComesToRest: an actor whose owner fell silent at 10 m/s drives on
// for MaxExtrapolation, then slows and stops within speed × ExtrapolationDecay.
func TestSilentActorComesToRest(t *testing.T) {
	a := NewActor(Config{})
	s := NewState(mgl64.Vec3{})
	s.Velocity, s.Acceleration = mgl64.Vec3{10, 0, 0}, mgl64.Vec3{2, 0, 0}
	s.AngularVelocity = mgl64.Vec3{0, 1, 0}
	_ = a.Receive(s, 0)
	a.Advance(20)
	c := a.Config()
	h := math.Min(c.AccelerationHorizon, c.MaxExtrapolation)
	vmax := 10 + 2*h
	bound := 10*c.MaxExtrapolation + 2*h*c.MaxExtrapolation + vmax*c.ExtrapolationDecay
	x := a.Reckoned().Position[0]
	a.Advance(30)
	if x2 := a.Reckoned().Position[0]; x > bound || x2-x > 1e-3 {
		t.Errorf("silent actor at x = %.2f m after 20 s (bound %.2f m), still moving %.4f m in 10 s more", x, bound, x2-x)
	}
	if a.Stale(20) != (20 > c.StaleAfter()) {
		t.Error("Stale disagrees with StaleAfter")
	}
}
