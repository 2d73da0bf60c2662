package render

import (
	"math"

	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/math32"
)

// meshBuilder collects flat-shaded, vertex-coloured primitives into one geometry, so a
// many-part model costs one draw call.
type meshBuilder struct {
	pos, nrm, col []float32
	idx           []uint32
}

func (b *meshBuilder) vertex(p, n [3]float32, c math32.Color) uint32 {
	i := uint32(len(b.pos) / 3)
	b.pos = append(b.pos, p[0], p[1], p[2])
	b.nrm = append(b.nrm, n[0], n[1], n[2])
	b.col = append(b.col, c.R, c.G, c.B)
	return i
}

// quad adds the quadrilateral a, b, c, d (counter-clockwise seen from its front) with
// normal n.
func (b *meshBuilder) quad(a, bb, c, d, n [3]float32, col math32.Color) {
	i0 := b.vertex(a, n, col)
	i1 := b.vertex(bb, n, col)
	i2 := b.vertex(c, n, col)
	i3 := b.vertex(d, n, col)
	b.idx = append(b.idx, i0, i1, i2, i0, i2, i3)
}

// box adds an axis-aligned box centered at c with sides sx, sy, sz (meters).
func (b *meshBuilder) box(c [3]float32, sx, sy, sz float32, col math32.Color) {
	x0, x1 := c[0]-sx/2, c[0]+sx/2
	y0, y1 := c[1]-sy/2, c[1]+sy/2
	z0, z1 := c[2]-sz/2, c[2]+sz/2
	v := func(x, y, z float32) [3]float32 { return [3]float32{x, y, z} }
	b.quad(v(x1, y0, z1), v(x1, y0, z0), v(x1, y1, z0), v(x1, y1, z1), v(1, 0, 0), col)  // +X
	b.quad(v(x0, y0, z0), v(x0, y0, z1), v(x0, y1, z1), v(x0, y1, z0), v(-1, 0, 0), col) // −X
	b.quad(v(x0, y1, z1), v(x1, y1, z1), v(x1, y1, z0), v(x0, y1, z0), v(0, 1, 0), col)  // +Y
	b.quad(v(x0, y0, z0), v(x1, y0, z0), v(x1, y0, z1), v(x0, y0, z1), v(0, -1, 0), col) // −Y
	b.quad(v(x0, y0, z1), v(x1, y0, z1), v(x1, y1, z1), v(x0, y1, z1), v(0, 0, 1), col)  // +Z
	b.quad(v(x1, y0, z0), v(x0, y0, z0), v(x0, y1, z0), v(x1, y1, z0), v(0, 0, -1), col) // −Z
}

// cylinder adds a capped cylinder of radius r and length l with segs sides, centered
// at c, its axis along +Y (axis 1) or +X (axis 0).
func (b *meshBuilder) cylinder(c [3]float32, r, l float32, segs, axis int, col math32.Color) {
	// Build along +Y, then swap coordinates for +X.
	put := func(x, y, z float32) [3]float32 {
		if axis == 0 {
			return [3]float32{c[0] + y, c[1] - x, c[2] + z}
		}
		return [3]float32{c[0] + x, c[1] + y, c[2] + z}
	}
	dir := func(x, y, z float32) [3]float32 {
		if axis == 0 {
			return [3]float32{y, -x, z}
		}
		return [3]float32{x, y, z}
	}
	h := l / 2
	for s := 0; s < segs; s++ {
		a0 := 2 * math.Pi * float64(s) / float64(segs)
		a1 := 2 * math.Pi * float64(s+1) / float64(segs)
		am := (a0 + a1) / 2
		x0, z0 := r*float32(math.Cos(a0)), -r*float32(math.Sin(a0))
		x1, z1 := r*float32(math.Cos(a1)), -r*float32(math.Sin(a1))
		n := dir(float32(math.Cos(am)), 0, -float32(math.Sin(am)))
		b.quad(put(x0, -h, z0), put(x1, -h, z1), put(x1, h, z1), put(x0, h, z0), n, col)
		// Caps as fans from the axis.
		top := b.vertex(put(0, h, 0), dir(0, 1, 0), col)
		t0 := b.vertex(put(x0, h, z0), dir(0, 1, 0), col)
		t1 := b.vertex(put(x1, h, z1), dir(0, 1, 0), col)
		b.idx = append(b.idx, top, t0, t1)
		bot := b.vertex(put(0, -h, 0), dir(0, -1, 0), col)
		b0 := b.vertex(put(x0, -h, z0), dir(0, -1, 0), col)
		b1 := b.vertex(put(x1, -h, z1), dir(0, -1, 0), col)
		b.idx = append(b.idx, bot, b1, b0)
	}
}

// geometry returns the collected primitives as a g3n geometry.
func (b *meshBuilder) geometry() *geometry.Geometry {
	g := geometry.NewGeometry()
	g.AddVBO(gls.NewVBO(b.pos).AddAttrib(gls.VertexPosition))
	g.AddVBO(gls.NewVBO(b.nrm).AddAttrib(gls.VertexNormal))
	g.AddVBO(gls.NewVBO(b.col).AddAttrib(gls.VertexColor))
	g.SetIndices(b.idx)
	return g
}
