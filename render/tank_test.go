package render

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/tank"
)

// modelTol is how far the drawn tank may stray from the specification, m.
const modelTol = 1e-6

// modelBounds returns the box around the drawn hull, tracks and turret (turned by
// turret yaw), hull frame.
func modelBounds(sh tankShape, turret float64) (lo, hi mgl64.Vec3) {
	lo = mgl64.Vec3{math.Inf(1), math.Inf(1), math.Inf(1)}
	hi = lo.Mul(-1)
	grow := func(p mgl64.Vec3) {
		for i := range 3 {
			lo[i], hi[i] = math.Min(lo[i], p[i]), math.Max(hi[i], p[i])
		}
	}
	for _, b := range []box{sh.hull, sh.glacis, sh.deck, sh.tracks[0], sh.tracks[1]} {
		grow(b.center.Sub(b.size.Mul(0.5)))
		grow(b.center.Add(b.size.Mul(0.5)))
	}
	rot := mgl64.HomogRotate3DY(turret)
	inHull := func(p mgl64.Vec3) mgl64.Vec3 { return sh.turretPivot.Add(rot.Mul4x1(p.Vec4(1)).Vec3()) }
	// The turret's and the cupola's rims, sampled finely enough for the bounds.
	for k := range 360 {
		a := 2 * math.Pi * float64(k) / 360
		rim := mgl64.Vec3{math.Cos(a), 0, math.Sin(a)}
		grow(inHull(rim.Mul(sh.turretRadius)))
		grow(inHull(rim.Mul(sh.turretRadius).Add(mgl64.Vec3{0, sh.turretHeight, 0})))
		grow(inHull(sh.cupola.Add(rim.Mul(sh.cupolaRadius)).Add(mgl64.Vec3{0, cupolaHeight / 2, 0})))
	}
	return lo, hi
}

// TestTankModelIsTheHullBox: the drawn hull, tracks and turret fill the hull box
// that collides and is hit, whichever way the turret turns.
func TestTankModelIsTheHullBox(t *testing.T) {
	spec := tank.Default()
	sh := shapeOf(spec)
	boxLo, boxHi := spec.HullMin(), spec.HullMax()
	for _, turret := range []float64{0, 0.7, math.Pi / 2, math.Pi, -2.2} {
		lo, hi := modelBounds(sh, turret)
		for i := range 3 {
			if lo[i] < boxLo[i]-modelTol || hi[i] > boxHi[i]+modelTol {
				t.Errorf("turret at %.2f rad: model %v…%v sticks out of the hit box %v…%v", turret, lo, hi, boxLo, boxHi)
				break
			}
		}
	}
	lo, hi := modelBounds(sh, 0)
	if lo.Sub(boxLo).Len() > modelTol || hi.Sub(boxHi).Len() > modelTol {
		t.Errorf("model spans %v…%v, the hit box %v…%v: the drawn tank is not the tank that is hit", lo, hi, boxLo, boxHi)
	}
	// The referee's own test of a point on the hull agrees at the model's corners.
	out := mgl64.Vec3{0.01, 0.01, 0.01}
	if !combat.OnHull(lo, modelTol) || !combat.OnHull(hi, modelTol) || combat.OnHull(lo.Sub(out), 0) || combat.OnHull(hi.Add(out), 0) {
		t.Errorf("the referee's hull test disagrees with the model's corners %v, %v", lo, hi)
	}
}

// TestTankModelBarrelEndsAtTheMuzzle: the tip of the drawn barrel, through the
// model's node tree (hull → turret yaw → gun elevation), is where shells leave.
func TestTankModelBarrelEndsAtTheMuzzle(t *testing.T) {
	sh := defaultShape()
	pos := mgl64.Vec3{10, 3, -20}
	q := mgl64.QuatRotate(0.3, mgl64.Vec3{0.2, 1, 0.1}.Normalize())
	for _, c := range []struct{ turret, gun float64 }{{0, 0}, {0.5, 0.1}, {math.Pi, -0.14}, {-1.9, 0.35}} {
		// The node tree, as newTankModel and setPose build it.
		m := mgl64.Translate3D(pos[0], pos[1], pos[2]).Mul4(q.Mat4()).
			Mul4(mgl64.Translate3D(sh.turretPivot[0], sh.turretPivot[1], sh.turretPivot[2])).Mul4(mgl64.HomogRotate3DY(c.turret)).
			Mul4(mgl64.Translate3D(sh.gunPivot[0], sh.gunPivot[1], sh.gunPivot[2])).Mul4(mgl64.HomogRotate3DZ(c.gun))
		tip := m.Mul4x1(mgl64.Vec4{sh.barrelLength, 0, 0, 1}).Vec3()
		axis := m.Mul4x1(mgl64.Vec4{1, 0, 0, 0}).Vec3()
		origin, dir := combat.Muzzle(pos, q, c.turret, c.gun)
		if d := tip.Sub(origin).Len(); d > modelTol {
			t.Errorf("turret %.2f, gun %.2f: drawn barrel tip %v, muzzle %v (%.3g m apart)", c.turret, c.gun, tip, origin, d)
		}
		if d := axis.Sub(dir).Len(); d > modelTol {
			t.Errorf("turret %.2f, gun %.2f: drawn barrel along %v, shells leave along %v", c.turret, c.gun, axis, dir)
		}
	}
}
