package referee

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/grid"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/tank"
)

// arrivalJitter is how much longer than the time between their arrivals two updates
// may be apart on the owner's clock, s: updates sent frames apart may arrive together
// (a collision's spin, its updates bunched on arrival). It widens the heading's turn
// budget by a tenth of a second at its rate (0.33 rad alone, 0.89 rad after a
// collision).
const arrivalJitter = 0.1

// yield moves anchor a after next, arriving at host time now, was refused for its
// travel or its turn (a *net.MoveError of reason net.MoveSpeed or net.MoveTurn): to the farthest
// the tank can have got towards next by now (b), as if an update at the bound had
// come. So a single marginal refusal of an honest tank (a shove that carried it a
// few decimetres past the bound) does not refuse its every update after it, all
// measured from an anchor it left for good; and a cheat gains nothing by it, since
// an update at the bound would have been accepted and moved the anchor as far. Like
// an accepted update, it takes the slack only once per net.AnchorPeriod.
func yield(a *net.Anchor, next *deadreckon.State, now float64, b span) {
	if now-a.At < net.AnchorPeriod {
		b.travelSlack, b.turnSlack = 0, 0
	}
	travel, turn := b.travel+b.travelSlack, b.turn+b.turnSlack
	d := next.Position.Sub(a.Pos)
	d[1] = 0
	if l := d.Len(); l > travel {
		d = d.Mul(travel / l)
	}
	dy := math.Max(-travel, math.Min(travel, next.Position[1]-a.Pos[1]))
	a.Pos = a.Pos.Add(mgl64.Vec3{d[0], dy, d[2]})
	// A heading is read off the forward axis only where the hull is not tipped
	// (hullTurn). A tipped hull's anchor turns towards next the shortest way, by no
	// more than a turn at the bound or a tumble at its rate since the anchor.
	if !tipped(a.Orient) && !tipped(next.Orientation) {
		yaw := geom.Yaw(a.Orient)
		a.Orient = geom.YawQuat(yaw + math.Max(-turn, math.Min(turn, geom.WrapAngle(geom.Yaw(next.Orientation)-yaw))))
	} else {
		qa, qn := geom.QuatNormalize(a.Orient), geom.QuatNormalize(next.Orientation)
		step := math.Min(turn, tumbleRate*(math.Max(0, now-a.At)+arrivalJitter))
		if th := geom.UnitQuatAngle(qa, qn); th > 0 {
			a.Orient = geom.SlerpShort(qa, qn, math.Min(1, step/th))
		}
	}
	a.At = now
	a.Speed = math.Min(horizontal(next.Velocity), b.speed)
}

// Tolerances of the movement checks (checkMove). Each is what honest play needs beyond
// the tank's limits; docs/security.md gives the measurements behind them.
const (
	// speedFactor times the governed top speed is how fast, m/s, a tank may travel
	// over an anchor period (the travel check): a tank shoved by another, or running
	// down the steepest slope it holds, overruns its governor for a moment. 64 honest
	// bots travelled at most 90% of 20 m/s over an anchor period (with its 3 m
	// slack); 22.5 m/s leaves room, and a sustained 30 m/s is refused within a
	// second.
	speedFactor = 1.5
	// shoveFactor times the governed top speed is the fastest horizontal velocity
	// one update may carry, m/s: a tank shoved by another's physics proxy moves at
	// the speed the other is shown at, its top speed plus its dead reckoning's
	// catch-up (the game's 7.5 m/s). 64 honest bots were seen shoved at 25.7 m/s.
	shoveFactor = 2.0
	// collisionMemory is how long after a tank last met another, s, its motion may
	// still show the collision: a shove's speed over the governor, a hull's spin. 64
	// honest bots shoved to 28 m/s were back under their top speed 2.6 s later, and a
	// hull spun at 6 rad/s slowed below 1 rad/s in 2.4 s.
	collisionMemory = 3.0
	// stampError is how far apart two honest updates' timestamps may be from the
	// time between their samples, s: the clock filter's slew between them. A larger
	// correction of the owner's clock shows as a difference between the stamps' and
	// the arrivals' intervals, which the checks allow for where they time anything.
	stampError = 0.05
	// driftShare is the share of net.Limits.PositionSlack (the tolerance for
	// quantization and clamping corrections between updates; 3 m by default) that an
	// honest update's displacement may differ from its velocities' by beyond what the
	// acceleration allows: a velocity measured over the last two frames lags the true
	// one by up to two frames of motion (0.5 m at a shove's 30 m/s), and positions are
	// quantized to a millimetre. 64 honest bots were seen 1.01 m off beyond the
	// acceleration's share, against 2.1 m allowed with the stamps' error.
	driftShare = 1.0 / 3
	// clampAbove is how far above the ground under its middle an honest tank's
	// height may be, m: its three-point clamp rests it on the plane of its footprint,
	// at most supportStep (0.3 m) above that point before the clamp takes it to be on
	// a step, plus the quantization of a height and a margin for the clamp's rays
	// hitting a cell's other triangle.
	clampAbove = 0.35
	// clampBelow is how far below that ground an honest tank's height may be, m: the
	// clamp never rests it below the ground under its middle, so only the quantization
	// and the arithmetic of the height.
	clampBelow = 0.05
	// fallSlack is how far above a fall under gravity from where it left the ground
	// an airborne tank may be, m: its clamp's tolerance and the fall's one-step
	// allowance (fallStep, 5 cm).
	fallSlack = clampAbove + 0.05
	// articulationSlack is the turret or gun angle, rad, an honest update may have
	// turned beyond its rate over the time since the last: an angle's quantization and
	// the rate's integration by whole frames.
	articulationSlack = 0.02
)

// proxyCatchUp is how much faster than the path its owner's updates give it a proxy
// of a remote tank moves to regain that path, m/s (physics.DefaultProxyCatchUp; a
// test holds them equal).
const proxyCatchUp = 10.0

// Articulations of a tank's state, as package physics publishes them
// (physics.ArticulationTurret and ArticulationGun; a test holds them equal).
const (
	turretArticulation = 0
	gunArticulation    = 1
)

// motion is what a tank can do, from the one tank.Spec, and the ground it drives on:
// the bounds of the movement checks.
type motion struct {
	speed      float64 // horizontal speed bound over the anchor period, m/s
	shove      float64 // horizontal speed bound of one update's velocity field, m/s
	contactV   float64 // a shove's contact speed: the speed bound over the anchor period after one, m/s
	turn       float64 // heading rate bound, rad/s: the tracks' turn, or a hull's spin off a rock
	spin       float64 // heading rate bound after meeting another tank, rad/s
	contact    float64 // centre distance within which two hulls can touch, m
	accel      float64 // acceleration bound, m/s²
	turret     float64 // turret traverse rate, rad/s
	gun        float64 // gun elevation rate, rad/s
	gunLo      float64 // gun elevation limits, rad
	gunHi      float64
	ground     func(x, z float64) (float64, bool) // nil: heights not held to the ground
	rateSlack  float64                            // a published rate's quantization, rad/s
	accelSlack float64                            // a published acceleration's quantization, m/s²
}

// newMotion returns the movement bounds of tank s (defaults filled in) on ground.
//
// The heading's bounds are physics: a hull struck at a contact speed v by a body that
// does not give way (a rock, the border, or a proxy of a tank owned elsewhere, which
// is kinematic) takes an impulse J at some lever r from its middle, and leaves
// spinning at ω = r·J/I with J at most what stops the contact point, v/(1/m + r²/I);
// that is ω = r·v/(k² + r²), at most v/(2k) at r = k, the hull's radius of gyration
// about its vertical axis, √((L² + W²)/12) for a uniform box (2.25 m for the default
// tank); two tanks that both give way spin less, v/(2√2·k). Alone, the fastest a
// tank meets anything is its governed top speed: 3.3 rad/s for the default tank,
// above its tracks' turn. Next to another tank, the contact speed is at most a
// proxy's: the speed its owner shows (the shove bound, 30 m/s) plus the catch-up
// at which it regains its path (proxyCatchUp, 10 m/s), 40 m/s: 8.9 rad/s. The same
// contact speed bounds how fast a shoved tank travels. 64 honest bots were seen spun
// at 6.1 rad/s, and shoved to 36 m/s over the ground between two updates.
func newMotion(s tank.Spec, ground func(x, z float64) (float64, bool)) motion {
	s = s.WithDefaults()
	gyration := math.Sqrt((s.Length*s.Length + s.Width*s.Width) / 12)
	shove := shoveFactor*s.TopSpeed + wire.QuantSlack*wire.VelocityStep
	contact := shove + proxyCatchUp
	return motion{
		speed: speedFactor * s.TopSpeed, shove: shove, contactV: contact,
		turn: math.Max(s.TurnRate, s.TopSpeed/(2*gyration)), spin: contact / (2 * gyration),
		contact: math.Hypot(s.Length, s.Width),
		accel:   s.Acceleration,
		turret:  s.TurretRate, gun: s.GunRate, gunLo: s.GunMin, gunHi: s.GunMax,
		ground: ground, rateSlack: wire.ArticulationRateStep, accelSlack: wire.QuantSlack * wire.AccelerationStep,
	}
}

// refuse returns a movement refusal for reason r.
func refuse(r net.MoveReason, format string, args ...any) error {
	return &net.MoveError{Reason: r, Msg: fmt.Sprintf(format, args...)}
}

// moveTrack is what the movement checks remember of an actor: its last accepted
// state, while it is airborne where its fall began, and when it last met another
// tank.
type moveTrack struct {
	owner   uint32           // the player whose tank it is
	last    deadreckon.State // last accepted, host-clock time
	lastAt  float64          // its host receive time, s
	metAt   float64          // host time it was last seen next to another tank, s
	shoveAt float64          // the same, another player's tank, s
	air     bool             // the last accepted state was off the ground
	airY    float64          // height of the first accepted airborne state, m
	airAt   float64          // its timestamp, host-clock s
	airRecv float64          // its host receive time, s
}

// start begins the track at the actor's spawn state s, received at host time now. A
// spawn the judge placed (s) keeps the turret and gun of the state its owner asked
// for (asked): the judge moves the hull, and the owner's turret stays where it was.
func (t *moveTrack) start(s, asked *deadreckon.State, now float64) {
	*t = moveTrack{owner: t.owner, last: *s, lastAt: now, metAt: math.Inf(-1), shoveAt: math.Inf(-1)}
	t.last.Articulations, t.last.NumArticulations = asked.Articulations, asked.NumArticulations
}

// met records that the tank was seen next to another tank at host time now
// (another player's, if foreign): for collisionMemory its travel may show a shove by
// a foreign tank, and its heading a collision's spin.
func (t *moveTrack) met(now float64, foreign bool) {
	t.metAt = math.Max(t.metAt, now)
	if foreign {
		t.shoveAt = math.Max(t.shoveAt, now)
	}
}

// span is how far a tank can have got from its anchor: its travel, m, and turn,
// rad, each without and with its slack, and the speed, m/s, that bounds them.
type span struct {
	travel, travelSlack float64
	turn, turnSlack     float64
	speed               float64
}

// reach returns how far the tank of t can have got from anchor a by host time now.
// Only a tank shoved by another player's tank overruns its governor for long: its
// own tanks are bodies in the same world and give way, the others' proxies do not
// (package physics), and they carry it at their contact speed (newMotion) until the
// tracks' grip slows it. Any collision may spin its hull.
func (t *moveTrack) reach(a *net.Anchor, now float64, mo *motion, l *net.Limits) span {
	dt := math.Max(0, now-a.At)
	gov := *l
	gov.MaxSpeed, gov.MaxAcceleration = mo.speed, mo.accel
	if t.shoveAt >= a.At-collisionMemory {
		gov.MaxSpeed = mo.contactV
	}
	turn := mo.turn
	if t.metAt >= a.At-collisionMemory {
		turn = mo.spin
	}
	return span{travel: gov.MaxTravel(a.Speed, dt) - l.PositionSlack, travelSlack: l.PositionSlack,
		turn: turn * (dt + arrivalJitter), turnSlack: l.TurnSlack, speed: gov.MaxSpeed}
}

// checkMove holds next, arriving at host time now, to what the tank can do after its
// last accepted state (t.last) and its anchor a: the governed speed, on the velocity
// field and on the travel since the anchor; its heading's turn and its tilt since the
// anchor (checkTurn); a velocity that matches the displacement; the acceleration; the
// height on the ground, or falling from it; and the turret and gun within their rates
// and limits. It returns a *net.MoveError, or nil and records next as accepted in t.
func checkMove(t *moveTrack, a *net.Anchor, next *deadreckon.State, now float64, mo *motion, l *net.Limits) error {
	r := t.reach(a, now, mo, l)
	if err := checkSpeed(a, next, now, mo, r, l); err != nil {
		return err
	}
	if err := checkTurn(a, next, now, r); err != nil {
		return err
	}
	// A shoved tank's published velocity is capped at the shove speed (the
	// publishers' cap) while it may move at the contact speed: an honest bot shoved
	// from 16 m/s moved 10.5 m in 0.25 s publishing 30 m/s.
	over := math.Max(0, r.speed-mo.shove)
	if err := checkVelocity(&t.last, next, math.Max(0, now-t.lastAt), mo, over, l.PositionSlack*driftShare); err != nil {
		return err
	}
	air, launched, err := t.checkHeight(next, now, mo)
	if err != nil {
		return err
	}
	if err := checkArticulations(&t.last, next, math.Max(0, now-t.lastAt), mo); err != nil {
		return err
	}
	if launched {
		t.airY, t.airAt, t.airRecv = next.Position[1], next.Time, now
	}
	t.air, t.last, t.lastAt = air, *next, now
	return nil
}

// Bounds of the hull's rotation (checkTurn) beyond its heading's rate.
const (
	// restTilt is the steepest tilt from upright an honest hull rests at, rad: the
	// three-point clamp's deadreckon.DefaultMaxTilt (45°), which package physics
	// rests every hull within, plus an orientation's quantization. The ground tilts a
	// hull within it at once, where it rolls over a crest or a rock's edge or lands
	// from a ledge.
	restTilt = deadreckon.DefaultMaxTilt + 0.02
	// tumbleRate is how fast a hull's up axis may turn beyond restTilt, rad/s: the
	// fastest tilt rate a tank publishes (physics.MaxTiltRate; a test holds them
	// equal). It is below the heading's rate alone (3.3 rad/s), so tumbling over
	// (2π less twice restTilt of tilt, 1.6 s) turns a hull about more slowly than
	// its tracks or a rock turn it (π, 1 s).
	tumbleRate = 3.0
	// tippedTilt is the tilt from upright, rad (60°), beyond which a hull's heading is
	// not read off its forward axis projected on the ground: the projection shortens
	// as the hull tips (its forward axis is at most as steep as its tilt), is noise
	// near vertical, and flips by π past it or with the hull on its back. A hull
	// resting within restTilt is never tipped.
	tippedTilt = math.Pi / 3
	// flipped is how close to −1 the dot product of two up axes may come before the
	// rotation between the hulls has no definite heading part (hullTurn).
	flipped = 1e-6
)

// tipped reports whether orientation q is tilted too far from upright to read a
// heading off its forward axis (tippedTilt).
func tipped(q mgl64.Quat) bool { return tiltOf(q) > tippedTilt }

// tiltOf returns how far orientation q's up axis is tilted from upright, rad.
func tiltOf(q mgl64.Quat) float64 {
	return upTilt(geom.Rotate(geom.QuatNormalize(q), mgl64.Vec3{0, 1, 0}))
}

// upTilt returns how far up axis u is tilted from upright, rad.
func upTilt(u mgl64.Vec3) float64 { return math.Atan2(math.Hypot(u[0], u[2]), u[1]) }

// hullTurn returns how far a hull has turned from orientation a to b: its heading's
// turn and its tilt's (the angle between the two up axes), and each one's tilt from
// upright (tiltOf), rad.
//
// Where neither hull is tipped, the heading's turn is the angle between the forward
// axes' projections on the ground: the heading a clamp keeps. Where one is, it is the
// rotation left once a's up axis is swung onto b's the shortest way (a rotation about
// a horizontal axis, the tilt's turn): a rotation about b's up axis, which the
// quaternions give without reading any projection, so a hull pitching through
// vertical turns by its small steps, and a hull turned about while tipped or on its
// back by π. Where the up axes are opposite, the shortest swing has no definite axis
// and the heading's turn reads π: a hull can only have got there tumbling over.
func hullTurn(a, b mgl64.Quat) (heading, tilt, tiltA, tiltB float64) {
	a, b = geom.QuatNormalize(a), geom.QuatNormalize(b)
	ua, ub := geom.Rotate(a, mgl64.Vec3{0, 1, 0}), geom.Rotate(b, mgl64.Vec3{0, 1, 0})
	tiltA, tiltB = upTilt(ua), upTilt(ub)
	c, axis := ua.Dot(ub), ua.Cross(ub)
	tilt = math.Atan2(axis.Len(), c)
	switch {
	case tiltA <= tippedTilt && tiltB <= tippedTilt:
		heading = math.Abs(geom.WrapAngle(geom.Yaw(b) - geom.Yaw(a)))
	case 1+c < flipped:
		heading = math.Pi
	default:
		swing := geom.QuatNormalize(mgl64.Quat{W: 1 + c, V: axis})
		rest := geom.QuatMul(b, geom.QuatMul(swing, a).Conjugate())
		heading = 2 * math.Atan2(rest.V.Len(), math.Abs(rest.W))
	}
	return heading, tilt, tiltA, tiltB
}

// checkTurn holds next's hull rotation since anchor a to what the tank can do by
// host time now (r): its heading's turn (hullTurn) to the heading's bound, and its
// tilt's to what a hull's up axis can do: move within restTilt of upright at once (the
// ground tilts it so), and beyond it at tumbleRate. Neither is read off a projection that flips, and a tank
// cannot buy a turn by claiming to have tumbled: a tumble takes the tilt's time.
func checkTurn(a *net.Anchor, next *deadreckon.State, now float64, r span) error {
	dt := math.Max(0, now-a.At)
	heading, tilt, tiltA, tiltB := hullTurn(a.Orient, next.Orientation)
	if heading > r.turn+r.turnSlack {
		return refuse(net.MoveTurn, "turned %.2f rad in %.3f s", heading, dt)
	}
	// The up axis crosses the rest at once, and beyond it tumbles: the straight way
	// from one up axis to the other, or down to the rest and up out of it.
	tumble := math.Min(tilt, math.Max(0, tiltA-restTilt)+math.Max(0, tiltB-restTilt))
	if tumble > tumbleRate*(dt+arrivalJitter) {
		return refuse(net.MoveTurn, "tilted %.2f rad in %.3f s", tilt, dt)
	}
	return nil
}

// refused moves anchor a after next, arriving at host time now, was refused by
// checkMove with err: a refusal of its travel or turn yields the anchor (yield).
func (t *moveTrack) refused(a *net.Anchor, next *deadreckon.State, now float64, err error, mo *motion, l *net.Limits) {
	var me *net.MoveError
	if errors.As(err, &me) && (me.Reason == net.MoveSpeed || me.Reason == net.MoveTurn) {
		yield(a, next, now, t.reach(a, now, mo, l))
	}
}

// horizontal returns v's length in the ground plane.
func horizontal(v mgl64.Vec3) float64 { return math.Hypot(v[0], v[2]) }

// checkSpeed holds the velocity field to what a shove gives at most and the
// acceleration field to the tank's, and the horizontal travel since the anchor to
// what the tank can reach (r, with the anchor's slack): a tank may be shoved faster
// for a moment, never for long.
func checkSpeed(a *net.Anchor, next *deadreckon.State, now float64, mo *motion, r span, l *net.Limits) error {
	if v := horizontal(next.Velocity); v > mo.shove {
		return refuse(net.MoveSpeed, "speed %.1f m/s over %.1f", v, mo.shove)
	}
	if acc := next.Acceleration.Len(); acc > mo.accel+mo.accelSlack {
		return refuse(net.MoveAcceleration, "acceleration %.1f m/s² over %.1f", acc, mo.accel)
	}
	if d := horizontal(next.Position.Sub(a.Pos)); d > r.travel+r.travelSlack {
		return refuse(net.MoveSpeed, "travelled %.1f m in %.3f s", d, math.Max(0, now-a.At))
	}
	return nil
}

// checkVelocity holds the horizontal displacement from prev to next to what their
// velocities allow. Over τ seconds between their stamps, a velocity that changes at
// most at the tank's acceleration a, and at once by the difference of the two
// velocities at most (a collision), moves the tank within (|v₁−v₀|/2 + a·τ)·τ of the
// mean v̄ of the two velocities times τ. τ itself may be off: by stampError, or,
// while the owner's clock sync corrects itself, by as much as the stamps' interval
// differs from the arrivals' (dt, s); that moves the tank |v̄| times the error, and at
// least the governed speed times stampError is allowed for it. The velocities lag by
// up to slack metres, and the tank may outrun them by over m/s (a shove past the
// velocity a publisher may send). A velocity of zero while the position moves at
// speed is refused: its mean times any τ is zero.
func checkVelocity(prev, next *deadreckon.State, dt float64, mo *motion, over, slack float64) error {
	tau := math.Max(0, next.Time-prev.Time)
	v0 := mgl64.Vec3{prev.Velocity[0], 0, prev.Velocity[2]}
	v1 := mgl64.Vec3{next.Velocity[0], 0, next.Velocity[2]}
	mean := v0.Add(v1).Mul(0.5)
	d := next.Position.Sub(prev.Position)
	d[1] = 0
	drift := d.Sub(mean.Mul(tau)).Len()
	timing := math.Max(mo.speed*stampError, mean.Len()*(math.Abs(tau-dt)+stampError))
	if allow := (v1.Sub(v0).Len()/2+mo.accel*tau+over)*tau + timing + slack; drift > allow {
		return refuse(net.MoveVelocity, "moved %.1f m in %.3f s, %.1f m off its velocities", d.Len(), tau, drift)
	}
	return nil
}

// checkHeight holds next on the ground, within the clamp's tolerance, or falling from
// where it left it no slower than gravity. It reports whether next is airborne, and
// whether its fall is timed from it (launched): the first airborne state, or one
// within reach of the ground on its way from the last, where the tank may have
// landed and left the ground again between updates.
func (t *moveTrack) checkHeight(next *deadreckon.State, now float64, mo *motion) (air, launched bool, err error) {
	if mo.ground == nil {
		return false, false, nil
	}
	p := next.Position
	g, ok := mo.ground(p[0], p[2])
	if !ok {
		return false, false, refuse(net.MoveHeight, "off the ground at (%.1f, %.1f)", p[0], p[2])
	}
	above := p[1] - g
	switch {
	case above < -clampBelow:
		return false, false, refuse(net.MoveHeight, "%.2f m inside the ground", -above)
	case above <= clampAbove:
		return false, false, nil
	}
	// Airborne: off a ledge, the tank falls from its edge under gravity. The edge is
	// on its way since the last update, no higher than the ground there or the last
	// accepted height; once in the air, it falls from the first airborne height at
	// least as fast as gravity pulls.
	way := t.groundOnTheWay(p, mo)
	top, fell := math.Max(way, t.last.Position[1]), 0.0
	// In the air before, and now within reach of the highest ground on the way: the
	// tank may have landed there and left the ground again between the updates (an
	// honest bot landed 0.36 m above where the host placed the ground, just over the
	// clamp's tolerance, and drove off the next drop: timed from the first fall, it
	// was refused 0.9 m above it). A fall is timed from here on.
	relaunch := t.air && p[1] <= way+fallSlack
	if t.air && !relaunch {
		// Timed by the shorter of the stamps' and the arrivals' intervals: honest
		// stamps are right to within stampError however late an update arrives,
		// unless the owner's clock sync corrects itself meanwhile, when the arrivals
		// are right. A cheat cannot shorten the arrivals' interval, and the host
		// holds its stamps to a window about their arrival, so it gains a fraction
		// of a second of hover at most.
		top = t.airY
		fall := math.Max(0, math.Min(next.Time-t.airAt, now-t.airRecv)-stampError)
		fell = 0.5 * deadreckon.Gravity * fall * fall
	}
	if p[1] > top-fell+fallSlack {
		return true, false, refuse(net.MoveHeight, "%.1f m above the ground, %.1f m above a fall", above, p[1]-(top-fell))
	}
	return true, !t.air || relaunch, nil
}

// launchSamples is how many points of the way from the last update to the next the
// ground is sampled at, for the highest edge a fall may have begun from.
const launchSamples = 8

// groundOnTheWay returns the highest ground on the straight way from the last
// accepted position to p, m (−Inf when none of it is on the ground): where a tank
// that is now in the air can have left the ground, unless the last accepted height
// is higher.
func (t *moveTrack) groundOnTheWay(p mgl64.Vec3, mo *motion) float64 {
	top := math.Inf(-1)
	q := t.last.Position
	for i := range launchSamples + 1 {
		f := float64(i) / launchSamples
		if g, ok := mo.ground(q[0]+f*(p[0]-q[0]), q[2]+f*(p[2]-q[2])); ok {
			top = math.Max(top, g)
		}
	}
	return top
}

// checkArticulations holds a tank's turret and gun to their rates over dt seconds of
// arrival since prev (with the stamps' interval if longer, and arrivalJitter), their
// published rates to the same limits, and the gun to its elevation limits.
func checkArticulations(prev, next *deadreckon.State, dt float64, mo *motion) error {
	if next.NumArticulations <= gunArticulation || prev.NumArticulations <= gunArticulation {
		return nil
	}
	span := math.Max(dt, next.Time-prev.Time) + arrivalJitter
	for _, j := range []struct {
		name string
		i    int
		rate float64
	}{{"turret", turretArticulation, mo.turret}, {"gun", gunArticulation, mo.gun}} {
		a0, a1 := prev.Articulations[j.i], next.Articulations[j.i]
		if r := math.Abs(a1.Rate); r > j.rate+mo.rateSlack {
			return refuse(net.MoveArticulation, "%s rate %.2f rad/s over %.2f", j.name, r, j.rate)
		}
		if d := math.Abs(geom.WrapAngle(a1.Angle - a0.Angle)); d > j.rate*span+articulationSlack {
			return refuse(net.MoveArticulation, "%s turned %.2f rad in %.3f s", j.name, d, dt)
		}
	}
	if g := next.Articulations[gunArticulation].Angle; g < mo.gunLo-articulationSlack || g > mo.gunHi+articulationSlack {
		return refuse(net.MoveArticulation, "gun at %.3f rad outside %.3f…%.3f", g, mo.gunLo, mo.gunHi)
	}
	return nil
}

// Mover holds every update to what the one tank of the match can do (its governed
// speed and acceleration, its heading's turn, a velocity that matches its
// displacement, its turret and gun, and on a map its height on the ground): it is
// net's Mover. It remembers of each actor its last accepted state and when it last
// met another tank, and keeps the actors in a grid so that finding the tanks next
// to one costs what its neighbourhood holds. The host's run loop calls it, one call
// at a time; it is not safe for concurrent use.
type Mover struct {
	mo     motion
	tracks map[uint32]*moveTrack
	grid   *grid.Grid[*moveTrack]
	near   []*moveTrack // reused by meet
}

var _ net.Mover = (*Mover)(nil)

// NewMover returns the movement rules of tank s (zero fields take tank.Default()'s)
// on ground: the height of the ground a tank rests on at (x, z), m (for a map,
// terrain.Map.SurfaceAt, the surface the tanks' ground clamp hits), ok false off the
// ground. With a ground every update is held on it, or falling from it no slower
// than gravity; with nil, heights are held only to net.Limits.HeightRange. NewMover
// panics if s is invalid (tank.Spec.Validate).
func NewMover(s tank.Spec, ground func(x, z float64) (h float64, ok bool)) *Mover {
	if err := s.Validate(); err != nil {
		panic("referee: NewMover: " + err.Error())
	}
	mo := newMotion(s, ground)
	return &Mover{mo: mo, tracks: map[uint32]*moveTrack{},
		grid: grid.New[*moveTrack](mo.contact + net.DefaultPositionSlack + mo.shove*net.AnchorPeriod)}
}

// Grounded reports whether the mover holds heights to a ground.
func (m *Mover) Grounded() bool { return m.mo.ground != nil }

// GroundHeight returns the height of the ground a tank rests on at (x, z), m, and
// false off it or without a ground: the host's net.Grounder, which puts the state a
// progress along a route implies on the ground the mover holds it to.
func (m *Mover) GroundHeight(x, z float64) (float64, bool) {
	if m.mo.ground == nil {
		return 0, false
	}
	return m.mo.ground(x, z)
}

var _ net.Grounder = (*Mover)(nil)

// Spawned starts the track of actor at its spawn state s, keeping the turret and
// gun of the state its owner asked for.
func (m *Mover) Spawned(actor, owner uint32, s, asked deadreckon.State, at float64) {
	if old := m.tracks[actor]; old != nil {
		m.grid.Remove(old)
	}
	t := &moveTrack{}
	t.start(&s, &asked, at)
	t.owner = owner
	m.tracks[actor] = t
	m.grid.Move(t, s.Position[0], s.Position[2])
}

// Despawned forgets actor.
func (m *Mover) Despawned(actor uint32, at float64) {
	if t := m.tracks[actor]; t != nil {
		m.grid.Remove(t)
		delete(m.tracks, actor)
	}
}

// Move records whether the tank met another, then holds next to what it can do
// (checkMove).
func (m *Mover) Move(actor uint32, next *deadreckon.State, pin *net.Anchor, at float64, l *net.Limits) error {
	t := m.tracks[actor]
	if t == nil {
		return fmt.Errorf("%w: actor %d never spawned", deadreckon.ErrInvalidState, actor)
	}
	m.meet(t, next, at, l)
	if err := checkMove(t, pin, next, at, &m.mo, l); err != nil {
		return err
	}
	m.grid.Move(t, next.Position[0], next.Position[2])
	return nil
}

// Refused yields the anchor after a refusal of the travel or the turn.
func (m *Mover) Refused(actor uint32, next *deadreckon.State, pin *net.Anchor, at float64, err error, l *net.Limits) {
	if t := m.tracks[actor]; t != nil {
		t.refused(pin, next, at, err, &m.mo, l)
	}
}

// meet records in t whether next, arriving at host time now, or t's last accepted
// state is next to another tank's last accepted state: within the distance at which
// two hulls touch, plus the position slack and how far the other can have moved
// since (at the shove bound, for at most an anchor period). Only the grid's cells
// within the farthest such distance are looked at.
func (m *Mover) meet(t *moveTrack, next *deadreckon.State, now float64, l *net.Limits) {
	mo := &m.mo
	reach := mo.contact + l.PositionSlack + mo.shove*net.AnchorPeriod
	for _, p := range [2]mgl64.Vec3{next.Position, t.last.Position} {
		m.near = m.grid.AppendNear(m.near[:0], p[0], p[2], reach)
		for _, o := range m.near {
			if o == t {
				continue
			}
			r := mo.contact + l.PositionSlack + mo.shove*math.Min(math.Max(0, now-o.lastAt), net.AnchorPeriod)
			q := o.last.Position
			if within(next.Position, q, r) || within(t.last.Position, q, r) {
				t.met(now, o.owner != t.owner)
			}
		}
	}
	clear(m.near)
}

// within reports whether p and q are at most r apart in the ground plane.
func within(p, q mgl64.Vec3, r float64) bool {
	dx, dz := p[0]-q[0], p[2]-q[2]
	return dx*dx+dz*dz <= r*r
}
