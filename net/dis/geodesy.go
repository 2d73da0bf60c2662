package dis

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// WGS84's ellipsoid.
const (
	// SemiMajor is the equatorial radius, m.
	SemiMajor = 6378137.0
	// Flattening is (a − b)/a.
	Flattening = 1 / 298.257223563
	// e2 is the first eccentricity squared, f(2 − f).
	e2 = Flattening * (2 - Flattening)
	// semiMinor is b = a(1 − f), m.
	semiMinor = SemiMajor * (1 - Flattening)
)

// Geodetic is a WGS84 position: latitude and longitude in degrees (north and east
// positive) and the height above the ellipsoid in metres.
type Geodetic struct {
	// Lat and Lon are in degrees; Alt in metres above the ellipsoid.
	Lat, Lon, Alt float64
}

// GeodeticToECEF returns g's earth-centred, earth-fixed coordinates, m: X toward
// latitude 0 longitude 0, Z toward the north pole.
func GeodeticToECEF(g Geodetic) mgl64.Vec3 {
	sl, cl := math.Sincos(g.Lat * math.Pi / 180)
	so, co := math.Sincos(g.Lon * math.Pi / 180)
	n := SemiMajor / math.Sqrt(1-e2*sl*sl)
	return mgl64.Vec3{(n + g.Alt) * cl * co, (n + g.Alt) * cl * so, (n*(1-e2) + g.Alt) * sl}
}

// ECEFToGeodetic returns the WGS84 position of ECEF point p, m, by Bowring's
// method iterated to convergence (better than a millimetre anywhere near the
// surface). At the poles the longitude is 0.
func ECEFToGeodetic(p mgl64.Vec3) Geodetic {
	x, y, z := p[0], p[1], p[2]
	r := math.Hypot(x, y)
	lon := math.Atan2(y, x)
	if r == 0 {
		alt := math.Abs(z) - semiMinor
		lat := 90.0
		if z < 0 {
			lat = -90
		}
		return Geodetic{Lat: lat, Lon: 0, Alt: alt}
	}
	ep2 := e2 / (1 - e2)
	beta := math.Atan2(z, (1-Flattening)*r)
	var lat float64
	for i := 0; i < 5; i++ {
		sb, cb := math.Sincos(beta)
		lat = math.Atan2(z+ep2*semiMinor*sb*sb*sb, r-e2*SemiMajor*cb*cb*cb)
		beta = math.Atan2((1-Flattening)*math.Sin(lat), math.Cos(lat))
	}
	sl, cl := math.Sincos(lat)
	n := SemiMajor / math.Sqrt(1-e2*sl*sl)
	var alt float64
	if math.Abs(cl) > 1e-9 {
		alt = r/cl - n
	} else {
		alt = math.Abs(z) - n*(1-e2)
	}
	return Geodetic{Lat: lat * 180 / math.Pi, Lon: lon * 180 / math.Pi, Alt: alt}
}

// DefaultOrigin is where a Treadline map's origin lies when none is given: on the
// ellipsoid at 36.6° N, 121.9° W (Monterey Bay, home of the Open-DIS project).
var DefaultOrigin = Geodetic{Lat: 36.6, Lon: -121.9}

// Frame maps Treadline's world at one origin to ECEF and back: the world's X is
// east, −Z north and Y up on the plane tangent to the ellipsoid at the origin (the
// earth's curvature is ignored, a centimetre over a kilometre). A Frame is a value,
// safe for concurrent use.
type Frame struct {
	// Origin is the world origin's geodetic position.
	Origin Geodetic
	o      mgl64.Vec3 // the origin in ECEF
	m      mgl64.Mat3 // world axes (X, Y, Z) as ECEF columns
}

// NewFrame returns the frame whose world origin is at origin.
func NewFrame(origin Geodetic) Frame {
	sl, cl := math.Sincos(origin.Lat * math.Pi / 180)
	so, co := math.Sincos(origin.Lon * math.Pi / 180)
	east := mgl64.Vec3{-so, co, 0}
	north := mgl64.Vec3{-sl * co, -sl * so, cl}
	up := mgl64.Vec3{cl * co, cl * so, sl}
	return Frame{Origin: origin, o: GeodeticToECEF(origin), m: mgl64.Mat3FromCols(east, up, north.Mul(-1))}
}

// ToECEFVector returns world vector v (a velocity, an acceleration) in ECEF axes.
func (f Frame) ToECEFVector(v mgl64.Vec3) mgl64.Vec3 { return f.m.Mul3x1(v) }

// FromECEFVector returns ECEF vector v in world axes.
func (f Frame) FromECEFVector(v mgl64.Vec3) mgl64.Vec3 { return f.m.Transpose().Mul3x1(v) }

// ToECEF returns world position p, m, in ECEF, m.
func (f Frame) ToECEF(p mgl64.Vec3) mgl64.Vec3 { return f.o.Add(f.m.Mul3x1(p)) }

// FromECEF returns ECEF position p, m, in the world frame, m.
func (f Frame) FromECEF(p mgl64.Vec3) mgl64.Vec3 { return f.m.Transpose().Mul3x1(p.Sub(f.o)) }

// bodyAxes returns the DIS body axes (x forward, y right, z down) of world
// orientation q as the columns of a world-axis matrix: a Treadline body faces +X,
// +Y up, +Z right.
func bodyAxes(q mgl64.Quat) (x, y, z mgl64.Vec3) {
	q = geom.QuatNormalize(q)
	return geom.Rotate(q, mgl64.Vec3{1, 0, 0}), geom.Rotate(q, mgl64.Vec3{0, 0, 1}), geom.Rotate(q, mgl64.Vec3{0, -1, 0})
}

// ToEuler returns world orientation q (a unit quaternion; zero reads as the
// identity) as DIS Euler angles from ECEF's axes. At theta ±π/2 psi takes the whole
// heading and phi is 0.
func (f Frame) ToEuler(q mgl64.Quat) Euler {
	x, y, z := bodyAxes(q)
	x, y, z = f.m.Mul3x1(x), f.m.Mul3x1(y), f.m.Mul3x1(z)
	// Body-to-ECEF M = Rz(ψ)·Ry(θ)·Rx(φ): its columns are x, y, z.
	st := math.Max(-1, math.Min(1, -x[2]))
	theta := math.Asin(st)
	if math.Abs(st) > 1-1e-12 {
		// Gimbal lock: y's components give ψ − φ·sign; put it all in ψ.
		return Euler{Psi: math.Atan2(-y[0], y[1]), Theta: theta}
	}
	return Euler{Psi: math.Atan2(x[1], x[0]), Theta: theta, Phi: math.Atan2(y[2], z[2])}
}

// FromEuler returns DIS Euler angles e as a world orientation (unit quaternion).
func (f Frame) FromEuler(e Euler) mgl64.Quat {
	sp, cp := math.Sincos(e.Psi)
	st, ct := math.Sincos(e.Theta)
	sf, cf := math.Sincos(e.Phi)
	// Columns of Rz(ψ)·Ry(θ)·Rx(φ): the body axes in ECEF.
	x := mgl64.Vec3{cp * ct, sp * ct, -st}
	y := mgl64.Vec3{cp*st*sf - sp*cf, sp*st*sf + cp*cf, ct * sf}
	z := mgl64.Vec3{cp*st*cf + sp*sf, sp*st*cf - cp*sf, ct * cf}
	mt := f.m.Transpose()
	x, y, z = mt.Mul3x1(x), mt.Mul3x1(y), mt.Mul3x1(z)
	// Treadline body axes: forward = x, up = −z, right = y.
	m := mgl64.Mat3FromCols(x, z.Mul(-1), y)
	return geom.QuatNormalize(mgl64.Mat4ToQuat(m.Mat4()))
}

// ToBody returns world vector v in the DIS body axes (x forward, y right, z down)
// of world orientation q: how DIS carries angular velocity and, for the body
// models, acceleration.
func ToBody(q mgl64.Quat, v mgl64.Vec3) mgl64.Vec3 {
	x, y, z := bodyAxes(q)
	return mgl64.Vec3{x.Dot(v), y.Dot(v), z.Dot(v)}
}

// FromBody returns DIS body vector v of world orientation q in world axes.
func FromBody(q mgl64.Quat, v mgl64.Vec3) mgl64.Vec3 {
	x, y, z := bodyAxes(q)
	return x.Mul(v[0]).Add(y.Mul(v[1])).Add(z.Mul(v[2]))
}
