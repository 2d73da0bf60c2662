package lab

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Thresholds of the player-facing figures (playerMetrics).
const (
	// restSpeed is the horizontal speed below which a path is at rest, m/s: the
	// truth leaves rest, and the shown tank moves, above it.
	restSpeed = 0.2
	// minRest is how long the truth must stay at rest for a stop (and the start after
	// it) to count, s: a tank braking into reverse passes through rest in a frame and
	// neither stops nor starts.
	minRest = 0.25
	// reversalTurn is the cosine of the largest turn of the truth's direction of
	// travel over which a shown path turning back still counts as a reversal (45°):
	// when the truth itself turns round, the shown path follows, and that is lag.
	reversalTurn = math.Sqrt2 / 2
	// jumpSpeed is the speed beyond which a step between frames is a jump (a
	// teleport, a snap), not driving, m/s: four times a tank's top speed.
	jumpSpeed = 60.0
)

// playerMetrics measures what a player watching the remote tank notices beyond the
// distance to the truth, frame by frame: the shown tank rolling on past the place
// where the truth stopped and coming back (overshoot, reversals), starting late, and
// being marked stale while its owner is still publishing. Speeds and directions are
// horizontal. The zero value is ready; Reset clears it for a new run. Not safe for
// concurrent use.
type playerMetrics struct {
	dt                  float64
	frames              int
	lastT               float64 // time of the last frame, s
	has                 bool    // prevTrue and prevShown hold the last frame
	prevTrue, prevShown mgl64.Vec3

	travel  mgl64.Vec3 // the truth's last horizontal direction of travel (unit), zero before it moves
	resting bool       // the truth is at rest
	restAt  float64    // when the truth came to rest, s
	stopAt  mgl64.Vec3 // where it came to rest
	stopDir mgl64.Vec3 // its direction of travel as it came to rest
	over    float64    // the furthest the shown tank has gone past stopAt along stopDir this rest, m

	pending  bool       // a start waits for the shown tank to move
	startAt  float64    // when the truth left rest, s
	startDir mgl64.Vec3 // its direction of travel then

	forward    bool       // the shown tank last moved with the truth's travel
	forwardDir mgl64.Vec3 // the truth's direction of travel then
	stale      bool       // the tank was shown stale on the last frame

	maxOver   float64
	stops     int
	delays    []float64 // start delays, s
	staleRuns int
	reversals int
}

// Reset clears the accumulator for a run with frames dt seconds apart, keeping its
// buffers.
func (m *playerMetrics) Reset(dt float64) {
	*m = playerMetrics{dt: dt, delays: m.delays[:0]}
}

// horizontal returns v with its vertical part zeroed.
func horizontal(v mgl64.Vec3) mgl64.Vec3 { return mgl64.Vec3{v[0], 0, v[2]} }

// Add measures one frame at time t: the true and the shown position, and whether the
// tank is shown stale.
func (m *playerMetrics) Add(t float64, truth, shown mgl64.Vec3, stale bool) {
	m.frames++
	m.lastT = t
	if stale && !m.stale {
		m.staleRuns++
	}
	m.stale = stale
	if !m.has {
		m.has = true
		m.prevTrue, m.prevShown = truth, shown
		return
	}
	vt := horizontal(truth.Sub(m.prevTrue)).Mul(1 / m.dt)
	vs := horizontal(shown.Sub(m.prevShown)).Mul(1 / m.dt)
	m.prevTrue, m.prevShown = truth, shown
	if vt.Len() > jumpSpeed || vs.Len() > jumpSpeed {
		return // a teleport or a snap: not driving (the pop measures it)
	}
	moving := vt.Len() > restSpeed
	if moving {
		m.travel = vt.Normalize()
	}
	switch {
	case moving && m.resting:
		m.leaveRest(t)
	case !moving && !m.resting:
		m.resting, m.restAt = true, t
		m.stopAt, m.stopDir, m.over = truth, m.travel, 0
	case !moving && m.pending && t-m.restAt >= minRest:
		// The truth is at rest again and the display never showed it move: the
		// start was shown not at all, and counts as late as the truth moved. A
		// creep that crosses restSpeed for a moment would otherwise wait for the
		// display to move its way at the next start, whatever way that goes.
		m.pending = false
		m.delays = append(m.delays, m.restAt-m.startAt)
	}
	if m.resting && m.stopDir != (mgl64.Vec3{}) {
		m.over = math.Max(m.over, horizontal(shown.Sub(m.stopAt)).Dot(m.stopDir))
	}
	// The shown tank starts when it moves the truth's way: as the truth left rest,
	// or as it moves now. A tank that pulls away out of a turn in place leaves rest
	// one way and drives off another; a display that drives off with it has shown
	// the start, though it never moves the first way.
	if m.pending && (vs.Dot(m.startDir) > restSpeed || moving && vs.Dot(m.travel) > restSpeed) {
		m.pending = false
		m.delays = append(m.delays, t-m.startAt)
	}
	m.reversal(vs)
}

// leaveRest ends a rest as the truth moves off at time t: a rest of minRest or more
// was a stop (its overshoot counts) and this is a start (its delay is measured).
func (m *playerMetrics) leaveRest(t float64) {
	m.resting = false
	if t-m.restAt < minRest {
		return
	}
	m.commitStop()
	if !m.pending {
		m.pending, m.startAt, m.startDir = true, t, m.travel
	}
}

// commitStop counts the rest in progress as a stop, if it followed motion.
func (m *playerMetrics) commitStop() {
	if m.stopDir == (mgl64.Vec3{}) {
		return // the rest the run started in
	}
	m.stops++
	m.maxOver = math.Max(m.maxOver, m.over)
	m.stopDir = mgl64.Vec3{}
}

// reversal counts the shown tank turning back against the truth's direction of
// travel: moving with it faster than restSpeed, then against it as fast, while the
// truth kept its direction within reversalTurn.
func (m *playerMetrics) reversal(vs mgl64.Vec3) {
	if m.travel == (mgl64.Vec3{}) {
		return
	}
	along := vs.Dot(m.travel)
	switch {
	case along > restSpeed:
		m.forward, m.forwardDir = true, m.travel
	case along < -restSpeed && m.forward:
		m.forward = false
		if m.travel.Dot(m.forwardDir) >= reversalTurn {
			m.reversals++
		}
	}
}

// playerSummary is what playerMetrics measured over a run.
type playerSummary struct {
	// MaxOvershoot is the furthest the shown tank went past the point where the
	// truth came to rest, along the truth's direction of travel as it stopped, over
	// every stop, m.
	MaxOvershoot float64
	// Stops and Starts count the truth's stops and starts (rests of minRest or more).
	Stops, Starts int
	// StartDelayP95 is the nearest-rank 95th percentile of the start delays, s: from
	// the truth leaving rest until the shown tank moves the same way faster than
	// restSpeed. Starts still waiting at the end of the run are left out.
	StartDelayP95 float64
	// StalePerMin is how many times the tank was newly shown stale, per minute.
	StalePerMin float64
	// ReversalsPerMin is how many times the shown path turned back against the
	// truth's direction of travel, per minute.
	ReversalsPerMin float64
}

// summary returns the figures measured so far. It ends the rest in progress (a run
// that ends at rest still counts its last stop) and sorts the start delays in place,
// so call it once, after the last Add.
func (m *playerMetrics) summary() playerSummary {
	if m.resting && m.lastT-m.restAt >= minRest {
		m.commitStop()
	}
	s := playerSummary{MaxOvershoot: m.maxOver, Stops: m.stops, Starts: len(m.delays)}
	if len(m.delays) > 0 {
		s.StartDelayP95 = percentile(m.delays, 0.95)
	}
	if minutes := float64(m.frames) * m.dt / 60; minutes > 0 {
		s.StalePerMin = float64(m.staleRuns) / minutes
		s.ReversalsPerMin = float64(m.reversals) / minutes
	}
	return s
}
