package physics

import (
	"math"

	"github.com/ByteArena/box2d"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// Drive model constants.
const (
	// minNormalY keeps a near-vertical ground normal from dividing by zero.
	minNormalY = 0.05
	// powerSpeed is the track speed, m/s, below which the power limit does not bind
	// (the traction limit does).
	powerSpeed = 0.5
	// MaxTiltRate caps the pitch and roll rate reported in Pose.AngularVelocity,
	// rad/s, so a tank dropping off a ledge does not publish a tumble.
	MaxTiltRate = 3.0
)

// constraint is one velocity constraint of the track solver: a row of the form
// Cdot = a·vf + b·vl + c·ω driven toward target, with accumulated impulse held in
// [lo, hi].
type constraint struct {
	a, b, c     float64 // Jacobian on (forward speed, left speed, yaw rate)
	k           float64 // effective mass
	target      float64
	lo, hi, acc float64
}

// drive computes the tracks' forces and the ground's grip for one step of h seconds
// and sets the body's velocity for box2d to integrate and resolve collisions.
//
// The hull's motion on the box2d plane is (forward speed vf, left speed vl, yaw rate
// ω). Gravity's downhill pull from the ground normal is applied first; then a small
// sequential-impulse solver enforces, within friction limits scaled by the normal
// load: rolling resistance on vf; lateral grip on vl (tracks do not slide sideways
// until the sideways pull exceeds the grip); skid resistance on ω; and the two
// tracks, as a steering drive that pushes them apart toward the commanded yaw rate
// (first call on traction) and a main drive that pushes them together toward the
// commanded speed with the traction and engine power the steering leaves. The
// tracks' speeds are vf ∓ ω·gauge/2, so commanding both is commanding each track's
// speed.
func (t *Tank) drive(h float64) {
	s := &t.spec
	g := t.w.cfg.Gravity
	ang := t.body.GetAngle()
	c, sn := math.Cos(ang), math.Sin(ang)
	v := t.body.GetLinearVelocity()
	om := t.body.GetAngularVelocity()

	n := t.normal
	ny := math.Max(n[1], minNormalY)
	// Horizontal downhill acceleration, box2d coordinates (world X, −Z).
	v.X += g * ny * n[0] * h
	v.Y += g * ny * -n[2] * h
	vf := v.X*c + v.Y*sn
	vl := -v.X*sn + v.Y*c

	// Rise per meter along the heading, world forward (cos ψ, 0, −sin ψ), and to the
	// left, world (−sin ψ, 0, −cos ψ). Friction acts in the ground plane, so its
	// horizontal share along each is the cosine of that slope.
	rise := (-n[0]*c + n[2]*sn) / ny
	cosF := 1 / math.Sqrt(1+rise*rise)
	riseL := (n[0]*sn + n[2]*c) / ny
	cosL := 1 / math.Sqrt(1+riseL*riseL)
	load := s.Mass * g * ny // normal load, N
	traction := s.Traction * load / 2 * cosF
	half := s.TrackGauge / 2

	// Commanded track speeds: throttle sets the common speed, steer the difference;
	// both shift together so neither track is commanded past the governed speeds.
	vcmd := t.in.Throttle * s.TopSpeed
	if t.in.Throttle < 0 {
		vcmd = t.in.Throttle * s.ReverseSpeed
	}
	d := t.in.Steer * s.TurnRate * half
	tl, tr := vcmd+d, vcmd-d
	if hi := math.Max(tl, tr); hi > s.TopSpeed {
		tl, tr = tl-(hi-s.TopSpeed), tr-(hi-s.TopSpeed)
	}
	if lo := math.Min(tl, tr); lo < -s.ReverseSpeed {
		tl, tr = tl+(-s.ReverseSpeed-lo), tr+(-s.ReverseSpeed-lo)
	}
	// Track speeds are along the ground; the hull's motion here is its horizontal
	// projection, cosF of it.
	driveTarget := (tl + tr) / 2 * cosF
	yawTarget := (tr - tl) / s.TrackGauge

	// Skid resistance falls as the turn widens (Crolla's fit for tracked vehicles),
	// with the radius of the turn being made or, if tighter, the one commanded; going
	// straight it is at its largest and keeps the hull from yawing.
	turn := math.Max(math.Abs(om), math.Abs(yawTarget))
	radius := 0.0
	if turn > 1e-3 {
		radius = math.Abs(vf) / turn
	}
	mu := s.TurnResistance * 0.925 / (0.925 + 0.15*radius/s.TrackGauge)
	turnMoment := mu * load * s.Length / 4

	m := t.body.GetMass()
	inertia := t.body.GetInertia()
	grip := s.LateralGrip * load * cosL * h
	roll := s.RollingResistance * load * cosF * h
	both := 2 * traction * h // both tracks' traction, as an impulse
	rows := [5]constraint{
		{b: 1, k: m, lo: -grip, hi: grip},
		{a: 1, k: m, lo: -roll, hi: roll},
		{c: 1, k: inertia, lo: -turnMoment * h, hi: turnMoment * h},
		{a: 1, k: m, target: driveTarget},     // drive: both tracks pushing together
		{c: 1, k: inertia, target: yawTarget}, // steer: the tracks pushing apart
	}
	const drive, steer = 3, 4
	for it := 0; it < t.w.cfg.SolverIterations; it++ {
		// Each track's traction T bounds |drive| + |steer|/(gauge/2) ≤ 2T. Steering
		// has the first call on it (as a steering gear does), driving the rest.
		driveCap := math.Max(0, both-math.Abs(rows[steer].acc)/half)
		rows[steer].lo, rows[steer].hi = -both*half, both*half
		rows[drive].lo, rows[drive].hi = -driveCap, driveCap
		// The engine's power, less what steering spends against the skid
		// resistance, caps the drive in the direction of motion.
		if along := math.Abs(vf) / cosF; along > powerSpeed {
			// Force along the ground ≤ power / speed along the ground; its
			// horizontal share is cosF of it.
			power := math.Max(0, s.Power-math.Max(0, om*rows[steer].acc/h))
			limit := power / along * cosF * h
			if vf > 0 {
				rows[drive].hi = math.Min(rows[drive].hi, limit)
			} else {
				rows[drive].lo = math.Max(rows[drive].lo, -limit)
			}
		}
		for i := range rows {
			r := &rows[i]
			cdot := r.a*vf + r.b*vl + r.c*om
			acc := math.Max(r.lo, math.Min(r.hi, r.acc-r.k*(cdot-r.target)))
			l := acc - r.acc
			r.acc = acc
			vf += r.a * l / m
			vl += r.b * l / m
			om += r.c * l / inertia
		}
	}
	t.body.SetLinearVelocity(box2d.MakeB2Vec2(vf*c-vl*sn, vf*sn+vl*c))
	t.body.SetAngularVelocity(om)
}

// settle moves the turret and gun toward their aims after a step of h seconds and
// recomputes the pose at time now, its fall timed at frame time frame.
func (t *Tank) settle(h, now, frame float64) {
	t.prev = t.pose
	s := &t.spec
	yaw := geom.WrapAngle(t.body.GetAngle())
	p := &t.pose
	diff := geom.WrapAngle(geom.WrapAngle(t.in.AimYaw-yaw) - p.Turret)
	step := math.Max(-s.TurretRate*h, math.Min(s.TurretRate*h, diff))
	p.Turret = geom.WrapAngle(p.Turret + step)
	p.TurretRate = step / h
	gt := math.Max(s.GunMin, math.Min(s.GunMax, t.in.GunElevation))
	step = math.Max(-s.GunRate*h, math.Min(s.GunRate*h, gt-p.Gun))
	p.Gun += step
	p.GunRate = step / h
	t.place(now, h, frame)
}

// place recomputes the 3D pose at simulation time now from the box2d body with
// deadreckon's three-point ground clamp; h is the time since the previous pose (0 for
// a jump), and frame the frame time a fall is timed by (World.Skip).
func (t *Tank) place(now, h, frame float64) {
	gr := t.w.cfg.Ground
	bp := t.body.GetPosition()
	x, z := bp.X, -bp.Y
	om := t.body.GetAngularVelocity()
	yaw := geom.WrapAngle(t.body.GetAngle())
	y0, _ := gr.HeightAt(x, z)
	level := geom.YawQuat(yaw)
	r := deadreckon.ClampPose(gr, mgl64.Vec3{x, y0, z}, level, t.clamp)

	p := &t.pose
	prevTilt := p.Orientation.Mul(geom.YawQuat(p.Yaw).Conjugate())
	p.Time, p.Yaw, p.OnGround = now, yaw, r.Clamped
	if h == 0 {
		t.fall.Reset() // placed, not driven: no fall carries over
	}
	ground := r.Position[1]
	falling := false
	if r.Clamped {
		p.Position, p.Orientation, p.GroundNormal, p.ClampHits = r.Position, r.Orientation, r.Normal, r.Hits
		// Off a cliff the hull falls, as remote copies of it do, instead of
		// dropping to the foot of the cliff in one step.
		p.Position[1] = t.fall.Limit(ground, frame)
		falling = p.Position[1] > ground
	} else {
		p.Position, p.Orientation, p.GroundNormal = mgl64.Vec3{x, y0, z}, level, mgl64.Vec3{0, 1, 0}
		p.ClampHits = [3]mgl64.Vec3{p.Position, p.Position, p.Position}
	}
	t.normal = p.GroundNormal

	n := p.GroundNormal
	bv := t.body.GetLinearVelocity()
	vx, vz := bv.X, -bv.Y
	p.Velocity = mgl64.Vec3{vx, -(n[0]*vx + n[2]*vz) / math.Max(n[1], minNormalY), vz}
	if falling {
		p.Velocity[1] = t.fall.Velocity()
	}

	// Angular velocity: the yaw rate about the hull's up axis plus the rate of change
	// of the tilt (pitch and roll) the ground gives, capped at MaxTiltRate.
	up := p.Orientation.Rotate(mgl64.Vec3{0, 1, 0})
	p.AngularVelocity = up.Mul(om)
	if h > 0 {
		tilt := p.Orientation.Mul(level.Conjugate())
		dq := tilt.Mul(prevTilt.Conjugate())
		if dq.W < 0 {
			dq = dq.Scale(-1)
		}
		if l := dq.V.Len(); l > 1e-12 {
			rate := 2 * math.Atan2(l, dq.W) / h
			rate = math.Min(rate, MaxTiltRate)
			p.AngularVelocity = p.AngularVelocity.Add(dq.V.Mul(rate / l))
		}
	}
}
