package deadreckon

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// TestStartCopiesDoNotRestart: a tank that brakes hard almost to rest and creeps off
// again slower than StartSpeed, accelerating, is shown still after each copy of its
// start while its acceleration would carry it past StartSpeed within MinInterval.
// Each copy is still the start's copy: the publisher sends the start and its copies
// and then waits for a threshold, not a copy every frame until the budget is spent.
func TestStartCopiesDoNotRestart(t *testing.T) {
	for _, c := range []struct {
		creep, accel, brake float64 // m/s the brake leaves, m/s² it creeps off at, m/s² it brakes at
	}{
		// Each restarted the count at every copy (12 to 14 updates a frame apart).
		{0.06, 0.2, 6}, {0.04, 0.4, 6}, {0.02, 0.6, 6}, {0.04, 0.4, 20},
	} {
		const (
			speed = 3.0 // m/s
			tb    = 1.0 // the brake's start, s
		)
		brake := c.brake
		tc := tb + (speed-c.creep)/brake // the creep's start, s
		dist := func(t float64) float64 {
			switch {
			case t < tb:
				return speed * t
			case t < tc:
				u := t - tb
				return speed*tb + speed*u - brake*u*u/2
			}
			u := t - tc
			return speed*tb + (speed*speed-c.creep*c.creep)/(2*brake) + c.creep*u + c.accel*u*u/2
		}
		cfg := PublisherConfig{PositionThreshold: 0.03, ToleranceLinear: Off, Heartbeat: 1000, HeartbeatJitter: Off,
			MinInterval: 0.16, VelocityFrames: 2, UrgentChange: 3, BrakeOnset: 2, Budget: 6,
			Reckon: Config{MaxExtrapolation: 4.5}}
		p := NewPublisher(cfg, 1)
		run, longest, at := 0, 0, 0.0
		for f := 0; f <= 180; f++ {
			now := float64(f) * frame
			if d, _ := p.Update(Sample{Time: now, Position: mgl64.Vec3{dist(now), 0, 0}, Orientation: mgl64.QuatIdent()}); d == NoUpdate {
				run = 0
				continue
			}
			if run++; run > longest {
				longest, at = run, now
			}
		}
		// A stop (or a braking onset) and its copies, then a start and its copies.
		if most := 2 + stopFollowUps + startFollowUps; longest > most {
			t.Errorf("brake at %v m/s² to %v m/s, creep off at %v m/s²: %d updates a frame apart, the last at %.3f s; want at most %d",
				c.brake, c.creep, c.accel, longest, at, most)
		}
	}
}
