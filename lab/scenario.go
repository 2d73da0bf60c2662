package lab

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// Pose is the true placement of the vehicle at one instant: where it is and which way
// it faces. It is what the owner renders, and what the remote view is measured against.
type Pose struct {
	// Time is the instant in seconds since the start of the path.
	Time float64
	// Position is in meters, world frame (Y up).
	Position mgl64.Vec3
	// Orientation is a unit quaternion from the vehicle's local frame (forward +X,
	// up +Y) into the world frame.
	Orientation mgl64.Quat
}

// Path is a true trajectory sampled once per frame, the ground truth of one run.
type Path struct {
	// Name identifies the scenario or trace, as reported in results.
	Name string
	// FrameInterval is the time between frames in seconds (1/fps).
	FrameInterval float64
	// Poses holds one pose per frame; Poses[i].Time is i·FrameInterval.
	Poses []Pose
	// Ground is the terrain under the path, or nil for flat ground at Y = 0 that is not
	// measured. When set, the remote view is clamped to it and depth below it reported.
	Ground deadreckon.Ground
	// Clamp is how the remote view is clamped to Ground: ClampUp for a vehicle that
	// can leave the ground (the zero value, ClampNone, also means ClampUp when Ground
	// is set), ClampAlways for one that never does.
	Clamp deadreckon.ClampMode
	// Footprint is the remote clamp's three footprint points in the vehicle's frame,
	// m; if all zero, deadreckon's default.
	Footprint [3]mgl64.Vec3
}

// Duration returns the time covered by the path in seconds: its frame count times the
// frame interval.
func (p *Path) Duration() float64 {
	return float64(len(p.Poses)) * p.FrameInterval
}

// Scenario parameters. The speeds are those of a medium tank at a brisk pace.
const (
	// CircleRadius is the radius of the circle scenario, m.
	CircleRadius = 20.0
	// CircleSpeed is the constant speed on the circle, m/s.
	CircleSpeed = 10.0
	// EightRadius is the radius of each loop of the figure eight, m.
	EightRadius = 25.0
	// EightSpeed is the constant speed on the figure eight, m/s.
	EightSpeed = 10.0
	// ZigzagSpeed is the constant speed of the zigzag scenario, m/s.
	ZigzagSpeed = 10.0
	// ZigzagLeg is how long each straight leg of the zigzag lasts, s.
	ZigzagLeg = 2.0
	// ZigzagTurnRate is the yaw rate in the zigzag's turns, rad/s (90°/s); each turn
	// swings the heading by 90°.
	ZigzagTurnRate = math.Pi / 2
	// StopGoTopSpeed is the cruising speed of the stop-and-go scenario, m/s.
	StopGoTopSpeed = 10.0
	// StopGoAccel and StopGoBrake are its acceleration and braking, m/s².
	StopGoAccel, StopGoBrake = 3.0, 6.0
	// LedgeSpeed is the constant ground speed on the ledge track, m/s.
	LedgeSpeed = 10.0
	// LedgeHeight is the height of the plateau the ledge scenario drives off, m.
	LedgeHeight = 5.0
	// Gravity is the acceleration of a falling vehicle, m/s².
	Gravity = 9.81
)

// substep is the integration step for scenarios built by integrating speed and yaw
// rate, s. It is far below any frame interval, so the truth is exact to well under a
// millimetre.
const substep = 1e-3

// scenarioInfo describes one built-in scenario.
type scenarioInfo struct {
	name, about string
	build       func(fps, duration float64) (*Path, error)
}

// infallible adapts an analytic scenario builder.
func infallible(build func(fps, duration float64) *Path) func(fps, duration float64) (*Path, error) {
	return func(fps, duration float64) (*Path, error) { return build(fps, duration), nil }
}

// scenarios lists the built-in scenarios in the order "all" runs them.
func scenarios() []scenarioInfo {
	return []scenarioInfo{
		{"circle", fmt.Sprintf("constant %.0f m/s on a %.0f m radius circle", CircleSpeed, CircleRadius), infallible(buildCircle)},
		{"eight", fmt.Sprintf("figure eight of two %.0f m loops at %.0f m/s (curvature flips at the crossing)", EightRadius, EightSpeed), infallible(buildEight)},
		{"zigzag", fmt.Sprintf("%.0f m/s, %.0f s legs joined by 90° turns at 90°/s, round a 70 m loop", ZigzagSpeed, ZigzagLeg), infallible(buildZigzag)},
		{"stopgo", fmt.Sprintf("accelerate %.0f m/s², cruise %.0f m/s, brake %.0f m/s², stand, pivot 90°, go", StopGoAccel, StopGoTopSpeed, StopGoBrake), infallible(buildStopGo)},
		{"ledge", fmt.Sprintf("oval track at %.0f m/s: drives off a %.0f m cliff, climbs back up a ramp", LedgeSpeed, LedgeHeight), infallible(buildLedge)},
		{"tank", "a 50 t tank driven through package physics on the generated valley floor: arcs, a dash, a brake into reverse", buildTank},
	}
}

// ScenarioNames returns the names of the built-in scenarios.
func ScenarioNames() []string {
	var names []string
	for _, s := range scenarios() {
		names = append(names, s.name)
	}
	return names
}

// DescribeScenario returns a one-line description of a built-in scenario, or "" if
// there is none by that name.
func DescribeScenario(name string) string {
	for _, s := range scenarios() {
		if s.name == name {
			return s.about
		}
	}
	return ""
}

// BuildScenario returns the named built-in scenario sampled at fps frames per second
// for duration seconds.
func BuildScenario(name string, fps, duration float64) (*Path, error) {
	if !(fps > 0) || math.IsInf(fps, 0) {
		return nil, fmt.Errorf("build scenario %q: frame rate %v is not positive", name, fps)
	}
	if !(duration > 0) || math.IsInf(duration, 0) {
		return nil, fmt.Errorf("build scenario %q: duration %v is not positive", name, duration)
	}
	for _, s := range scenarios() {
		if s.name == name {
			return s.build(fps, duration)
		}
	}
	names := ScenarioNames()
	sort.Strings(names)
	return nil, fmt.Errorf("unknown scenario %q (have %s)", name, strings.Join(names, ", "))
}

// forward returns the unit forward vector of heading psi on level ground.
func forward(psi float64) mgl64.Vec3 {
	return mgl64.Vec3{math.Cos(psi), 0, -math.Sin(psi)}
}

// frames returns how many frames cover [0, duration) at fps.
func frames(fps, duration float64) int {
	return max(2, int(math.Ceil(duration*fps-1e-9)))
}

func buildCircle(fps, duration float64) *Path {
	n := frames(fps, duration)
	p := &Path{Name: "circle", FrameInterval: 1 / fps, Poses: make([]Pose, n)}
	w := CircleSpeed / CircleRadius
	for i := range p.Poses {
		t := float64(i) / fps
		th := w * t
		p.Poses[i] = Pose{
			Time:        t,
			Position:    mgl64.Vec3{CircleRadius * math.Cos(th), 0, -CircleRadius * math.Sin(th)},
			Orientation: deadreckon.YawQuat(th + math.Pi/2),
		}
	}
	return p
}

func buildEight(fps, duration float64) *Path {
	n := frames(fps, duration)
	p := &Path{Name: "eight", FrameInterval: 1 / fps, Poses: make([]Pose, n)}
	loop := 2 * math.Pi * EightRadius
	for i := range p.Poses {
		t := float64(i) / fps
		s := math.Mod(EightSpeed*t, 2*loop)
		var pos mgl64.Vec3
		var psi float64
		if s < loop {
			// Counter-clockwise (left turns) round the loop centred at (−R, 0).
			th := s / EightRadius
			pos = mgl64.Vec3{-EightRadius + EightRadius*math.Cos(th), 0, -EightRadius * math.Sin(th)}
			psi = th + math.Pi/2
		} else {
			// Clockwise (right turns) round the loop centred at (+R, 0).
			th := math.Pi - (s-loop)/EightRadius
			pos = mgl64.Vec3{EightRadius + EightRadius*math.Cos(th), 0, -EightRadius * math.Sin(th)}
			psi = th - math.Pi/2
		}
		p.Poses[i] = Pose{Time: t, Position: pos, Orientation: deadreckon.YawQuat(psi)}
	}
	return p
}

// integrate builds a level path from a speed and a yaw rate given as functions of
// time, starting at start with heading psi0.
func integrate(name string, fps, duration float64, start mgl64.Vec3, psi0 float64, speed, yawRate func(t float64) float64) *Path {
	n := frames(fps, duration)
	p := &Path{Name: name, FrameInterval: 1 / fps, Poses: make([]Pose, n)}
	pos, psi, t := start, psi0, 0.0
	for i := range p.Poses {
		target := float64(i) / fps
		for t < target-1e-12 {
			h := math.Min(substep, target-t)
			// Midpoint rule in both heading and speed.
			mid := t + h/2
			psiMid := psi + yawRate(t)*h/2
			pos = pos.Add(forward(psiMid).Mul(speed(mid) * h))
			psi += yawRate(mid) * h
			t += h
		}
		p.Poses[i] = Pose{Time: target, Position: pos, Orientation: deadreckon.YawQuat(psi)}
	}
	return p
}

func buildZigzag(fps, duration float64) *Path {
	turn := (math.Pi / 2) / ZigzagTurnRate
	period := 2 * (ZigzagLeg + turn)
	yawRate := func(t float64) float64 {
		u := math.Mod(t, period)
		w := zigzagCourseRate
		switch {
		case u < ZigzagLeg:
		case u < ZigzagLeg+turn:
			w -= ZigzagTurnRate // right turn
		case u < 2*ZigzagLeg+turn:
		default:
			w += ZigzagTurnRate // left turn
		}
		return w
	}
	speed := func(float64) float64 { return ZigzagSpeed }
	// The heading swings between 45° left and 45° right of a course that itself turns
	// slowly left, once a minute, so the zigzag runs round a loop of about 70 m radius
	// and stays on the map however long it runs.
	return integrate("zigzag", fps, duration, mgl64.Vec3{0, 0, 60}, math.Pi/4, speed, yawRate)
}

// zigzagCourseRate is how fast the zigzag's mean course turns, rad/s: once a minute.
const zigzagCourseRate = 2 * math.Pi / 60

// Stop-and-go phase lengths, s.
const (
	stopGoCruise = 4.0
	stopGoStand  = 1.0
	stopGoPivot  = 2.0
)

func buildStopGo(fps, duration float64) *Path {
	accel := StopGoTopSpeed / StopGoAccel
	brake := StopGoTopSpeed / StopGoBrake
	cycle := accel + stopGoCruise + brake + stopGoStand + stopGoPivot + stopGoStand
	speed := func(t float64) float64 {
		u := math.Mod(t, cycle)
		switch {
		case u < accel:
			return StopGoAccel * u
		case u < accel+stopGoCruise:
			return StopGoTopSpeed
		case u < accel+stopGoCruise+brake:
			return StopGoTopSpeed - StopGoBrake*(u-accel-stopGoCruise)
		default:
			return 0
		}
	}
	yawRate := func(t float64) float64 {
		u := math.Mod(t, cycle) - (accel + stopGoCruise + brake + stopGoStand)
		if u >= 0 && u < stopGoPivot {
			return (math.Pi / 2) / stopGoPivot // pivot left in place
		}
		return 0
	}
	// Each leg is about 66 m, so four legs close a square; centre it on the origin.
	leg := StopGoTopSpeed*StopGoTopSpeed/(2*StopGoAccel) + StopGoTopSpeed*stopGoCruise +
		StopGoTopSpeed*StopGoTopSpeed/(2*StopGoBrake)
	return integrate("stopgo", fps, duration, mgl64.Vec3{-leg / 2, 0, leg / 2}, 0, speed, yawRate)
}
