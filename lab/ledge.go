package lab

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
)

// ledgeGround is the terrain of the ledge scenario: a plateau ledgeHeight meters high
// west of x = 0, plain ground at height 0 east of it. South of z = 0 (z ≥ 0) the
// plateau ends in a vertical cliff at x = 0; north of it (z < 0) a ramp falls from the
// plateau at x = 0 to the plain at x = ledgeRampLength. Its zero value is ready to use
// and it is safe for concurrent use.
type ledgeGround struct{}

// ledgeRampLength is the horizontal length of the ledge scenario's ramp, m.
const ledgeRampLength = 50.0

// HeightAt reports the ground height at (x, z); the ground covers the whole plane.
func (ledgeGround) HeightAt(x, z float64) (float64, bool) {
	switch {
	case x < 0:
		return ledgeHeight, true
	case z >= 0 || x >= ledgeRampLength:
		return 0, true
	default:
		return ledgeHeight * (1 - x/ledgeRampLength), true
	}
}

// NormalAt reports the unit upward normal at (x, z). On the cliff line itself it
// reports the normal of the plain beyond it.
func (ledgeGround) NormalAt(x, z float64) (mgl64.Vec3, bool) {
	if x >= 0 && z < 0 && x < ledgeRampLength {
		// Height falls by ledgeHeight over ledgeRampLength along +X.
		return mgl64.Vec3{ledgeHeight / ledgeRampLength, 1, 0}.Normalize(), true
	}
	return mgl64.Vec3{0, 1, 0}, true
}

// RayDown reports the height of the ground under (x, y, z) if it is at or below y.
func (g ledgeGround) RayDown(x, y, z float64) (float64, bool) {
	h, _ := g.HeightAt(x, z)
	if h > y {
		return 0, false
	}
	return h, true
}

// Ledge track: an oval of two straights joined by half circles. The southern straight
// runs east across the cliff; the northern one runs west up the ramp.
const (
	ledgeHalfStraight = 60.0 // half the length of each straight, m
	ledgeTurnRadius   = 20.0 // radius of the half circles, m
	// ledgeStep is the largest drop the tracks follow without leaving the ground, m.
	ledgeStep = 0.05
)

// ledgeTrack returns the horizontal position and heading at arc length s on the oval,
// driven counter-clockwise seen from above (left turns).
func ledgeTrack(s float64) (x, z, psi float64) {
	const l, r = ledgeHalfStraight, ledgeTurnRadius
	straight := 2 * l
	turn := math.Pi * r
	s = math.Mod(s, 2*(straight+turn))
	switch {
	case s < straight: // eastbound along the south straight, over the cliff
		return -l + s, r, 0
	case s < straight+turn: // left turn round (+L, 0)
		th := -math.Pi/2 + (s-straight)/r
		return l + r*math.Cos(th), -r * math.Sin(th), th + math.Pi/2
	case s < 2*straight+turn: // westbound along the north straight, up the ramp
		return l - (s - straight - turn), -r, math.Pi
	default: // left turn round (−L, 0)
		th := math.Pi/2 + (s-2*straight-turn)/r
		return -l + r*math.Cos(th), -r * math.Sin(th), th + math.Pi/2
	}
}

func buildLedge(fps, duration float64) *Path {
	n := frames(fps, duration)
	g := ledgeGround{}
	p := &Path{Name: "ledge", FrameInterval: 1 / fps, Poses: make([]Pose, n), Ground: g}
	// Start on the plateau, 30 m west of the cliff, heading east towards it.
	s0 := ledgeHalfStraight - 30.0
	x, z, psi := ledgeTrack(s0)
	y, _ := g.HeightAt(x, z)
	airborne, vy, t := false, 0.0, 0.0
	for i := range p.Poses {
		target := float64(i) / fps
		for t < target-1e-12 {
			h := math.Min(substep, target-t)
			t += h
			x, z, psi = ledgeTrack(s0 + ledgeSpeed*t)
			ground, _ := g.HeightAt(x, z)
			if !airborne && ground < y-ledgeStep {
				airborne, vy = true, 0
			}
			if airborne {
				vy -= deadreckon.Gravity * h
				y += vy * h
				if y <= ground {
					airborne, y = false, ground
				}
			} else {
				y = ground
			}
		}
		q := geom.YawQuat(psi)
		if !airborne {
			nrm, _ := g.NormalAt(x, z)
			q = geom.GroundOrientation(forward(psi), nrm)
		}
		p.Poses[i] = Pose{Time: target, Position: mgl64.Vec3{x, y, z}, Orientation: q}
	}
	return p
}
