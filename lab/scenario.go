package lab

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/tank"
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
	// Break marks a continuity break: the vehicle teleported to this pose (a
	// respawn), and its owner publishes it as one.
	Break bool
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
	// m; if all zero, the default tank's (tank.Default().Footprint()).
	Footprint [3]mgl64.Vec3
	// Route is the route the truth follows, known to owner and receivers (the
	// path algorithm publishes progress along it), or nil; RouteS is the truth's
	// arc length along it at each frame, m, NaN where it is off the route.
	Route  *deadreckon.Route
	RouteS []float64
	// Collide is what the truth drives into that every receiver knows too (a map's
	// rocks and border, the collision scenario's obstacles), with the hull that hits
	// them; the zero value has none. Every algorithm's remote view is kept out of
	// them, as the game keeps its remote tanks.
	Collide deadreckon.Collide
}

// Duration returns the time covered by the path in seconds: its frame count times the
// frame interval.
func (p *Path) Duration() float64 {
	return float64(len(p.Poses)) * p.FrameInterval
}

// Scenario parameters. The speeds are those of a medium tank at a brisk pace.
const (
	// circleRadius is the radius of the circle scenario, m.
	circleRadius = 20.0
	// circleSpeed is the constant speed on the circle, m/s.
	circleSpeed = 10.0
	// eightRadius is the radius of each loop of the figure eight, m.
	eightRadius = 25.0
	// eightSpeed is the constant speed on the figure eight, m/s.
	eightSpeed = 10.0
	// zigzagSpeed is the constant speed of the zigzag scenario, m/s.
	zigzagSpeed = 10.0
	// zigzagLeg is how long each straight leg of the zigzag lasts, s.
	zigzagLeg = 2.0
	// zigzagTurnRate is the yaw rate in the zigzag's turns, rad/s (90°/s); each turn
	// swings the heading by 90°.
	zigzagTurnRate = math.Pi / 2
	// stopGoTopSpeed is the cruising speed of the stop-and-go scenario, m/s.
	stopGoTopSpeed = 10.0
	// stopGoAccel and stopGoBrake are its acceleration and braking, m/s².
	stopGoAccel, stopGoBrake = 3.0, 6.0
	// ledgeSpeed is the constant ground speed on the ledge track, m/s.
	ledgeSpeed = 10.0
	// ledgeHeight is the height of the plateau the ledge scenario drives off, m.
	ledgeHeight = 5.0
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
	out := []scenarioInfo{
		{"circle", fmt.Sprintf("constant %.0f m/s on a %.0f m radius circle", circleSpeed, circleRadius), infallible(buildCircle)},
		{"eight", fmt.Sprintf("figure eight of two %.0f m loops at %.0f m/s (curvature flips at the crossing)", eightRadius, eightSpeed), infallible(buildEight)},
		{"zigzag", fmt.Sprintf("%.0f m/s, %.0f s legs joined by 90° turns at 90°/s, round a 70 m loop", zigzagSpeed, zigzagLeg), infallible(buildZigzag)},
		{"stopgo", fmt.Sprintf("accelerate %.0f m/s², cruise %.0f m/s, brake %.0f m/s², stand, pivot 90°, go", stopGoAccel, stopGoTopSpeed, stopGoBrake), infallible(buildStopGo)},
		{"ledge", fmt.Sprintf("oval track at %.0f m/s: drives off a %.0f m cliff, climbs back up a ramp", ledgeSpeed, ledgeHeight), infallible(buildLedge)},
		{"tank", "a 50 t tank driven through package physics on the generated valley floor: arcs, a dash, a brake into reverse", buildTank},
		{"pivot", fmt.Sprintf("%.0f m/s, brake to a stop, turn 180° in place at %.0f°/s, stop dead, go", pivotSpeed, pivotRate*180/math.Pi), infallible(buildPivot)},
		{"turns", "a tank driven through package physics on flat ground: drive, roll to rest, turn in place by 5° to 190° either way, stand, drive on", buildTurns},
		{"collision", fmt.Sprintf("accelerate to %.0f m/s, hit an obstacle (to rest in one frame), stand, turn 90°, go", collisionSpeed), infallible(buildCollision)},
		{"respawn", fmt.Sprintf("the circle, teleported %.0f m (a continuity break) every %.0f s", respawnDistance, respawnEvery), infallible(buildRespawn)},
		{"stops", "repeated starts and stops: 4 to 15 m/s and 4 m/s in reverse, 2 to 6 m/s² up, 3 to 8 m/s² down, stands of 0.5 to 6 s", infallible(buildStops)},
		{"parked", "a tank standing still: heartbeats only", infallible(buildParked)},
		{"patrol", fmt.Sprintf("a tank on a looping spline route of %d to %d waypoints over the generated map's hills: %.0f to %.0f m/s legs, stops of %g to %g s at some waypoints, seed %d",
			patrolMinWaypoints, patrolMaxWaypoints, patrolMinSpeed, patrolMaxSpeed, patrolMinStand, patrolMaxStand, patrolSeed), buildPatrol("patrol", patrolSeed)},
	}
	for i, seed := range wanderSeeds() {
		name := wanderName(i)
		out = append(out, scenarioInfo{name,
			fmt.Sprintf("a random keyboard drive through package physics over the generated map's hills, seed %d (never tuned on)", seed),
			buildWander(name, seed)})
	}
	return out
}

// ScenarioNames returns the names of the built-in scenarios.
func ScenarioNames() []string {
	var names []string
	for _, s := range scenarios() {
		names = append(names, s.name)
	}
	return names
}

// describeScenario returns a one-line description of a built-in scenario, or "" if
// there is none by that name.
func describeScenario(name string) string {
	if s, ok := findScenario(name); ok {
		return s.about
	}
	return ""
}

// WanderPrefix names a wander drive of any seed: "wander:N" is the drive the wander
// scenarios make, with seed N (a decimal uint64). Drives of seeds no tuning has run
// check a tuning on paths it has not seen.
const WanderPrefix = "wander:"

// findScenario returns the built-in scenario called name, or the wander or gentle
// drive a WanderPrefix or GentlePrefix name gives, and whether there is one.
func findScenario(name string) (scenarioInfo, bool) {
	for _, s := range scenarios() {
		if s.name == name {
			return s, true
		}
	}
	if rest, ok := strings.CutPrefix(name, PatrolPrefix); ok {
		seed, err := strconv.ParseUint(rest, 10, 64)
		if err != nil {
			return scenarioInfo{}, false
		}
		return scenarioInfo{name, fmt.Sprintf("a patrol route and plan drawn from seed %d", seed), buildPatrol(name, seed)}, true
	}
	if rest, ok := strings.CutPrefix(name, WanderPrefix); ok {
		seed, err := strconv.ParseUint(rest, 10, 64)
		if err != nil {
			return scenarioInfo{}, false
		}
		return scenarioInfo{name,
			fmt.Sprintf("a random keyboard drive through package physics over the generated map's hills, seed %d", seed),
			buildWander(name, seed)}, true
	}
	if rest, ok := strings.CutPrefix(name, GentlePrefix); ok {
		seed, err := strconv.ParseUint(rest, 10, 64)
		if err != nil {
			return scenarioInfo{}, false
		}
		return scenarioInfo{name,
			fmt.Sprintf("stop and go through package physics over the generated map's hills, the throttle opened gently (%.1f to %.0f m/s²) from a stand, seed %d", gentleMinAccel, gentleMaxAccel, seed),
			buildGentle(name, seed)}, true
	}
	return scenarioInfo{}, false
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
	if s, ok := findScenario(name); ok {
		return s.build(fps, duration)
	}
	names := ScenarioNames()
	sort.Strings(names)
	return nil, fmt.Errorf("unknown scenario %q (have %s, %sSEED, %sSEED, %sSEED)", name, strings.Join(names, ", "), WanderPrefix, PatrolPrefix, GentlePrefix)
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
	w := circleSpeed / circleRadius
	for i := range p.Poses {
		t := float64(i) / fps
		th := w * t
		p.Poses[i] = Pose{
			Time:        t,
			Position:    mgl64.Vec3{circleRadius * math.Cos(th), 0, -circleRadius * math.Sin(th)},
			Orientation: geom.YawQuat(th + math.Pi/2),
		}
	}
	return p
}

func buildEight(fps, duration float64) *Path {
	n := frames(fps, duration)
	p := &Path{Name: "eight", FrameInterval: 1 / fps, Poses: make([]Pose, n)}
	loop := 2 * math.Pi * eightRadius
	for i := range p.Poses {
		t := float64(i) / fps
		s := math.Mod(eightSpeed*t, 2*loop)
		var pos mgl64.Vec3
		var psi float64
		if s < loop {
			// Counter-clockwise (left turns) round the loop centred at (−R, 0).
			th := s / eightRadius
			pos = mgl64.Vec3{-eightRadius + eightRadius*math.Cos(th), 0, -eightRadius * math.Sin(th)}
			psi = th + math.Pi/2
		} else {
			// Clockwise (right turns) round the loop centred at (+R, 0).
			th := math.Pi - (s-loop)/eightRadius
			pos = mgl64.Vec3{eightRadius + eightRadius*math.Cos(th), 0, -eightRadius * math.Sin(th)}
			psi = th - math.Pi/2
		}
		p.Poses[i] = Pose{Time: t, Position: pos, Orientation: geom.YawQuat(psi)}
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
		p.Poses[i] = Pose{Time: target, Position: pos, Orientation: geom.YawQuat(psi)}
	}
	return p
}

func buildZigzag(fps, duration float64) *Path {
	turn := (math.Pi / 2) / zigzagTurnRate
	period := 2 * (zigzagLeg + turn)
	yawRate := func(t float64) float64 {
		u := math.Mod(t, period)
		w := zigzagCourseRate
		switch {
		case u < zigzagLeg:
		case u < zigzagLeg+turn:
			w -= zigzagTurnRate // right turn
		case u < 2*zigzagLeg+turn:
		default:
			w += zigzagTurnRate // left turn
		}
		return w
	}
	speed := func(float64) float64 { return zigzagSpeed }
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
	accel := stopGoTopSpeed / stopGoAccel
	brake := stopGoTopSpeed / stopGoBrake
	cycle := accel + stopGoCruise + brake + stopGoStand + stopGoPivot + stopGoStand
	speed := func(t float64) float64 {
		u := math.Mod(t, cycle)
		switch {
		case u < accel:
			return stopGoAccel * u
		case u < accel+stopGoCruise:
			return stopGoTopSpeed
		case u < accel+stopGoCruise+brake:
			return stopGoTopSpeed - stopGoBrake*(u-accel-stopGoCruise)
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
	leg := stopGoTopSpeed*stopGoTopSpeed/(2*stopGoAccel) + stopGoTopSpeed*stopGoCruise +
		stopGoTopSpeed*stopGoTopSpeed/(2*stopGoBrake)
	return integrate("stopgo", fps, duration, mgl64.Vec3{-leg / 2, 0, leg / 2}, 0, speed, yawRate)
}

// Pivot scenario: drive, stop, turn in place fast, stop turning, go.
const (
	// pivotSpeed is the pivot scenario's driving speed, m/s.
	pivotSpeed = 8.0
	// pivotRate is its yaw rate turning in place, rad/s (120°/s).
	pivotRate  = 2 * math.Pi / 3
	pivotDrive = 3.0 // s of driving at pivotSpeed
	pivotBrake = 1.0 // s of braking to a stop (8 m/s²)
	pivotTurn  = 1.5 // s of turning in place: 180°
	pivotStand = 1.0 // s standing after the turn
	pivotStart = 1.0 // s of accelerating from rest (8 m/s²)
)

func buildPivot(fps, duration float64) *Path {
	cycle := pivotStart + pivotDrive + pivotBrake + pivotTurn + pivotStand
	speed := func(t float64) float64 {
		u := math.Mod(t, cycle)
		switch {
		case u < pivotStart:
			return pivotSpeed * u / pivotStart
		case u < pivotStart+pivotDrive:
			return pivotSpeed
		case u < pivotStart+pivotDrive+pivotBrake:
			return pivotSpeed * (1 - (u-pivotStart-pivotDrive)/pivotBrake)
		}
		return 0
	}
	yawRate := func(t float64) float64 {
		u := math.Mod(t, cycle) - (pivotStart + pivotDrive + pivotBrake)
		if u >= 0 && u < pivotTurn {
			return pivotRate
		}
		return 0
	}
	// Each turn is 180°, so the tank shuttles along one 36 m line.
	return integrate("pivot", fps, duration, mgl64.Vec3{-18, 0, 0}, 0, speed, yawRate)
}

// Collision scenario: run into an obstacle at full speed.
const (
	// collisionSpeed is the speed at which the tank hits the obstacle, m/s; it
	// stops dead within one frame.
	collisionSpeed = 15.0
	collisionAccel = 4.0 // m/s² up to speed
	collisionRun   = 2.0 // s at collisionSpeed before the hit
	collisionStand = 1.5 // s standing after the hit
	collisionTurn  = 1.0 // s turning 90° in place before the next run
)

func buildCollision(fps, duration float64) *Path {
	accel := collisionSpeed / collisionAccel
	cycle := accel + collisionRun + collisionStand + collisionTurn
	speed := func(t float64) float64 {
		u := math.Mod(t, cycle)
		switch {
		case u < accel:
			return collisionAccel * u
		case u < accel+collisionRun:
			return collisionSpeed
		}
		return 0 // the hit: from full speed to rest in one step
	}
	yawRate := func(t float64) float64 {
		u := math.Mod(t, cycle) - (accel + collisionRun + collisionStand)
		if u >= 0 && u < collisionTurn {
			return (math.Pi / 2) / collisionTurn
		}
		return 0
	}
	leg := 0.5*collisionAccel*accel*accel + collisionSpeed*collisionRun
	p := integrate("collision", fps, duration, mgl64.Vec3{-leg / 2, 0, leg / 2}, 0, speed, yawRate)
	p.Collide = collisionRocks(p)
	return p
}

// collisionRock is the radius of the rocks the collision scenario's tank hits, m.
const collisionRock = 1.5

// collisionRocks returns the obstacles of collision path p: a rock against the
// middle of the hull's front at every place the truth stops dead, touching it, and
// the default tank's hull. The truth then turns in place with the rock at its nose,
// as a tank turns off an obstacle it has driven into.
func collisionRocks(p *Path) deadreckon.Collide {
	hull := physics.Hull(tank.Spec{})
	w := &deadreckon.Walls{}
	for i := 1; i+1 < len(p.Poses); i++ {
		a, b, c := p.Poses[i-1].Position, p.Poses[i].Position, p.Poses[i+1].Position
		if b.Sub(a).Len() < collisionSpeed*p.FrameInterval/2 || c.Sub(b).Len() > 1e-9 {
			continue // not the frame of a hit
		}
		at := b.Add(geom.Rotate(p.Poses[i].Orientation, mgl64.Vec3{1, 0, 0}).Mul(hull.HalfLength + collisionRock))
		known := false
		for _, r := range w.Rocks {
			known = known || math.Hypot(r.X-at[0], r.Z-at[2]) < collisionRock
		}
		if !known {
			w.Rocks = append(w.Rocks, deadreckon.Rock{X: at[0], Z: at[2], Radius: collisionRock})
		}
	}
	return deadreckon.Collide{Obstacles: w, Hull: hull}
}

// Respawn scenario: circling, teleported away every respawnEvery seconds.
const (
	// respawnEvery is how often the respawn scenario's vehicle is teleported, s.
	respawnEvery = 8.0
	// respawnDistance is how far it is teleported, m.
	respawnDistance = 155.0
)

func buildRespawn(fps, duration float64) *Path {
	n := frames(fps, duration)
	p := &Path{Name: "respawn", FrameInterval: 1 / fps, Poses: make([]Pose, n)}
	w := circleSpeed / circleRadius
	prevLife := 0
	for i := range p.Poses {
		t := float64(i) / fps
		life := int(t / respawnEvery)
		cx := respawnDistance * float64(life%2)
		th := w * t
		p.Poses[i] = Pose{
			Time:        t,
			Position:    mgl64.Vec3{cx + circleRadius*math.Cos(th), 0, -circleRadius * math.Sin(th)},
			Orientation: geom.YawQuat(th + math.Pi/2),
			Break:       life != prevLife,
		}
		prevLife = life
	}
	return p
}
