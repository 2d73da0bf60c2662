package terrain

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// rayEps is the tolerance, in cell fractions, for a hit on a triangle's edge.
const rayEps = 1e-9

// Raycast intersects the ray origin + t·dir, 0 ≤ t ≤ maxDist, with the triangulated
// surface and returns the first point of the ray at or below the ground. dir need not
// be unit length; maxDist is in meters along the ray. The ground is solid: a ray whose
// origin is on the map but under the surface hits at its origin, and one that enters
// the map's extent from the side under the surface hits where it enters. ok is false when the ray misses the map
// within maxDist, or dir is zero or any input is not finite (maxDist may be +Inf).
// Raycast walks the grid cell by cell along the ray, so its cost grows with the
// number of cells crossed, not with the map's size. It never allocates.
func (m *Map) Raycast(origin, dir mgl64.Vec3, maxDist float64) (hit mgl64.Vec3, ok bool) {
	if !geom.Finite(origin[0], origin[1], origin[2], dir[0], dir[1], dir[2]) || math.IsNaN(maxDist) || maxDist < 0 {
		return mgl64.Vec3{}, false
	}
	l := math.Sqrt(dir[0]*dir[0] + dir[1]*dir[1] + dir[2]*dir[2])
	if l == 0 {
		return mgl64.Vec3{}, false
	}
	d := mgl64.Vec3{dir[0] / l, dir[1] / l, dir[2] / l}
	// Clip the ray to the map's extent and to below the highest ground. The ground is
	// solid, so there is no lower bound.
	t0, t1 := 0.0, maxDist
	lo := [3]float64{m.minX, math.Inf(-1), m.minZ}
	hi := [3]float64{m.maxX, m.maxH, m.maxZ}
	for a := 0; a < 3; a++ {
		if d[a] == 0 {
			if origin[a] < lo[a] || origin[a] > hi[a] {
				return mgl64.Vec3{}, false
			}
			continue
		}
		ta, tb := (lo[a]-origin[a])/d[a], (hi[a]-origin[a])/d[a]
		if ta > tb {
			ta, tb = tb, ta
		}
		t0, t1 = math.Max(t0, ta), math.Min(t1, tb)
	}
	if t0 > t1 {
		return mgl64.Vec3{}, false
	}
	// Starting (or entering from the side) under the surface is a hit right there.
	p := mgl64.Vec3{origin[0] + d[0]*t0, origin[1] + d[1]*t0, origin[2] + d[2]*t0}
	if t0 == 0 {
		p = origin
	}
	if h, _ := m.SurfaceAt(p[0], p[2]); p[1] <= h {
		return p, true
	}
	t, ok := m.walk(origin, d, t0, t1)
	if !ok {
		return mgl64.Vec3{}, false
	}
	return mgl64.Vec3{origin[0] + d[0]*t, origin[1] + d[1]*t, origin[2] + d[2]*t}, true
}

// walk steps through the grid cells the ray o + t·d crosses for t in [t0, t1]
// (Amanatides–Woo) and returns the first t where it meets a triangle.
func (m *Map) walk(o, d mgl64.Vec3, t0, t1 float64) (float64, bool) {
	px, pz := o[0]+d[0]*t0, o[2]+d[2]*t0
	i := int(math.Floor((px - m.minX) * m.invX))
	j := int(math.Floor((pz - m.minZ) * m.invZ))
	i = min(max(i, 0), m.nx-2)
	j = min(max(j, 0), m.nz-2)

	stepI, nextX, deltaX := 0, math.Inf(1), math.Inf(1)
	switch {
	case d[0] > 0:
		stepI, deltaX = 1, m.cellX/d[0]
		nextX = (m.minX + float64(i+1)*m.cellX - o[0]) / d[0]
	case d[0] < 0:
		stepI, deltaX = -1, -m.cellX/d[0]
		nextX = (m.minX + float64(i)*m.cellX - o[0]) / d[0]
	}
	stepJ, nextZ, deltaZ := 0, math.Inf(1), math.Inf(1)
	switch {
	case d[2] > 0:
		stepJ, deltaZ = 1, m.cellZ/d[2]
		nextZ = (m.minZ + float64(j+1)*m.cellZ - o[2]) / d[2]
	case d[2] < 0:
		stepJ, deltaZ = -1, -m.cellZ/d[2]
		nextZ = (m.minZ + float64(j)*m.cellZ - o[2]) / d[2]
	}

	cx := m.nx - 1
	enter := t0
	for {
		exit := math.Min(math.Min(nextX, nextZ), t1)
		// Skip cells the ray passes wholly above or below.
		ya, yb := o[1]+d[1]*enter, o[1]+d[1]*exit
		k := 2 * (j*cx + i)
		if math.Min(ya, yb) <= float64(m.cellMinMax[k+1]) && math.Max(ya, yb) >= float64(m.cellMinMax[k]) {
			if t, ok := m.hitCell(i, j, o, d, enter, exit); ok {
				return t, true
			}
		}
		if exit >= t1 {
			return 0, false
		}
		if nextX < nextZ {
			i += stepI
			enter = nextX
			nextX += deltaX
		} else {
			j += stepJ
			enter = nextZ
			nextZ += deltaZ
		}
		if i < 0 || i >= cx || j < 0 || j >= m.nz-1 {
			return 0, false
		}
	}
}

// hitCell intersects the ray with cell (i, j)'s two triangles and returns the nearest
// hit with t in [enter, exit] (widened by a hair so edges are not missed).
func (m *Map) hitCell(i, j int, o, d mgl64.Vec3, enter, exit float64) (float64, bool) {
	flipped, base, su, sv := m.cellPlanes(i, j)
	x0, z0 := m.minX+float64(i)*m.cellX, m.minZ+float64(j)*m.cellZ
	u0, du := (o[0]-x0)*m.invX, d[0]*m.invX
	v0, dv := (o[2]-z0)*m.invZ, d[2]*m.invZ
	slack := 1e-9 * math.Max(1, math.Abs(exit))
	best, found := math.Inf(1), false
	for tri := 0; tri < 2; tri++ {
		// f(t) = y(t) − h(u(t), v(t)) = f0 + f1·t
		f0 := o[1] - (base[tri] + u0*su[tri] + v0*sv[tri])
		f1 := d[1] - (du*su[tri] + dv*sv[tri])
		if f1 == 0 {
			continue
		}
		t := -f0 / f1
		if t < enter-slack || t > exit+slack || t >= best {
			continue
		}
		u, v := u0+du*t, v0+dv*t
		if u < -rayEps || u > 1+rayEps || v < -rayEps || v > 1+rayEps {
			continue
		}
		if !inTriangle(flipped, tri, u, v) {
			continue
		}
		best, found = math.Max(t, 0), true
	}
	return best, found
}

// inTriangle reports whether cell fractions (u, v) lie in triangle tri of a cell
// (see cellPlanes), edges included to within rayEps.
func inTriangle(flipped bool, tri int, u, v float64) bool {
	switch {
	case flipped && tri == 0:
		return u+v <= 1+rayEps
	case flipped:
		return u+v >= 1-rayEps
	case tri == 0:
		return v <= u+rayEps
	}
	return u <= v+rayEps
}
