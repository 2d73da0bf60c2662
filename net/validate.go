package net

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
)

// quantSlack is the length of a vector of half-steps on three axes, in steps.
const quantSlack = 0.8660254037844386 // √3 / 2

// ErrInvalidState is wrapped by every validation failure of a state update.
var ErrInvalidState = errors.New("invalid state")

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

func finiteVec(v mgl64.Vec3) bool { return finite(v[0]) && finite(v[1]) && finite(v[2]) }

// validateState checks one state on its own: every value finite, the position inside
// the map, speeds, acceleration and rates plausible for a tank, a unit orientation,
// and a timestamp near the host's clock hostNow.
func validateState(s *deadreckon.State, m MatchSettings, l *Limits, hostNow float64) error {
	q := s.Orientation
	if !finite(s.Time) || !finiteVec(s.Position) || !finiteVec(s.Velocity) ||
		!finiteVec(s.Acceleration) || !finite(q.W) || !finiteVec(q.V) || !finiteVec(s.AngularVelocity) {
		return fmt.Errorf("%w: non-finite value", ErrInvalidState)
	}
	if s.NumArticulations < 0 || s.NumArticulations > deadreckon.MaxArticulations {
		return fmt.Errorf("%w: %d articulations", ErrInvalidState, s.NumArticulations)
	}
	for i := 0; i < s.NumArticulations; i++ {
		a := s.Articulations[i]
		if !finite(a.Angle) || !finite(a.Rate) {
			return fmt.Errorf("%w: non-finite articulation", ErrInvalidState)
		}
		if math.Abs(a.Rate) > l.MaxArticulationRate+wire.ArticulationRateStep {
			return fmt.Errorf("%w: articulation rate %.3g rad/s", ErrInvalidState, a.Rate)
		}
	}
	p := s.Position
	if math.Abs(p[0]) > m.Extent || math.Abs(p[2]) > m.Extent || math.Abs(p[1]) > l.HeightRange {
		return fmt.Errorf("%w: position %.1f outside the map", ErrInvalidState, p)
	}
	// A value at the limit may come back from the wire's quantization a hair above
	// it: allow half a step on each of the three axes.
	if v := s.Velocity.Len(); v > l.MaxSpeed+quantSlack*wire.VelocityStep {
		return fmt.Errorf("%w: speed %.3g m/s", ErrInvalidState, v)
	}
	if a := s.Acceleration.Len(); a > l.MaxAcceleration+quantSlack*wire.AccelerationStep {
		return fmt.Errorf("%w: acceleration %.3g m/s²", ErrInvalidState, a)
	}
	if w := s.AngularVelocity.Len(); w > l.MaxTurnRate+quantSlack*wire.AngularVelocityStep {
		return fmt.Errorf("%w: turn rate %.3g rad/s", ErrInvalidState, w)
	}
	if n := q.Len(); math.Abs(n-1) > 0.01 {
		return fmt.Errorf("%w: orientation norm %.4g", ErrInvalidState, n)
	}
	if d := s.Time - hostNow; d > l.TimeSlack || d < -l.TimeSlack {
		return fmt.Errorf("%w: timestamp %.3f s from host clock", ErrInvalidState, d)
	}
	return nil
}

// anchor is where and when the host last pinned an actor down, for the plausibility
// check of the updates that follow. Times are host receive times, which a client
// cannot forge, so a client cannot buy distance by lying about its timestamps.
type anchor struct {
	pos    mgl64.Vec3
	orient mgl64.Quat
	at     float64 // host receive time, s
	stamp  float64 // the owner's timestamp of the last accepted update, s
	speed  float64 // speed at the anchor, m/s, for the reach after silence
}

// anchorPeriod is how often, in seconds, an actor's anchor moves to its latest
// accepted update. The slack is granted once per anchor, not once per update, so a
// stream of small jumps cannot add up to a teleport.
const anchorPeriod = 1.0

// maxStampRegress is how far in seconds an owner's timestamps may run backwards
// between updates (a clock-sync correction) before the update is refused.
const maxStampRegress = 0.3

// validateStep checks that next, arriving at host time now, follows plausibly from
// the actor's anchor: the travel (maxTravel: top speed, or after silence what the
// tank can reach from its anchored speed) and rotation since the anchor fit the
// limits over the time since it arrived, with slack for quantization, corrections
// and arrival jitter; and the owner's timestamp does not run backwards.
func validateStep(a *anchor, next *deadreckon.State, now float64, l *Limits) error {
	if next.Time < a.stamp-maxStampRegress {
		return fmt.Errorf("%w: timestamp %.3f s before the previous %.3f s", ErrInvalidState, next.Time, a.stamp)
	}
	dt := math.Max(0, now-a.at)
	if d := next.Position.Sub(a.pos).Len(); d > maxTravel(a.speed, dt, l) {
		return fmt.Errorf("%w: moved %.1f m in %.3f s", ErrInvalidState, d, dt)
	}
	if r := quatAngle(a.orient, next.Orientation); r > l.MaxTurnRate*dt+l.TurnSlack {
		return fmt.Errorf("%w: turned %.2f rad in %.3f s", ErrInvalidState, r, dt)
	}
	return nil
}

// advance records an accepted update that arrived at host time now.
func (a *anchor) advance(s *deadreckon.State, now float64) {
	a.stamp = math.Max(a.stamp, s.Time)
	if now-a.at >= anchorPeriod {
		a.pos, a.orient, a.at, a.speed = s.Position, s.Orientation, now, s.Velocity.Len()
	}
}

// quatAngle returns the rotation angle in radians between two unit quaternions, in
// [0, π]. A zero quaternion is read as the identity.
func quatAngle(a, b mgl64.Quat) float64 {
	if a.W == 0 && a.V == (mgl64.Vec3{}) {
		a = mgl64.QuatIdent()
	}
	if b.W == 0 && b.V == (mgl64.Vec3{}) {
		b = mgl64.QuatIdent()
	}
	d := math.Abs(a.Dot(b)) / (a.Len() * b.Len())
	if d > 1 {
		d = 1
	}
	return 2 * math.Acos(d)
}

// tokenBucket is a rate limiter on a caller-supplied clock in seconds.
type tokenBucket struct {
	rate, burst float64
	tokens      float64
	last        float64
}

func newTokenBucket(rate, burst, now float64) tokenBucket {
	return tokenBucket{rate: rate, burst: burst, tokens: burst, last: now}
}

// refill adds the tokens earned since the last call.
func (b *tokenBucket) refill(now float64) {
	if now > b.last {
		b.tokens = math.Min(b.burst, b.tokens+(now-b.last)*b.rate)
		b.last = now
	}
}

// take removes one token if there is one and reports whether it did.
func (b *tokenBucket) take(now float64) bool {
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}

// rateMeter measures a per-second rate, smoothed exponentially with a one-second time
// constant, on a caller-supplied clock in seconds.
type rateMeter struct {
	rate  float64
	accum float64
	last  float64
}

// add counts n events at time now.
func (r *rateMeter) add(n, now float64) {
	r.roll(now)
	r.accum += n
}

// roll folds whole 100 ms buckets that ended before now into the average.
func (r *rateMeter) roll(now float64) {
	const bucket = 0.1
	if r.last == 0 {
		r.last = now
	}
	for steps := 0; now-r.last >= bucket; steps++ {
		if steps > 50 { // long idle: everything decayed
			r.rate, r.accum, r.last = 0, 0, now
			return
		}
		alpha := 1 - math.Exp(-bucket)
		r.rate += alpha * (r.accum/bucket - r.rate)
		r.accum = 0
		r.last += bucket
	}
}

// value returns the smoothed rate at now, per second.
func (r *rateMeter) value(now float64) float64 {
	r.roll(now)
	return r.rate
}
