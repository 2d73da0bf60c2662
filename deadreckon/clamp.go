package deadreckon

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Defaults for Clamp. A zero field in Clamp takes the matching default.
const (
	// DefaultRayHeight is how far above the reckoned position the clamp rays start, in
	// meters.
	DefaultRayHeight = 5.0
	// DefaultNearDistance is the observer distance in meters beyond which one ray and
	// the ground normal replace the three-ray clamp.
	DefaultNearDistance = 80.0
	// DefaultFarDistance is the observer distance in meters beyond which the clamp runs
	// only every FarInterval frames, reusing its last offset in between.
	DefaultFarDistance = 200.0
	// DefaultFarInterval is how many frames apart far actors are clamped.
	DefaultFarInterval = 4
	// DefaultMaxTilt is the steepest tilt, radians (45°), a clamp gives an actor:
	// tracks grip with a friction of about 1, so a tank rests on no steeper slope,
	// and a steeper "ground" under its footprint is a cliff face its contacts do
	// not follow.
	DefaultMaxTilt = 45 * math.Pi / 180
	// supportStep is how far, in meters, the ground under the actor's origin may lie
	// off the plane of the three footprint hits before the footprint is taken to
	// straddle a step (a cliff edge): the actor then rests on the footprint points
	// at the level of its origin, not on the plane, which would tilt it into the
	// drop (and, under ClampAlways, sink its middle below the edge).
	supportStep = 0.3
	// fallStep is how far, in meters, the ground may drop in one step beyond what
	// gravity allows before an actor leaves it: tracks and suspension follow a
	// bump, a cliff throws the actor.
	fallStep = 0.05
	// Gravity is the acceleration, m/s², that limits how fast ClampTo lowers an
	// actor under ClampAlways: where the ground falls away (off a cliff) the
	// displayed actor drops no faster than its owner's would.
	Gravity = 9.81
)

// Clamp says how an actor follows the ground after reckoning. The zero value does not
// clamp.
type Clamp struct {
	// Mode is none, only up, or always.
	Mode     ClampMode
	threeRay bool // the Footprint is set: near actors get the three-ray clamp (withDefaults)
	// Offset is the height in meters of the actor's origin above its ground contact
	// (the hull's height above its tracks' contact points). ClampUp and ClampAlways put
	// the origin at the ground height plus Offset.
	Offset float64
	// Footprint holds three points of the actor's footprint in its local frame, in
	// meters, whose centroid should be the origin: for a tank, the middle of the
	// hull's front and its two rear corners. If all zero (or any not finite), the
	// actor has no footprint: every clamp casts one ray under its origin and takes
	// the ground's normal there.
	Footprint [3]mgl64.Vec3
	// RayHeight is how far above the reckoned position the rays start, in meters; if
	// zero, DefaultRayHeight.
	RayHeight float64
	// NearDistance is the observer distance in meters beyond which one ray with the
	// ground normal is used; if zero, DefaultNearDistance; +Inf always uses three rays.
	NearDistance float64
	// FarDistance is the observer distance in meters beyond which clamping runs every
	// FarInterval frames and reuses the last offset in between; if zero,
	// DefaultFarDistance; +Inf never.
	FarDistance float64
	// FarInterval is the frame interval of far clamping; if zero, DefaultFarInterval.
	FarInterval int
	// MaxTilt caps the tilt of the clamped orientation from upright, radians; if
	// zero, DefaultMaxTilt.
	MaxTilt float64
	cosTilt float64 // cos(MaxTilt), set by withDefaults
}

func (c Clamp) withDefaults() Clamp {
	c.threeRay = c.Footprint != ([3]mgl64.Vec3{}) &&
		geom.FiniteVec(c.Footprint[0]) && geom.FiniteVec(c.Footprint[1]) && geom.FiniteVec(c.Footprint[2])
	if !c.threeRay {
		c.Footprint = [3]mgl64.Vec3{}
	}
	if !geom.Finite(c.Offset) {
		c.Offset = 0
	}
	c.RayHeight = positiveOr(c.RayHeight, DefaultRayHeight)
	if !(c.NearDistance > 0) {
		c.NearDistance = DefaultNearDistance
	}
	if !(c.FarDistance > 0) {
		c.FarDistance = DefaultFarDistance
	}
	if c.FarInterval <= 0 {
		c.FarInterval = DefaultFarInterval
	}
	if !(c.MaxTilt > 0 && c.MaxTilt < math.Pi/2) {
		c.MaxTilt = DefaultMaxTilt
	}
	c.cosTilt = math.Cos(c.MaxTilt)
	return c
}

// ClampResult is the outcome of one ground clamp, with what a debug overlay needs to
// draw the rays.
type ClampResult struct {
	// Position and Orientation are the clamped pose.
	Position    mgl64.Vec3
	Orientation mgl64.Quat
	// Clamped reports that clamping ran and found ground; the other fields below are
	// valid only then.
	Clamped bool
	// Rays is how many rays were cast: 3 near, 1 beyond NearDistance, 0 on a far frame
	// that reused the last offset.
	Rays int
	// Hits are where the rays met the ground; only the first NumHits are valid.
	Hits    [3]mgl64.Vec3
	NumHits int
	// RayStart is the height in meters the rays started from.
	RayStart float64
	// Normal is the unit upward normal of the hit triangle (or the ground's normal with
	// one ray).
	Normal mgl64.Vec3
	// Ground is the clamp height: the mean of the hit heights plus the Offset, meters.
	Ground float64
	// Lifted reports that the clamp moved the actor up (in ClampUp: that it was below).
	Lifted bool
}

// ClampPose clamps one pose to the ground g with the three-ray clamp: the three
// footprint points, placed by the pose's orientation, are cast down from RayHeight
// above the pose; the ground height is the mean of the hits plus c.Offset; the
// orientation keeps the pose's heading and takes pitch and roll from the hit
// triangle's normal. A fourth ray under the origin keeps the origin from ending
// below the ground, and when the footprint straddles a step (a cliff edge: the
// origin's ground more than 0.3 m off the hits' plane) the pose rests on the
// footprint points at the origin's level instead of tilting into the drop. The tilt
// never exceeds c.MaxTilt. Without a Footprint it casts one ray under the pose and
// takes the ground's normal there, the cheap clamp ClampTo gives distant actors.
// With ClampUp the pose moves only when it is below the ground; with ClampNone it is
// returned unchanged. A ray that misses (the pose sank deeper than RayHeight) falls
// back to g.HeightAt; when that fails too the pose is returned unchanged with
// Clamped false. Physics uses it for local actors, Actor.ClampTo for remote ones, so
// both sit on the ground the same way. ClampPose does not allocate.
func ClampPose(g Ground, pos mgl64.Vec3, orient mgl64.Quat, c Clamp) ClampResult {
	c = c.withDefaults()
	var r ClampResult
	if c.threeRay {
		q := geom.QuatNormalize(orient)
		clamp3(g, &pos, &q, &c, &r)
	} else {
		clamp1(g, pos, geom.QuatNormalize(orient), &c, &r)
	}
	return r
}

// clamp3 writes the three-ray clamp of pose (pos, q) into r.
//
// It is the per-frame hot path of every near actor, so it is written out in scalars
// with as few square roots and divisions as the result needs: one to normalize the
// hit triangle's normal, one for the forward axis (computed from the unnormalized
// normal, so the two run side by side) and one in the branch-free conversion of the
// frame to a quaternion (geom.UprightQuat). It uses no trigonometry.
//
// The pose comes by pointer and is read and written one component at a time: Go
// passes arrays (mgl64.Vec3, the quaternion's vector) on the stack, and a 16-byte
// copy of a vector its caller has just written 8 bytes at a time waits for those
// stores to reach the cache instead of taking them from the store buffer.
func clamp3(g Ground, pos *mgl64.Vec3, q *mgl64.Quat, c *Clamp, r *ClampResult) {
	px, py, pz := pos[0], pos[1], pos[2]
	w, x, y, z := q.W, q.V[0], q.V[1], q.V[2]
	r.Position[0], r.Position[1], r.Position[2] = px, py, pz
	r.Orientation.W, r.Orientation.V[0], r.Orientation.V[1], r.Orientation.V[2] = w, x, y, z
	r.Rays, r.NumHits, r.Clamped, r.Lifted = 3, 0, false, false
	if c.Mode == ClampNone || g == nil {
		r.Rays = 0
		return
	}
	// Rotation matrix rows for x and z, to place the footprint points. All three
	// points are placed before the first ray is cast: a call keeps no floating-point
	// value in a register, so the casts should have as little live as possible.
	m00, m01, m02 := 1-2*(y*y+z*z), 2*(x*y-w*z), 2*(x*z+w*y)
	m20, m21, m22 := 2*(x*z-w*y), 2*(y*z+w*x), 1-2*(x*x+y*y)
	start := py + c.RayHeight
	r.RayStart = start
	var h footprintHits
	for i := range c.Footprint {
		f := &c.Footprint[i]
		h.x[i] = px + m00*f[0] + m01*f[1] + m02*f[2]
		h.z[i] = pz + m20*f[0] + m21*f[1] + m22*f[2]
	}
	// The three footprint rays and a fourth under the origin (the plane of the
	// three hits is the ground only where the ground is smooth across the
	// footprint), cast back to back: between calls only their results are kept.
	// A Ground is read-only, so casting the fourth before the others are known to
	// hit changes nothing but the order of reads.
	var ok [3]bool
	h.y[0], ok[0] = g.RayDown(h.x[0], start, h.z[0])
	h.y[1], ok[1] = g.RayDown(h.x[1], start, h.z[1])
	h.y[2], ok[2] = g.RayDown(h.x[2], start, h.z[2])
	hc, okc := g.RayDown(pos[0], start, pos[2])
	for i := 0; i < 3; i++ {
		if !ok[i] {
			h.y[i], ok[i] = g.HeightAt(h.x[i], h.z[i]) // sunk deeper than RayHeight: cast from the top
		}
		if !ok[i] {
			r.NumHits = i
			return
		}
		r.Hits[i] = mgl64.Vec3{h.x[i], h.y[i], h.z[i]}
	}
	r.NumHits = 3
	base := (h.y[0] + h.y[1] + h.y[2]) / 3
	if !okc {
		hc, okc = g.HeightAt(pos[0], pos[2])
	}
	if okc {
		if d := hc - base; d > supportStep || d < -supportStep {
			h.onStep(g, *pos, hc)
			base = hc
		} else if d == d {
			// Never below the ground under the origin. Both are finite here, where
			// the builtin max is math.Max without its call (an assembly routine on
			// amd64, which the hot path cannot afford).
			base = max(base, hc)
		} else {
			base = math.Max(base, hc) // NaN, or both infinite: math.Max's answer
		}
	}
	// The hit triangle's upward normal c, unnormalized, and n, its unit vector; a
	// degenerate triangle has both straight up.
	ax, ay, az := h.x[1]-h.x[0], h.y[1]-h.y[0], h.z[1]-h.z[0]
	bx, by, bz := h.x[2]-h.x[0], h.y[2]-h.y[0], h.z[2]-h.z[0]
	cx, cy, cz := ay*bz-az*by, az*bx-ax*bz, ax*by-ay*bx
	if cy < 0 {
		cx, cy, cz = -cx, -cy, -cz
	}
	nx, ny, nz := 0.0, 1.0, 0.0
	if l2 := cx*cx + cy*cy + cz*cz; l2 > 1e-24 {
		k := 1 / math.Sqrt(l2)
		nx, ny, nz = cx*k, cy*k, cz*k
	} else {
		cx, cy, cz = 0, 1, 0
	}
	r.Clamped = true
	r.Normal = mgl64.Vec3{nx, ny, nz}
	if ny < c.cosTilt {
		// Steeper than the actor rests: tilt it by MaxTilt toward the slope.
		k := math.Sqrt((1 - c.cosTilt*c.cosTilt) / (nx*nx + nz*nz))
		nx, ny, nz = nx*k, c.cosTilt, nz*k
		cx, cy, cz = nx, ny, nz
	}
	r.Ground = base + c.Offset
	if !placeHeight(c.Mode, r) {
		return
	}
	if ny < geom.MinNormalY {
		// Near-vertical: the general path limits the tilt.
		r.Orientation = geom.GroundOrientation(geom.Rotate(*q, mgl64.Vec3{1, 0, 0}), r.Normal)
		return
	}
	// The forward axis is the pose's heading (the first column of its rotation
	// matrix, flattened) lifted into the ground plane: (fx, −(fx·nx + fz·nz)/ny, fz),
	// here scaled by |c|·ny to work from the unnormalized normal c.
	fx, fz := m00, m20
	if fx*fx+fz*fz < 1e-18 {
		fx, fz = 1, 0 // forward straight up or down: no heading to keep
	}
	tx, ty, tz := fx*cy, -(fx*cx + fz*cz), fz*cy
	k := 1 / math.Sqrt(tx*tx+ty*ty+tz*tz)
	tx, ty, tz = tx*k, ty*k, tz*k
	// Right axis s = t × n; t ⊥ n, both unit, so (t, n, s) is orthonormal.
	sx, sy, sz := ty*nz-tz*ny, tz*nx-tx*nz, tx*ny-ty*nx
	// geom.UprightQuat(tx, ty, tz, nx, ny, nz, sx, sy, sz), written out: too large
	// to inline, and a call here spills the whole frame (TestClampMatchesUprightQuat
	// holds the two to the bit).
	wy := sx - tz
	sg := math.Copysign(1, wy)
	qw := 1 + tx + ny + sz + math.Abs(wy)
	qx := nz - sy + sg*(nx+ty)
	qy := wy + sg*(1+ny-tx-sz)
	qz := ty - nx + sg*(sy+nz)
	k = 1 / math.Sqrt(qw*qw+qx*qx+qy*qy+qz*qz)
	r.Orientation.W, r.Orientation.V[0], r.Orientation.V[1], r.Orientation.V[2] = qw*k, qx*k, qy*k, qz*k
}

// footprintHits is the triangle a three-ray clamp rests on: x and z where each ray
// was cast, y the ground it hit, m.
type footprintHits struct {
	x, y, z [3]float64
}

// onStep replaces the triangle of a footprint that straddles a step, the origin's
// ground at height hc more than supportStep off the hits' mean. It rests on the origin's ray and the footprint points at its
// level; with fewer than two of those, on the ground's own normal under the origin
// (MaxTilt caps either).
func (h *footprintHits) onStep(g Ground, pos mgl64.Vec3, hc float64) {
	k := 0
	var sx, sy, sz [2]float64
	for i := 0; i < 3 && k < 2; i++ {
		if math.Abs(h.y[i]-hc) <= supportStep {
			sx[k], sy[k], sz[k] = h.x[i], h.y[i], h.z[i]
			k++
		}
	}
	h.x[0], h.y[0], h.z[0] = pos[0], hc, pos[2]
	if k == 2 {
		h.x[1], h.y[1], h.z[1] = sx[0], sy[0], sz[0]
		h.x[2], h.y[2], h.z[2] = sx[1], sy[1], sz[1]
		return
	}
	n, ok := g.NormalAt(pos[0], pos[2])
	if !ok || !geom.FiniteVec(n) || n[1] <= 0 {
		n = mgl64.Vec3{0, 1, 0}
	}
	// A triangle in the plane through the origin's hit with normal n.
	h.x[1], h.y[1], h.z[1] = pos[0]+n[1], hc-n[0], pos[2]
	h.x[2], h.y[2], h.z[2] = pos[0], hc-n[2], pos[2]+n[1]
}

// placeHeight moves r's position to the ground height r.Ground as mode says, and
// reports whether it did: always with ClampAlways, only from below with ClampUp.
func placeHeight(mode ClampMode, r *ClampResult) bool {
	py := r.Position[1]
	switch mode {
	case ClampAlways:
	case ClampUp:
		if r.Ground < py {
			return false
		}
	default:
		return false
	}
	r.Lifted = r.Ground > py
	r.Position[1] = r.Ground
	return true
}

// clamp1 writes the one-ray clamp of pose (pos, q) into r.
func clamp1(g Ground, pos mgl64.Vec3, q mgl64.Quat, c *Clamp, r *ClampResult) {
	*r = ClampResult{Position: pos, Orientation: q, Rays: 1}
	if c.Mode == ClampNone || g == nil {
		r.Rays = 0
		return
	}
	start := pos[1] + c.RayHeight
	r.RayStart = start
	h, ok := g.RayDown(pos[0], start, pos[2])
	if !ok {
		h, ok = g.HeightAt(pos[0], pos[2])
	}
	if !ok {
		return
	}
	r.Hits[0] = mgl64.Vec3{pos[0], h, pos[2]}
	r.NumHits = 1
	n, ok := g.NormalAt(pos[0], pos[2])
	if !ok || !geom.FiniteVec(n) || n.Len() < 1e-12 {
		n = mgl64.Vec3{0, 1, 0}
	} else {
		n = n.Normalize()
		if n[1] < 0 {
			n = n.Mul(-1)
		}
	}
	finishClamp(r, h, n, n, geom.Rotate(q, mgl64.Vec3{1, 0, 0}), c)
}

// finishClamp applies the clamp mode with ground height h (before the offset) and
// unit ground normal n (big: a positive multiple of it) to r, keeping the heading of
// forward axis fwd.
func finishClamp(r *ClampResult, h float64, big, n, fwd mgl64.Vec3, c *Clamp) {
	r.Clamped = true
	r.Normal = n
	r.Ground = h + c.Offset
	y := r.Position[1]
	switch c.Mode {
	case ClampAlways:
		r.Lifted = r.Ground > y
		r.Position[1] = r.Ground
		r.Orientation = geom.GroundOrientationScaled(fwd, big, n)
	case ClampUp:
		if r.Ground >= y {
			r.Lifted = r.Ground > y
			r.Position[1] = r.Ground
			r.Orientation = geom.GroundOrientationScaled(fwd, big, n)
		}
	}
}

// ClampTo clamps the pose reckoned by the last Advance to the ground g, as the
// actor's Clamp config says, choosing the clamp by the distance from observer (the
// camera or the local player, world meters): three rays up to NearDistance (one
// without a Footprint), one ray with the ground normal beyond it, and beyond
// FarDistance one ray only every
// FarInterval frames with the last vertical offset and tilt reused in between. Call
// it after Advance; Reckoned then returns the clamped pose and LastClamp the details.
// It does not allocate.
func (a *Actor) ClampTo(g Ground, observer mgl64.Vec3) {
	if !a.has {
		return
	}
	c := &a.clampCfg
	if c.Mode == ClampNone || g == nil {
		a.clamp = ClampResult{Position: a.rk.pos, Orientation: a.rk.rot}
		return
	}
	// The reckoned pose is read in place, component by component: Advance has just
	// written it 8 bytes at a time, and a copy of its vectors (16 bytes at a time)
	// would wait for those stores to reach the cache (see clamp3).
	pos, q := &a.rk.pos, &a.rk.rot
	dx, dy, dz := pos[0]-observer[0], pos[1]-observer[1], pos[2]-observer[2]
	d2 := dx*dx + dy*dy + dz*dz
	r := &a.clamp
	// The frame counter runs in every band, so the phases given by SetClampPhase
	// stay spread when actors move into the far band together.
	a.clampFrame++
	if a.clampFrame >= c.FarInterval {
		a.clampFrame = 0
	}
	near := !a.low && d2 <= c.NearDistance*c.NearDistance
	switch {
	case near && c.threeRay:
		clamp3(g, pos, q, c, r)
	case near || (!a.low && d2 <= c.FarDistance*c.FarDistance) || a.clampFrame == 0 || !r.Clamped:
		clamp1(g, *pos, *q, c, r)
	default:
		// A far frame between clamps: reuse the last offset and ground normal.
		r.Rays = 0
		r.Position = *pos
		r.Position[1] += a.clampDY
		r.Ground = r.Position[1]
		if a.clampDY != 0 || c.Mode == ClampAlways {
			r.Orientation = geom.GroundOrientation(geom.Rotate(*q, mgl64.Vec3{1, 0, 0}), r.Normal)
		} else {
			r.Orientation = *q
		}
	}
	if r.Rays > 0 {
		a.clampDY = r.Position[1] - pos[1]
	}
	if c.Mode == ClampAlways {
		// Where the ground drops away under the reckoned position (a cliff), the
		// actor falls as its owner does instead of jumping down the moment its
		// middle passes the edge.
		r.Position[1] = a.fall.Limit(r.Position[1], a.lastNow)
	}
	a.clamped = true
}

// Fall lowers a ground-clamped height no faster than Gravity: given the clamped height
// each frame, it returns the height to show, held above it while the actor falls from
// where it was shown last. It never holds the actor below the clamped height, and an
// actor moving up or along the ground is not thrown: only downward motion carries
// into a fall. Actor.ClampTo (ClampAlways) and the physics of local tanks use it, so
// both drop off a cliff alike. The zero value is ready; Reset after a teleport.
type Fall struct {
	y, at, vy float64 // height shown at the last call, its time, its downward velocity
	ok        bool
}

// Limit takes the clamped height y (m) at time now (s) and returns the height to show.
func (f *Fall) Limit(y, now float64) float64 {
	if !f.ok {
		f.y, f.at, f.vy, f.ok = y, now, 0, true
		return y
	}
	dt := now - f.at
	switch {
	case dt > 0:
		if low := f.y + f.vy*dt - 0.5*Gravity*dt*dt; y < low-fallStep {
			y, f.vy = low, f.vy-Gravity*dt
		} else {
			f.vy = min(0, (y-f.y)/dt) // math.Min(0, …) to the bit, without its call
		}
	case y < f.y:
		y = f.y // a second call at one instant does not fall further
	}
	f.y, f.at = y, now
	return y
}

// Velocity returns the vertical velocity of the last height returned, m/s (zero or
// downward).
func (f *Fall) Velocity() float64 { return f.vy }

// Reset forgets the last height: the next Limit starts afresh (a teleport, a respawn).
func (f *Fall) Reset() { *f = Fall{} }

// Mode is an actor's priority mode on the receiving side (Murphy's section 1.8):
// how much of a frame it is worth. The zero value is ModeHigh.
type Mode uint8

const (
	// ModeHigh reckons the actor in full: the blends of position, orientation and
	// articulations, and the clamp ClampTo chooses by the observer's distance.
	ModeHigh Mode = iota
	// ModeLow is for actors far from the observer or out of view: articulations are
	// shown at their projection without a blend, Config.Collide's obstacles are not
	// swept, and ClampTo casts one ray only every Clamp.FarInterval frames, reusing
	// the last offset and tilt in between, whatever the distance.
	ModeLow
	// NumModes is the number of modes.
	NumModes
)

// String returns "high" or "low".
func (m Mode) String() string {
	if m == ModeLow {
		return "low"
	}
	return "high"
}

// SetMode sets the actor's priority mode from the next Advance and ClampTo on.
// Switching does not jump: position and orientation keep their blend, and the
// clamp's last offset carries over.
func (a *Actor) SetMode(m Mode) { a.low = m == ModeLow }

// SetSweep sets whether Advance sweeps the shown path against Config.Collide's
// obstacles in ModeHigh, from the next Advance on; it is on until turned off, and
// ModeLow never sweeps. A receiver turns it off for an actor in ModeHigh that is
// too far off to be seen grazing a rock but near enough for its articulations'
// blend to show. Turned back on, the sweep resumes from its last sample, as on
// coming back from ModeLow.
func (a *Actor) SetSweep(on bool) { a.noSweep = !on }

// Sweeps reports whether Advance sweeps the shown path against the obstacles: in
// ModeHigh with SetSweep on and Config.Collide given (an actor on its route keeps to
// it unswept).
func (a *Actor) Sweeps() bool { return a.collide && !a.low && !a.noSweep }

// Mode returns the actor's priority mode.
func (a *Actor) Mode() Mode {
	if a.low {
		return ModeLow
	}
	return ModeHigh
}

// SetClampPhase offsets the frame counter of intermittent clamping, so that far actors
// given different phases clamp on different frames instead of all at once.
func (a *Actor) SetClampPhase(phase int) {
	if n := a.clampCfg.FarInterval; n > 0 {
		a.clampFrame = ((phase % n) + n) % n
	}
}

// LastClamp returns the outcome of the last ClampTo, for debug overlays.
func (a *Actor) LastClamp() ClampResult { return a.clamp }
