package client

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/combat"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/testmaps"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/render"
	"github.com/treadline/treadline/tank"
	"github.com/treadline/treadline/terrain"
)

// aimTolerance is how near two angles must be, rad.
const aimTolerance = 1e-9

// TestKeyAimStopsWhenReleased holds and releases the turret and gun keys under key
// aim: a held key moves the aim one frame of the tank's rate from where the turret
// and gun are now, and a released one leaves them there on the hull, also while the
// hull turns: there is no target hidden ahead of the turret.
func TestKeyAimStopsWhenReleased(t *testing.T) {
	spec := tank.Default()
	const dt = 0.1
	for _, c := range []struct {
		name           string
		hull, hullWas  float64 // the hull's yaw now and at the last frame
		turret, gun    float64
		held           aimKeys
		wantYaw, wantG float64
	}{
		{"nothing held", 1, 1, 0.3, 0.05, aimKeys{}, 1.3, 0.05},
		{"left", 1, 1, 0.3, 0.05, aimKeys{left: true}, 1.3 + spec.TurretRate*dt, 0.05},
		{"right", 1, 1, 0.3, 0.05, aimKeys{right: true}, 1.3 - spec.TurretRate*dt, 0.05},
		{"both", 1, 1, 0.3, 0.05, aimKeys{left: true, right: true}, 1.3, 0.05},
		{"up", 1, 1, 0.3, 0.05, aimKeys{up: true}, 1.3, 0.05 + spec.GunRate*dt},
		{"down at the limit", 1, 1, 0.3, spec.GunMin, aimKeys{down: true}, 1.3, spec.GunMin},
		{"released, hull turning left", 1.05, 1, 0.3, 0, aimKeys{}, 1.05 + 0.3 + 0.05, 0},
		{"released, hull turning left across ±π", -3.1, 3.1, 0, 0, aimKeys{}, -3.1 + (2*math.Pi - 6.2), 0},
	} {
		a := aimer{keys: true}
		a.reset(gunPose{Orientation: geom.YawQuat(c.hullWas)})
		me := gunPose{Orientation: geom.YawQuat(c.hull), Turret: c.turret, Gun: c.gun}
		in := a.update(me, mgl64.Vec3{}, false, c.held, dt)
		if math.Abs(geom.WrapAngle(in.AimYaw-c.wantYaw)) > aimTolerance || math.Abs(in.GunElevation-c.wantG) > aimTolerance {
			t.Errorf("%s: aim %.6f gun %.6f, want %.6f %.6f", c.name, in.AimYaw, in.GunElevation, c.wantYaw, c.wantG)
		}
	}
}

// TestMouseAimTraverseIsBounded aims with the mouse at points all round a tank of the
// physics world: the turret and gun move toward the aim no faster than the tank's
// rates, and get there.
func TestMouseAimTraverseIsBounded(t *testing.T) {
	w, err := physics.NewWorld(physics.WorldConfig{})
	if err != nil {
		t.Fatal(err)
	}
	tk, err := w.AddTank(physics.TankSpec{}, 0, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	spec := tank.Default()
	const dt = 1.0 / 30
	for _, c := range []struct {
		name  string
		point mgl64.Vec3
	}{
		{"ahead at 100 m", mgl64.Vec3{100, 0, 0}},
		{"behind at 150 m", mgl64.Vec3{-150, 0, 1}},
		{"left at 60 m, up a hill", mgl64.Vec3{0, 12, -60}},
		{"the sky ahead", mgl64.Vec3{500, 80, 0}},
	} {
		var a aimer
		pose := func() gunPose {
			p := tk.Pose()
			return gunPose{Position: p.Position, Orientation: p.Orientation, Turret: p.Turret, Gun: p.Gun}
		}
		a.reset(pose())
		var in physics.Input
		for range 300 { // 10 s: long enough for half a turn at 40°/s
			before := tk.Pose()
			in = a.update(pose(), c.point, false, aimKeys{}, dt)
			tk.SetInput(in)
			w.Step(dt)
			after := tk.Pose()
			steps := math.Max(1, math.Round(dt/w.FixedStep()))
			if turn := math.Abs(geom.WrapAngle(after.Turret - before.Turret)); turn > spec.TurretRate*w.FixedStep()*steps+1e-9 {
				t.Fatalf("%s: the turret turned %.4f rad in a frame, more than %.4f", c.name, turn, spec.TurretRate*dt)
			}
			if lift := math.Abs(after.Gun - before.Gun); lift > spec.GunRate*w.FixedStep()*steps+1e-9 {
				t.Fatalf("%s: the gun moved %.4f rad in a frame, more than %.4f", c.name, lift, spec.GunRate*dt)
			}
		}
		p := tk.Pose()
		if d := geom.WrapAngle(p.Yaw + p.Turret - in.AimYaw); math.Abs(d) > 1e-6 || math.Abs(p.Gun-in.GunElevation) > 1e-6 {
			t.Errorf("%s: after 10 s the turret is %.4f rad and the gun %.4f rad off the aim", c.name, d, p.Gun-in.GunElevation)
		}
	}
}

// TestSightPoint casts lines of sight over a flat ground: the sky and ground beyond
// range give the point combat.AimRange along the line (never nothing), the ground
// within range the ground, a hull its face; the player's own hull never stops it,
// and a line passing a tank just by ranges on the tank.
func TestSightPoint(t *testing.T) {
	flat := func(o, d mgl64.Vec3, maxDist float64) (mgl64.Vec3, bool) {
		if d[1] >= 0 {
			return mgl64.Vec3{}, false
		}
		s := -o[1] / d[1] * d.Len()
		if s > maxDist {
			return mgl64.Vec3{}, false
		}
		return o.Add(d.Normalize().Mul(s)), true
	}
	eye := mgl64.Vec3{0, 10, 0}
	self := combat.HullPose{Actor: 1, Position: mgl64.Vec3{12, 0, 0}, Orientation: mgl64.QuatIdent()}
	other := combat.HullPose{Actor: 2, Position: mgl64.Vec3{100, 0, 0}, Orientation: mgl64.QuatIdent()}
	up := mgl64.Vec3{1, 0.2, 0}.Normalize()
	// A crowd round the player's tank, the camera behind and above it: the line of
	// sight to the ground 50 m off passes within rangeNear of the tanks behind and
	// beside it, and of one 28 m past it.
	behind := combat.HullPose{Actor: 3, Position: mgl64.Vec3{6, 0, 4}, Orientation: mgl64.QuatIdent()}
	beside := combat.HullPose{Actor: 4, Position: mgl64.Vec3{14, 0, 6}, Orientation: mgl64.QuatIdent()}
	past := combat.HullPose{Actor: 5, Position: mgl64.Vec3{40, 0, -6}, Orientation: mgl64.QuatIdent()}
	for _, c := range []struct {
		name  string
		dir   mgl64.Vec3
		hulls []combat.HullPose
		want  mgl64.Vec3
	}{
		{"the sky", up, nil, eye.Add(up.Mul(combat.AimRange))},
		{"level: the horizon", mgl64.Vec3{0, 0, -1}, nil, mgl64.Vec3{0, 10, -combat.AimRange}},
		{"ground beyond range", mgl64.Vec3{100, -1, 0}, nil, eye.Add(mgl64.Vec3{100, -1, 0}.Normalize().Mul(combat.AimRange))},
		{"ground at 50 m", mgl64.Vec3{50, -10, 0}, nil, mgl64.Vec3{50, 0, 0}},
		{"over the own hull to the ground", mgl64.Vec3{50, -10, 0}, []combat.HullPose{self}, mgl64.Vec3{50, 0, 0}},
		{"a hull's face", mgl64.Vec3{1, -0.09, 0}, []combat.HullPose{self, other}, mgl64.Vec3{100 - tank.DefaultLength/2, 10 - 0.09*(100-tank.DefaultLength/2), 0}},
		{"past a tank: its range", mgl64.Vec3{100, -10 + tank.DefaultHeight/2, -6}, []combat.HullPose{other}, mgl64.Vec3{100, tank.DefaultHeight / 2, -6}},
		{"past tanks behind and beside the own: the ground", mgl64.Vec3{50, -10, 0}, []combat.HullPose{behind, self, beside}, mgl64.Vec3{50, 0, 0}},
		{"past the crowd, a tank ahead: its range", mgl64.Vec3{50, -10, 0}, []combat.HullPose{behind, self, beside, past},
			eye.Add(mgl64.Vec3{50, -10, 0}.Normalize().Mul(past.Position.Add(mgl64.Vec3{0, tank.DefaultHeight / 2, 0}).Sub(eye).Dot(mgl64.Vec3{50, -10, 0}.Normalize())))},
	} {
		got := sightPoint(eye, c.dir, flat, c.hulls, self.Actor)
		if got.Sub(c.want).Len() > 0.5 {
			t.Errorf("%s: sight point %.2f, want %.2f", c.name, got, c.want)
		}
	}
	if got := sightPoint(eye, mgl64.Vec3{}, flat, nil, 0); got != eye {
		t.Errorf("a zero direction: %v, want the eye %v", got, eye)
	}
}

// TestSightPointOverACrest casts lines of sight over a ridge 60 m out toward a tank
// 100 m off: a line grazing the ridge just under the tank's middle, which shows over
// it, ranges on the tank; a line into the ground short of it, or toward a tank the
// ridge hides, stops on the ground.
func TestSightPointOverACrest(t *testing.T) {
	eye := mgl64.Vec3{0, 10, 0}
	other := combat.HullPose{Actor: 2, Position: mgl64.Vec3{100, 0, 0}, Orientation: mgl64.QuatIdent()}
	mid := mgl64.Vec3{100, tank.DefaultHeight / 2, 0}
	for _, c := range []struct {
		name  string
		ridge float64 // its height, m
		at    mgl64.Vec3
		want  mgl64.Vec3
		tol   float64
	}{
		{"grazing the ridge under the tank's middle", 4.5, mgl64.Vec3{100, 0.5, 0}, mgl64.Vec3{100, 0.5, 0}, 0.5},
		{"into the ground short of the tank", 4.5, mgl64.Vec3{100, -8, 0}, mgl64.Vec3{100 * 10 / 18.0, 0, 0}, 0.5},
		{"the tank hidden by the ridge", 6, mid, mgl64.Vec3{60, 10 + (mid[1]-10)*0.6, 0}, 0.5},
	} {
		ray := func(o, d mgl64.Vec3, maxDist float64) (mgl64.Vec3, bool) {
			d = d.Normalize()
			for s := 0.0; s <= maxDist; s += 0.01 {
				p := o.Add(d.Mul(s))
				h := 0.0
				if p[0] >= 60 && p[0] <= 62 {
					h = c.ridge
				}
				if p[1] <= h {
					return p, true
				}
			}
			return mgl64.Vec3{}, false
		}
		got := sightPoint(eye, c.at.Sub(eye), ray, []combat.HullPose{other}, 1)
		if got.Sub(c.want).Len() > c.tol {
			t.Errorf("%s: sight point %.2f, want %.2f", c.name, got, c.want)
		}
	}
}

// TestSightPointSkipsOnlyFarTanks: the tanks sightPoint passes over unrotated,
// those too far from the line of sight to be met or ranged on, change nothing: over
// random crowds (tanks up to 30 m off the line, some behind the eye, some past
// combat.AimRange, tilted), its answer is the one testing every tank gives, to the
// bit, with a ground and without.
func TestSightPointSkipsOnlyFarTanks(t *testing.T) {
	// every is sightPoint as it was, every tank rotated and tested.
	every := func(eye, dir mgl64.Vec3, ray raycaster, hulls []combat.HullPose, self uint32) mgl64.Vec3 {
		dir = dir.Normalize()
		best := combat.AimRange
		ground := math.Inf(1)
		if ray != nil {
			if hit, ok := ray(eye, dir, best); ok {
				ground = hit.Sub(eye).Len()
				best = math.Min(best, ground)
			}
		}
		over := math.Inf(1)
		spec := tank.Default()
		lo, hi := spec.HullMin(), spec.HullMax()
		level := 0.0
		for _, h := range hulls {
			if h.Actor == self {
				level = math.Max(0, h.Position.Sub(eye).Dot(dir))
			}
		}
		for _, h := range hulls {
			if h.Actor == self {
				continue
			}
			inv := h.Orientation.Conjugate()
			if t, ok := rayBox(inv.Rotate(eye.Sub(h.Position)), inv.Rotate(dir), lo, hi); ok && t < best && t > level {
				best = t
			}
			mid := h.Position.Add(h.Orientation.Rotate(mgl64.Vec3{0, hi[1] / 2, 0}))
			t := mid.Sub(eye).Dot(dir)
			p := eye.Add(dir.Mul(t))
			if t <= 0 || t >= combat.AimRange || mid.Sub(p).Len() >= rangeNear || t <= level+rangeNear {
				continue
			}
			switch {
			case t < best:
				best = t
			case t > ground && t < over && seenOver(eye, mid, p, ray):
				over = t
			}
		}
		if best == ground && over < math.Inf(1) {
			best = over
		}
		return eye.Add(dir.Mul(best))
	}
	ground := func(o, d mgl64.Vec3, maxDist float64) (mgl64.Vec3, bool) {
		d = d.Normalize()
		if d[1] >= 0 {
			return mgl64.Vec3{}, false
		}
		s := (o[1] - 1) / -d[1] // a plane 1 m up
		if s > maxDist {
			return mgl64.Vec3{}, false
		}
		return o.Add(d.Mul(s)), true
	}
	rng := rand.New(rand.NewPCG(5, 64))
	skipped, met := 0, 0
	for trial := range 400 {
		eye := mgl64.Vec3{rng.Float64()*100 - 50, 3 + rng.Float64()*10, rng.Float64()*100 - 50}
		dir := mgl64.Vec3{rng.Float64()*2 - 1, -0.15 + rng.Float64()*0.2, rng.Float64()*2 - 1}
		var hulls []combat.HullPose
		for k := range 64 {
			along := -40 + rng.Float64()*(combat.AimRange+80)
			off := mgl64.Vec3{rng.Float64()*2 - 1, rng.Float64()*2 - 1, rng.Float64()*2 - 1}.Normalize().Mul(rng.Float64() * 30)
			tilt := geom.QuatMul(geom.YawQuat(rng.Float64()*2*math.Pi), mgl64.QuatRotate(rng.Float64()*0.4-0.2, mgl64.Vec3{1, 0, 0}))
			hulls = append(hulls, combat.HullPose{Actor: uint32(k + 1), Position: eye.Add(dir.Normalize().Mul(along)).Add(off), Orientation: tilt})
		}
		var ray raycaster
		if trial%2 == 0 {
			ray = ground
		}
		got, want := sightPoint(eye, dir, ray, hulls, 1), every(eye, dir, ray, hulls, 1)
		if got != want {
			t.Fatalf("trial %d: sight point %v, testing every tank %v", trial, got, want)
		}
		if want.Sub(eye).Len() < combat.AimRange-1e-6 && (ray == nil || got != every(eye, dir, ray, nil, 1)) {
			met++
		}
		skipped++
	}
	if met < 50 {
		t.Errorf("only %d of %d lines of sight met or ranged on a tank: the crowds test nothing", met, skipped)
	}
}

// BenchmarkSightPoint measures the frame's line of sight through a crowd of 64 or
// 512 tanks spread over a square kilometre around the player, looking level over a
// flat ground: most tanks are far from the line.
func BenchmarkSightPoint(b *testing.B) {
	flat := func(o, d mgl64.Vec3, maxDist float64) (mgl64.Vec3, bool) {
		d = d.Normalize()
		if d[1] >= 0 || -o[1]/d[1] > maxDist {
			return mgl64.Vec3{}, false
		}
		return o.Add(d.Mul(-o[1] / d[1])), true
	}
	for _, n := range []int{64, 512} {
		b.Run(fmt.Sprintf("tanks=%d", n), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(3, uint64(n)))
			hulls := make([]combat.HullPose, n)
			for k := range hulls {
				hulls[k] = combat.HullPose{Actor: uint32(k + 1), Position: mgl64.Vec3{rng.Float64()*1000 - 500, 0, rng.Float64()*1000 - 500},
					Orientation: geom.YawQuat(rng.Float64() * 2 * math.Pi)}
			}
			eye := mgl64.Vec3{0, 4, 0}
			var sink mgl64.Vec3
			yaw := 0.0
			for b.Loop() {
				yaw += 0.01
				sink = sinkAdd(sink, sightPoint(eye, mgl64.Vec3{math.Cos(yaw), -0.01, math.Sin(yaw)}, flat, hulls, 1))
			}
			if !geom.FiniteVec(sink) {
				b.Fatal("no sight point")
			}
		})
	}
}

// sinkAdd keeps a benchmark's results alive.
func sinkAdd(a, b mgl64.Vec3) mgl64.Vec3 { return a.Add(b) }

// TestAimAtStrikesThePoint fires from tanks on tilted ground at points 50 to 400 m
// off, within the gun's limits: the shell the aim sends passes within 30 cm of the
// point.
func TestAimAtStrikesThePoint(t *testing.T) {
	spec := tank.Default()
	for _, c := range []struct {
		name  string
		tilt  mgl64.Quat
		point mgl64.Vec3
	}{
		{"level, 50 m ahead", mgl64.QuatIdent(), mgl64.Vec3{50, 1, 0}},
		{"level, 200 m behind and up", mgl64.QuatIdent(), mgl64.Vec3{-200, 20, 30}},
		{"nose up 15°, 150 m left", mgl64.QuatRotate(0.26, mgl64.Vec3{0, 0, 1}), mgl64.Vec3{10, -5, -150}},
		{"rolled 6°, 400 m right", mgl64.QuatRotate(0.1, mgl64.Vec3{1, 0, 0}).Mul(geom.YawQuat(0.7)), mgl64.Vec3{40, 0, 400}},
	} {
		me := gunPose{Orientation: c.tilt}
		yaw, gun := aimAt(me, c.point, spec)
		me.Turret = geom.WrapAngle(yaw - geom.Yaw(me.Orientation))
		me.Gun = gun
		o, d := combat.Muzzle(me.Position, me.Orientation, me.Turret, me.Gun)
		s := combat.Shot{Origin: o, Direction: d}
		miss := math.Inf(1)
		for f := 0.0; f < 3; f += 1e-4 {
			miss = math.Min(miss, s.At(f).Sub(c.point).Len())
		}
		if miss > 0.3 {
			t.Errorf("%s: the shell passes %.2f m from the point", c.name, miss)
		}
	}
}

// TestGunMarkBlocked fires from a level tank over flat ground with and without a
// 3 m ridge 40 m out: the gun marker is drawn blocked only when the ground stops the
// shell well short of the aim point, never when it strikes a tank (the target, or
// another in the way) or the ground at the aim point, or flies on into the sky.
func TestGunMarkBlocked(t *testing.T) {
	spec := tank.Default()
	ridge := func(x float64) bool { return x >= 40 && x <= 42 }
	ground := func(withRidge bool) raycaster {
		return func(o, d mgl64.Vec3, maxDist float64) (mgl64.Vec3, bool) {
			d = d.Normalize()
			for s := 0.0; s <= maxDist; s += 0.02 {
				p := o.Add(d.Mul(s))
				h := 0.0
				if withRidge && ridge(p[0]) {
					h = 3
				}
				if p[1] <= h {
					return p, true
				}
			}
			return mgl64.Vec3{}, false
		}
	}
	target := combat.HullPose{Actor: 2, Position: mgl64.Vec3{100, 0, 0}, Orientation: mgl64.QuatIdent()}
	inWay := combat.HullPose{Actor: 3, Position: mgl64.Vec3{60, 0, 0}, Orientation: mgl64.QuatIdent()}
	for _, c := range []struct {
		name         string
		ridge        bool
		aim          mgl64.Vec3
		hulls        []combat.HullPose
		hit, blocked bool
		wantX, tolX  float64 // where the marker lies along x, m
	}{
		{"ground at the aim point", false, mgl64.Vec3{100, 0, 0}, nil, true, false, 100, 0.5},
		{"a tank at the aim point", false, mgl64.Vec3{100 - tank.DefaultLength/2, 1.2, 0}, []combat.HullPose{target}, true, false, 100 - tank.DefaultLength/2, 0.1},
		{"a tank in the way", false, mgl64.Vec3{100 - tank.DefaultLength/2, 1.2, 0}, []combat.HullPose{target, inWay}, true, false, 60 - tank.DefaultLength/2, 0.1},
		{"the ridge before the ground", true, mgl64.Vec3{100, 0, 0}, nil, true, true, 40, 0.1},
		{"the ridge before a tank", true, mgl64.Vec3{100 - tank.DefaultLength/2, 1.2, 0}, []combat.HullPose{target}, true, true, 40, 0.1},
		{"the sky", true, mgl64.Vec3{300, 60, 0}, nil, false, false, 0, math.Inf(1)},
	} {
		me := gunPose{Orientation: mgl64.QuatIdent()}
		yaw, gun := aimAt(me, c.aim, spec)
		me.Turret, me.Gun = yaw, gun
		m := gunMark(me, c.aim, nil, ground(c.ridge), c.hulls, 1)
		if m.Hit != c.hit || m.Blocked != c.blocked || math.Abs(m.Point[0]-c.wantX) > c.tolX {
			t.Errorf("%s: marker at %.2f hit %v blocked %v, want x %.1f hit %v blocked %v", c.name, m.Point, m.Hit, m.Blocked, c.wantX, c.hit, c.blocked)
		}
	}
}

// TestMouseAimResetFacesForward: a tank just placed (the first frame, a respawn)
// aims where its hull faces with the gun level, the camera behind it.
func TestMouseAimResetFacesForward(t *testing.T) {
	var a aimer
	a.camYaw = 2.5 // where the last tank looked
	me := gunPose{Orientation: geom.YawQuat(-1), Turret: 3}
	a.reset(me)
	if in := a.in; math.Abs(in.AimYaw+1) > aimTolerance || in.GunElevation != 0 || a.orbit(me) != 0 {
		t.Errorf("after a reset: aim %v gun %v orbit %v, want -1, 0, 0", in.AimYaw, in.GunElevation, a.orbit(me))
	}
}

// Newcomer's hand, for BenchmarkMouseAim.
const (
	handReaction = 0.3  // s before the hand moves toward a new target
	handGain     = 0.35 // share of the error on screen the hand takes out in a frame
	handMaxPx    = 40.0 // pixels the hand moves the mouse in a frame at most (1,200 px/s)
	handTremor   = 0.6  // σ of the hand's tremor, pixels a frame
	settlePx     = 3.0  // the greatest distance of each marker from the target (led) to fire, pixels…
	settleM      = 0.6  // …or metres at the target's distance, if more (a quarter of the hull's height)
	settleFrames = 3    // frames the gun marker holds still before a click…
	stillPx      = 1.5  // …moving less than this a frame, pixels
	aimFrame     = 1.0 / 30
	cruiseAfter  = 3.0  // s a moving target drives before the trial, to reach its cruising speed
	aimTimeout   = 10.0 // s to fire before the trial counts as a miss
	shellWait    = 3.0  // s a shell is followed
)

// aimTrial is one target for the newcomer of BenchmarkMouseAim.
type aimTrial struct {
	mp      *terrain.Map
	w       *physics.World
	me, tgt *physics.Tank
	chase   render.Chase
	view    render.View
	aim     aimer
	rng     *rand.Rand
	moving  bool
}

// newAimTrial places the player's tank and a target 50 to 200 m off in its sight over
// mp's ground, the player's hull turned anywhere; a moving target drives at 70 %
// throttle on a gentle curve, already at its cruising speed.
func newAimTrial(tb testing.TB, mp *terrain.Map, rng *rand.Rand, moving bool) *aimTrial {
	lo, hi := mp.Min(), mp.Max()
	for range 1000 {
		x, z := lo[0]+60+rng.Float64()*(hi[0]-lo[0]-120), lo[1]+60+rng.Float64()*(hi[1]-lo[1]-120)
		d, bearing := 50+150*rng.Float64(), rng.Float64()*2*math.Pi
		tx, tz := x+d*math.Cos(bearing), z-d*math.Sin(bearing)
		if tx < lo[0]+40 || tx > hi[0]-40 || tz < lo[1]+40 || tz > hi[1]-40 {
			continue
		}
		h, _ := mp.HeightAt(x, z)
		th, _ := mp.HeightAt(tx, tz)
		eye, at := mgl64.Vec3{x, h + 3, z}, mgl64.Vec3{tx, th + 1.2, tz}
		if _, blocked := mp.Raycast(eye, at.Sub(eye), at.Sub(eye).Len()); blocked {
			continue
		}
		w, err := physics.NewWorld(physics.MapConfig(mp))
		if err != nil {
			tb.Fatal(err)
		}
		me, err := w.AddTank(physics.TankSpec{}, x, z, rng.Float64()*2*math.Pi)
		if err != nil {
			tb.Fatal(err)
		}
		tgt, err := w.AddTank(physics.TankSpec{}, tx, tz, rng.Float64()*2*math.Pi)
		if err != nil {
			tb.Fatal(err)
		}
		if moving { // up to its cruising speed, and still in sight
			tgt.SetInput(physics.Input{Throttle: 0.7, Steer: 0.3 * (rng.Float64() - 0.5)})
			w.Step(cruiseAfter)
			at := tgt.Pose().Position.Add(mgl64.Vec3{0, 1.2, 0})
			if _, blocked := mp.Raycast(eye, at.Sub(eye), at.Sub(eye).Len()); blocked {
				continue
			}
		}
		w.Step(0.5) // settle on the ground
		tr := &aimTrial{mp: mp, w: w, me: me, tgt: tgt, rng: rng, moving: moving}
		tr.aim.reset(tr.pose())
		tr.follow()
		return tr
	}
	tb.Fatal("no place for a target in sight")
	return nil
}

func (tr *aimTrial) pose() gunPose {
	p := tr.me.Pose()
	return gunPose{Position: p.Position, Orientation: p.Orientation, Turret: p.Turret, Gun: p.Gun}
}

// follow moves the chase camera a frame after the player's tank, as the scene does.
func (tr *aimTrial) follow() {
	me := tr.pose()
	tr.chase.Yaw = tr.aim.orbit(me)
	eye, look := tr.chase.Follow(me.Position, geom.Yaw(me.Orientation), aimFrame, tr.mp.HeightAt)
	tr.view = render.View{Eye: eye, Orientation: render.LookRotation(look.Sub(eye), mgl64.Vec3{0, 1, 0}),
		FovY: fovRadians(DefaultFOV), Near: 0.5, Far: 2000, Width: render.DefaultWidth, Height: render.DefaultHeight}
}

func (tr *aimTrial) hulls() []combat.HullPose {
	a, b := tr.me.Pose(), tr.tgt.Pose()
	return []combat.HullPose{{Actor: 1, Position: a.Position, Orientation: a.Orientation},
		{Actor: 2, Position: b.Position, Orientation: b.Orientation}}
}

// want is where the newcomer puts the aim marker: the target's middle, led by its
// velocity over the shell's flight.
func (tr *aimTrial) want() mgl64.Vec3 {
	p := tr.tgt.Pose()
	at := p.Position.Add(p.Orientation.Rotate(mgl64.Vec3{0, tank.DefaultHeight / 2, 0}))
	var flight float64
	for range 3 {
		flight = at.Add(p.Velocity.Mul(flight)).Sub(tr.pose().Position).Len() / combat.MuzzleVelocity
	}
	return at.Add(p.Velocity.Mul(flight))
}

// aimOutcome is how a trial of BenchmarkMouseAim ended.
type aimOutcome int

// The outcomes of a trial: a hit, a shell fired that missed, or no shot within
// aimTimeout, by what held the player back at the end.
const (
	outHit       aimOutcome = iota
	outMissed               // fired; the shell struck something else or nothing
	outHidden               // the target was behind the ground, seen from the camera
	outBlocked              // the gun marker showed the shot blocked short of the target
	outLimit                // the gun was held at its limit off the aim marker
	outUnsettled            // the gun marker never held still on the target
	outcomes
)

// String names o for the benchmark's log.
func (o aimOutcome) String() string {
	return [...]string{"hit", "fired and missed", "target hidden", "shot blocked", "gun at a limit", "not settled"}[o]
}

// play moves the mouse toward the target each frame, through the client's aimer and
// the chase camera, and clicks once the gun marker has settled on the aim marker;
// while the shot cannot reach (the target behind the ground, the gun marker blocked
// or held at a limit off the aim marker) it holds fire and drives toward where the
// camera looks. It reports how the trial ended.
func (tr *aimTrial) play() aimOutcome {
	perPx := orbitPerPx * DefaultMouseSensitivity
	still := 0
	lastX, lastY := math.NaN(), math.NaN()
	var wasYaw, wasPitch float64 // where the target was last frame, seen from the eye
	why := outUnsettled          // what holds the player back, as the last frame showed
	for t := 0.0; t < aimTimeout; t += aimFrame {
		fwd := tr.view.Forward()
		want := tr.want().Sub(tr.view.Eye).Normalize()
		wantYaw, wantPitch := geom.Heading(want), math.Asin(want[1])
		if t >= handReaction {
			// Pursuit: the hand follows the target's own motion and takes out a share
			// of the error.
			yawErr := geom.WrapAngle(wantYaw-geom.Heading(fwd)) + geom.WrapAngle(wantYaw-wasYaw)
			pitchErr := math.Asin(fwd[1]) - wantPitch - (wantPitch - wasPitch)
			dx := math.Max(-handMaxPx, math.Min(handMaxPx, -handGain*yawErr/perPx)) + handTremor*tr.rng.NormFloat64()
			dy := math.Max(-handMaxPx, math.Min(handMaxPx, handGain*pitchErr/perPx)) + handTremor*tr.rng.NormFloat64()
			tr.aim.look(dx, perPx)
			tr.chase.Orbit(0, dy*perPx)
		}
		in := tr.aim.update(tr.pose(), sightPoint(tr.view.Eye, tr.view.Forward(), tr.mp.Raycast, tr.hulls(), 1), false, aimKeys{}, aimFrame)
		if why != outUnsettled {
			// The shot cannot reach from here: the player moves up, as to a crest, to
			// where the gun bears (turning the hull toward the camera, then driving).
			off := geom.WrapAngle(tr.aim.camYaw - tr.me.Pose().Yaw)
			in.Steer = -math.Max(-1, math.Min(1, 3*off))
			if math.Abs(off) < peekTurn {
				in.Throttle = 1
			}
		}
		tr.me.SetInput(in)
		wasYaw, wasPitch = wantYaw, wantPitch
		tr.w.Step(aimFrame)
		tr.follow()
		mark := gunMark(tr.pose(), tr.aim.point, tr.mp, nil, tr.hulls(), 1)
		x, y := projectMark(tr.view, mark.Point)
		wx, wy := projectMark(tr.view, tr.want())
		cx, cy := float64(tr.view.Width)/2, float64(tr.view.Height)/2
		near := math.Max(settlePx, settleM/(tr.want().Sub(tr.view.Eye).Len()*tr.view.FovY/float64(tr.view.Height)))
		on := math.Hypot(wx-cx, wy-cy) < near
		onAim := math.Hypot(x-wx, y-wy) < near
		why = tr.heldBack(mark, onAim)
		if on && why == outUnsettled && math.Hypot(x-lastX, y-lastY) < stillPx && onAim {
			still++
		} else {
			still = 0
		}
		lastX, lastY = x, y
		if still >= settleFrames {
			if tr.fire() {
				return outHit
			}
			return outMissed
		}
	}
	return why
}

// peekTurn is how near the hull must face where the camera looks for the player
// moving up to a firing place to drive forward rather than turn in place, rad.
const peekTurn = math.Pi / 4

// heldBack returns what the screen shows keeps the shot from the target, as a
// player sees it: the target behind the ground from the camera (a hill where the
// tank went), the gun marker drawn blocked, or the gun marker held off the aim
// marker (onAim false) with the gun at its limit; outUnsettled when nothing does.
func (tr *aimTrial) heldBack(mark gunMarker, onAim bool) aimOutcome {
	p := tr.tgt.Pose()
	mid := p.Position.Add(p.Orientation.Rotate(mgl64.Vec3{0, tank.DefaultHeight / 2, 0}))
	eye := tr.view.Eye
	_, hidden := tr.mp.Raycast(eye, mid.Sub(eye), mid.Sub(eye).Len())
	me := tr.me.Pose()
	switch {
	case hidden:
		return outHidden
	case mark.Blocked:
		return outBlocked
	case !onAim && (me.Gun <= tr.aim.spec.GunMin+1e-3 || me.Gun >= tr.aim.spec.GunMax-1e-3):
		return outLimit
	}
	return outUnsettled
}

// projectMark is where point p shows on view v, pixels; far off when behind it.
func projectMark(v render.View, p mgl64.Vec3) (x, y float64) {
	x, y, ok := v.Project(p)
	if !ok {
		return math.Inf(1), math.Inf(1)
	}
	return x, y
}

// fire fires the player's gun now and follows the shell through the world as it
// goes on: whether it strikes the target's hull.
func (tr *aimTrial) fire() bool {
	p := tr.me.Pose()
	o, d := combat.Muzzle(p.Position, p.Orientation, p.Turret, p.Gun)
	s := combat.Shot{Shooter: 1, Origin: o, Direction: d, Time: tr.w.FrameTime()}
	for t := s.Time; t < s.Time+shellWait; t += aimFrame {
		imp := combat.Sweep(tr.mp, s, t, t+aimFrame, tr.hulls())
		if imp.Kind != combat.ImpactNone {
			return imp.Kind == combat.ImpactTank && imp.Target == 2
		}
		tr.w.Step(aimFrame)
	}
	return false
}

// BenchmarkMouseAim plays a newcomer aiming with the mouse through the client's own
// mapping (aimer, sightPoint, gunMark) and the game's chase camera, over the valley's
// ground, in the physics world, with shells swept as the match sweeps them: for each
// target (50 to 200 m off, in sight, half of them stationary, half driving a curve at
// 70 % throttle) the hand moves the mouse to put the aim marker on the target's
// middle, led by its velocity over the shell's flight (as a player learns to), with
// a reaction, a speed limit and a tremor, and clicks once the gun marker has settled
// on the aim marker, itself on the target. As a player does, it holds fire while the
// screen shows the shot cannot reach: the target behind the ground seen from the
// camera, the gun marker drawn blocked (a crest or a rock short of the aim, which the
// camera sees over and the muzzle does not) or held off the aim marker by the gun's
// limit on a tilted hull; it then moves up, turning the hull toward where the camera
// looks and driving there, until the gun bears (turning the hull alone does not
// help: on a slope the hull's tilt toward the target is the ground's). A target not
// fired at within 10 s counts as a miss. It reports the share of targets hit
// (hit-rate; still-hit-rate and moving-hit-rate apart) and logs the misses by what
// ended them.
func BenchmarkMouseAim(b *testing.B) {
	mp := testmaps.Valley(b)
	const trials = 20 // per iteration, half of them moving
	var tried, struck [2]int
	var ended [outcomes]int
	for i := range b.N {
		rng := rand.New(rand.NewPCG(uint64(i), 34))
		for k := range trials {
			moving := k%2 == 1
			tr := newAimTrial(b, mp, rng, moving)
			out := tr.play()
			ended[out]++
			m := 0
			if moving {
				m = 1
			}
			tried[m]++
			if out == outHit {
				struck[m]++
			}
		}
	}
	rate := func(h, n int) float64 {
		if n == 0 {
			return 0
		}
		return float64(h) / float64(n)
	}
	b.ReportMetric(rate(struck[0]+struck[1], tried[0]+tried[1]), "hit-rate")
	b.ReportMetric(rate(struck[0], tried[0]), "still-hit-rate")
	b.ReportMetric(rate(struck[1], tried[1]), "moving-hit-rate")
	var misses []string
	for o := outMissed; o < outcomes; o++ {
		misses = append(misses, fmt.Sprintf("%s %d", o, ended[o]))
	}
	b.Logf("%d targets, %d hit; missed: %s", tried[0]+tried[1], ended[outHit], strings.Join(misses, ", "))
}
