package render

import (
	"math"

	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
)

// Rock is an obstacle drawn as a boulder.
type Rock struct {
	// Center is the rock's center on the ground, meters, world frame.
	Center mgl64.Vec3
	// Radius is its footprint radius and Height how far it stands above the ground,
	// meters.
	Radius, Height float64
}

// heightGrid is a coarse lookup of the highest terrain vertex per cell, built once
// from the finest meshes, for placing border posts and keeping the camera above the
// ground when no exact ground is given.
type heightGrid struct {
	min    mgl64.Vec3
	cell   float64
	nx, nz int
	h      []float64
	// col is the ground colour of each cell's highest vertex, when the meshes have
	// colours (for the minimap).
	col []math32.Color
}

const heightGridCell = 4.0

func newHeightGrid(t Terrain, lo, hi mgl64.Vec3) *heightGrid {
	g := &heightGrid{min: lo, cell: heightGridCell}
	g.nx = int(math.Ceil((hi[0]-lo[0])/g.cell)) + 1
	g.nz = int(math.Ceil((hi[2]-lo[2])/g.cell)) + 1
	g.h = make([]float64, g.nx*g.nz)
	for i := range g.h {
		g.h[i] = math.Inf(-1)
	}
	g.col = make([]math32.Color, g.nx*g.nz)
	for _, lods := range t.Chunks {
		m := lods[0]
		for v := 0; v+2 < len(m.Positions); v += 3 {
			i, k, ok := g.index(float64(m.Positions[v]), float64(m.Positions[v+2]))
			if y := float64(m.Positions[v+1]); ok && y > g.h[k*g.nx+i] {
				g.h[k*g.nx+i] = y
				if len(m.Colors) == len(m.Positions) {
					g.col[k*g.nx+i] = math32.Color{R: m.Colors[v], G: m.Colors[v+1], B: m.Colors[v+2]}
				} else {
					g.col[k*g.nx+i] = groundColor(y, float64(m.Normals[v+1]))
				}
			}
		}
	}
	return g
}

// colorAt returns the ground colour at (x, z); ok is false off the terrain.
func (g *heightGrid) colorAt(x, z float64) (math32.Color, bool) {
	i, k, ok := g.index(x, z)
	if !ok {
		return math32.Color{}, false
	}
	return g.col[k*g.nx+i], true
}

func (g *heightGrid) index(x, z float64) (i, k int, ok bool) {
	i = int(math.Floor((x - g.min[0]) / g.cell))
	k = int(math.Floor((z - g.min[2]) / g.cell))
	return i, k, i >= 0 && k >= 0 && i < g.nx && k < g.nz
}

// heightAt returns the highest terrain vertex height near (x, z); ok is false off the
// terrain.
func (g *heightGrid) heightAt(x, z float64) (float64, bool) {
	i, k, ok := g.index(x, z)
	if !ok {
		return 0, false
	}
	best := math.Inf(-1)
	for dk := -1; dk <= 1; dk++ {
		for di := -1; di <= 1; di++ {
			ii, kk := i+di, k+dk
			if ii >= 0 && kk >= 0 && ii < g.nx && kk < g.nz {
				best = math.Max(best, g.h[kk*g.nx+ii])
			}
		}
	}
	return best, !math.IsInf(best, -1)
}

// Border drawing.
const (
	borderPostSpacing = 16.0 // meters between posts
	borderRailLow     = 1.2  // rail heights above the ground, meters
	borderRailHigh    = 2.6
)

var (
	borderPostColor = math32.Color{R: 1, G: 0.45, B: 0.1}
	borderRailColor = math32.Color{R: 1, G: 0.85, B: 0.2}
)

// newBorder draws the map's edge as posts joined by two rails, following the ground,
// in one draw call.
func newBorder(tn *terrainNode, g *heightGrid) *graphic.Lines {
	lo, hi := tn.min, tn.max
	// Walk the rectangle's perimeter counter-clockwise seen from above.
	corners := [5]mgl64.Vec2{{lo[0], lo[2]}, {lo[0], hi[2]}, {hi[0], hi[2]}, {hi[0], lo[2]}, {lo[0], lo[2]}}
	var pts []mgl64.Vec3
	for c := 0; c < 4; c++ {
		a, b := corners[c], corners[c+1]
		n := max(1, int(math.Ceil(b.Sub(a).Len()/borderPostSpacing)))
		for s := 0; s < n; s++ {
			p := a.Add(b.Sub(a).Mul(float64(s) / float64(n)))
			// Sample just inside the edge so the lookup lands on the terrain.
			in := p.Add(mgl64.Vec2{(lo[0]+hi[0])/2 - p[0], (lo[2]+hi[2])/2 - p[1]}.Normalize().Mul(0.5))
			h, ok := g.heightAt(in[0], in[1])
			if !ok {
				h = lo[1]
			}
			pts = append(pts, mgl64.Vec3{p[0], h, p[1]})
		}
	}
	var buf []float32
	seg := func(p, q mgl64.Vec3, c math32.Color) {
		buf = appendColor(appendVec3(buf, p), c)
		buf = appendColor(appendVec3(buf, q), c)
	}
	for i, p := range pts {
		q := pts[(i+1)%len(pts)]
		seg(p, p.Add(mgl64.Vec3{0, borderRailHigh + 0.6, 0}), borderPostColor)
		for _, r := range [2]float64{borderRailLow, borderRailHigh} {
			seg(p.Add(mgl64.Vec3{0, r, 0}), q.Add(mgl64.Vec3{0, r, 0}), borderRailColor)
		}
	}
	geom := geometry.NewGeometry()
	geom.AddVBO(gls.NewVBO(buf).AddAttrib(gls.VertexPosition).AddAttrib(gls.VertexColor))
	mat := material.NewBasic()
	mat.SetLineWidth(2)
	l := graphic.NewLines(geom, mat)
	return l
}
