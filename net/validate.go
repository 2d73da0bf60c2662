package net

import (
	"errors"
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/tank"
)

// quantSlack is the length of a vector of half-steps on three axes, in steps.
const quantSlack = 0.8660254037844386 // √3 / 2

// stateLimits returns the bounds the host checks a state's values against, in the one
// validator of package deadreckon: the host's tank-like limits, each widened by what
// the wire's quantization may add (a value at the limit may come back a hair above
// it). Position and time are checked against the match (validateState), not here.
func (l *Limits) stateLimits() deadreckon.Limits {
	return deadreckon.Limits{
		MaxPosition:         -1,
		MaxSpeed:            l.MaxSpeed + quantSlack*wire.VelocityStep,
		MaxAcceleration:     l.MaxAcceleration + quantSlack*wire.AccelerationStep,
		MaxAngularSpeed:     l.MaxTurnRate + quantSlack*wire.AngularVelocityStep,
		MaxArticulationRate: l.MaxArticulationRate + wire.ArticulationRateStep,
		MaxTime:             -1,
	}
}

// validateState checks one state on its own and normalizes it: its values by
// deadreckon's validator with the host's limits (stateLimits), then the match's rules:
// the position inside the map and a timestamp near the host's clock hostNow. Every
// failure wraps deadreckon.ErrInvalidState.
func validateState(s *deadreckon.State, m MatchSettings, l *Limits, hostNow float64) error {
	v, err := l.stateLimits().Validate(*s)
	if err != nil {
		return err
	}
	p := v.Position
	if math.Abs(p[0]) > m.Extent || math.Abs(p[2]) > m.Extent || math.Abs(p[1]) > l.HeightRange {
		return fmt.Errorf("%w: position %.1f outside the map", deadreckon.ErrInvalidState, p)
	}
	if d := v.Time - hostNow; math.Abs(d) > l.TimeSlack.Seconds() {
		return fmt.Errorf("%w: timestamp %.3f s from host clock", deadreckon.ErrInvalidState, d)
	}
	*s = v
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

// arrivalJitter is how much longer than the time between their arrivals two updates
// may be apart on the owner's clock, s: updates sent frames apart may arrive together
// (an honest bot's update was refused as "turned 0.68 rad in 0.034 s": a collision's
// spin, its updates bunched on arrival). It widens the heading's turn budget by a
// tenth of a second at its rate (0.33 rad alone, 0.89 rad after a collision).
const arrivalJitter = 0.1

// maxStampRegress is how far in seconds an owner's timestamps may run backwards
// between updates (a clock-sync correction) before the update is refused.
const maxStampRegress = 0.3

// validateStep checks that next, arriving at host time now, follows plausibly from
// the actor's anchor: the travel since the anchor, in three dimensions, fits
// maxTravel (Limits.MaxSpeed, or after silence what a vehicle can reach from its
// anchored speed) with slack for quantization and corrections, and the owner's
// timestamp does not run backwards. It is the bound where the host knows no ground,
// and for an update from where its owner asked to spawn; on the ground, the tank's
// own limits are checkMove's.
func validateStep(a *anchor, next *deadreckon.State, now float64, l *Limits) error {
	if err := a.checkStamp(next); err != nil {
		return err
	}
	dt := math.Max(0, now-a.at)
	if d := next.Position.Sub(a.pos).Len(); d > maxTravel(a.speed, dt, l) {
		return fmt.Errorf("%w: moved %.1f m in %.3f s", deadreckon.ErrInvalidState, d, dt)
	}
	return nil
}

// checkStamp refuses next when its owner's timestamp runs more than maxStampRegress
// behind the last accepted one.
func (a *anchor) checkStamp(next *deadreckon.State) error {
	if next.Time < a.stamp-maxStampRegress {
		return fmt.Errorf("%w: timestamp %.3f s before the previous %.3f s", deadreckon.ErrInvalidState, next.Time, a.stamp)
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

// yield moves the anchor after next, arriving at host time now, was refused for its
// travel or its turn (a *moveError of reason moveSpeed or moveTurn): to the farthest
// the tank can have got towards next by now (b), as if an update at the bound had
// come. So a single marginal refusal of an honest tank (a shove that carried it a
// few decimetres past the bound) does not refuse its every update after it, all
// measured from an anchor it left for good; and a cheat gains nothing by it, since
// an update at the bound would have been accepted and moved the anchor as far. Like
// an accepted update, it takes the slack only once per anchorPeriod.
func (a *anchor) yield(next *deadreckon.State, now float64, b span) {
	if now-a.at < anchorPeriod {
		b.travelSlack, b.turnSlack = 0, 0
	}
	travel, turn := b.travel+b.travelSlack, b.turn+b.turnSlack
	d := next.Position.Sub(a.pos)
	d[1] = 0
	if l := d.Len(); l > travel {
		d = d.Mul(travel / l)
	}
	dy := math.Max(-travel, math.Min(travel, next.Position[1]-a.pos[1]))
	yaw := geom.Yaw(a.orient)
	a.pos = a.pos.Add(mgl64.Vec3{d[0], dy, d[2]})
	a.orient = geom.YawQuat(yaw + math.Max(-turn, math.Min(turn, geom.WrapAngle(geom.Yaw(next.Orientation)-yaw))))
	a.at = now
	a.speed = math.Min(horizontal(next.Velocity), b.speed)
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
	// driftShare is the share of Limits.PositionSlack (the tolerance for
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
	shove := shoveFactor*s.TopSpeed + quantSlack*wire.VelocityStep
	contact := shove + proxyCatchUp
	return motion{
		speed: speedFactor * s.TopSpeed, shove: shove, contactV: contact,
		turn: math.Max(s.TurnRate, s.TopSpeed/(2*gyration)), spin: contact / (2 * gyration),
		contact: math.Hypot(s.Length, s.Width),
		accel:   s.Acceleration,
		turret:  s.TurretRate, gun: s.GunRate, gunLo: s.GunMin, gunHi: s.GunMax,
		ground: ground, rateSlack: wire.ArticulationRateStep, accelSlack: quantSlack * wire.AccelerationStep,
	}
}

// moveReason is what a refused update's tank could not have done.
type moveReason uint8

const (
	moveSpeed        moveReason = iota // faster than the governed speed
	moveVelocity                       // a velocity that does not match the displacement
	moveAcceleration                   // harder than the tank accelerates
	moveHeight                         // off the ground: flying, or inside it
	moveArticulation                   // turret or gun beyond its rates or limits
	moveTurn                           // the hull turned faster than its tracks or a collision turn it
)

// moveError is a refusal by the movement checks; it wraps deadreckon.ErrInvalidState.
type moveError struct {
	reason moveReason
	msg    string
}

func (e *moveError) Error() string { return deadreckon.ErrInvalidState.Error() + ": " + e.msg }

func (e *moveError) Unwrap() error { return deadreckon.ErrInvalidState }

func refuse(r moveReason, format string, args ...any) error {
	return &moveError{reason: r, msg: fmt.Sprintf(format, args...)}
}

// MoveRefusals counts the updates refused because their tank could not have moved
// so, by what it could not have done. Each is also counted in HostStats.Invalid.
type MoveRefusals struct {
	// Speed: a horizontal velocity or a travel faster than the tank's governed top
	// speed allows.
	Speed uint64
	// Velocity: a velocity that does not match the update's displacement.
	Velocity uint64
	// Acceleration: an acceleration beyond the tank's.
	Acceleration uint64
	// Height: above the ground when not falling from it under gravity, or inside it.
	Height uint64
	// Articulation: a turret or gun turned faster than its rate, a rate beyond it, or
	// a gun beyond its limits.
	Articulation uint64
	// Turn: a heading turned faster than the tank's tracks turn it, or a collision
	// spins it.
	Turn uint64
}

// count adds err to the counts if it is a movement refusal.
func (c *MoveRefusals) count(err error) {
	var me *moveError
	if !errors.As(err, &me) {
		return
	}
	switch me.reason {
	case moveSpeed:
		c.Speed++
	case moveVelocity:
		c.Velocity++
	case moveAcceleration:
		c.Acceleration++
	case moveHeight:
		c.Height++
	case moveArticulation:
		c.Articulation++
	case moveTurn:
		c.Turn++
	}
}

// moveTrack is what the movement checks remember of an actor: its last accepted
// state, while it is airborne where its fall began, and when it last met another
// tank.
type moveTrack struct {
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
	*t = moveTrack{last: *s, lastAt: now, metAt: math.Inf(-1), shoveAt: math.Inf(-1)}
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
func (t *moveTrack) reach(a *anchor, now float64, mo *motion, l *Limits) span {
	dt := math.Max(0, now-a.at)
	gov := *l
	gov.MaxSpeed, gov.MaxAcceleration = mo.speed, mo.accel
	if t.shoveAt >= a.at-collisionMemory {
		gov.MaxSpeed = mo.contactV
	}
	turn := mo.turn
	if t.metAt >= a.at-collisionMemory {
		turn = mo.spin
	}
	return span{travel: maxTravel(a.speed, dt, &gov) - l.PositionSlack, travelSlack: l.PositionSlack,
		turn: turn * (dt + arrivalJitter), turnSlack: l.TurnSlack, speed: gov.MaxSpeed}
}

// checkMove holds next, arriving at host time now, to what the tank can do after its
// last accepted state (t.last) and its anchor a: the governed speed, on the velocity
// field and on the travel since the anchor; its heading's turn since the anchor; a
// velocity that matches the displacement; the acceleration; the height on the ground,
// or falling from it; and the turret and gun within their rates and limits. It returns
// a *moveError, or nil and records next as accepted in t.
func checkMove(t *moveTrack, a *anchor, next *deadreckon.State, now float64, mo *motion, l *Limits) error {
	r := t.reach(a, now, mo, l)
	if err := checkSpeed(a, next, now, mo, r, l); err != nil {
		return err
	}
	// Only the heading is rate-limited: a tank turns about its vertical axis. Its
	// pitch and roll are the ground's under its three clamp points, and change at once
	// where it rolls over a crest or a rock's edge, or lands from a ledge, so a tilt
	// taken in one tick is honest.
	if d := math.Abs(geom.WrapAngle(geom.Yaw(next.Orientation) - geom.Yaw(a.orient))); d > r.turn+r.turnSlack {
		return refuse(moveTurn, "turned %.2f rad in %.3f s", d, math.Max(0, now-a.at))
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

// refused moves anchor a after next, arriving at host time now, was refused by
// checkMove with err: a refusal of its travel or turn yields the anchor (anchor.yield).
func (t *moveTrack) refused(a *anchor, next *deadreckon.State, now float64, err error, mo *motion, l *Limits) {
	var me *moveError
	if errors.As(err, &me) && (me.reason == moveSpeed || me.reason == moveTurn) {
		a.yield(next, now, t.reach(a, now, mo, l))
	}
}

// horizontal returns v's length in the ground plane.
func horizontal(v mgl64.Vec3) float64 { return math.Hypot(v[0], v[2]) }

// checkSpeed holds the velocity field to what a shove gives at most and the
// acceleration field to the tank's, and the horizontal travel since the anchor to
// what the tank can reach (r, with the anchor's slack): a tank may be shoved faster
// for a moment, never for long.
func checkSpeed(a *anchor, next *deadreckon.State, now float64, mo *motion, r span, l *Limits) error {
	if v := horizontal(next.Velocity); v > mo.shove {
		return refuse(moveSpeed, "speed %.1f m/s over %.1f", v, mo.shove)
	}
	if acc := next.Acceleration.Len(); acc > mo.accel+mo.accelSlack {
		return refuse(moveAcceleration, "acceleration %.1f m/s² over %.1f", acc, mo.accel)
	}
	if d := horizontal(next.Position.Sub(a.pos)); d > r.travel+r.travelSlack {
		return refuse(moveSpeed, "travelled %.1f m in %.3f s", d, math.Max(0, now-a.at))
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
		return refuse(moveVelocity, "moved %.1f m in %.3f s, %.1f m off its velocities", d.Len(), tau, drift)
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
		return false, false, refuse(moveHeight, "off the ground at (%.1f, %.1f)", p[0], p[2])
	}
	above := p[1] - g
	switch {
	case above < -clampBelow:
		return false, false, refuse(moveHeight, "%.2f m inside the ground", -above)
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
		// are right. A cheat cannot shorten the arrivals' interval, and its stamps
		// stay within their window (stampWindow), so it gains a fraction of a second
		// of hover at most.
		top = t.airY
		fall := math.Max(0, math.Min(next.Time-t.airAt, now-t.airRecv)-stampError)
		fell = 0.5 * deadreckon.Gravity * fall * fall
	}
	if p[1] > top-fell+fallSlack {
		return true, false, refuse(moveHeight, "%.1f m above the ground, %.1f m above a fall", above, p[1]-(top-fell))
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
			return refuse(moveArticulation, "%s rate %.2f rad/s over %.2f", j.name, r, j.rate)
		}
		if d := math.Abs(geom.WrapAngle(a1.Angle - a0.Angle)); d > j.rate*span+articulationSlack {
			return refuse(moveArticulation, "%s turned %.2f rad in %.3f s", j.name, d, dt)
		}
	}
	if g := next.Articulations[gunArticulation].Angle; g < mo.gunLo-articulationSlack || g > mo.gunHi+articulationSlack {
		return refuse(moveArticulation, "gun at %.3f rad outside %.3f…%.3f", g, mo.gunLo, mo.gunHi)
	}
	return nil
}
