package tank

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
)

// The default tank: a 50 t main battle tank.
const (
	// DefaultLength is the hull's length over the tracks, m.
	DefaultLength = 6.9
	// DefaultWidth is the hull's width over the tracks, m.
	DefaultWidth = 3.6
	// DefaultHeight is the height of the turret roof above the ground, m.
	DefaultHeight = 2.3
	// DefaultBarrelLength is the distance from the gun's trunnion to the muzzle, m.
	DefaultBarrelLength = 4.2
	// DefaultTopSpeed is the governed forward speed, m/s (54 km/h).
	DefaultTopSpeed = 15.0
	// DefaultReverseSpeed is the governed reverse speed, m/s (22 km/h).
	DefaultReverseSpeed = 6.0
	// DefaultTurnRate is the hull's yaw rate turning in place, rad/s (35°/s).
	DefaultTurnRate = 35 * math.Pi / 180
	// DefaultTurretRate is the turret traverse rate, rad/s (40°/s).
	DefaultTurretRate = 40 * math.Pi / 180
	// DefaultGunRate is the gun elevation rate, rad/s (20°/s).
	DefaultGunRate = 20 * math.Pi / 180
	// DefaultGunMin is the lowest gun elevation, rad (−8°).
	DefaultGunMin = -8 * math.Pi / 180
	// DefaultGunMax is the highest gun elevation, rad (+20°).
	DefaultGunMax = 20 * math.Pi / 180
	// DefaultAcceleration is the largest acceleration the hull's motion shows, m/s²
	// (about 1.6 g): above its hardest turn at speed (the tracks' sideways grip,
	// 0.8 g), its hardest stop (their traction, 0.6 g) and gravity's pull down the
	// steepest slope it rests on (45°, 0.7 g), below a collision's one-frame spike.
	DefaultAcceleration = 16.0
)

// Spec is a tank's shape and the limits of its motion. Default returns the game's
// tank; a zero field means the default's value (WithDefaults).
type Spec struct {
	// Length and Width are the hull's footprint over the tracks, m; Height is the
	// height of the turret roof above the ground, m. Together they are the hull box
	// that collides and is hit. If zero, DefaultLength, DefaultWidth, DefaultHeight.
	Length, Width, Height float64
	// TurretPivot is the turret's rotation centre in the hull frame, m: the middle
	// of the turret ring on the hull's deck. If zero, (−0.4, 1.55, 0).
	TurretPivot mgl64.Vec3
	// GunPivot is the gun's trunnion in the turret frame, m. If zero, (1.1, 0.375, 0).
	GunPivot mgl64.Vec3
	// BarrelLength is the distance from the trunnion to the muzzle, m. If zero,
	// DefaultBarrelLength.
	BarrelLength float64
	// TopSpeed and ReverseSpeed are the governed speeds, m/s. If zero,
	// DefaultTopSpeed and DefaultReverseSpeed.
	TopSpeed, ReverseSpeed float64
	// TurnRate is the hull's yaw rate at full steer and no throttle, rad/s. If zero,
	// DefaultTurnRate.
	TurnRate float64
	// TurretRate and GunRate are the turret traverse and gun elevation rates, rad/s.
	// If zero, DefaultTurretRate and DefaultGunRate.
	TurretRate, GunRate float64
	// Acceleration bounds the hull's acceleration, m/s², collisions apart: what its
	// published motion may show and what a host accepts. If zero,
	// DefaultAcceleration.
	Acceleration float64
	// GunMin and GunMax limit the gun elevation, rad. If both are zero,
	// DefaultGunMin and DefaultGunMax.
	GunMin, GunMax float64
}

// Default returns the game's tank: 6.9 m × 3.6 m over the tracks and 2.3 m to the
// turret roof, its turret ring 0.4 m behind the middle on a 1.55 m deck, a 4.2 m
// barrel, 15 m/s ahead and 6 m/s astern.
func Default() Spec {
	return Spec{
		Length: DefaultLength, Width: DefaultWidth, Height: DefaultHeight,
		TurretPivot:  mgl64.Vec3{-0.4, 1.55, 0},
		GunPivot:     mgl64.Vec3{1.1, 0.375, 0},
		BarrelLength: DefaultBarrelLength,
		TopSpeed:     DefaultTopSpeed, ReverseSpeed: DefaultReverseSpeed,
		TurnRate:   DefaultTurnRate,
		TurretRate: DefaultTurretRate, GunRate: DefaultGunRate,
		GunMin: DefaultGunMin, GunMax: DefaultGunMax,
		Acceleration: DefaultAcceleration,
	}
}

// WithDefaults returns s with every zero field replaced by Default's.
func (s Spec) WithDefaults() Spec {
	d := Default()
	def := func(v *float64, dv float64) {
		if *v == 0 {
			*v = dv
		}
	}
	def(&s.Length, d.Length)
	def(&s.Width, d.Width)
	def(&s.Height, d.Height)
	def(&s.BarrelLength, d.BarrelLength)
	def(&s.TopSpeed, d.TopSpeed)
	def(&s.ReverseSpeed, d.ReverseSpeed)
	def(&s.TurnRate, d.TurnRate)
	def(&s.TurretRate, d.TurretRate)
	def(&s.GunRate, d.GunRate)
	def(&s.Acceleration, d.Acceleration)
	if s.TurretPivot == (mgl64.Vec3{}) {
		s.TurretPivot = d.TurretPivot
	}
	if s.GunPivot == (mgl64.Vec3{}) {
		s.GunPivot = d.GunPivot
	}
	if s.GunMin == 0 && s.GunMax == 0 {
		s.GunMin, s.GunMax = d.GunMin, d.GunMax
	}
	return s
}

// Validate reports what is wrong with s (defaults filled in): a size, length, speed
// rate or acceleration that is not a positive finite number, gun limits out of order or beyond
// ±90°, a pivot that is not finite, or a turret pivot off the hull.
func (s Spec) Validate() error {
	s = s.WithDefaults()
	for _, f := range []struct {
		name string
		v    float64
	}{
		{"length", s.Length}, {"width", s.Width}, {"height", s.Height}, {"barrel length", s.BarrelLength},
		{"top speed", s.TopSpeed}, {"reverse speed", s.ReverseSpeed}, {"turn rate", s.TurnRate},
		{"turret rate", s.TurretRate}, {"gun rate", s.GunRate}, {"acceleration", s.Acceleration},
	} {
		if !(f.v > 0) || math.IsInf(f.v, 1) {
			return fmt.Errorf("tank: %s %g, want a positive finite number", f.name, f.v)
		}
	}
	if !finite(s.GunMin) || !finite(s.GunMax) || s.GunMin > s.GunMax || s.GunMin < -math.Pi/2 || s.GunMax > math.Pi/2 {
		return fmt.Errorf("tank: gun limits %g…%g rad", s.GunMin, s.GunMax)
	}
	for i := range 3 {
		if !finite(s.TurretPivot[i]) || !finite(s.GunPivot[i]) {
			return fmt.Errorf("tank: pivots %v, %v are not finite", s.TurretPivot, s.GunPivot)
		}
	}
	lo, hi := s.HullMin(), s.HullMax()
	for i := range 3 {
		if s.TurretPivot[i] < lo[i] || s.TurretPivot[i] > hi[i] {
			return fmt.Errorf("tank: turret pivot %v outside the hull box %v…%v", s.TurretPivot, lo, hi)
		}
	}
	return nil
}

func finite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }

// HullMin returns the hull box's lower corner in the hull frame, m: rear, ground,
// left. The box is the footprint over the tracks up to the turret roof.
func (s Spec) HullMin() mgl64.Vec3 { return mgl64.Vec3{-s.Length / 2, 0, -s.Width / 2} }

// HullMax returns the hull box's upper corner in the hull frame, m: front, turret
// roof, right.
func (s Spec) HullMax() mgl64.Vec3 { return mgl64.Vec3{s.Length / 2, s.Height, s.Width / 2} }

// Muzzle returns where a shell leaves the barrel, in the hull frame, m, with the
// turret at yaw turret and the gun at elevation gun (rad), and the unit direction the
// barrel points.
func (s Spec) Muzzle(turret, gun float64) (origin, dir mgl64.Vec3) {
	st, ct := math.Sincos(turret)
	sg, cg := math.Sincos(gun)
	// The barrel's axis in the turret frame, then turned by the turret yaw about +Y.
	axis := mgl64.Vec3{cg, sg, 0}
	yaw := func(v mgl64.Vec3) mgl64.Vec3 { return mgl64.Vec3{ct*v[0] + st*v[2], v[1], -st*v[0] + ct*v[2]} }
	return s.TurretPivot.Add(yaw(s.GunPivot.Add(axis.Mul(s.BarrelLength)))), yaw(axis)
}

// MuzzleReach returns the farthest the muzzle can be from the hull frame's origin,
// m, whatever the turret and gun do.
func (s Spec) MuzzleReach() float64 {
	return s.TurretPivot.Len() + s.GunPivot.Len() + s.BarrelLength
}

// Footprint returns the three ground-clamp points of the hull in the hull frame, m:
// the middle of the front and the two rear corners, placed so their centroid is the
// hull's middle. The physics body clamps with them, and remote copies of the tank
// clamp with the same points (deadreckon.Clamp.Footprint) to sit on the ground the
// same way. For the default tank they are (2.4, 0, 0), (−1.2, 0, ∓1.8). Zero fields
// take the default's values.
func (s Spec) Footprint() [3]mgl64.Vec3 {
	s = s.WithDefaults()
	// The front point sits 2.4 m ahead of the middle on the default 6.9 m hull and
	// scales with the length, which puts the centroid on the middle.
	f := s.Length * (2.4 / DefaultLength)
	return [3]mgl64.Vec3{{f, 0, 0}, {-f / 2, 0, -s.Width / 2}, {-f / 2, 0, s.Width / 2}}
}
