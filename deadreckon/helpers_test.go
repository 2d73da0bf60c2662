package deadreckon

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

const (
	deg   = math.Pi / 180
	frame = 1.0 / 60
)

// motion is a truth path for tests: the exact state at owner time t.
type motion func(t float64) State

// circleMotion drives at speed m/s turning left at rate rad/s from the origin,
// heading +X at t = 0.
func circleMotion(speed, rate float64) motion {
	return func(t float64) State {
		psi := rate * t
		s, c := math.Sincos(psi)
		r := speed / rate
		return State{
			Time:            t,
			Position:        mgl64.Vec3{r * s, 0, r * (c - 1)},
			Velocity:        mgl64.Vec3{speed * c, 0, -speed * s},
			Acceleration:    mgl64.Vec3{-speed * rate * s, 0, -speed * rate * c},
			Orientation:     geom.YawQuat(psi),
			AngularVelocity: mgl64.Vec3{0, rate, 0},
		}
	}
}

// zigzagMotion drives along +X at speed m/s weaving ±amp meters in Z with the given
// period in seconds, facing its velocity.
func zigzagMotion(speed, amp, period float64) motion {
	k := 2 * math.Pi / period
	return func(t float64) State {
		s, c := math.Sincos(k * t)
		v := mgl64.Vec3{speed, 0, amp * k * c}
		acc := mgl64.Vec3{0, 0, -amp * k * k * s}
		psi := math.Atan2(-v[2], v[0])
		rate := -v[0] * acc[2] / (v[0]*v[0] + v[2]*v[2])
		return State{
			Time:            t,
			Position:        mgl64.Vec3{speed * t, 0, amp * s},
			Velocity:        v,
			Acceleration:    acc,
			Orientation:     geom.YawQuat(psi),
			AngularVelocity: mgl64.Vec3{0, rate, 0},
		}
	}
}

// legsMotion drives at speed m/s in straight legs of leg seconds joined by turns of
// 90° at 90°/s, alternately right and left (the heading swings between ±45°), like a
// tank zigzagging. It integrates the path in 1 ms steps up to dur seconds.
func legsMotion(speed, leg, dur float64) motion {
	const step = 1e-3
	turn := 1.0 // seconds per 90° turn at 90°/s
	period := 2 * (leg + turn)
	rate := func(t float64) float64 {
		switch u := math.Mod(t, period); {
		case u < leg:
			return 0
		case u < leg+turn:
			return -math.Pi / 2
		case u < 2*leg+turn:
			return 0
		default:
			return math.Pi / 2
		}
	}
	n := int(dur/step) + 2
	pos := make([]mgl64.Vec3, n)
	yaw := make([]float64, n)
	yaw[0] = math.Pi / 4
	for i := 1; i < n; i++ {
		t := float64(i-1) * step
		s, c := math.Sincos(yaw[i-1] + 0.5*rate(t)*step)
		pos[i] = pos[i-1].Add(mgl64.Vec3{c, 0, -s}.Mul(speed * step))
		yaw[i] = yaw[i-1] + rate(t)*step
	}
	return func(t float64) State {
		i := min(max(int(math.Round(t/step)), 0), n-1)
		s, c := math.Sincos(yaw[i])
		v := mgl64.Vec3{speed * c, 0, -speed * s}
		w := rate(t)
		return State{
			Time:            t,
			Position:        pos[i],
			Velocity:        v,
			Acceleration:    mgl64.Vec3{0, w, 0}.Cross(v),
			Orientation:     geom.YawQuat(yaw[i]),
			AngularVelocity: mgl64.Vec3{0, w, 0},
		}
	}
}

// runStats are the figures of one simulated link.
type runStats struct {
	// maxJump is the largest |displayed step − true step| between frames, meters;
	// maxJumpChange the largest change of the displayed step.
	meanErr, maxErr, maxJump, maxJumpChange float64
}

// simulate publishes m every interval seconds (owner time = local time), delivers
// each update latency seconds later, reckons at 60 Hz for dur seconds with cfg, and
// measures the displayed position against the truth after the first second.
func simulate(t *testing.T, m motion, cfg Config, interval, latency, dur float64) runStats {
	t.Helper()
	a := NewActor(cfg)
	a.SetClockOffset(0)
	next := 0.0
	var st runStats
	var sum float64
	var count int
	var prev, prevStep, prevTrue mgl64.Vec3
	for f := 0; ; f++ {
		now := float64(f) * frame
		if now > dur {
			break
		}
		for next+latency <= now+1e-9 {
			if err := a.Receive(m(next), now); err != nil {
				t.Fatalf("receive: %v", err)
			}
			next += interval
		}
		a.Advance(now)
		if !a.HasState() {
			continue
		}
		p := a.Reckoned().Position
		truth := m(now).Position
		if now > 1 {
			e := p.Sub(m(now).Position).Len()
			sum += e
			count++
			st.maxErr = math.Max(st.maxErr, e)
			step := p.Sub(prev)
			st.maxJump = math.Max(st.maxJump, step.Sub(truth.Sub(prevTrue)).Len())
			st.maxJumpChange = math.Max(st.maxJumpChange, step.Sub(prevStep).Len())
			prevStep = step
		} else {
			prevStep = p.Sub(prev)
		}
		prev, prevTrue = p, truth
	}
	st.meanErr = sum / float64(count)
	return st
}

func vecNear(a, b mgl64.Vec3, tol float64) bool { return a.Sub(b).Len() <= tol }

// quatNear reports whether a and b are the same rotation within tol radians.
func quatNear(a, b mgl64.Quat, tol float64) bool { return geom.UnitQuatAngle(a, b) <= tol }

// tankFootprint returns a 6.9 m × 3.6 m hull's three clamp points in its local frame
// (forward +X, up +Y, right +Z), m: the middle of its front and its two rear corners,
// whose centroid is the origin.
func tankFootprint() [3]mgl64.Vec3 {
	return [3]mgl64.Vec3{{2.4, 0, 0}, {-1.2, 0, -1.8}, {-1.2, 0, 1.8}}
}
