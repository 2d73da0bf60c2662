package combat

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// Defaults for Rules.
const (
	// DefaultMaxHealth is a tank's hit points.
	DefaultMaxHealth = 100.0
	// DefaultDamage is the damage of a square hit on the side armour.
	DefaultDamage = 40.0
	// DefaultReload is the time between two shots of a tank, s.
	DefaultReload = 3.0
	// DefaultWreckTime is how long a destroyed tank stays a wreck before it respawns, s.
	DefaultWreckTime = 5.0
	// DefaultTimeLimit is the length of a match, s.
	DefaultTimeLimit = 600.0
	// DefaultScoreLimit is the team score (kills) that ends a match.
	DefaultScoreLimit = 20
	// DefaultScoreboardTime is how long the scoreboard shows between matches, s.
	DefaultScoreboardTime = 20.0
	// DefaultSpawnProtection is how long a freshly spawned tank takes no damage, s,
	// unless it fires first or drives SpawnProtectionReach away: time to see where it
	// is.
	DefaultSpawnProtection = 3.0
	// SpawnProtectionReach is how far a tank drives from where it spawned, m, before
	// its spawn protection ends: a tank that turns and settles on its place keeps it,
	// one that drove off toward the fight (1.5 s at top speed) has left it.
	SpawnProtectionReach = 20.0
)

// Off turns off the Rules whose fields say they may be Off: the time limit, the score
// limit and spawn protection. Zero never means off: a zero field takes its default.
const Off = -1

// Rules are a match's rules of combat. The zero value takes every default.
type Rules struct {
	// MaxHealth is a tank's hit points. If zero, defaults to DefaultMaxHealth.
	MaxHealth float64
	// Damage is the damage of a square hit on the side. If zero, defaults to DefaultDamage.
	Damage float64
	// NoArmour deals Damage wherever and however a shell strikes. By default the front
	// is thicker (½), the rear and roof thinner (1½, 1¼), and a glancing hit does less
	// (× ½ + ½ cos of the angle from the face's normal).
	NoArmour bool
	// Reload is the time between two shots of a tank, s. If zero, defaults to DefaultReload.
	Reload float64
	// WreckTime is how long a wreck stays before its tank respawns, s. If zero,
	// defaults to DefaultWreckTime.
	WreckTime float64
	// TimeLimit is the length of a match, s. If zero, defaults to DefaultTimeLimit;
	// Off (or any negative) means no limit.
	TimeLimit float64
	// ScoreLimit is the team score that ends a match. If zero, defaults to
	// DefaultScoreLimit; Off (or any negative) means no limit.
	ScoreLimit int
	// ScoreboardTime is how long the final scoreboard shows before the next match, s.
	// If zero, defaults to DefaultScoreboardTime.
	ScoreboardTime float64
	// SpawnProtection is how long a tank takes no damage after it spawns, unless it
	// fires first or drives SpawnProtectionReach away (Protected), s. If zero, defaults to DefaultSpawnProtection; Off (or any
	// negative) means none.
	SpawnProtection float64
}

// WithDefaults returns r with zero fields replaced by their defaults; it rejects
// values that are not finite or are negative where a duration is meant.
func (r Rules) WithDefaults() (Rules, error) {
	for _, f := range []struct {
		name string
		v    float64
	}{{"max health", r.MaxHealth}, {"damage", r.Damage}, {"reload", r.Reload}, {"wreck time", r.WreckTime},
		{"scoreboard time", r.ScoreboardTime}} {
		if !(f.v >= 0) || math.IsInf(f.v, 0) {
			return r, fmt.Errorf("combat: rules: %s %v is not a non-negative number", f.name, f.v)
		}
	}
	if math.IsNaN(r.TimeLimit) || math.IsInf(r.TimeLimit, 0) {
		return r, fmt.Errorf("combat: rules: time limit %v is not finite", r.TimeLimit)
	}
	def := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&r.MaxHealth, DefaultMaxHealth)
	def(&r.Damage, DefaultDamage)
	def(&r.Reload, DefaultReload)
	def(&r.WreckTime, DefaultWreckTime)
	def(&r.TimeLimit, DefaultTimeLimit)
	def(&r.ScoreboardTime, DefaultScoreboardTime)
	def(&r.SpawnProtection, DefaultSpawnProtection)
	if r.ScoreLimit == 0 {
		r.ScoreLimit = DefaultScoreLimit
	}
	return r, nil
}

// DamageOf returns the damage a shell moving along dir (world) does when it strikes a
// hull face with outward normal n (hull frame) of a hull with orientation q.
func (r Rules) DamageOf(dir mgl64.Vec3, n mgl64.Vec3, q mgl64.Quat) float64 {
	if r.NoArmour || n == (mgl64.Vec3{}) {
		return r.Damage
	}
	face := 1.0
	switch {
	case n[0] > 0.5:
		face = 0.5 // front
	case n[0] < -0.5:
		face = 1.5 // rear
	case n[1] > 0.5:
		face = 1.25 // roof
	}
	local := q.Conjugate().Rotate(dir)
	if l := local.Len(); l > 0 {
		local = local.Mul(1 / l)
	}
	cos := math.Max(0, -local.Dot(n))
	return r.Damage * face * (0.5 + 0.5*cos)
}

// Enemies reports whether tanks of teams a and b fight each other: team 0 is no team
// (everyone's enemy); tanks of one other team are friends, and their shells do them
// no harm.
func Enemies(a, b int) bool { return a == 0 || b == 0 || a != b }

// Protected reports whether a tank is under spawn protection by rules r (defaults
// filled in, see WithDefaults): it spawned less than r.SpawnProtection seconds ago
// (age), has not fired since, and has driven less than SpawnProtectionReach from
// where it spawned (far, the farthest it has been, m). The host's referee decides
// by it; every peer shows it.
func (r Rules) Protected(age float64, fired bool, far float64) bool {
	return !fired && age < r.SpawnProtection && far < SpawnProtectionReach
}
