package deadreckon

import (
	"fmt"

	"github.com/treadline/treadline/internal/geom"
)

// Algorithm selects how a remote actor's displayed state follows its updates.
// The zero value is ProjectiveVelocityBlend, the default.
//
// An algorithm is its constant below, its name in algorithmNames and its case in
// (*Actor).reckon, which calls the method that reckons it: Static, Linear and
// Quadratic are here, projective velocity blending and CubicBezier in pvb.go,
// TwoPath in twopath.go, Delayed in delayed.go, Path in path.go (reckonRoute; an
// actor's alg is Path only while it is on its route, ProjectiveVelocityBlend off it).
type Algorithm uint8

const (
	// ProjectiveVelocityBlend blends a projection from the displayed state, moving at a
	// velocity blended toward the last-known one, into the last-known projection.
	ProjectiveVelocityBlend Algorithm = iota
	// Static shows the last-known position and orientation, unprojected.
	Static
	// Linear snaps to each update and projects it with its velocity.
	Linear
	// Quadratic snaps to each update and projects it with velocity and acceleration.
	Quadratic
	// CubicBezier follows a cubic Bézier from the displayed state to the last-known
	// projection, with control points from the two velocities.
	CubicBezier
	// TwoPath blends from the previous update's projected path to the last update's.
	TwoPath
	// Delayed shows the actor a fixed delay in the past, interpolating between
	// buffered updates and extrapolating only when the buffer runs dry. A full
	// buffer (16 updates) drops the oldest once the shown instant has passed the
	// next, or else the update whose neighbours lie closest, never the two the
	// display stands between.
	Delayed
	// DISStatic is DIS dead-reckoning model 1 (static): the last-known pose, unprojected.
	// It and the eight models after it snap to each update (dis.go, ProjectDIS).
	DISStatic
	// DISFPW is DIS model 2, DRM(F,P,W): constant world velocity, fixed orientation.
	DISFPW
	// DISRPW is DIS model 3, DRM(R,P,W): constant world velocity, rotating orientation.
	DISRPW
	// DISRVW is DIS model 4, DRM(R,V,W): constant world acceleration, rotating orientation.
	DISRVW
	// DISFVW is DIS model 5, DRM(F,V,W): constant world acceleration, fixed orientation.
	DISFVW
	// DISFPB is DIS model 6, DRM(F,P,B): constant body velocity, fixed orientation.
	DISFPB
	// DISRPB is DIS model 7, DRM(R,P,B): constant body velocity, rotating orientation.
	DISRPB
	// DISRVB is DIS model 8, DRM(R,V,B): constant body acceleration, rotating orientation.
	DISRVB
	// DISFVB is DIS model 9, DRM(F,V,B): constant body acceleration, fixed orientation.
	DISFVB
	// Path reckons an actor along a Route its owner published, from its progress
	// along it (Actor.SetRoute, Actor.ReceiveProgress; path.go), and with
	// projective velocity blending whenever the owner sends a State instead: before
	// the route, and from the moment the actor leaves it.
	Path
	numAlgorithms
)

var algorithmNames = [numAlgorithms]string{
	ProjectiveVelocityBlend: "pvb",
	Static:                  "static",
	Linear:                  "linear",
	Quadratic:               "quadratic",
	CubicBezier:             "bezier",
	TwoPath:                 "twopath",
	Delayed:                 "delayed",
	DISStatic:               "dis-static",
	DISFPW:                  "dis-fpw",
	DISRPW:                  "dis-rpw",
	DISRVW:                  "dis-rvw",
	DISFVW:                  "dis-fvw",
	DISFPB:                  "dis-fpb",
	DISRPB:                  "dis-rpb",
	DISRVB:                  "dis-rvb",
	DISFVB:                  "dis-fvb",
	Path:                    "path",
}

// String returns the algorithm's short name, as ParseAlgorithm accepts it.
func (a Algorithm) String() string {
	if a < numAlgorithms {
		return algorithmNames[a]
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

// ParseAlgorithm returns the algorithm with the short name s
// ("static", "linear", "quadratic", "pvb", "bezier", "twopath", "delayed", or one of
// the DIS models "dis-static", "dis-fpw", "dis-rpw", "dis-rvw", "dis-fvw", "dis-fpb",
// "dis-rpb", "dis-rvb", "dis-fvb", or "path").
func ParseAlgorithm(s string) (Algorithm, error) {
	for a, name := range algorithmNames {
		if name == s {
			return Algorithm(a), nil
		}
	}
	return 0, fmt.Errorf("deadreckon: unknown algorithm %q", s)
}

// reckonNow computes a.rk for the current a.tt, the blend's hot path first.
func (a *Actor) reckonNow() {
	if a.alg == ProjectiveVelocityBlend {
		a.reckonBlend()
	} else {
		a.reckon()
	}
}

// reckon computes a.rk for the current a.tt with the actor's algorithm.
func (a *Actor) reckon() {
	switch a.alg {
	case Static:
		return // set once by the update (snap)
	case Linear, Quadratic:
		a.reckonProjected()
	case TwoPath:
		a.reckonTwoPath()
	case Delayed:
		a.reckonDelayed()
	case Path:
		a.reckonRoute() // on the route; off it a.alg is ProjectiveVelocityBlend
	default:
		if a.alg.IsDIS() {
			a.reckonDIS(a.lead + a.tt)
			return
		}
		a.reckonBlend()
	}
}

// reckonProjected computes a.rk for Linear and Quadratic: the last-known state
// projected with its velocity (and, for Quadratic, its acceleration), snapped to at
// each update.
func (a *Actor) reckonProjected() {
	lk := &a.lk
	tt := a.tt
	age := a.lead + tt
	out := &a.rk
	k := 0.0
	if a.alg == Quadratic {
		k = 0.5 * age * age
	}
	out.pos = lk.Position.Add(lk.Velocity.Mul(age)).Add(lk.Acceleration.Mul(k))
	// Unit quaternions multiply to a unit quaternion; the rounding does not
	// accumulate because qLead is recomputed at each update.
	out.rot = geom.QuatMul(geom.AxisRotation(a.wAxis, a.wRate*(age-a.gLead)), a.qLead)
	a.reckonArticulations(age-a.gLead, age, 1)
}
