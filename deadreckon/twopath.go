package deadreckon

import (
	"math"

	"github.com/treadline/treadline/internal/geom"
)

// reckonTwoPath blends from the previous update's path to the last update's path,
// each projected from its own timestamp with its own velocity and acceleration, by a
// weight that runs from 0 to 1 over the blend time on the local clock (seed 001's
// scheme). Two departures from seed 001, both measured in the lab: the weight ramps
// as a smoothstep (zero slope at both ends), so the displayed velocity does not kink
// where a blend starts and ends; and the previous path keeps its own velocity instead
// of one blended toward the last (that blend, multiplied by the previous path's whole
// age, bulged the displayed speed mid-blend), with accelerations so that both paths
// bend with the actor. On a circle at 3 updates/s over 100 ms this cut the largest
// per-frame jump from 0.046 m to 0.010 m.
func (a *Actor) reckonTwoPath() {
	lk, pv := &a.lk, &a.c.prevLK
	out := &a.rk
	tt := a.tt
	u := 1.0
	if a.dtPos > minBlendTime {
		u = math.Min(1, tt/a.dtPos)
	}
	ur := 1.0
	if a.dtRot > minBlendTime {
		ur = math.Min(1, tt/a.dtRot)
	}
	tLast := a.lead + tt
	tPrev := math.Max(0, a.c.prevLead+tt)
	u = u * u * (3 - 2*u) // smoothstep: C¹ where a blend starts and ends
	gLast, _, _, _ := a.hz.terms(tLast)
	gPrev, _, _, _ := a.hz.terms(tPrev)
	pLast, kLast, _, _ := a.hz.motion(tLast, a.stop)
	pPrev, kPrev, _, _ := a.hz.motion(tPrev, a.hz.stopAge(pv.Velocity, pv.Acceleration))
	for i := 0; i < 3; i++ {
		last := lk.Position[i] + lk.Velocity[i]*pLast + lk.Acceleration[i]*kLast
		prev := pv.Position[i] + pv.Velocity[i]*pPrev + pv.Acceleration[i]*kPrev
		out.pos[i] = prev + (last-prev)*u
	}
	ql := geom.QuatMul(geom.RotationQuat(lk.AngularVelocity, gLast), lk.Orientation)
	if ur >= 1 {
		out.rot = geom.QuatUnit(ql)
	} else {
		qp := geom.QuatMul(geom.RotationQuat(pv.AngularVelocity, gPrev), pv.Orientation)
		out.rot = geom.SlerpShort(qp, ql, ur)
	}
	for i := 0; i < lk.NumArticulations; i++ {
		lim := a.c.cfg.ArticulationLimits[i]
		la := lk.Articulations[i].Angle + lk.Articulations[i].Rate*gLast
		if lim.Limited() {
			la = lim.near(la)
		}
		v := la
		if ur < 1 && i < pv.NumArticulations {
			pa := pv.Articulations[i].Angle + pv.Articulations[i].Rate*gPrev
			if lim.Limited() {
				v = lim.near(pa) + (la-lim.near(pa))*ur
			} else {
				v = pa + geom.WrapAngle(la-pa)*ur
			}
		}
		out.art[i] = v
	}
	a.showJoints(lk.NumArticulations)
}
