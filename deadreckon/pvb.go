package deadreckon

import (
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// setBezier sets the CubicBezier curve of a blend that starts now, once the blend
// start and ΔT are set: control points from the displayed and the last-known
// velocities, so the curve leaves P0 at V0 and meets the last-known path at its
// velocity.
func (a *Actor) setBezier() {
	d := a.dtPos
	end := a.project(d)
	third := d / 3
	a.c.bez = [4]mgl64.Vec3{
		a.p0,
		a.p0.Add(a.v0.Mul(third)),
		end.Position.Sub(end.Velocity.Mul(third)),
		end.Position,
	}
}

// bezierAt returns the point at parameter u ∈ [0, 1] of the cubic Bézier curve with
// control points b.
func bezierAt(b *[4]mgl64.Vec3, u float64) mgl64.Vec3 {
	v := 1 - u
	c0, c1, c2, c3 := v*v*v, 3*v*v*u, 3*v*u*u, u*u*u
	return b[0].Mul(c0).Add(b[1].Mul(c1)).Add(b[2].Mul(c2)).Add(b[3].Mul(c3))
}

// reckonBlend computes a.rk for ProjectiveVelocityBlend and CubicBezier, the
// per-frame hot path of nearly every actor. It calls nothing on the common path (Go
// keeps no floating-point value in a register across a call) and starts with the
// longest chain, the sine and cosine of the rotation by the last-known angular
// velocity over Tt. TestOptimizedMatchesReference holds it to the direct formulas.
func (a *Actor) reckonBlend() {
	lk := &a.lk
	tt := a.tt
	age := a.lead + tt
	out := &a.rk
	// Projection coefficients; past the horizon's short end (rare: a long silence
	// or a held acceleration) the general terms.
	g, h := age, 0.5*age*age
	if age > a.hz.short {
		g, h, _, _ = a.hz.terms(age)
	}
	turn := g - a.gLead // rotation since the blend start, per rad/s (tt on the common path)
	rturn := turn       // the same for the hull's rotation, which LagTurns and MaxTurnLead hold back
	if a.rHeld {
		rturn = a.rotationTerm(age) - a.gRLead // off the common path
	}
	sn, cs := 0.0, 1.0
	if half := 0.5 * a.wRate * rturn; half != 0 {
		// geom.Sincos(half), its inlined octant for the common |half| < π/4.
		if ax := math.Abs(half); ax*(4/math.Pi) < 1 {
			sn, cs = geom.SincosOctant(ax)
			if half < 0 {
				sn = -sn
			}
		} else {
			sn, cs = math.Sincos(half)
		}
	}
	th, thr, thv := a.blendFractions(tt)
	// Last-known projection P't; a braking one stops where its braking brings it.
	gp, hp := g, h
	if a.stop < math.MaxFloat64 {
		gp, hp, _, _ = a.hz.motion(age, a.stop)
	}
	pl := mgl64.Vec3{
		lk.Position[0] + lk.Velocity[0]*gp + lk.Acceleration[0]*hp,
		lk.Position[1] + lk.Velocity[1]*gp + lk.Acceleration[1]*hp,
		lk.Position[2] + lk.Velocity[2]*gp + lk.Acceleration[2]*hp,
	}
	switch {
	case th >= 1:
		out.pos = pl
	case a.alg == CubicBezier:
		out.pos = bezierAt(&a.c.bez, th)
	default:
		// Vb = V0 + (V'0 − V0)·T̂v; Pt = P0 + Vb·Tt + ½A'0·Tt²; Qt = Pt + (P't − Pt)·S(T̂)
		// with the smoothstep S(u) = u²(3 − 2u). V'0 (vl) is the last-known velocity
		// at the blend start (projected by the lead), so that at T̂ = 1 both
		// projections move alike. The paper lerps with T̂ itself, which adds a
		// velocity step (P'0 − P0)/ΔT at every update; S has zero slope at both
		// ends, so the displayed velocity is continuous (C¹) where a blend starts and
		// where it ends. The acceleration term is held to the horizon like P't's.
		ht := a.hz.half(tt)
		sp := th * th * (3 - 2*th)
		if a.linear {
			sp = th
		}
		if a.brake > 0 {
			// Toward a stop (stopBlend): Pt sheds the displayed speed evenly and
			// rests abreast of the stop, instead of carrying it on past.
			u := min(tt, a.brake) // both finite: math.Min to the bit, without its call
			k := u - u*u/(2*a.brake)
			for i := 0; i < 3; i++ {
				p := a.p0[i] + a.v0[i]*k
				out.pos[i] = p + (pl[i]-p)*sp
			}
			break
		}
		for i := 0; i < 3; i++ {
			vb := a.v0[i] + (a.vl[i]-a.v0[i])*thv
			p := a.p0[i] + vb*tt + lk.Acceleration[i]*ht
			out.pos[i] = p + (pl[i]-p)*sp
		}
	}

	// Orientation: both realities rotated by the last-known angular velocity, then
	// slerped by T̂ along the short path. Rotating both ends by rc rotates the whole
	// arc, slerp(rc·r0, rc·qLead, T̂) = rc·slerp(r0, qLead, T̂), so the arc between
	// r0 and qLead is measured once per update (prepareBlend). The slerp (see
	// geom.SlerpPrepared) and the product are written out: this runs for every actor every
	// frame, and Go keeps no floating-point value in a register across a call.
	qw, qx, qy, qz := a.qLead.W, a.qLead.V[0], a.qLead.V[1], a.qLead.V[2]
	if thr < 1 && a.shedTurn {
		thr *= 2 - thr // 1 − (1 − T̂)²: the displayed turn's rate falls evenly to rest
	}
	if thr < 1 {
		var s, t, k float64
		if a.slOm == 0 {
			t = thr + a.slK*thr*(1-thr)*(1-2*thr)
			s = 1 - t
			k = geom.NlerpScale(s*t, a.slK)
		} else {
			s = math.Sin((1-thr)*a.slOm) * a.slInv
			t = math.Sin(thr*a.slOm) * a.slInv
		}
		r0 := &a.r0
		qw, qx, qy, qz = s*r0.W+t*qw, s*r0.V[0]+t*qx, s*r0.V[1]+t*qy, s*r0.V[2]+t*qz
		if k == 0 {
			k = 1 / math.Sqrt(qw*qw+qx*qx+qy*qy+qz*qz)
		}
		qw, qx, qy, qz = qw*k, qx*k, qy*k, qz*k
	}
	if sn != 0 || cs != 1 {
		rx, ry, rz := a.wAxis[0]*sn, a.wAxis[1]*sn, a.wAxis[2]*sn
		qw, qx, qy, qz = cs*qw-rx*qx-ry*qy-rz*qz,
			cs*qx+rx*qw+ry*qz-rz*qy,
			cs*qy-rx*qz+ry*qw+rz*qx,
			cs*qz+rx*qy-ry*qx+rz*qw
	}
	out.rot = mgl64.Quat{W: qw, V: mgl64.Vec3{qx, qy, qz}}
	a.reckonArticulations(turn, g, thr)
}

// blendFractions returns how far the blend is, tt seconds after it started, for
// position, rotation and velocity: T̂ = tt/ΔT, 1 once the blend is over or when
// there is none. Small enough to inline, so the hot path stays free of calls.
func (a *Actor) blendFractions(tt float64) (th, thr, thv float64) {
	th, thr, thv = 1, 1, 1
	if !a.blending {
		return th, thr, thv
	}
	if a.dtPos > minBlendTime && tt < a.dtPos {
		th = tt / a.dtPos
	}
	if a.dtVel > minBlendTime && tt < a.dtVel {
		thv = tt / a.dtVel
	}
	if a.dtRot > minBlendTime && tt < a.dtRot {
		thr = tt / a.dtRot
	}
	return th, thr, thv
}

// minStopBlend is the shortest time, s, over which a display told of a stop it has
// already reached or passed sheds its speed: three frames at 60 Hz, a hard stop
// rather than a jump, that carries a display at 2.4 m/s 6 cm on.
const minStopBlend = 0.05

// stopBlend returns how long the display, moving at v0 from p0 at the blend start,
// takes to shed its speed evenly in a blend toward a last-known state that comes to
// rest, s: so that it comes to rest abreast of the rest point, or within minStopBlend
// when it is there already or past it. It returns 0, a plain blend, when the
// last-known state does not come to rest or the display stands.
//
// The plain blend carries the display's velocity on, fading over ΔT plus the latency
// (0.46 s at 360 ms): told of a stop late, a display at walking pace runs another
// 0.1 m past the place the stop rests at before it turns back, where the truth
// neither overshot nor reversed. Shedding the speed evenly toward the stop is how a
// braking vehicle moves, and the blend toward the last-known projection still lands
// the display on it.
func (a *Actor) stopBlend() float64 {
	if !(a.stop < math.MaxFloat64) {
		return 0
	}
	speed := a.v0.Len()
	if speed < minStopSpeed {
		return 0
	}
	g, h, _, _ := a.hz.motion(a.stop, a.stop)
	rest := a.lk.Position.Add(a.lk.Velocity.Mul(g)).Add(a.lk.Acceleration.Mul(h))
	ahead := rest.Sub(a.p0).Dot(a.v0) / speed
	// Shed evenly over t, the speed carries the display speed·t/2.
	return math.Max(minStopBlend, 2*ahead/speed)
}

// minStopSpeed is the displayed speed below which a blend toward a stop is a plain
// one, m/s: a display that stands has nothing to shed.
const minStopSpeed = 1e-3

// shownFrame is the interval over which shownTurn measures the displayed rotation,
// s: a frame at 60 Hz.
const shownFrame = 1.0 / 60

// shownTurn returns the displayed angular velocity at the last Advance, rad/s,
// measured over the last shownFrame of the running blend (ProjectiveVelocityBlend),
// or, just after a blend started, the one measured when it started.
func (a *Actor) shownTurn() mgl64.Vec3 {
	h := min(shownFrame, a.tt)
	if !a.advanced || h < minFrameTime*100 {
		return a.c.wShown
	}
	rk, tt := a.rk, a.tt
	a.tt -= h
	a.reckonBlend()
	before := a.rk.rot
	a.rk, a.tt = rk, tt
	return geom.RotationVector(before, rk.rot).Mul(1 / h)
}

// maxTurnShed is the longest a blend toward an orientation at rest sheds the
// displayed turn over, s: a display that turns slowly toward a rest far off blends
// there as usual instead of creeping.
const maxTurnShed = 1.0

// turnShed returns how long the display, turning at the angular velocity it showed
// when the update arrived, takes to shed that turn evenly in a blend toward a
// last-known orientation at rest, s: so that it comes to rest on it (and within
// minStopBlend when it is nearly there). It returns 0, a plain blend, when the
// last-known state turns, the display does not turn toward it, or shedding would
// take longer than maxTurnShed.
//
// The plain blend rotates from the displayed orientation to the rest at a constant
// rate over ΔT: the displayed turn's rate jumps at its start and stops dead at its
// end. Shedding it evenly is how a turning hull comes to rest.
func (a *Actor) turnShed() float64 {
	if a.wRate != 0 {
		return 0
	}
	w := a.c.wShown
	speed := w.Len()
	if speed < minTurnShedSpeed {
		return 0
	}
	arc := geom.RotationVector(a.r0, a.qLead)
	ahead := arc.Dot(w) / speed
	// Most of the way along the displayed turn, not across it.
	if ahead <= 0 || ahead*ahead < 0.5*arc.Dot(arc) {
		return 0
	}
	t := math.Max(minStopBlend, 2*ahead/speed)
	if t > maxTurnShed {
		return 0
	}
	return t
}

// minTurnShedSpeed is the displayed angular speed below which a blend toward an
// orientation at rest is a plain one, rad/s (about 1°/s).
const minTurnShedSpeed = 0.02
