package referee

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/tank"
)

// honestUpdate is one update of an honest bot as the host received it in a 64-tank
// match (TestHonestBotsNeverRefused): host time, horizontal position and velocity,
// heading, and its height (0: on level ground).
type honestUpdate struct {
	at, x, z, vx, vz, yaw float64
	y                     float64
}

// shovedAtRest is a bot at rest struck by the spinning proxy of another player's
// tank: flung to 28 m/s (box2d showed 34 m/s), it overran its governor for 3 s.
// Main's host refused its update at 37.5 s ("travelled 26.7 m in 1.050 s" against
// 26.6 m) and, measuring every later one from the same anchor, the next 8 as well.
var shovedAtRest = []honestUpdate{
	{36.450, -153.23, 159.25, 2.06, 2.08, 1.993, 0},
	{36.717, -150.55, 157.79, 20.52, -15.67, 1.529, 0},
	{36.883, -146.28, 154.41, 17.19, -13.94, 0.651, 0},
	{37.233, -137.78, 147.80, 22.19, -16.94, -1.041, 0},
	{37.500, -131.96, 143.18, 20.69, -17.28, -2.148, 0},
	{37.767, -126.64, 138.65, 19.67, -16.16, -3.114, 0},
	{37.950, -123.13, 135.85, 18.77, -14.78, 2.588, 0},
	{38.300, -117.41, 131.28, 15.78, -13.09, 1.717, 0},
	{38.567, -113.60, 127.83, 13.11, -12.98, 1.194, 0},
	{38.883, -109.70, 123.39, 11.33, -13.11, 0.749, 0},
	{39.083, -107.39, 120.90, 11.75, -12.03, 0.593, 0},
	{39.367, -103.97, 117.77, 12.27, -10.34, 0.505, 0},
	{39.667, -100.42, 115.09, 12.75, -8.78, 0.547, 0},
	{39.867, -97.67, 113.20, 12.30, -9.12, 0.653, 0},
}

// spunByACollision is a bot shoved to 30 m/s and spun at 6 rad/s by a collision.
// Main's host refused its update at 86.167 s ("turned 2.36 rad in 0.517 s" against
// its generic 3 rad/s).
var spunByACollision = []honestUpdate{
	{85.650, 182.69, -194.50, 0.27, -27.03, -0.516, 0},
	{85.900, 182.59, -201.00, -0.81, -25.56, -1.733, 0},
	{86.167, 182.66, -207.62, 0.81, -24.09, -2.874, 0},
	{86.433, 182.90, -213.69, 0.64, -21.78, 2.439, 0},
	{86.683, 182.86, -218.92, -0.83, -20.44, 1.686, 0},
	{86.950, 182.79, -224.23, 0.56, -19.38, 1.034, 0},
}

// climbedAtSpeed is a bot shoved up a slope at 28 m/s (35 m/s over the ground between
// two updates) by another player's tank. A host that held its travel in three
// dimensions to a generic 30 m/s refused its next three updates ("moved 11.5 m in
// 0.283 s").
var climbedAtSpeed = []honestUpdate{
	{24.867, -155.99, 152.24, 28.61, 4.08, 0, -0.92},
	{25.150, -146.24, 154.12, 23.58, 5.05, 0, 4.90},
	{25.417, -136.55, 156.38, 27.86, 6.78, 0, 9.75},
	{25.667, -129.02, 158.35, 23.09, 7.86, 0, 12.03},
}

// traceGround returns the ground under updates: their heights, linearly between
// them along x.
func traceGround(updates []honestUpdate) func(x, z float64) (float64, bool) {
	return func(x, z float64) (float64, bool) {
		for i := 1; i < len(updates); i++ {
			a, b := updates[i-1], updates[i]
			if lo, hi := math.Min(a.x, b.x), math.Max(a.x, b.x); x >= lo && x <= hi {
				return a.y + (b.y-a.y)*(x-a.x)/(b.x-a.x), true
			}
		}
		if x < updates[0].x {
			return updates[0].y, true
		}
		return updates[len(updates)-1].y, true
	}
}

// replayHonest runs the host's checks of one actor on the map's ground (the stamp,
// then checkMove, as the host and Mover.Move do) over updates on traceGround, the first being
// where the track and anchor start; metAt, if not nil, says whether the host saw the
// tank next to another player's tank at an update. It returns the refusals.
func replayHonest(updates []honestUpdate, metAt func(i int) bool) []error {
	states := make([]deadreckon.State, len(updates))
	for i, u := range updates {
		states[i] = deadreckon.NewState(mgl64.Vec3{u.x, u.y, u.z})
		states[i].Time, states[i].Velocity, states[i].Orientation = u.at, mgl64.Vec3{u.vx, 0, u.vz}, geom.YawQuat(u.yaw)
	}
	return replayStates(states, traceGround(updates), metAt)
}

// replayStates runs the host's checks of one actor on ground over states received at
// their timestamps, as replayHonest does, and returns the refusals.
func replayStates(states []deadreckon.State, ground func(x, z float64) (float64, bool), metAt func(i int) bool) []error {
	l := defaultLimits()
	mo := newMotion(tank.Spec{}, ground)
	s0 := states[0]
	var tr moveTrack
	tr.start(&s0, &s0, s0.Time)
	pin := net.Anchor{Pos: s0.Position, Orient: s0.Orientation, At: s0.Time, Stamp: s0.Time, Speed: s0.Velocity.Len()}
	var refused []error
	for i, next := range states[1:] {
		at := next.Time
		if metAt != nil && metAt(i+1) {
			tr.met(at, true)
		}
		err := pin.CheckStamp(&next)
		if err == nil {
			err = checkMove(&tr, &pin, &next, at, &mo, &l)
		}
		if err != nil {
			tr.refused(&pin, &next, at, err, &mo, &l)
			refused = append(refused, err)
			continue
		}
		pin.Advance(&next, at)
	}
	return refused
}

// TestShovedTankNotRefused: a bot flung by another player's tank overruns its
// governor for seconds. Seen next to that tank, it is held to the shove bound and
// not refused; and even unseen, a refusal yields its anchor, so a marginal one does
// not refuse every update after it until the tank slows down.
func TestShovedTankNotRefused(t *testing.T) {
	if errs := replayHonest(shovedAtRest, func(i int) bool { return i == 1 }); len(errs) != 0 {
		t.Errorf("seen shoved: %d refused, first %v", len(errs), errs[0])
	}
	errs := replayHonest(shovedAtRest, nil)
	t.Logf("unseen: %d of %d refused: %v", len(errs), len(shovedAtRest)-1, errs)
	if len(errs) > 1 {
		t.Errorf("unseen: %d of %d updates refused after a marginal refusal, want the refusal not to cascade: %v", len(errs), len(shovedAtRest)-1, errs)
	}
}

// TestClimbedAtSpeedNotRefused: a bot shoved up a slope, seen next to the tank that
// shoved it, is held to the shove bound in the ground plane, and its height to the
// ground, not to a generic bound in three dimensions.
func TestClimbedAtSpeedNotRefused(t *testing.T) {
	if errs := replayHonest(climbedAtSpeed, func(i int) bool { return i == 1 }); len(errs) != 0 {
		t.Errorf("%d refused, first %v", len(errs), errs[0])
	}
}

// TestSpunTankNotRefused: a bot spun by a collision turns faster than its tracks
// turn it; the host bounds the spin by physics (newMotion), not by the tracks' rate.
func TestSpunTankNotRefused(t *testing.T) {
	if errs := replayHonest(spunByACollision, nil); len(errs) != 0 {
		t.Errorf("%d refused, first %v", len(errs), errs[0])
	}
}

// TestCheckMoveTurn holds a hull's heading since its anchor to what a tank can turn:
// its tracks, or a collision's spin (newMotion: 3.3 rad/s alone, 8.9 rad/s next to
// another tank, with arrivalJitter and the turn slack). Pitch and roll within the
// hull's rest on the ground are free (TestCheckMoveTilt holds the rest).
func TestCheckMoveTurn(t *testing.T) {
	l := defaultLimits()
	mo := newMotion(tank.Spec{}, flatGround)
	for _, c := range []struct {
		name      string
		dt        float64 // since the anchor, s
		yaw, tilt float64 // heading and pitch, rad
		met       bool    // next to another tank
		ok        bool
	}{
		{"tilt over a crest", 0.034, 0, 0.68, false, true},
		{"tilt and turn", 0.5, 1.5, -0.6, false, true},
		{"spin while tilted", 0.1, 1.5, 0.3, false, false},
		{"turn", 0.5, 1.5, 0, false, true},
		{"spin", 0.1, 1.5, 0, false, false},
		{"spun by a tank", 0.1, 1.5, 0, true, true},
		{"spun past what a tank can spin it", 0.1, 2.5, 0, true, false},
		// Updates sent frames apart may arrive together: an honest bot's was once
		// refused as "turned 0.68 rad in 0.034 s".
		{"bunched arrivals", 0.034, 0.68, 0, false, true},
		{"snap", 0.034, 1.5, 0, false, false},
	} {
		s := tankAt(0, 0)
		s.Time = 10
		var tr moveTrack
		tr.start(&s, &s, 10)
		pin := net.Anchor{Pos: s.Position, Orient: s.Orientation, At: 10, Stamp: 10}
		if c.met {
			tr.met(10, false)
		}
		next := s
		next.Time = 10 + c.dt
		next.Orientation = geom.YawQuat(c.yaw).Mul(mgl64.QuatRotate(c.tilt, mgl64.Vec3{0, 0, 1}))
		err := checkMove(&tr, &pin, &next, 10+c.dt, &mo, &l)
		if (err == nil) != c.ok {
			t.Errorf("%s: %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// TestYieldGainsNothing: a cheat's refused updates move its anchor no farther than
// updates at the bound would have: 30 m/s sent as one update every 0.1 s leaves the
// anchor at 22.5 m/s (the governed bound over an anchor period), with one slack at
// most.
func TestYieldGainsNothing(t *testing.T) {
	l := defaultLimits()
	mo := newMotion(tank.Spec{}, flatGround)
	s := tankAt(0, 0)
	var tr moveTrack
	tr.start(&s, &s, 0)
	pin := net.Anchor{Pos: s.Position, Orient: s.Orientation}
	for i := 1; i <= 100; i++ {
		now := 0.1 * float64(i)
		next := s
		next.Time, next.Position[0], next.Velocity[0] = now, 30*now, 30
		if err := checkMove(&tr, &pin, &next, now, &mo, &l); err != nil {
			tr.refused(&pin, &next, now, err, &mo, &l)
		} else {
			pin.Advance(&next, now)
		}
	}
	if want := 22.5*10 + l.PositionSlack; pin.Pos[0] > want {
		t.Errorf("after 10 s at 30 m/s the anchor is at %.1f m, beyond %.1f m", pin.Pos[0], want)
	}
}

// TestShovedPastItsVelocity is an honest bot's update from a 64-tank run: shoved by
// another player's tank from 16.4 m/s, it moved 10.5 m in 0.25 s, 31° off its last
// velocity, while publishing the 30 m/s the publishers' cap allows (5.9 m off what
// its velocities explain, 4.9 m allowed without the shove). Next to a foreign tank
// that is a shove; away from every tank it is refused.
func TestShovedPastItsVelocity(t *testing.T) {
	l := defaultLimits()
	mo := newMotion(tank.Spec{}, flatGround)
	for _, shoved := range []bool{true, false} {
		s := tankAt(0, 0)
		s.Time, s.Velocity = 10, mgl64.Vec3{14.061, 0, 8.382}
		var tr moveTrack
		tr.start(&s, &s, 10)
		// Anchored a second before, 0.75 s of driving behind.
		pin := net.Anchor{Pos: s.Position.Sub(mgl64.Vec3{12.28, 0, 0}), Orient: s.Orientation, At: 9.25, Stamp: 9.25, Speed: 16.37}
		if shoved {
			tr.met(10.25, true)
		}
		next := s
		next.Time = 10.25
		next.Position = s.Position.Add(mgl64.Vec3{10.192, 0, -2.585})
		next.Velocity, next.Acceleration = mgl64.Vec3{30, 0, 0}, mgl64.Vec3{7.4, 0, 0}
		err := checkMove(&tr, &pin, &next, 10.25, &mo, &l)
		if (err == nil) != shoved {
			t.Errorf("shoved %v: %v, want accepted %v", shoved, err, shoved)
		}
	}
}

// TestLandedBetweenUpdatesNotRefused: an honest bot (TestHonestBotsNeverRefused,
// valley) leapt off a plateau, landed on a bump 0.36 m above where the host puts the
// ground under its middle (just over the clamp's tolerance, so still "in the air")
// and drove off the next drop. Timed from its first fall, its next update was refused
// "0.9 m above a fall"; it may have left the ground on the way, so its fall is timed
// from there. One that hovers a metre above the highest ground on its way is still
// refused.
func TestLandedBetweenUpdatesNotRefused(t *testing.T) {
	// The valley's ground along the way (x, height), and a plateau before it.
	samples := [][2]float64{{-35.819, 5.994}, {-34.272, 6.398}, {-33.272, 6.417}, {-32.113, 6.331}, {-30.954, 7.370},
		{-29.796, 8.592}, {-28.637, 8.495}, {-28.026, 8.849}, {-27.414, 8.574}, {-26.802, 8.271}, {-26.191, 8.708}, {-26.0, 9.9}}
	ground := func(x, z float64) (float64, bool) {
		if x >= samples[len(samples)-1][0] {
			return samples[len(samples)-1][1], true
		}
		for i := 1; i < len(samples); i++ {
			if a, b := samples[i-1], samples[i]; x <= b[0] {
				return a[1] + (b[1]-a[1])*(math.Max(x, a[0])-a[0])/(b[0]-a[0]), true
			}
		}
		return samples[0][1], true
	}
	type up struct{ at, x, y, z, vx, vy, vz float64 }
	trace := []up{
		{63.6, -23.915, 9.9, -125.060, -9.77, 0, -3.17},
		{63.833, -26.191, 9.610, -125.799, -9.77, -5.03, -3.17},
		{64.1, -28.637, 8.854, -126.671, -9.78, -0.48, -3.72},
		{64.566, -33.272, 8.188, -128.669, -10.14, -3.11, -4.77},
		{64.65, -34.272, 7.812, -129.154, -9.89, -4.0, -4.88},
		{64.833, -35.819, 6.968, -129.949, -8.88, -5.72, -4.55},
	}
	run := func(tr []up) []error {
		states := make([]deadreckon.State, len(tr))
		for i, u := range tr {
			states[i] = deadreckon.NewState(mgl64.Vec3{u.x, u.y, u.z})
			states[i].Time, states[i].Velocity = u.at, mgl64.Vec3{u.vx, u.vy, u.vz}
			states[i].Orientation = geom.YawQuat(geom.Heading(mgl64.Vec3{u.vx, 0, u.vz}))
		}
		return replayStates(states, ground, nil)
	}
	if errs := run(trace); len(errs) != 0 {
		t.Errorf("honest leap: %d refused, first %v", len(errs), errs[0])
	}
	hover := append([]up(nil), trace[:4]...)
	hover[3].y = 9.7 // 1.1 m above the highest ground on the way, 2.4 m above the fall
	var me *net.MoveError
	if errs := run(hover); len(errs) != 1 || !errors.As(errs[0], &me) || me.Reason != net.MoveHeight {
		t.Errorf("hovering: refusals %v, want one for its height", errs)
	}
}
