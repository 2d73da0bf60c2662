package lab

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/physics"
)

// Thresholds of the turn figures (turnMetrics).
const (
	// turnSpeed is the yaw rate above which the truth turns, rad/s (5°/s).
	turnSpeed = 5 * math.Pi / 180
	// turnRestSpeed is the yaw rate below which a heading rests, rad/s (1°/s): the
	// truth's turn has come to rest, and the shown heading has stopped.
	turnRestSpeed = 1 * math.Pi / 180
	// minTurn is the smallest turn that counts, rad (5°): a wobble is no turn.
	minTurn = 5 * math.Pi / 180
)

// turnMetrics measures the ends of the truth's turns as a player watching the remote
// tank sees them, frame by frame: how far the shown heading swings past where the
// truth's heading came to rest, and how long after the truth's turn ended the shown
// heading stops moving. A turn ends when the truth's yaw rate falls below
// turnRestSpeed after it turned by minTurn or more, faster than turnSpeed at some
// point; its rest lasts until the truth turns at twice turnRestSpeed again, and the
// turn counts when the rest lasted minRest (the truth may drive on straight
// meanwhile). The zero value is ready; Reset clears it for a new run. Not safe for
// concurrent use.
type turnMetrics struct {
	dt                      float64
	has                     bool
	prevTrue, prevShown     float64 // yaws of the last frame, rad
	turning                 bool    // the truth turns
	fast                    bool    // the turn in progress went faster than turnSpeed
	dir                     float64 // +1 or −1: the way the truth last turned
	angle                   float64 // how far the turn in progress has turned, rad (signed)
	resting                 bool    // a turn ended and the truth's heading rests
	restAt, lastMove, since float64 // when it came to rest, when the shown heading last moved, the last frame's time, s
	over                    float64 // the furthest the shown heading went past the truth's along dir this rest, rad

	maxOver float64
	turns   int
	delays  []float64 // turn stop delays, s
}

// Reset clears the accumulator for a run with frames dt seconds apart, keeping its
// buffers.
func (m *turnMetrics) Reset(dt float64) {
	*m = turnMetrics{dt: dt, delays: m.delays[:0]}
}

// Add measures one frame at time t: the true and the shown yaw, rad.
func (m *turnMetrics) Add(t, trueYaw, shownYaw float64) {
	if !m.has {
		m.has, m.prevTrue, m.prevShown, m.since = true, trueYaw, shownYaw, t
		return
	}
	rt := headingDiff(trueYaw, m.prevTrue) / m.dt
	rs := headingDiff(shownYaw, m.prevShown) / m.dt
	m.prevTrue, m.prevShown, m.since = trueYaw, shownYaw, t
	switch {
	case math.Abs(rt) >= turnRestSpeed:
		if m.resting && math.Abs(rt) >= 2*turnRestSpeed {
			m.commit()
		}
		if m.resting {
			break
		}
		if !m.turning || rt*m.dir < 0 {
			m.turning, m.angle, m.fast = true, 0, false
		}
		m.dir = math.Copysign(1, rt)
		m.angle += rt * m.dt
		m.fast = m.fast || math.Abs(rt) > turnSpeed
	case m.turning:
		m.turning = false
		if m.fast && math.Abs(m.angle) >= minTurn {
			m.resting, m.restAt, m.lastMove, m.over = true, t, t, 0
		}
	}
	if !m.resting {
		return
	}
	// Past the truth along the turn, by less than a quarter turn: a display a
	// half turn behind (a turn whose updates were lost) lags, it is not past.
	if d := m.dir * headingDiff(shownYaw, trueYaw); d < math.Pi/2 {
		m.over = math.Max(m.over, d)
	}
	if math.Abs(rs) > turnRestSpeed {
		m.lastMove = t
	}
}

// commit counts the rest in progress as a turn's end, if it lasted minRest.
func (m *turnMetrics) commit() {
	m.resting = false
	if m.since-m.restAt < minRest {
		return
	}
	m.turns++
	m.maxOver = math.Max(m.maxOver, m.over)
	m.delays = append(m.delays, m.lastMove-m.restAt)
}

// turnSummary is what turnMetrics measured over a run.
type turnSummary struct {
	// MaxOvershoot is the furthest the shown heading went past the truth's resting
	// heading, along the turn, over every turn that ended, degrees.
	MaxOvershoot float64
	// StopDelayP95 is the nearest-rank 95th percentile of the turn stop delays, s:
	// from the truth's turn coming to rest until the shown heading last moved faster
	// than turnRestSpeed during the rest.
	StopDelayP95 float64
	// Turns counts the turns that ended.
	Turns int
}

// summary returns the figures measured so far. It ends the rest in progress and sorts
// the delays in place, so call it once, after the last Add.
func (m *turnMetrics) summary() turnSummary {
	if m.resting {
		m.commit()
	}
	s := turnSummary{MaxOvershoot: mgl64.RadToDeg(m.maxOver), Turns: m.turns}
	if len(m.delays) > 0 {
		s.StopDelayP95 = percentile(m.delays, 0.95)
	}
	return s
}

// turnsLeg is one leg of the turns scenario: drive, stop, turn in place, stand.
type turnsLeg struct {
	drive float64 // s at full throttle
	steer float64 // −1 turns left, +1 right
	turn  float64 // s the steering is held, standing
}

// Turns scenario timing, s.
const (
	turnsCoast = 3.0 // throttle released: the tank rolls to rest
	turnsStand = 1.5 // standing after each turn
)

// turnsLegs returns the turns scenario's legs, repeated in turn: taps and full turns
// either way, from about 5° to about 190° at the tank's 35°/s (the rate ramps up
// over the first 0.7 s of a turn).
func turnsLegs() [6]turnsLeg {
	return [6]turnsLeg{
		{2, -1, 1.2},
		{1.5, 1, 0.4},
		{2.5, -1, 3},
		{1, 1, 2},
		{2, 1, 0.7},
		{1.5, -1, 5.8},
	}
}

// buildTurns drives a default tank through package physics on flat ground: from
// rest to a short drive, a roll to rest, a turn in place held for a while, a stand,
// and on, so that every turn in place ends with the tank's own yaw deceleration.
func buildTurns(fps, duration float64) (*Path, error) {
	w, err := physics.NewWorld(physics.WorldConfig{})
	if err != nil {
		return nil, fmt.Errorf("turns scenario world: %w", err)
	}
	tank, err := w.AddTank(physics.TankSpec{}, -10, 10, 0)
	if err != nil {
		return nil, fmt.Errorf("turns scenario: %w", err)
	}
	legs := turnsLegs()
	input := func(t float64) physics.Input {
		period := 0.0
		for _, l := range legs {
			period += l.drive + turnsCoast + l.turn + turnsStand
		}
		u := math.Mod(t, period)
		for _, l := range legs {
			switch {
			case u < l.drive:
				return physics.Input{Throttle: 1}
			case u < l.drive+turnsCoast:
				return physics.Input{}
			case u < l.drive+turnsCoast+l.turn:
				return physics.Input{Steer: l.steer}
			case u < l.drive+turnsCoast+l.turn+turnsStand:
				return physics.Input{}
			}
			u -= l.drive + turnsCoast + l.turn + turnsStand
		}
		return physics.Input{}
	}
	n := frames(fps, duration)
	p := &Path{Name: "turns", FrameInterval: 1 / fps, Poses: make([]Pose, n)}
	for i := range p.Poses {
		t := float64(i) / fps
		if i > 0 {
			tank.SetInput(input(t))
			w.Step(1 / fps)
		}
		pose := tank.Pose()
		p.Poses[i] = Pose{Time: t, Position: pose.Position, Orientation: pose.Orientation}
	}
	return p, nil
}
