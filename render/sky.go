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

// Sky colours, linear RGB.
var (
	skyHorizon = math32.Color{R: 0.74, G: 0.83, B: 0.92}
	skyZenith  = math32.Color{R: 0.25, G: 0.47, B: 0.80}
)

// sunDirection points from the ground toward the sun: the directional light shines
// along its opposite.
var sunDirection = mgl64.Vec3{-0.45, 0.8, 0.35}

// skyRadius is the sky dome's radius in meters; it stays inside the camera's far plane.
const skyRadius = 1500.0

// newSkyDome builds an unlit dome around the origin whose colour runs from the horizon
// colour at and below the horizon to the zenith colour overhead. The scene moves it
// with the eye so it is always at the same distance.
func newSkyDome() *graphic.Mesh {
	const rings, segs = 12, 32
	var pos, col []float32
	var idx []uint32
	for r := 0; r <= rings; r++ {
		// Elevation from −20° to 90°.
		el := (-20 + 110*float64(r)/rings) * math.Pi / 180
		t := math.Max(0, math.Sin(el))
		t = math.Pow(t, 0.6)
		c := math32.Color{
			R: skyHorizon.R + (skyZenith.R-skyHorizon.R)*float32(t),
			G: skyHorizon.G + (skyZenith.G-skyHorizon.G)*float32(t),
			B: skyHorizon.B + (skyZenith.B-skyHorizon.B)*float32(t),
		}
		for s := 0; s <= segs; s++ {
			az := 2 * math.Pi * float64(s) / segs
			d := mgl64.Vec3{math.Cos(el) * math.Cos(az), math.Sin(el), math.Cos(el) * math.Sin(az)}
			pos = appendVec3(pos, d.Mul(skyRadius))
			// A warm glow around the sun.
			g := float32(0.35 * math.Pow(math.Max(0, d.Dot(sunDirection.Normalize())), 24))
			col = appendColor(col, math32.Color{R: min(1, c.R+g), G: min(1, c.G+0.9*g), B: min(1, c.B+0.6*g)})
		}
	}
	for r := 0; r < rings; r++ {
		for s := 0; s < segs; s++ {
			a := uint32(r*(segs+1) + s)
			b := a + segs + 1
			idx = append(idx, a, b, a+1, a+1, b, b+1)
		}
	}
	g := geometry.NewGeometry()
	g.AddVBO(gls.NewVBO(pos).AddAttrib(gls.VertexPosition))
	g.AddVBO(gls.NewVBO(col).AddAttrib(gls.VertexColor))
	g.SetIndices(idx)
	mat := material.NewBasic()
	mat.SetSide(material.SideDouble)
	mat.SetDepthMask(false)
	m := graphic.NewMesh(g, mat)
	m.SetCullable(false)
	m.SetRenderOrder(-1000)
	return m
}
