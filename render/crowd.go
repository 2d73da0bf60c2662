package render

import (
	"math"
	"slices"

	"github.com/g3n/engine/geometry"
	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/graphic"
	"github.com/g3n/engine/math32"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// Levels of detail of the tanks on the picture. A full model costs four draw calls
// (hull, turret, gun, shadow), so only the nearest few get one; every other tank is
// written each frame into one shared mesh, as a low-detail hull, turret and gun
// (three boxes) or, beyond MarkerDistance, a marker that keeps a few pixels of size
// at any range: the draw calls stay flat however many tanks a battle holds.
const (
	// DetailModels is how many tanks, nearest first, are drawn as full models; the
	// player's and the watched tank always are.
	DetailModels = 16
	// DetailDistance is how far from the camera a tank may be drawn as a full
	// model, m.
	DetailDistance = 150.0
	// MarkerDistance is the distance from the camera beyond which a tank is drawn
	// as a marker, m.
	MarkerDistance = 450.0
	// LabelCap is how many tanks carry a label at once: the watched and aimed-at
	// tanks first, then the nearest.
	LabelCap = 12
	// DefaultOverlayRange is how far from the focused tank (the watched one, or the
	// player's) other tanks get their debug overlays, m; SceneConfig.OverlayRange.
	DefaultOverlayRange = 100.0
	// OverlayRangeAll gives every tank its overlays (more than any map's diagonal).
	OverlayRangeAll = 1e9
	// markerAngle is the marker's size over its distance (about 8 px at 1280×720).
	markerAngle = 0.012
	// targetCone is the cosine of the half-angle around the camera's axis within
	// which the tank nearest the axis counts as aimed at, for the label order
	// (about 4°).
	targetCone = 0.9975
)

// wreckColor is a far wreck's colour in the crowd batch.
var wreckColor = math32.Color{R: 0.16, G: 0.15, B: 0.14}

// crowdVertex is one vertex of the low-detail model in its part's frame.
type crowdVertex struct{ p, n mgl32.Vec3 }

// crowdBatch draws every tank that is not a full model in one mesh rebuilt each
// frame: the vertices are put in the world on the CPU (60 a tank), so one draw call
// covers them all.
type crowdBatch struct {
	mesh *graphic.Mesh
	vbo  *gls.VBO
	geom *geometry.Geometry
	buf  []float32 // x y z, nx ny nz, r g b per vertex
	idx  []uint32
	// hull, turret and gun are the low-detail model's parts, in the hull, turret and
	// gun frames; marker is the marker, a unit box standing on the origin.
	hull, turret, gun, marker []crowdVertex
	// quads is the index pattern of one part: five faces (no bottom) of four
	// vertices, two triangles each.
	turretPivot, gunPivot mgl32.Vec3
	n                     [2]int // tanks written this frame: low detail, markers
}

// crowdBox returns the five visible faces (no bottom) of a box centred at c with
// sizes s, as four vertices each.
func crowdBox(c, s mgl32.Vec3) []crowdVertex {
	x0, x1 := c[0]-s[0]/2, c[0]+s[0]/2
	y0, y1 := c[1]-s[1]/2, c[1]+s[1]/2
	z0, z1 := c[2]-s[2]/2, c[2]+s[2]/2
	v := func(x, y, z float32) mgl32.Vec3 { return mgl32.Vec3{x, y, z} }
	face := func(n mgl32.Vec3, a, b, c, d mgl32.Vec3) []crowdVertex {
		return []crowdVertex{{a, n}, {b, n}, {c, n}, {d, n}}
	}
	var out []crowdVertex
	out = append(out, face(v(1, 0, 0), v(x1, y0, z1), v(x1, y0, z0), v(x1, y1, z0), v(x1, y1, z1))...)
	out = append(out, face(v(-1, 0, 0), v(x0, y0, z0), v(x0, y0, z1), v(x0, y1, z1), v(x0, y1, z0))...)
	out = append(out, face(v(0, 1, 0), v(x0, y1, z1), v(x1, y1, z1), v(x1, y1, z0), v(x0, y1, z0))...)
	out = append(out, face(v(0, 0, 1), v(x0, y0, z1), v(x1, y0, z1), v(x1, y1, z1), v(x0, y1, z1))...)
	out = append(out, face(v(0, 0, -1), v(x1, y0, z0), v(x0, y0, z0), v(x0, y1, z0), v(x1, y1, z0))...)
	return out
}

func newCrowdBatch(p *tankParts) *crowdBatch {
	sh := p.shape
	b := &crowdBatch{}
	// The hull with its tracks as one box, the turret as a box around its cylinder,
	// the barrel as a thin box from the trunnion.
	b.hull = crowdBox(mgl32.Vec3{0, float32(sh.turretPivot[1]) / 2, 0},
		mgl32.Vec3{float32(sh.length), float32(sh.turretPivot[1]), float32(sh.width)})
	r := float32(sh.turretRadius) * 0.9
	b.turret = crowdBox(mgl32.Vec3{0, float32(sh.turretHeight) / 2, 0}, mgl32.Vec3{2 * r, float32(sh.turretHeight), 2 * r})
	b.gun = crowdBox(mgl32.Vec3{float32(sh.barrelLength) / 2, 0, 0}, mgl32.Vec3{float32(sh.barrelLength), 0.3, 0.3})
	b.marker = crowdBox(mgl32.Vec3{0, 0.5, 0}, mgl32.Vec3{1, 1, 1})
	b.turretPivot = mgl32.Vec3{float32(sh.turretPivot[0]), float32(sh.turretPivot[1]), float32(sh.turretPivot[2])}
	b.gunPivot = mgl32.Vec3{float32(sh.gunPivot[0]), float32(sh.gunPivot[1]), float32(sh.gunPivot[2])}
	b.vbo = gls.NewVBO(nil).AddAttrib(gls.VertexPosition).AddAttrib(gls.VertexNormal).AddAttrib(gls.VertexColor)
	b.geom = geometry.NewGeometry()
	b.geom.AddVBO(b.vbo)
	b.mesh = graphic.NewMesh(b.geom, p.solidMat)
	p.solidMat.Incref()
	b.mesh.SetCullable(false)
	b.mesh.SetVisible(false)
	return b
}

// reset empties the batch for a new frame.
func (b *crowdBatch) reset() {
	b.buf, b.idx = b.buf[:0], b.idx[:0]
	b.n = [2]int{}
}

// put writes the vertices vs transformed by m in colour c. A crowd is tens of
// thousands of vertices a frame: a face's four vertices share its normal, turned
// once, and the transform is written out for m's rotation and translation alone
// (the batch's matrices have no projective row).
func (b *crowdBatch) put(vs []crowdVertex, m mgl32.Mat4, c math32.Color) {
	base := uint32(len(b.buf) / 9)
	n := len(b.buf)
	b.buf = slices.Grow(b.buf, 9*len(vs))[:n+9*len(vs)]
	out := b.buf[n:]
	var nx, ny, nz float32
	for k, v := range vs {
		if k%4 == 0 {
			q := v.n
			nx = m[0]*q[0] + m[4]*q[1] + m[8]*q[2]
			ny = m[1]*q[0] + m[5]*q[1] + m[9]*q[2]
			nz = m[2]*q[0] + m[6]*q[1] + m[10]*q[2]
		}
		p := v.p
		o := out[9*k : 9*k+9 : 9*k+9]
		o[0] = m[0]*p[0] + m[4]*p[1] + m[8]*p[2] + m[12]
		o[1] = m[1]*p[0] + m[5]*p[1] + m[9]*p[2] + m[13]
		o[2] = m[2]*p[0] + m[6]*p[1] + m[10]*p[2] + m[14]
		o[3], o[4], o[5] = nx, ny, nz
		o[6], o[7], o[8] = c.R, c.G, c.B
	}
	for q := uint32(0); q < uint32(len(vs)/4); q++ {
		i := base + 4*q
		b.idx = append(b.idx, i, i+1, i+2, i, i+2, i+3)
	}
}

// tank adds a low-detail tank at pos with orientation q, turret yaw and gun
// elevation in radians, in colour c.
func (b *crowdBatch) tank(pos mgl64.Vec3, q mgl64.Quat, turret, gun float64, c math32.Color) {
	root := mgl32.Translate3D(float32(pos[0]), float32(pos[1]), float32(pos[2])).Mul4(quat32(q).Mat4())
	b.put(b.hull, root, c)
	tm := root.Mul4(mgl32.Translate3D(b.turretPivot[0], b.turretPivot[1], b.turretPivot[2])).Mul4(mgl32.HomogRotate3DY(float32(turret)))
	b.put(b.turret, tm, c)
	gm := tm.Mul4(mgl32.Translate3D(b.gunPivot[0], b.gunPivot[1], b.gunPivot[2])).Mul4(mgl32.HomogRotate3DZ(float32(gun)))
	b.put(b.gun, gm, c)
	b.n[0]++
}

// markerAt adds a marker of size size (m) standing at pos, turned to yaw, in colour c.
func (b *crowdBatch) markerAt(pos mgl64.Vec3, yaw, size float64, c math32.Color) {
	s := float32(size)
	m := mgl32.Translate3D(float32(pos[0]), float32(pos[1]), float32(pos[2])).
		Mul4(mgl32.HomogRotate3DY(float32(yaw))).Mul4(mgl32.Scale3D(s*1.6, s, s))
	b.put(b.marker, m, c)
	b.n[1]++
}

// commit hands the frame's vertices to the GPU buffer and hides an empty batch.
func (b *crowdBatch) commit() {
	b.vbo.SetBuffer(math32.ArrayF32(b.buf))
	b.geom.SetIndices(math32.ArrayU32(b.idx))
	b.mesh.SetVisible(len(b.idx) > 0)
}

// quat32 converts an orientation for the batch's float32 matrices.
func quat32(q mgl64.Quat) mgl32.Quat {
	return mgl32.Quat{W: float32(q.W), V: mgl32.Vec3{float32(q.V[0]), float32(q.V[1]), float32(q.V[2])}}
}

// crowdRank is one tank's place in the frame's order of detail and labels.
type crowdRank struct {
	i      int     // index in the snapshot
	dist   float64 // from the camera, m
	target bool    // watched or aimed at: labelled first
	e      *tankEntry
}

// rankTanks fills s.ranks with every drawable tank of snap, the watched and
// aimed-at ones first, then by distance from the camera (rankCmp). The tanks are
// taken in the last frame's order, so the sort, which finds the same order from any
// start, mostly finds them in it already (sortRanks).
func (s *Scene) rankTanks(snap *game.Snapshot, watched *game.TankView) {
	s.ranks = s.ranks[:0]
	n := len(snap.Tanks)
	if len(s.order) != n {
		s.order = s.order[:0]
		for i := range n {
			s.order = append(s.order, i)
		}
	}
	if len(s.at) < n {
		s.at = append(s.at, make([]*tankEntry, n-len(s.at))...)
	}
	clear(s.at[n:]) // no hold on the entries of tanks gone
	eye, fwd := s.view.Eye, s.view.Forward()
	aimed, best := -1, targetCone // the tank nearest the camera's axis, within the cone
	for _, i := range s.order {
		tv := &snap.Tanks[i]
		if !geom.FiniteVec(tv.Position) {
			continue
		}
		d := tv.Position.Sub(eye)
		dist := d.Len()
		// Of tanks equally near the axis, the first in the snapshot, whatever
		// order they are taken in.
		if c := d.Dot(fwd) / dist; dist > 0 && i != snap.Self &&
			(c > best || aimed >= 0 && c == best && i < s.ranks[aimed].i) {
			aimed, best = len(s.ranks), c
		}
		s.ranks = append(s.ranks, crowdRank{i: i, dist: dist, target: tv == watched})
	}
	if aimed >= 0 {
		s.ranks[aimed].target = true
	}
	sortRanks(s.ranks)
	// The next frame's order: this one's, then the tanks left out (no position).
	s.order = s.order[:0]
	for r := range s.ranks {
		s.order = append(s.order, s.ranks[r].i)
	}
	if len(s.order) < n {
		for i := range snap.Tanks {
			if !geom.FiniteVec(snap.Tanks[i].Position) {
				s.order = append(s.order, i)
			}
		}
	}
}

// rankCmp orders ranks: targets first, then by distance, then by index. No two
// ranks of a frame are equal, so every sort of them gives one order.
func rankCmp(a, b crowdRank) int {
	switch {
	case a.target != b.target:
		if a.target {
			return -1
		}
		return 1
	case a.dist < b.dist:
		return -1
	case a.dist > b.dist:
		return 1
	}
	return a.i - b.i
}

// sortRanks sorts r by rankCmp. Taken in the last frame's order, the ranks are
// nearly sorted (tanks move little in a frame), and an insertion sort finds their
// order in about one pass; when the order has changed a lot (a new camera, a
// respawn), it gives up after a few passes' moves and sorts them afresh.
func sortRanks(r []crowdRank) {
	budget := 4 * len(r)
	for k := 1; k < len(r); k++ {
		x := r[k]
		j := k
		for j > 0 && rankCmp(x, r[j-1]) < 0 {
			r[j] = r[j-1]
			j--
		}
		r[j] = x
		if budget -= k - j; budget < 0 {
			slices.SortFunc(r, rankCmp)
			return
		}
	}
}

// viewCone is the picture's cone as the frame's tests against it take it: the eye,
// the camera's forward axis and the cosine and sine of the cone's half-angle, worked
// out once a frame rather than for each of hundreds of tanks.
type viewCone struct {
	eye, fwd         mgl64.Vec3
	cosCone, sinCone float64
}

// cone returns the view's cone.
func (v View) cone() viewCone {
	a := v.HalfAngle()
	return viewCone{eye: v.Eye, fwd: v.Forward(), cosCone: math.Cos(a), sinCone: math.Sin(a)}
}

// inView reports whether a sphere of radius r at p may be on the picture of cone c.
func (c *viewCone) inView(p mgl64.Vec3, r float64) bool {
	d := p.Sub(c.eye)
	ahead := d.Dot(c.fwd)
	if ahead < -r {
		return false
	}
	dist := d.Len()
	if dist <= r {
		return true
	}
	// The angle off the axis, less the cone's, is within the sphere's angular
	// radius: sin(θ−cone)·dist ≤ r.
	perp := math.Sqrt(math.Max(0, dist*dist-ahead*ahead))
	return perp*c.cosCone-ahead*c.sinCone <= r
}

// CrowdCounts returns how many tanks the last Update drew as full models, at low
// detail and as markers.
func (s *Scene) CrowdCounts() (full, low, markers int) {
	return s.fullModels, s.crowd.n[0], s.crowd.n[1]
}

// drawCrowd writes tank tv, dist meters from the camera, into the crowd batch: at
// low detail, or as a marker beyond MarkerDistance; a wreck in the wreck's colour.
func (s *Scene) drawCrowd(tv *game.TankView, dist float64) {
	c := teamColor(tv.Team)
	if tv.Wreck {
		c = wreckColor
	}
	if dist > MarkerDistance {
		s.crowd.markerAt(tv.Position, geom.Yaw(tv.Orientation), dist*markerAngle, c)
		return
	}
	s.crowd.tank(tv.Position, tv.Orientation, tv.Turret, tv.Gun, c)
}

// SetOverlayRange sets how far from the focused tank other tanks get the debug
// overlays, m (SceneConfig.OverlayRange; OverlayRangeAll for every tank).
func (s *Scene) SetOverlayRange(m float64) {
	if !(m > 0) {
		m = DefaultOverlayRange
	}
	s.cfg.OverlayRange = m
}
