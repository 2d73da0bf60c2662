package tank

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

// tol is the tolerance of the geometry checks, m or rad.
const tol = 1e-12

func TestMuzzle(t *testing.T) {
	s := Default()
	for _, c := range []struct {
		name        string
		turret, gun float64
		origin, dir mgl64.Vec3
	}{
		{"forward, level", 0, 0, mgl64.Vec3{4.9, 1.925, 0}, mgl64.Vec3{1, 0, 0}},
		// A positive yaw turns forward toward −Z (the hull's left).
		{"turret left", math.Pi / 2, 0, mgl64.Vec3{-0.4, 1.925, -5.3}, mgl64.Vec3{0, 0, -1}},
		{"turret back", math.Pi, 0, mgl64.Vec3{-5.7, 1.925, 0}, mgl64.Vec3{-1, 0, 0}},
		{"gun up 30°", 0, math.Pi / 6, mgl64.Vec3{-0.4 + 1.1 + 4.2*math.Sqrt(3)/2, 1.925 + 2.1, 0},
			mgl64.Vec3{math.Sqrt(3) / 2, 0.5, 0}},
	} {
		o, d := s.Muzzle(c.turret, c.gun)
		if o.Sub(c.origin).Len() > tol || d.Sub(c.dir).Len() > tol {
			t.Errorf("%s: Muzzle(%g, %g) = %v, %v; want %v, %v", c.name, c.turret, c.gun, o, d, c.origin, c.dir)
		}
		if r := o.Len(); r > s.MuzzleReach()+tol {
			t.Errorf("%s: muzzle %.3f m from the origin, beyond the reach %.3f m", c.name, r, s.MuzzleReach())
		}
	}
}

func TestHullBox(t *testing.T) {
	s := Default()
	lo, hi := s.HullMin(), s.HullMax()
	if want := (mgl64.Vec3{-3.45, 0, -1.8}); lo != want {
		t.Errorf("HullMin = %v, want %v", lo, want)
	}
	if want := (mgl64.Vec3{3.45, 2.3, 1.8}); hi != want {
		t.Errorf("HullMax = %v, want %v", hi, want)
	}
	if top := s.TurretPivot[1]; !(top > lo[1] && top < hi[1]) {
		t.Errorf("turret ring at %.2f m, outside the hull box's height", top)
	}
}

func TestWithDefaultsKeepsSetFields(t *testing.T) {
	got := Spec{Length: 9, GunMax: 0.5}.WithDefaults()
	want := Default()
	want.Length, want.GunMin, want.GunMax = 9, 0, 0.5
	if got != want {
		t.Errorf("WithDefaults = %+v, want %+v", got, want)
	}
	if (Spec{}).WithDefaults() != Default() {
		t.Error("the zero Spec does not default to Default()")
	}
}

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		s    Spec
		ok   bool
	}{
		{"default", Spec{}, true},
		{"negative length", Spec{Length: -1}, false},
		{"NaN top speed", Spec{TopSpeed: math.NaN()}, false},
		{"infinite barrel", Spec{BarrelLength: math.Inf(1)}, false},
		{"gun limits reversed", Spec{GunMin: 0.5, GunMax: 0.1}, false},
		{"gun beyond vertical", Spec{GunMin: -0.1, GunMax: 2}, false},
		{"turret pivot off the hull", Spec{TurretPivot: mgl64.Vec3{5, 1, 0}}, false},
		{"NaN gun pivot", Spec{GunPivot: mgl64.Vec3{math.NaN(), 0, 0}}, false},
	} {
		if err := c.s.Validate(); (err == nil) != c.ok {
			t.Errorf("%s: Validate() = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

// TestFootprint checks the default hull's clamp points, the middle of its front and
// its two rear corners, exactly: the game's remote tanks and the lab clamp with them.
func TestFootprint(t *testing.T) {
	got := Spec{}.Footprint()
	want := [3]mgl64.Vec3{{2.4, 0, 0}, {-1.2, 0, -1.8}, {-1.2, 0, 1.8}}
	if got != want {
		t.Errorf("Spec{}.Footprint() = %v, want %v", got, want)
	}
	// The centroid is the hull's middle for any size.
	f := Spec{Length: 9, Width: 4}.Footprint()
	if c := f[0].Add(f[1]).Add(f[2]).Mul(1.0 / 3); c.Len() > 1e-12 {
		t.Errorf("Footprint centroid %v, want the origin", c)
	}
}
