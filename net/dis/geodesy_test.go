package dis

import (
	"math"
	"math/rand"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Tolerances: positions, m; angles, rad.
const (
	posTol   = 1e-6
	angleTol = 1e-9
)

func TestGeodeticKnownPoints(t *testing.T) {
	for _, c := range []struct {
		g    Geodetic
		want mgl64.Vec3
	}{
		{Geodetic{0, 0, 0}, mgl64.Vec3{SemiMajor, 0, 0}},
		{Geodetic{0, 90, 0}, mgl64.Vec3{0, SemiMajor, 0}},
		{Geodetic{0, 180, 100}, mgl64.Vec3{-SemiMajor - 100, 0, 0}},
		{Geodetic{90, 0, 0}, mgl64.Vec3{0, 0, 6356752.314245}},
		{Geodetic{-90, 0, 0}, mgl64.Vec3{0, 0, -6356752.314245}},
	} {
		got := GeodeticToECEF(c.g)
		if d := got.Sub(c.want).Len(); d > 1e-3 {
			t.Errorf("%+v → %v, want %v", c.g, got, c.want)
		}
	}
}

func TestGeodeticRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for i := 0; i < 1000; i++ {
		g := Geodetic{Lat: r.Float64()*180 - 90, Lon: r.Float64()*360 - 180, Alt: r.Float64()*20000 - 1000}
		back := ECEFToGeodetic(GeodeticToECEF(g))
		if d := GeodeticToECEF(back).Sub(GeodeticToECEF(g)).Len(); d > 1e-4 || math.Abs(back.Alt-g.Alt) > 1e-4 {
			t.Fatalf("%+v → %+v (off %g m)", g, back, d)
		}
	}
}

func TestFrameAxes(t *testing.T) {
	// At lat 0, lon 0: east is ECEF +Y, north +Z, up +X.
	f := NewFrame(Geodetic{})
	for _, c := range []struct{ world, ecef mgl64.Vec3 }{
		{mgl64.Vec3{0, 0, 0}, mgl64.Vec3{SemiMajor, 0, 0}},
		{mgl64.Vec3{10, 0, 0}, mgl64.Vec3{SemiMajor, 10, 0}},  // X east
		{mgl64.Vec3{0, 0, -10}, mgl64.Vec3{SemiMajor, 0, 10}}, // −Z north
		{mgl64.Vec3{0, 10, 0}, mgl64.Vec3{SemiMajor + 10, 0, 0}},
	} {
		if got := f.ToECEF(c.world); got.Sub(c.ecef).Len() > posTol {
			t.Errorf("world %v → %v, want %v", c.world, got, c.ecef)
		}
		if got := f.FromECEF(c.ecef); got.Sub(c.world).Len() > posTol {
			t.Errorf("ECEF %v → %v, want %v", c.ecef, got, c.world)
		}
	}
	// A level tank facing east there: heading +Y (ψ = 90°), right south, down −X (φ = −90°).
	e := f.ToEuler(mgl64.QuatIdent())
	if math.Abs(e.Psi-math.Pi/2) > angleTol || math.Abs(e.Theta) > angleTol || math.Abs(e.Phi+math.Pi/2) > angleTol {
		t.Errorf("identity at (0, 0) = %+v, want ψ π/2, θ 0, φ −π/2", e)
	}
	// Facing north (yaw +90°: forward (0, 0, −1)) at the north pole... at lat 0: ECEF +Z, θ = −90°.
	e = f.ToEuler(geom.YawQuat(math.Pi / 2))
	if math.Abs(e.Theta+math.Pi/2) > 1e-6 {
		t.Errorf("facing north at (0, 0): θ %g, want −π/2", e.Theta)
	}
}

func TestEulerRoundTrip(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for _, o := range []Geodetic{{}, DefaultOrigin, {Lat: -60, Lon: 150, Alt: 300}, {Lat: 89.9, Lon: 10}} {
		f := NewFrame(o)
		for i := 0; i < 300; i++ {
			q := geom.QuatNormalize(mgl64.Quat{W: r.NormFloat64(), V: mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}})
			back := f.FromEuler(f.ToEuler(q))
			if d := geom.QuatAngle(q, back); d > 1e-6 {
				t.Fatalf("at %+v: %v → %+v → %v (off %g rad)", o, q, f.ToEuler(q), back, d)
			}
			p := mgl64.Vec3{r.NormFloat64() * 500, r.NormFloat64() * 20, r.NormFloat64() * 500}
			if d := f.FromECEF(f.ToECEF(p)).Sub(p).Len(); d > posTol {
				t.Fatalf("position %v off %g m", p, d)
			}
			v := mgl64.Vec3{r.NormFloat64(), r.NormFloat64(), r.NormFloat64()}
			if d := FromBody(q, ToBody(q, v)).Sub(v).Len(); d > angleTol {
				t.Fatalf("body vector %v off %g", v, d)
			}
		}
	}
	// A yaw-only turn about +Y is a turn about the body's −z (DIS z is down).
	w := ToBody(geom.YawQuat(0.3), mgl64.Vec3{0, 0.5, 0})
	if w.Sub(mgl64.Vec3{0, 0, -0.5}).Len() > angleTol {
		t.Errorf("yaw rate 0.5 in body axes %v, want (0, 0, −0.5)", w)
	}
}
