package render

import (
	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/material"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl64"
)

// lineBatch is a set of coloured line segments rebuilt every frame into one reused
// buffer and drawn in one call.
type lineBatch struct {
	lines *graphic.Lines
	vbo   *gls.VBO
	buf   []float32 // x y z r g b per vertex, two vertices per segment
	// Segments are cut where they come nearer than nearDist along fwd from eye.
	eye, fwd mgl64.Vec3
	nearDist float64
}

func newLineBatch(depthTest bool) *lineBatch {
	b := &lineBatch{}
	b.vbo = gls.NewVBO(nil).AddAttrib(gls.VertexPosition).AddAttrib(gls.VertexColor)
	g := geometry.NewGeometry()
	g.AddVBO(b.vbo)
	mat := material.NewBasic()
	mat.SetDepthTest(depthTest)
	mat.SetLineWidth(2)
	b.lines = graphic.NewLines(g, mat)
	b.lines.SetCullable(false)
	b.lines.SetVisible(false)
	return b
}

// reset empties the batch for a new frame.
func (b *lineBatch) reset() { b.buf = b.buf[:0] }

// clipNear makes the following segments stop where they come nearer than dist
// meters along the unit vector fwd from eye (0: no clipping).
func (b *lineBatch) clipNear(eye, fwd mgl64.Vec3, dist float64) {
	b.eye, b.fwd, b.nearDist = eye, fwd, dist
}

// segment adds a segment from p to q in colour c, cut at the near distance.
func (b *lineBatch) segment(p, q mgl64.Vec3, c math32.Color) {
	if b.nearDist > 0 {
		dp, dq := p.Sub(b.eye).Dot(b.fwd)-b.nearDist, q.Sub(b.eye).Dot(b.fwd)-b.nearDist
		switch {
		case dp < 0 && dq < 0:
			return
		case dp < 0:
			p = p.Add(q.Sub(p).Mul(dp / (dp - dq)))
		case dq < 0:
			q = q.Add(p.Sub(q).Mul(dq / (dq - dp)))
		}
	}
	b.buf = appendVec3(b.buf, p)
	b.buf = appendColor(b.buf, c)
	b.buf = appendVec3(b.buf, q)
	b.buf = appendColor(b.buf, c)
}

// arrow adds an arrow from p along v with a small head, in colour c. Arrows shorter
// than 1 cm are left out.
func (b *lineBatch) arrow(p, v mgl64.Vec3, c math32.Color) {
	l := v.Len()
	if l < 0.01 {
		return
	}
	q := p.Add(v)
	b.segment(p, q, c)
	dir := v.Mul(1 / l)
	side := dir.Cross(mgl64.Vec3{0, 1, 0})
	if side.Len() < 1e-6 {
		side = mgl64.Vec3{1, 0, 0}
	}
	side = side.Normalize()
	head := min(0.6, l*0.3)
	back := q.Sub(dir.Mul(head))
	b.segment(q, back.Add(side.Mul(head*0.5)), c)
	b.segment(q, back.Sub(side.Mul(head*0.5)), c)
}

// commit hands this frame's segments to the GPU buffer and hides an empty batch.
func (b *lineBatch) commit() {
	b.vbo.SetBuffer(math32.ArrayF32(b.buf))
	b.lines.SetVisible(len(b.buf) > 0)
}
