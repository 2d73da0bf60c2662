package bot

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// Difficulty sets how well bots shoot.
type Difficulty uint8

// The bot difficulties; the zero value is Normal.
const (
	Normal Difficulty = iota
	Easy
	Hard
)

var difficultyNames = [...]string{"normal", "easy", "hard"}

// String returns the difficulty's flag spelling.
func (d Difficulty) String() string {
	if int(d) < len(difficultyNames) {
		return difficultyNames[d]
	}
	return fmt.Sprintf("difficulty(%d)", uint8(d))
}

// MarshalText returns the difficulty's flag spelling.
func (d Difficulty) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "easy", "normal" or "hard" (flag.TextVar).
func (d *Difficulty) UnmarshalText(b []byte) error {
	v, err := ParseDifficulty(string(b))
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// ParseDifficulty reads "easy", "normal" or "hard".
func ParseDifficulty(s string) (Difficulty, error) {
	for i, n := range difficultyNames {
		if n == s {
			return Difficulty(i), nil
		}
	}
	return Normal, fmt.Errorf("bot: unknown difficulty %q (want easy, normal or hard)", s)
}

// skill is what a difficulty means for a gunner.
type skill struct {
	reaction float64 // time a target must be in view before the first shot, s
	aimError float64 // standard deviation of the aim error when a target is acquired, rad
	settle   float64 // time constant of the aim settling onto the target, s
	residual float64 // standard deviation of the error left after settling, rad
	lead     float64 // share of the target's motion over the shell's flight led
	rangeM   float64 // how far it engages a tank, m
}

// Human gunners react in a quarter to a whole second and settle their aim in about a
// second. The hard bot does that and takes every shot out to DefaultGunnerRange. The
// normal bot reacts in 0.9 s, stays 0.8° off (a tank's width at 250 m), leads a
// little short and takes only the shots it can make, within 120 m. The easy bot, for
// a newcomer, reacts in two seconds, settles slowly, leads too little, stays off by
// 1.6° (a tank's width at 130 m) and engages within 100 m: it misses often, and a
// newcomer who sees it first has time to aim.
var skills = [...]skill{
	Normal: {reaction: 0.9, aimError: 3 * math.Pi / 180, settle: 1.2, residual: 0.8 * math.Pi / 180, lead: 0.7, rangeM: 120},
	Easy:   {reaction: 2.0, aimError: 5 * math.Pi / 180, settle: 2.0, residual: 1.6 * math.Pi / 180, lead: 0.4, rangeM: 100},
	Hard:   {reaction: 0.35, aimError: 1.2 * math.Pi / 180, settle: 0.6, residual: 0.15 * math.Pi / 180, lead: 1, rangeM: DefaultGunnerRange},
}

// Target is a tank a gunner may shoot at, as its peer displays it.
type Target struct {
	// ID is the tank's actor id.
	ID uint32
	// Position and Velocity are the displayed (reckoned) position, m, and velocity, m/s.
	Position, Velocity mgl64.Vec3
	// Enemy reports that the tank is of another team and not a wreck.
	Enemy bool
	// Engaged counts the other gunners of this peer aiming at the tank: each makes it
	// count as half again as far, so bots spread their fire instead of all taking the
	// same tank (the player's, in practice).
	Engaged int
}

// DefaultGunnerRange is how far the best (hard) bot engages a tank, m; easier bots
// engage nearer. It is the range within which a tank counts as in a gunner's sight.
const DefaultGunnerRange = 220.0

// aimTolerance is how close the barrel must point to the aim before a bot fires, rad.
const aimTolerance = 1.2 * math.Pi / 180

// Gunner is a bot's gunner: it picks the nearest enemy it can see in range, leads it by
// its displayed velocity over the shell's flight, aims with a human error that
// settles over time after a reaction delay, and fires when the barrel is on. The
// random draws come from its seed, so the same seed and inputs give the same shots.
//
// A Gunner is not safe for concurrent use.
type Gunner struct {
	terr   *terrain.Map
	skill  skill
	rng    *rand.Rand
	rangeM float64

	target   uint32
	has      bool
	seenAt   float64 // when the current target came into view, s
	errYaw   float64 // aim error drawn at acquisition, rad
	errPitch float64
	resYaw   float64 // residual error, drawn again after each shot, rad
	resPitch float64
}

// NewGunner returns a gunner of difficulty d on map m.
func NewGunner(m *terrain.Map, d Difficulty, seed uint64) *Gunner {
	if int(d) >= len(skills) {
		d = Normal
	}
	return &Gunner{terr: m, skill: skills[d], rng: rand.New(rand.NewPCG(seed, 0x6a7e_f13e)), rangeM: skills[d].rangeM}
}

// Target returns the actor the gunner aims at, and false when it has none.
func (g *Gunner) Target() (uint32, bool) { return g.target, g.has }

// Aim is a gunner's decision for one tick.
type Aim struct {
	// Engaged reports that the gunner has a target; then AimYaw and GunElevation
	// replace the driver's turret input.
	Engaged bool
	// Target is the actor aimed at.
	Target uint32
	// AimYaw is the world yaw to turn the turret to, rad; GunElevation the elevation
	// relative to the hull, rad.
	AimYaw, GunElevation float64
	// Fire asks for a shot now.
	Fire bool
}

// Aim decides, at time now (s), where the tank with pose p aims among targets and
// whether it fires (only when loaded).
func (g *Gunner) Aim(now float64, p physics.Pose, targets []Target, loaded bool) Aim {
	eye := p.Position.Add(p.Orientation.Rotate(tank.Default().TurretPivot))
	best, bestD := -1, g.rangeM
	for i := range targets {
		t := &targets[i]
		if !t.Enemy {
			continue
		}
		d := t.Position.Sub(p.Position).Len()
		d *= 1 + 0.5*float64(t.Engaged)
		if d < bestD && d > 2 && g.visible(eye, t.Position) {
			best, bestD = i, d
		}
	}
	if best < 0 {
		g.has = false
		return Aim{}
	}
	t := &targets[best]
	if !g.has || g.target != t.ID {
		g.has, g.target, g.seenAt = true, t.ID, now
		g.errYaw, g.errPitch = g.rng.NormFloat64()*g.skill.aimError, 0.5*g.rng.NormFloat64()*g.skill.aimError
		g.resYaw, g.resPitch = g.rng.NormFloat64()*g.skill.residual, g.rng.NormFloat64()*g.skill.residual
	}
	// Lead: where the hull's middle will be when the shell gets there.
	aimPt := t.Position.Add(mgl64.Vec3{0, 1.1, 0})
	muzzle, _ := combat.Muzzle(p.Position, p.Orientation, p.Turret, p.Gun)
	var flight float64
	for range 3 {
		flight = aimPt.Add(t.Velocity.Mul(g.skill.lead*flight)).Sub(muzzle).Len() / combat.MuzzleVelocity
	}
	aimPt = aimPt.Add(t.Velocity.Mul(g.skill.lead * flight))
	d := aimPt.Sub(muzzle)
	yaw := math.Atan2(-d[2], d[0])
	pitch, ok := combat.BallisticElevation(math.Hypot(d[0], d[2]), d[1])
	if !ok {
		return Aim{}
	}
	decay := math.Exp(-(now - g.seenAt) / g.skill.settle)
	yaw += g.errYaw*decay + g.resYaw
	pitch += g.errPitch*decay + g.resPitch
	// The gun elevates relative to the hull: take out the hull's tilt along the aim.
	cp := math.Cos(pitch)
	world := mgl64.Vec3{cp * math.Cos(yaw), math.Sin(pitch), -cp * math.Sin(yaw)}
	local := p.Orientation.Conjugate().Rotate(world)
	elev := math.Asin(math.Max(-1, math.Min(1, local[1])))
	a := Aim{Engaged: true, Target: t.ID, AimYaw: yaw, GunElevation: elev}
	_, barrel := combat.Muzzle(p.Position, p.Orientation, p.Turret, p.Gun)
	if loaded && now-g.seenAt >= g.skill.reaction && angleBetween(barrel, world) < aimTolerance {
		a.Fire = true
		g.resYaw, g.resPitch = g.rng.NormFloat64()*g.skill.residual, g.rng.NormFloat64()*g.skill.residual
	}
	return a
}

// visible reports whether the line from eye to a tank's turret at pos clears the terrain.
func (g *Gunner) visible(eye, pos mgl64.Vec3) bool {
	to := pos.Add(mgl64.Vec3{0, 1.8, 0}).Sub(eye)
	l := to.Len()
	if l == 0 {
		return true
	}
	_, hit := g.terr.Raycast(eye, to, l)
	return !hit
}

// angleBetween returns the angle between unit vectors a and b, rad.
func angleBetween(a, b mgl64.Vec3) float64 {
	return math.Acos(math.Max(-1, math.Min(1, a.Dot(b))))
}
