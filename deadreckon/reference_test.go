package deadreckon

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/groundtest"
)

// The per-frame path (Advance, ClampTo) computes the blend from constants prepared at
// each update, a trigonometry-free slerp for close orientations, inline sine and
// cosine, and a clamp written out in scalars. The tests below hold it to the
// straightforward computation of the same quantities: Murphy's equations evaluated
// from the blend start, an exact trigonometric slerp, and a clamp built with mgl64's
// vector, matrix and quaternion functions.
const (
	// refPosTol is the position tolerance in meters: the two differ only in the order
	// of floating-point operations on coordinates of a few hundred meters.
	refPosTol = 1e-9
	// refRotTol is the orientation tolerance in radians: the corrected normalized
	// lerp is within 5e-7 rad of the exact slerp (TestSlerpShortAccuracy).
	refRotTol = 1e-6
	// refClampRotTol bounds the clamp's orientation difference in radians; no
	// approximation is involved there, only rounding.
	refClampRotTol = 1e-9
)

// exactSlerp interpolates from unit quaternion a to b by u along the shorter arc with
// the trigonometric formula.
func exactSlerp(a, b mgl64.Quat, u float64) mgl64.Quat {
	d := geom.QuatDot(a, b)
	if d < 0 {
		d, b = -d, b.Scale(-1)
	}
	if d > 1-1e-15 {
		return a
	}
	om := math.Acos(d)
	s, t := math.Sin((1-u)*om)/math.Sin(om), math.Sin(u*om)/math.Sin(om)
	return a.Scale(s).Add(b.Scale(t)).Normalize()
}

// rotationAngle returns the angle in radians of the rotation between unit quaternions
// a and b, accurate for tiny angles too (2·acos of the dot product cannot resolve
// angles below about 6e-8 rad).
func rotationAngle(a, b mgl64.Quat) float64 {
	d := a.Conjugate().Mul(b)
	return 2 * math.Atan2(d.V.Len(), math.Abs(d.W))
}

// referencePVBJoints returns the position and orientation that projective velocity blending
// shows at the actor's current blend time, computed directly from the blend start
// (P0, V0, R0) and the last-known state.
//
// It returns the articulations too: each joint's last-known angle projected at its
// rate, blended from where the display had it at the blend start over the rotation
// blend, and held within its limit or wrapped.
func referencePVBJoints(a *Actor) (mgl64.Vec3, mgl64.Quat, [MaxArticulations]float64) {
	lk := a.lk
	tt := a.tt
	age := a.lead + tt
	th, thr, thv := 1.0, 1.0, 1.0
	if a.blending {
		th = math.Min(1, tt/a.dtPos)
		thr = math.Min(1, tt/a.dtRot)
		thv = math.Min(1, tt/a.dtVel)
	}
	// A braking last-known state (its acceleration within 45° of against its
	// velocity) comes to rest when its speed runs out at its rate along the
	// velocity, T = |v|²/(−a·v), if within the coasting horizon, and stays there. Its
	// speed runs out evenly as it goes on turning: velocity (1 − t/T)(v + a⊥·t) with
	// a⊥ = a + v/T, integrated in closed form.
	v, acc := lk.Velocity, lk.Acceleration
	stop := math.Inf(1)
	if av := acc.Dot(v); av < 0 && av*av >= 0.5*acc.Dot(acc)*v.Dot(v) && v.Dot(v)/-av < a.hz.coast {
		stop = v.Dot(v) / -av
	}
	moved := func(age float64) (mgl64.Vec3, mgl64.Vec3) {
		if math.IsInf(stop, 1) {
			g, h, gv, hv := a.hz.terms(age)
			return lk.Position.Add(v.Mul(g)).Add(acc.Mul(h)), v.Mul(gv).Add(acc.Mul(hv))
		}
		t := math.Min(age, stop)
		across := acc.Add(v.Mul(1 / stop))
		// ∫(1 − s/T)(v + a⊥·s) ds from 0 to t.
		pos := lk.Position.Add(v.Mul(t - t*t/(2*stop))).Add(across.Mul(t*t/2 - t*t*t/(3*stop)))
		return pos, v.Add(across.Mul(t)).Mul(1 - t/stop)
	}
	g, _, _, _ := a.hz.terms(age)
	pl, _ := moved(age)
	pos := pl
	if th < 1 {
		_, vl := moved(a.lead)
		vb := a.v0.Add(vl.Sub(a.v0).Mul(thv))
		_, ht, _, _ := a.hz.terms(tt)
		pt := a.p0.Add(vb.Mul(tt)).Add(lk.Acceleration.Mul(ht))
		// Toward a stop, the display's own motion brakes evenly to rest abreast of
		// where the last-known state rests (at least minStopBlend to shed it).
		if speed := a.v0.Len(); !math.IsInf(stop, 1) && speed >= minStopSpeed {
			rest, _ := moved(stop)
			ahead := rest.Sub(a.p0).Dot(a.v0.Mul(1 / speed))
			brake := math.Max(minStopBlend, 2*ahead/speed)
			u := math.Min(tt, brake)
			pt = a.p0.Add(a.v0.Mul(u - u*u/(2*brake)))
		}
		pos = pt.Add(pl.Sub(pt).Mul(th * th * (3 - 2*th)))
	}
	w := lk.AngularVelocity
	rot := func(q mgl64.Quat, t float64) mgl64.Quat {
		if l := w.Len(); l > 0 && t != 0 {
			q = mgl64.QuatRotate(l*t, w.Mul(1/l)).Mul(q)
		}
		return q.Normalize()
	}
	gLead, _, _, _ := a.hz.terms(a.lead)
	var joints [MaxArticulations]float64
	for i := 0; i < lk.NumArticulations; i++ {
		j := lk.Articulations[i]
		lim, limited := a.c.cfg.ArticulationLimits[i], a.limited&(1<<i) != 0
		target := j.Angle + j.Rate*g
		if limited {
			target = lim.near(target)
		}
		v := target
		if thr < 1 && !a.low {
			cur := a.art0[i] + j.Rate*(g-gLead)
			if limited {
				cur = lim.near(cur)
				v = cur + (target-cur)*thr
			} else {
				v = cur + geom.WrapAngle(target-cur)*thr
			}
		}
		if limited {
			joints[i] = math.Max(lim.Min, math.Min(lim.Max, v))
		} else {
			joints[i] = geom.WrapAngle(v)
		}
	}
	ql := rot(lk.Orientation, g)
	if thr >= 1 {
		return pos, ql, joints
	}
	return pos, exactSlerp(rot(a.r0, g-gLead), ql, thr), joints
}

// referenceClamp3 is the three-ray clamp written with mgl64: footprint points rotated
// by the pose, the hit triangle's unit normal, the heading lifted into the ground
// plane, and the orientation from the rotation matrix of (forward, normal, right).
func referenceClamp3(g Ground, pos mgl64.Vec3, q mgl64.Quat, c Clamp) (mgl64.Vec3, mgl64.Quat, bool) {
	c = c.withDefaults()
	var hits [3]mgl64.Vec3
	for i, f := range c.Footprint {
		p := pos.Add(q.Rotate(f))
		h, ok := g.RayDown(p[0], pos[1]+c.RayHeight, p[2])
		if !ok {
			if h, ok = g.HeightAt(p[0], p[2]); !ok {
				return pos, q, false
			}
		}
		hits[i] = mgl64.Vec3{p[0], h, p[2]}
	}
	// A fourth ray under the middle: a footprint across a ledge rests on the
	// middle's ground and the points at its level, or on the ground's own normal.
	base := (hits[0][1] + hits[1][1] + hits[2][1]) / 3
	hc, ok := g.RayDown(pos[0], pos[1]+c.RayHeight, pos[2])
	if !ok {
		hc, ok = g.HeightAt(pos[0], pos[2])
	}
	if ok && math.Abs(hc-base) > supportStep {
		var level []mgl64.Vec3
		for _, h := range hits {
			if math.Abs(h[1]-hc) <= supportStep {
				level = append(level, h)
			}
		}
		mid := mgl64.Vec3{pos[0], hc, pos[2]}
		if len(level) >= 2 {
			hits = [3]mgl64.Vec3{mid, level[0], level[1]}
		} else {
			gn, ok := g.NormalAt(pos[0], pos[2])
			if !ok || gn[1] <= 0 {
				gn = mgl64.Vec3{0, 1, 0}
			}
			hits = [3]mgl64.Vec3{mid, mid.Add(mgl64.Vec3{gn[1], -gn[0], 0}), mid.Add(mgl64.Vec3{0, -gn[2], gn[1]})}
		}
		base = hc
	} else if ok {
		base = math.Max(base, hc)
	}
	n := hits[1].Sub(hits[0]).Cross(hits[2].Sub(hits[0])).Normalize()
	if n[1] < 0 {
		n = n.Mul(-1)
	}
	// Steeper than MaxTilt: tilted by MaxTilt toward the slope.
	if tilt := math.Acos(n[1]); tilt > c.MaxTilt {
		side := mgl64.Vec3{n[0], 0, n[2]}.Normalize()
		n = side.Mul(math.Sin(c.MaxTilt)).Add(mgl64.Vec3{0, math.Cos(c.MaxTilt), 0})
	}
	ground := base + c.Offset
	if c.Mode == ClampUp && ground < pos[1] {
		return pos, q, true
	}
	pos[1] = ground
	f := q.Rotate(mgl64.Vec3{1, 0, 0})
	t := mgl64.Vec3{f[0], -(f[0]*n[0] + f[2]*n[2]) / n[1], f[2]}.Normalize()
	m := mgl64.Mat3FromCols(t, n, t.Cross(n))
	return pos, mgl64.Mat4ToQuat(m.Mat4()).Normalize(), true
}

// TestOptimizedMatchesReference drives actors with noisy updates (large orientation
// corrections, so both slerp branches run, and fast spins, so the sine and cosine
// leave their inline range) and compares every frame's reckoned and clamped pose with
// the straightforward computation.
func TestOptimizedMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	ground := groundtest.Plane{Height: 1, SlopeX: 0.2, SlopeZ: -0.15}
	for k, cfg := range []Config{
		{},
		{UpdateInterval: 0.5, MaxRotationBlendTime: 0.3},
		{CompensateLatency: true, AverageIntervals: true},
	} {
		cfg.Clamp = Clamp{Footprint: tankFootprint(), Mode: ClampAlways, Offset: 1.2, NearDistance: math.Inf(1)}
		const n = 40
		actors := make([]*Actor, n)
		for i := range actors {
			actors[i] = NewActor(cfg)
			actors[i].SetClockOffset(0)
		}
		var worst refWorst
		for f := 0; f < 240; f++ {
			now := float64(f) * frame
			for i, a := range actors {
				if f%20 != i%20 {
					continue
				}
				if err := a.Receive(noisyUpdate(rng, a, now), now); err != nil {
					t.Fatal(err)
				}
			}
			for _, a := range actors {
				a.Advance(now)
				if a.HasState() {
					worst.check(t, f, a, ground, cfg.Clamp)
				}
			}
		}
		if worst.pos > refPosTol || worst.rot > refRotTol || worst.clamp > refClampRotTol || worst.joint > refClampRotTol {
			t.Errorf("config %d: worst position %.3g m (want ≤ %g), orientation %.3g rad (want ≤ %g), clamp %.3g rad (want ≤ %g), joints %.3g rad (want ≤ %g)",
				k, worst.pos, refPosTol, worst.rot, refRotTol, worst.clamp, refClampRotTol, worst.joint, refClampRotTol)
		}
		if worst.blends[0] == 0 || worst.blends[1] == 0 {
			t.Errorf("config %d: blends on the lerp and trigonometric branches: %v, want both", k, worst.blends)
		}
		t.Logf("worst position %.2g m, orientation %.2g rad, clamp orientation %.2g rad, joints %.2g rad; blend frames %v",
			worst.pos, worst.rot, worst.clamp, worst.joint, worst.blends)
	}
}

// noisyUpdate returns a random update for actor a at time now: anywhere on a
// 400 m square at first, then within a few meters of the shown position and turned
// by up to ±1.5 rad from its heading; fast, accelerating, slightly tilted and
// spinning at up to tens of rad/s.
func noisyUpdate(rng *rand.Rand, a *Actor, now float64) State {
	yaw := rng.Float64()*2*math.Pi - math.Pi
	s := NewState(mgl64.Vec3{rng.Float64()*400 - 200, rng.Float64() * 3, rng.Float64()*400 - 200})
	if a.HasState() {
		// Near the shown position, turned by up to ±1.5 rad.
		s.Position = a.Reckoned().Position.Add(mgl64.Vec3{rng.NormFloat64(), 0, rng.NormFloat64()})
		yaw = geom.Yaw(a.Reckoned().Orientation) + 3*(rng.Float64()-0.5)
	}
	s.Time = now - 0.1*rng.Float64()
	s.Velocity = mgl64.Vec3{rng.NormFloat64() * 5, rng.NormFloat64(), rng.NormFloat64() * 5}
	s.Acceleration = mgl64.Vec3{rng.NormFloat64(), 0, rng.NormFloat64()}
	s.Orientation = geom.QuatMul(geom.YawQuat(yaw), geom.QuatNormalize(mgl64.Quat{W: 1, V: mgl64.Vec3{0.1 * rng.NormFloat64(), 0, 0.1 * rng.NormFloat64()}}))
	s.AngularVelocity = mgl64.Vec3{0.2 * rng.NormFloat64(), 12 * rng.NormFloat64(), 0.2 * rng.NormFloat64()}
	s.NumArticulations = 2 // a turret that slews and a gun
	s.Articulations[0] = Articulation{Angle: 3 * rng.NormFloat64(), Rate: rng.NormFloat64()}
	s.Articulations[1] = Articulation{Angle: 0.2 * rng.NormFloat64(), Rate: 0.1 * rng.NormFloat64()}
	return s
}

// refWorst holds the largest differences TestOptimizedMatchesReference has seen
// between the fast path and the reference: position (m), orientation (rad) and the
// clamp's orientation (rad); and how many frames were mid-blend on the slerp's lerp
// and trigonometric branches.
type refWorst struct {
	pos, rot, clamp, joint float64
	blends                 [2]int
}

// check compares frame f of actor a, just advanced, with the reference, then clamps
// it to ground with clamp c and compares the clamp too.
func (w *refWorst) check(t *testing.T, f int, a *Actor, ground Ground, c Clamp) {
	t.Helper()
	wantPos, wantRot, wantJoints := referencePVBJoints(a)
	w.pos = math.Max(w.pos, a.rk.pos.Sub(wantPos).Len())
	for i := range wantJoints {
		w.joint = math.Max(w.joint, math.Abs(geom.WrapAngle(a.rk.art[i]-wantJoints[i])))
	}
	w.rot = math.Max(w.rot, rotationAngle(a.rk.rot, wantRot))
	if l := geom.QuatDot(a.rk.rot, a.rk.rot); math.Abs(l-1) > 1e-12 {
		t.Fatalf("frame %d: reckoned orientation length² %v", f, l)
	}
	if a.blending && a.tt < a.dtRot {
		if a.slOm == 0 {
			w.blends[0]++
		} else {
			w.blends[1]++
		}
	}
	a.ClampTo(ground, mgl64.Vec3{})
	cp, cq, ok := referenceClamp3(ground, a.rk.pos, a.rk.rot, c)
	got := a.Reckoned()
	// The displayed height may lag a drop (limitFall); the clamp itself is compared
	// through ClampPose.
	got.Position = ClampPose(ground, a.rk.pos, a.rk.rot, c).Position
	if !ok || !a.LastClamp().Clamped {
		t.Fatalf("frame %d: clamp found no ground", f)
	}
	w.clamp = math.Max(w.clamp, rotationAngle(got.Orientation, cq))
	w.pos = math.Max(w.pos, got.Position.Sub(cp).Len())
	if l := geom.QuatDot(got.Orientation, got.Orientation); math.Abs(l-1) > 1e-12 {
		t.Fatalf("frame %d: clamped orientation length² %v", f, l)
	}
}

// TestActorLayout checks that an Actor is a whole number of 64-byte cache lines, so
// that in a Reckoner's page-aligned storage no two actors share a line (no false
// sharing between workers) and each actor's frame touches the fewest lines.
func TestActorLayout(t *testing.T) {
	if s := unsafeSizeofActor(); s%64 != 0 {
		t.Errorf("sizeof(Actor) = %d bytes, want a multiple of 64", s)
	}
}

func unsafeSizeofActor() uintptr { return unsafe.Sizeof(Actor{}) }
