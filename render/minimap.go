package render

import (
	"image"
	imgcolor "image/color"
	"math"

	"github.com/g3n/engine/gls"
	"github.com/g3n/engine/gui"
	"github.com/g3n/engine/math32"
	"github.com/g3n/engine/texture"
	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/game"
	"github.com/treadline/treadline/internal/geom"
)

// The minimap is a top view of the whole map in a corner: the ground shaded by the
// sun and coloured by height, every tank as an arrow in its team's colour pointing
// where it heads, the camera's field of view as a cone, and the watched tank ringed.
// North (−Z) is up and +X to the right. It is one opaque image panel whose pixels
// are redrawn on the CPU minimapInterval seconds apart.
//
// A crowd (more than minimapCrowd tanks) would be a heap of arrows, so then each
// tank is a dot in its team's colour over a soft disc of its team's colour where
// many stand together (cells of minimapCell pixels, wider the more tanks), the
// player's teammates within minimapSquad meters stay arrows outlined in white, and
// the player's own arrow is drawn last, larger, in a white ring. A crowd's discs
// and dots are most of a redraw's work, and a tank crosses a minimap pixel in about
// a second: they are redrawn minimapCrowdInterval apart into a layer of their own,
// under the view cone, the squad's arrows and the player's, which every redraw
// puts on it.
const (
	// minimapSize is the minimap's side in pixels at HUD scale 1; it never takes
	// more than minimapShare of the picture's smaller side.
	minimapSize, minimapShare = 180, 0.28
	// minimapInterval is how often the minimap is redrawn, seconds, and
	// minimapCrowdInterval how often a crowd's discs and dots are.
	minimapInterval, minimapCrowdInterval = 0.05, 0.25
	// minimapArrow is the length of a tank's arrow in pixels at HUD scale 1.
	minimapArrow = 9
	// minimapCone is the length of the view cone as a fraction of the map's side.
	minimapCone = 0.22
	// minimapCrowd is the most tanks drawn as arrows; past it, dots and density.
	minimapCrowd = 64
	// minimapCell is the side of a density cell, pixels at HUD scale 1, and
	// minimapDense the tanks in a cell from which it is washed in its team's colour.
	minimapCell, minimapDense = 6, 2
	// minimapSquad and minimapSquadSize: the player's squad in a crowd, drawn as
	// arrows, is the nearest minimapSquadSize teammates within minimapSquad meters.
	minimapSquad, minimapSquadSize = 150.0, 4
)

// minimap is the map panel and its pixels.
type minimap struct {
	img   *gui.Image
	tex   *texture.Texture2D
	up    *pixelMaterial // gives tex each refresh's pixels, without mipmaps
	base  *image.RGBA    // the shaded ground, redrawn only on resize
	frame *image.RGBA    // base plus this refresh's cone and arrows
	// pix is frame's pixels as the texture takes them, put in an interface once a
	// build: SetFromRGBA puts them in one, allocating, at every redraw.
	pix      any
	crowd    *image.RGBA // base plus a crowd's discs and dots, as of crowdSince ago
	heights  *heightGrid
	min, max mgl64.Vec3
	size     int     // side, pixels
	scale    float32 // HUD scale the pixels were made for
	since    float64 // seconds since the last redraw
	dirty    bool
	// crowdSince is the time since the crowd layer was drawn, s; crowdDirty says
	// it is to be drawn at the next redraw (a resize, or a crowd that just formed).
	crowdSince float64
	crowdDirty bool
	cells      []minimapCellCount // density cells of a crowd, reused
	squad      [minimapSquadSize]*game.TankView
	// squadIDs holds the actor ids of the squad the crowd layer was drawn with:
	// their arrows, not dots, until the layer is drawn again.
	squadIDs [minimapSquadSize]uint32
	nSquad   int
	// edge[v] is channel value v under a dot's dark border (blend of black at
	// dotEdge), worked out once: a crowd's dots blend thousands of border pixels
	// at every redraw.
	edge   [256]uint8
	edgeOK bool
}

// dotEdge is the opacity of the dark border around a crowd's dots.
const dotEdge = 0.35

// minimapCellCount counts the tanks of each team slot (teamSlot) in a density cell,
// and sums their pixel coordinates.
type minimapCellCount struct {
	n    [6]uint16
	x, y float64
}

func newMinimap(g *heightGrid, lo, hi mgl64.Vec3) *minimap {
	m := &minimap{heights: g, min: lo, max: hi}
	m.build(minimapSide(DefaultWidth, DefaultHeight, 1), 1)
	return m
}

// minimapSide is the minimap's side in pixels in a w×h picture at HUD scale sc.
func minimapSide(w, h int, sc float32) int {
	return max(32, int(math.Round(math.Min(float64(minimapSize*sc), minimapShare*float64(min(w, h))))))
}

// build makes the ground image n pixels square, for HUD scale sc.
func (m *minimap) build(n int, sc float32) {
	m.scale = sc
	m.size = n
	m.base = image.NewRGBA(image.Rect(0, 0, n, n))
	m.frame = image.NewRGBA(image.Rect(0, 0, n, n))
	m.crowd = image.NewRGBA(image.Rect(0, 0, n, n))
	lo, hi := m.min, m.max
	hgt := make([]float64, n*n)
	for py := 0; py < n; py++ {
		for px := 0; px < n; px++ {
			x, z := m.world(float64(px)+0.5, float64(py)+0.5)
			h, ok := m.heights.heightAt(x, z)
			if !ok {
				h = lo[1]
			}
			hgt[py*n+px] = h
		}
	}
	cell := (hi[0] - lo[0]) / float64(n)
	sun := sunDirection.Normalize()
	for py := 0; py < n; py++ {
		for px := 0; px < n; px++ {
			at := func(x, y int) float64 { return hgt[min(n-1, max(0, y))*n+min(n-1, max(0, x))] }
			dx := (at(px+1, py) - at(px-1, py)) / (2 * cell)
			dz := (at(px, py+1) - at(px, py-1)) / (2 * cell)
			nrm := mgl64.Vec3{-dx, 1, -dz}.Normalize()
			x, z := m.world(float64(px)+0.5, float64(py)+0.5)
			c, ok := m.heights.colorAt(x, z)
			if !ok {
				c = groundColor(hgt[py*n+px], nrm[1])
			}
			light := 0.3 + 0.95*math.Max(0, nrm.Dot(sun))
			m.base.SetRGBA(px, py, rgba8(math32.Color{R: c.R * float32(light), G: c.G * float32(light), B: c.B * float32(light)}, 1))
		}
	}
	// A thin frame around the map.
	edge := rgba8(math32.Color{R: 0.9, G: 0.8, B: 0.3}, 1)
	for k := 0; k < n; k++ {
		m.base.SetRGBA(k, 0, edge)
		m.base.SetRGBA(k, n-1, edge)
		m.base.SetRGBA(0, k, edge)
		m.base.SetRGBA(n-1, k, edge)
	}
	copy(m.frame.Pix, m.base.Pix)
	m.pix = m.frame.Pix
	m.crowdDirty = true
	if m.tex == nil {
		m.tex = texture.NewTexture2DFromRGBA(m.frame)
		m.tex.SetMinFilter(gls.NEAREST)
		m.tex.SetMagFilter(gls.NEAREST)
		m.img = gui.NewImageFromTex(m.tex)
		opaque(m.img)
		m.up = newPixelMaterial(m.img.GetPanel())
	} else {
		m.tex.SetFromRGBA(m.frame)
		m.up.drop() // the pixels given before are of the old frame, maybe of the old size
		m.img.SetTexture(m.tex)
	}
	m.img.SetSize(float32(n), float32(n))
	m.dirty = true
}

// world returns the world (x, z) under minimap pixel coordinates (px, py).
func (m *minimap) world(px, py float64) (x, z float64) {
	n := float64(m.size)
	return m.min[0] + px/n*(m.max[0]-m.min[0]), m.min[2] + py/n*(m.max[2]-m.min[2])
}

// pixel returns the minimap pixel coordinates of world point p.
func (m *minimap) pixel(p mgl64.Vec3) (px, py float64) {
	n := float64(m.size)
	return (p[0] - m.min[0]) / (m.max[0] - m.min[0]) * n, (p[2] - m.min[2]) / (m.max[2] - m.min[2]) * n
}

// update redraws the cone and the arrows when due (every minimapInterval seconds).
func (m *minimap) update(snap *game.Snapshot, v View, watched *game.TankView, dt float64) {
	m.since += dt
	m.crowdSince += dt
	if !m.dirty && m.since < minimapInterval {
		return
	}
	m.since, m.dirty = 0, false
	crowd := len(snap.Tanks) > minimapCrowd
	if crowd {
		if m.crowdDirty || m.crowdSince >= minimapCrowdInterval {
			m.drawCrowdLayer(snap)
		}
		copy(m.frame.Pix, m.crowd.Pix)
	} else {
		m.crowdDirty = true // a crowd that forms again is drawn at once
		copy(m.frame.Pix, m.base.Pix)
	}
	// The view cone from the eye, as wide as the picture.
	ex, ey := m.pixel(v.Eye)
	f := v.Forward()
	yaw := math.Atan2(f[2], f[0]) // on the minimap: +x right, +z down
	half := math.Atan(math.Tan(v.FovY/2) * float64(v.Width) / float64(max(1, v.Height)))
	reach := minimapCone * float64(m.size)
	cone := imgcolor.RGBA{R: 255, G: 255, B: 255, A: 255}
	for _, a := range [2]float64{yaw - half, yaw + half} {
		m.line(ex, ey, ex+reach*math.Cos(a), ey+reach*math.Sin(a), cone, 0.55)
	}
	if crowd {
		m.drawCrowd(snap, watched)
		m.up.setPixels(m.size, m.size, m.pix)
		return
	}
	sc := float64(m.scale)
	for i := range snap.Tanks {
		tv := &snap.Tanks[i]
		if !geom.FiniteVec(tv.Position) {
			continue
		}
		px, py := m.pixel(tv.Position)
		h := geom.Yaw(tv.Orientation)
		dx, dy := math.Cos(h), -math.Sin(h)
		c := teamColor(tv.Team)
		if tv.Stale {
			c = math32.Color{R: 0.55, G: 0.55, B: 0.55}
		}
		l := minimapArrow * sc
		outline := imgcolor.RGBA{A: 255}
		if i == snap.Self {
			l *= 1.3
			outline = imgcolor.RGBA{R: 255, G: 255, B: 255, A: 255}
		}
		m.arrow(px, py, dx, dy, l, rgba8(c, 1), outline)
		if watched == tv {
			m.ring(px, py, l*0.95, imgcolor.RGBA{R: 255, G: 240, B: 80, A: 255})
		}
	}
	m.up.setPixels(m.size, m.size, m.pix)
}

// squadOf returns the player's squad, in near: the minimapSquadSize teammates alive
// nearest to tank me within minimapSquad meters, nearest first (none without a tank
// or a team).
func squadOf(near *[minimapSquadSize]*game.TankView, tanks []game.TankView, me *game.TankView) []*game.TankView {
	if me == nil || me.Team == 0 || me.DIS() {
		return nil
	}
	var dist [minimapSquadSize]float64
	n := 0
	for i := range tanks {
		tv := &tanks[i]
		if tv == me || tv.Team != me.Team || tv.Wreck || !geom.FiniteVec(tv.Position) {
			continue
		}
		d := tv.Position.Sub(me.Position).Len()
		if d > minimapSquad || (n == len(near) && d >= dist[n-1]) {
			continue
		}
		k := min(n, len(near)-1)
		for k > 0 && dist[k-1] > d {
			near[k], dist[k] = near[k-1], dist[k-1]
			k--
		}
		near[k], dist[k] = tv, d
		n = min(n+1, len(near))
	}
	return near[:n:n]
}

// teamSlot is the density slot of team t: 0…3 by colour, 4 no team, 5 DIS.
func teamSlot(t int) int {
	switch {
	case t == game.TeamDIS:
		return 5
	case t == 0:
		return 4
	}
	return teamIndex(t)
}

// tankColor is tank tv's colour on the minimap: its team's, grey when stale.
func tankColor(tv *game.TankView) imgcolor.RGBA {
	if tv.Stale {
		return rgba8(math32.Color{R: 0.55, G: 0.55, B: 0.55}, 1)
	}
	return rgba8(teamColor(tv.Team), 1)
}

// selfOf returns the player's tank in snap, or nil.
func selfOf(snap *game.Snapshot) *game.TankView {
	if snap.Self >= 0 && snap.Self < len(snap.Tanks) {
		return &snap.Tanks[snap.Self]
	}
	return nil
}

// drawCrowdLayer draws the crowd layer: the ground, a crowd's density discs and
// every tank's dot but the player's and its squad's, whose ids it keeps.
func (m *minimap) drawCrowdLayer(snap *game.Snapshot) {
	m.crowdSince, m.crowdDirty = 0, false
	me := selfOf(snap)
	near := squadOf(&m.squad, snap.Tanks, me)
	m.nSquad = len(near)
	for i, q := range near {
		m.squadIDs[i] = q.ID
	}
	// The discs and dots paint frame: they paint the layer in its place.
	m.frame, m.crowd = m.crowd, m.frame
	copy(m.frame.Pix, m.base.Pix)
	m.drawDensity(snap.Tanks)
	m.drawDots(snap.Tanks, me)
	m.frame, m.crowd = m.crowd, m.frame
}

// inSquad reports whether tv is one of the squad the crowd layer was drawn with.
func (m *minimap) inSquad(tv *game.TankView) bool {
	for _, id := range m.squadIDs[:m.nSquad] {
		if tv.ID == id {
			return true
		}
	}
	return false
}

// drawCrowd draws, over the crowd layer, the squad as arrows and the player's own
// arrow over everything.
func (m *minimap) drawCrowd(snap *game.Snapshot, watched *game.TankView) {
	sc := float64(m.scale)
	me := selfOf(snap)
	l := minimapArrow * sc
	white := imgcolor.RGBA{R: 255, G: 255, B: 255, A: 255}
	for i := range snap.Tanks {
		if tv := &snap.Tanks[i]; m.inSquad(tv) && geom.FiniteVec(tv.Position) {
			px, py := m.pixel(tv.Position)
			h := geom.Yaw(tv.Orientation)
			m.arrow(px, py, math.Cos(h), -math.Sin(h), l*0.85, tankColor(tv), white)
		}
	}
	if watched != nil && watched != me && geom.FiniteVec(watched.Position) {
		px, py := m.pixel(watched.Position)
		m.ring(px, py, l*0.8, imgcolor.RGBA{R: 255, G: 240, B: 80, A: 255})
	}
	if me != nil && geom.FiniteVec(me.Position) {
		px, py := m.pixel(me.Position)
		h := geom.Yaw(me.Orientation)
		m.ring(px, py, l*1.05, imgcolor.RGBA{A: 255})
		m.ring(px, py, l*0.95, white)
		m.arrow(px, py, math.Cos(h), -math.Sin(h), l*1.4, tankColor(me), white)
		if watched == me {
			m.ring(px, py, l*1.2, imgcolor.RGBA{R: 255, G: 240, B: 80, A: 255})
		}
	}
}

// drawDots draws every tank but me and the squad (inSquad) as a dot in its team's
// colour (a wreck's darker): others first, then the player's team, so teammates
// stay on top.
func (m *minimap) drawDots(tanks []game.TankView, me *game.TankView) {
	dot := max(2, int(math.Round(2.5*float64(m.scale))))
	for pass := range 2 {
		for i := range tanks {
			tv := &tanks[i]
			if tv == me || !geom.FiniteVec(tv.Position) || m.inSquad(tv) {
				continue
			}
			if mine := me != nil && tv.Team == me.Team; mine != (pass == 1) {
				continue
			}
			px, py := m.pixel(tv.Position)
			c := tankColor(tv)
			if tv.Wreck {
				c = imgcolor.RGBA{R: c.R / 3, G: c.G / 3, B: c.B / 3, A: 255}
			}
			m.square(px, py, dot, c)
		}
	}
}

// drawDensity draws a soft disc in the colour of the team most of them are on
// around each cell of minimapCell pixels holding minimapDense or more live tanks, its
// radius growing with the square root of their number: where a crowd stands, and how
// big it is, reads at a glance though its dots merge.
func (m *minimap) drawDensity(tanks []game.TankView) {
	cell := max(3, int(math.Round(minimapCell*float64(m.scale))))
	side := (m.size + cell - 1) / cell
	if cap(m.cells) < side*side {
		m.cells = make([]minimapCellCount, side*side)
	}
	m.cells = m.cells[:side*side]
	clear(m.cells)
	for i := range tanks {
		tv := &tanks[i]
		if tv.Wreck || !geom.FiniteVec(tv.Position) {
			continue
		}
		px, py := m.pixel(tv.Position)
		cx, cy := int(math.Floor(px))/cell, int(math.Floor(py))/cell
		if px < 0 || py < 0 || cx >= side || cy >= side {
			continue
		}
		c := &m.cells[cy*side+cx]
		c.n[teamSlot(tv.Team)]++
		c.x += px
		c.y += py
	}
	for _, c := range m.cells {
		n, best := 0, 0
		for slot, v := range c.n {
			n += int(v)
			if v > c.n[best] {
				best = slot
			}
		}
		if n < minimapDense {
			continue
		}
		m.disc(c.x/float64(n), c.y/float64(n), 0.55*float64(cell)*math.Sqrt(float64(n)), rgba8(slotColor(best), 1), 0.6)
	}
}

// disc blends a disc of radius r centered on (px, py) in c, opacity a at its
// middle fading to none at its rim. A crowd's discs cover thousands of pixels at
// each redraw: the rows are clipped to the minimap and to the disc's chord once,
// and the fade takes the squared distance as it is, without a square root.
func (m *minimap) disc(px, py, r float64, c imgcolor.RGBA, a float64) {
	if !(r > 0) || !geom.Finite(px) || !geom.Finite(py) {
		return
	}
	y0, y1 := max(0, int(math.Floor(py-r))), min(m.size-1, int(math.Ceil(py+r)))
	x0, x1 := max(0, int(math.Floor(px-r))), min(m.size-1, int(math.Ceil(px+r)))
	inv := 1 / (r * r)
	cr, cg, cb := float64(c.R), float64(c.G), float64(c.B)
	pix, stride := m.frame.Pix, m.frame.Stride
	for y := y0; y <= y1; y++ {
		dy := float64(y) + 0.5 - py
		dy2 := dy * dy
		row := pix[y*stride : y*stride+4*m.size]
		// The row's chord, widened by a pixel each way: a pixel beyond it is more
		// than a quarter of a square pixel outside the rim, where the test below
		// fails whatever the rounding, so only the corners' misses are skipped.
		w := math.Sqrt(math.Max(0, r*r-dy2)) + 1
		for x := max(x0, int(math.Floor(px-w))); x <= min(x1, int(math.Ceil(px+w))); x++ {
			dx := float64(x) + 0.5 - px
			d2 := (dx*dx + dy2) * inv
			if d2 >= 1 {
				continue
			}
			k := a * (1 - d2)
			o := row[4*x : 4*x+4 : 4*x+4]
			o[0] = uint8(float64(o[0])*(1-k) + cr*k)
			o[1] = uint8(float64(o[1])*(1-k) + cg*k)
			o[2] = uint8(float64(o[2])*(1-k) + cb*k)
			o[3] = 255
		}
	}
}

// slotColor is the colour of density slot k (teamSlot).
func slotColor(k int) math32.Color {
	switch k {
	case 5:
		return disColor
	case 4:
		return teamColor(0)
	}
	return teamColors[k]
}

// square fills a square of side n pixels centered on (px, py) in c, with a dark
// pixel border (black blended at dotEdge) so that dots of one colour stay apart.
// The square is clipped to the minimap once and the border's blend looked up: the
// same pixels as blending each border pixel in turn (TestSquareSamePixels).
func (m *minimap) square(px, py float64, n int, c imgcolor.RGBA) {
	if !m.edgeOK {
		for v := range m.edge {
			m.edge[v] = mix(uint8(v), 0, dotEdge)
		}
		m.edgeOK = true
	}
	x0, y0 := int(math.Floor(px))-n/2, int(math.Floor(py))-n/2
	xa, xb := max(0, x0-1), min(m.size-1, x0+n)
	ya, yb := max(0, y0-1), min(m.size-1, y0+n)
	pix, stride := m.frame.Pix, m.frame.Stride
	for y := ya; y <= yb; y++ {
		border := y == y0-1 || y == y0+n
		for x := xa; x <= xb; x++ {
			i := y*stride + 4*x
			o := pix[i : i+4 : i+4]
			if border || x == x0-1 || x == x0+n {
				o[0], o[1], o[2], o[3] = m.edge[o[0]], m.edge[o[1]], m.edge[o[2]], 255
				continue
			}
			o[0], o[1], o[2], o[3] = c.R, c.G, c.B, c.A
		}
	}
}

// mix is channel value o with q blended over it at opacity a.
func mix(o, q uint8, a float64) uint8 { return uint8(float64(o)*(1-a) + float64(q)*a) }

// arrow fills a triangle of length l centered on (px, py) pointing along (dx, dy) in
// fill, outlined in edge.
func (m *minimap) arrow(px, py, dx, dy, l float64, fill, edge imgcolor.RGBA) {
	tipX, tipY := px+dx*l*0.6, py+dy*l*0.6
	bx, by := px-dx*l*0.4, py-dy*l*0.4
	w := l * 0.38
	lx, ly := bx-dy*w, by+dx*w
	rx, ry := bx+dy*w, by-dx*w
	if !m.fillTriangle(tipX, tipY, lx, ly, rx, ry, fill) {
		return
	}
	m.line(tipX, tipY, lx, ly, edge, 1)
	m.line(lx, ly, rx, ry, edge, 1)
	m.line(rx, ry, tipX, tipY, edge, 1)
}

// fillTriangle fills the pixels whose centres are inside triangle (ax, ay), (bx, by),
// (cx, cy) or on its edges with fill, and reports false, filling nothing, when the
// triangle has no area. A centre is inside when its three barycentric weights (each
// edge function over the area) are not negative, that is when every edge function
// has the area's sign or is zero: comparing signs skips three divisions a pixel and
// fills the same pixels.
func (m *minimap) fillTriangle(ax, ay, bx, by, cx, cy float64, fill imgcolor.RGBA) bool {
	edgeFn := func(ax, ay, bx, by, x, y float64) float64 { return (bx-ax)*(y-ay) - (by-ay)*(x-ax) }
	area := edgeFn(ax, ay, bx, by, cx, cy)
	if area == 0 {
		return false
	}
	sgn := 1.0
	if area < 0 {
		sgn = -1
	}
	minX, maxX := int(math.Floor(min(ax, bx, cx))), int(math.Ceil(max(ax, bx, cx)))
	minY, maxY := int(math.Floor(min(ay, by, cy))), int(math.Ceil(max(ay, by, cy)))
	// The edge functions written out, (qx−px)·(y−py) − (qy−py)·(x−px) for each edge
	// p→q, with the parts that hold for a row worked out once for it: the same
	// products and differences, so the same values to the bit.
	e0x, e0y := cx-bx, cy-by
	e1x, e1y := ax-cx, ay-cy
	e2x, e2y := bx-ax, by-ay
	// Pixels off the minimap are never painted: the box is clipped to it.
	minX, maxX, minY, maxY = max(minX, 0), min(maxX, m.size-1), max(minY, 0), min(maxY, m.size-1)
	for y := minY; y <= maxY; y++ {
		py := float64(y) + 0.5
		r0, r1, r2 := e0x*(py-by), e1x*(py-cy), e2x*(py-ay)
		in := false
		for x := minX; x <= maxX; x++ {
			px := float64(x) + 0.5
			if sgn*(r0-e0y*(px-bx)) >= 0 && sgn*(r1-e1y*(px-cx)) >= 0 && sgn*(r2-e2y*(px-ax)) >= 0 {
				m.set(x, y, fill)
				in = true
			} else if in {
				// Each edge function, rounded, is monotone along the row (a
				// difference, a product and a difference, each rounding
				// monotonically), so the pixels inside a row are one run: past
				// its end there are none.
				break
			}
		}
	}
	return true
}

// ring draws a circle of radius r around (px, py).
func (m *minimap) ring(px, py, r float64, c imgcolor.RGBA) {
	steps := int(4*r) + 8
	for k := 0; k < steps; k++ {
		a := 2 * math.Pi * float64(k) / float64(steps)
		m.set(int(math.Floor(px+r*math.Cos(a))), int(math.Floor(py+r*math.Sin(a))), c)
	}
}

// line draws from (x0, y0) to (x1, y1), blending c over the pixels with opacity a.
func (m *minimap) line(x0, y0, x1, y1 float64, c imgcolor.RGBA, a float64) {
	n := int(math.Ceil(math.Max(math.Abs(x1-x0), math.Abs(y1-y0)))) + 1
	for k := 0; k <= n; k++ {
		t := float64(k) / float64(n)
		x, y := int(math.Floor(x0+(x1-x0)*t)), int(math.Floor(y0+(y1-y0)*t))
		if x < 0 || y < 0 || x >= m.size || y >= m.size {
			continue
		}
		if a >= 1 {
			m.set(x, y, c)
			continue
		}
		o := m.frame.RGBAAt(x, y)
		mixc := func(p, q uint8) uint8 { return uint8(float64(p)*(1-a) + float64(q)*a) }
		m.set(x, y, imgcolor.RGBA{R: mixc(o.R, c.R), G: mixc(o.G, c.G), B: mixc(o.B, c.B), A: 255})
	}
}

// set paints pixel (x, y) when it is on the minimap.
func (m *minimap) set(x, y int, c imgcolor.RGBA) {
	if x >= 0 && y >= 0 && x < m.size && y < m.size {
		i := y*m.frame.Stride + 4*x
		o := m.frame.Pix[i : i+4 : i+4]
		o[0], o[1], o[2], o[3] = c.R, c.G, c.B, c.A
	}
}
