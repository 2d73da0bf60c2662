package game

import (
	"math"
	"testing"

	tankspec "github.com/treadline/treadline/tank"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/terrain"
)

// valley returns the generated map the combat tests fight on.
func valley(t testing.TB) *terrain.Map {
	t.Helper()
	m, err := terrain.Generate(terrain.GenerateConfig{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMuzzleOfALevelTank(t *testing.T) {
	const eps = 1e-9
	for _, c := range []struct {
		name        string
		turret, gun float64
		wantOrigin  mgl64.Vec3
		wantDir     mgl64.Vec3
	}{
		{"ahead", 0, 0, mgl64.Vec3{-0.4 + 1.1 + 4.2, 1.55 + 0.375, 0}, mgl64.Vec3{1, 0, 0}},
		// Positive turret yaw turns toward −Z, as hull yaw does.
		{"left", math.Pi / 2, 0, mgl64.Vec3{-0.4, 1.55 + 0.375, -(1.1 + 4.2)}, mgl64.Vec3{0, 0, -1}},
		{"up", 0, math.Pi / 2, mgl64.Vec3{-0.4 + 1.1, 1.55 + 0.375 + 4.2, 0}, mgl64.Vec3{0, 1, 0}},
	} {
		o, d := Muzzle(mgl64.Vec3{}, mgl64.QuatIdent(), c.turret, c.gun)
		if o.Sub(c.wantOrigin).Len() > eps || d.Sub(c.wantDir).Len() > eps {
			t.Errorf("%s: muzzle %v dir %v, want %v %v", c.name, o, d, c.wantOrigin, c.wantDir)
		}
	}
}

func TestShellFollowsTheBallisticArcAndReachesItsAim(t *testing.T) {
	for _, c := range []struct{ dx, dy float64 }{{100, 0}, {200, 5}, {150, -10}, {400, 20}} {
		el, ok := BallisticElevation(c.dx, c.dy)
		if !ok {
			t.Fatalf("(%v, %v) out of reach", c.dx, c.dy)
		}
		s := Shot{Direction: mgl64.Vec3{math.Cos(el), math.Sin(el), 0}, Time: 2}
		flight := c.dx / (MuzzleVelocity * math.Cos(el))
		p := s.At(2 + flight)
		if math.Abs(p[0]-c.dx) > 1e-9 || math.Abs(p[1]-c.dy) > 1e-6 {
			t.Errorf("aimed at (%v, %v): shell at %v after %.3f s", c.dx, c.dy, p, flight)
		}
		if v := s.Velocity(2 + flight); math.Abs(v[1]-(MuzzleVelocity*math.Sin(el)-Gravity*flight)) > 1e-9 {
			t.Errorf("velocity %v", v)
		}
	}
	if _, ok := BallisticElevation(5000, 0); ok {
		t.Error("5 km is beyond a 200 m/s gun's reach, but an elevation came back")
	}
	if p := (Shot{Origin: mgl64.Vec3{1, 2, 3}, Direction: mgl64.Vec3{1, 0, 0}, Time: 5}).At(4); p != (mgl64.Vec3{1, 2, 3}) {
		t.Errorf("before firing the shell is at %v, want its origin", p)
	}
}

func TestSweepStrikesHullsRocksAndTerrain(t *testing.T) {
	m := valley(t)
	floor, _ := m.Landmark("floor")
	h, _ := m.HeightAt(floor.X, floor.Z)
	hull := HullPose{Actor: 7, Position: mgl64.Vec3{floor.X + 50, h, floor.Z}, Orientation: mgl64.QuatIdent()}
	// Level shot at the hull's middle height from 50 m behind it.
	s := Shot{ID: 1, Shooter: 1, Origin: mgl64.Vec3{floor.X, h + 1.2, floor.Z}, Direction: mgl64.Vec3{1, 0, 0}}
	imp := SweepPath(m, s, 0, 1, []HullPose{hull})
	if imp.Kind != ImpactTank || imp.Target != 7 {
		t.Fatalf("level shot at a hull 50 m off: %+v, want a tank hit", imp)
	}
	if math.Abs(imp.Local[0]-tankspec.Default().HullMin()[0]) > 1e-6 || imp.Normal != (mgl64.Vec3{-1, 0, 0}) {
		t.Errorf("hit at local %v normal %v, want the rear face (x = %v, normal −X)", imp.Local, imp.Normal, tankspec.Default().HullMin()[0])
	}
	wantT := (50 + tankspec.Default().HullMin()[0]) / MuzzleVelocity
	if math.Abs(imp.Time-wantT) > 1e-3 {
		t.Errorf("impact at %.4f s, want %.4f s", imp.Time, wantT)
	}
	// Its own hull never stops a shell.
	if imp := SweepPath(m, Shot{Shooter: 7, Origin: s.Origin, Direction: s.Direction}, 0, 0.2, []HullPose{hull}); imp.Kind == ImpactTank {
		t.Errorf("a shell struck its own tank: %+v", imp)
	}
	// Straight down: the ground, on the triangles under the origin.
	down := Shot{Origin: mgl64.Vec3{floor.X, h + 20, floor.Z}, Direction: mgl64.Vec3{0, -1, 0}}
	imp = SweepPath(m, down, 0, 1, nil)
	if surf, _ := m.SurfaceAt(floor.X, floor.Z); imp.Kind != ImpactGround || math.Abs(imp.Point[1]-surf) > 1e-6 {
		t.Errorf("shot straight down: %+v, want ground at height %v", imp, surf)
	}
	// At a rock: level into its side.
	r := m.Obstacles()[0]
	rh, _ := m.HeightAt(r.X, r.Z)
	at := Shot{Origin: mgl64.Vec3{r.X - 30, rh + 0.5*r.Height, r.Z}, Direction: mgl64.Vec3{1, 0, 0}}
	if imp := SweepPath(m, at, 0, 0.5, nil); imp.Kind != ImpactRock && imp.Kind != ImpactGround {
		t.Errorf("shot into a rock: %+v", imp)
	} else if imp.Kind == ImpactRock && math.Abs(imp.Point[0]-(r.X-r.Radius*rockScale)) > 1e-6 {
		t.Errorf("rock struck at %v, want its face at x = %v", imp.Point, r.X-r.Radius*rockScale)
	}
	// Spent after its lifetime.
	up := Shot{Origin: mgl64.Vec3{floor.X, 500, floor.Z}, Direction: mgl64.Vec3{0, 1, 0}}
	if imp := Sweep(m, up, ShellLifetime-0.1, ShellLifetime+1, nil); imp.Kind != ImpactSpent || imp.Time != ShellLifetime {
		t.Errorf("shell past its lifetime: %+v", imp)
	}
}

func TestArmourByFaceAndAngle(t *testing.T) {
	r, err := Rules{}.WithDefaults()
	if err != nil {
		t.Fatal(err)
	}
	q := mgl64.QuatIdent()
	front := r.DamageOf(mgl64.Vec3{-1, 0, 0}, mgl64.Vec3{1, 0, 0}, q)
	side := r.DamageOf(mgl64.Vec3{0, 0, -1}, mgl64.Vec3{0, 0, 1}, q)
	rear := r.DamageOf(mgl64.Vec3{1, 0, 0}, mgl64.Vec3{-1, 0, 0}, q)
	glancing := r.DamageOf(mgl64.Vec3{1, 0, -1}.Normalize(), mgl64.Vec3{0, 0, 1}, q)
	if !(front < side && side < rear) || side != DefaultDamage {
		t.Errorf("front %v side %v rear %v: want front < side = %v < rear", front, side, DefaultDamage, rear)
	}
	if want := DefaultDamage * (0.5 + 0.5*math.Sqrt(0.5)); math.Abs(glancing-want) > 1e-9 {
		t.Errorf("45° side hit does %v, want %v", glancing, want)
	}
	if d := (Rules{NoArmour: true, Damage: 30}).DamageOf(mgl64.Vec3{-1, 0, 0}, mgl64.Vec3{1, 0, 0}, q); d != 30 {
		t.Errorf("no armour: %v, want 30", d)
	}
	for _, bad := range []Rules{{Reload: -1}, {Damage: math.NaN()}, {TimeLimit: math.Inf(1)}} {
		if _, err := bad.WithDefaults(); err == nil {
			t.Errorf("rules %+v accepted", bad)
		}
	}
}

func TestEnemies(t *testing.T) {
	for _, c := range []struct {
		a, b int
		want bool
	}{{1, 1, false}, {1, 2, true}, {0, 0, true}, {0, 1, true}} {
		if got := Enemies(c.a, c.b); got != c.want {
			t.Errorf("Enemies(%d, %d) = %v", c.a, c.b, got)
		}
	}
}

// fight is a two-tank scene for the hit checker: a shooter and a target on the valley
// floor, the target's updates relayed by the host and reckoned by the shooter the way
// a match does.
type fight struct {
	m       *terrain.Map
	reckon  deadreckon.Config
	check   *HitChecker
	link    ShooterLink
	shooter deadreckon.State
	target  deadreckon.State
	updates []relayed // the target's, as the host relayed them
}

func newFight(t testing.TB) *fight {
	t.Helper()
	m := valley(t)
	floor, _ := m.Landmark("floor")
	place := func(x, z float64) deadreckon.State {
		h, _ := m.HeightAt(x, z)
		s := deadreckon.NewState(mgl64.Vec3{x, h, z})
		return s
	}
	f := &fight{m: m, reckon: DeadReckoning().Reckon, link: ShooterLink{Latency: 0.1}}
	f.check = NewHitChecker(m, HitCheckConfig{Reckon: f.reckon})
	f.shooter = place(floor.X, floor.Z)
	f.target = place(floor.X+60, floor.Z+10)
	f.target.Velocity = mgl64.Vec3{0, 0, 4} // driving across the line of fire
	f.check.Spawned(1, 1, f.shooter, 0)
	f.check.Spawned(2, 2, f.target, 0)
	f.updates = append(f.updates, relayed{s: f.target, at: 0, brk: true})
	// The target publishes its motion every half second; the shooter's own updates
	// say it stands still.
	for k := 1; k <= 20; k++ {
		at := 0.5 * float64(k)
		s := f.target
		s.Time = at
		s.Position = s.Position.Add(s.Velocity.Mul(at))
		f.check.Relayed(2, s, at+0.02)
		f.updates = append(f.updates, relayed{s: s, at: at + 0.02})
		a := f.shooter
		a.Time = at
		f.check.Relayed(1, a, at+0.02)
	}
	return f
}

// shownAt returns the target's hull as the shooter shows it at host time tm, frames
// of 1/60 s, and the updates it had applied, newest first.
func (f *fight) shownAt(tm float64) (HullPose, [ClaimApplied]Applied) {
	a := deadreckon.NewActor(f.reckon)
	a.SetClampPhase(2)
	a.SetClockOffset(0)
	var applied [ClaimApplied]Applied
	next := 0
	for frame := 0.0; frame <= tm+1e-9; frame += 1.0 / 60 {
		for next < len(f.updates) && f.updates[next].at+f.link.Latency < frame {
			u := f.updates[next]
			if u.brk {
				_ = a.Break(u.s, frame)
			} else {
				_ = a.Receive(u.s, frame)
			}
			copy(applied[1:], applied[:])
			applied[0] = Applied{Update: u.s.Time, At: frame}
			next++
		}
		a.Advance(frame)
		a.ClampTo(f.m, f.shooter.Position)
	}
	r := a.Reckoned()
	return HullPose{Actor: 2, Position: r.Position, Orientation: r.Orientation}, applied
}

// shoot fires shot id at time fired from the shooter at the hull's middle as shown at
// the expected impact, and returns the shot and the honest claim of its hit.
func (f *fight) shoot(t testing.TB, id uint32, fired float64) (Shot, Claim) {
	t.Helper()
	origin := f.shooter.Position.Add(mgl64.Vec3{4.9, 1.9, 0})
	aimAt, _ := f.shownAt(fired + 0.3)
	dir := aimAt.Position.Add(mgl64.Vec3{0, 1.2, 0}).Sub(origin)
	el, _ := BallisticElevation(math.Hypot(dir[0], dir[2]), dir[1])
	yaw := math.Atan2(dir[2], dir[0])
	s := Shot{ID: id, Shooter: 1, Origin: origin, Time: fired,
		Direction: mgl64.Vec3{math.Cos(el) * math.Cos(yaw), math.Sin(el), math.Cos(el) * math.Sin(yaw)}}
	for frame := fired + 1.0/60; frame < fired+2; frame += 1.0 / 60 {
		hp, applied := f.shownAt(frame)
		if imp := Sweep(f.m, s, frame-1.0/60, frame, []HullPose{hp}); imp.Kind == ImpactTank {
			return s, Claim{Shooter: 1, Shot: id, Target: 2, Time: frame, Impact: imp.Time, Local: imp.Local,
				Applied: applied, Fired: s, Observer: f.shooter.Position, Reckon: ModeOf(f.reckon)}
		} else if imp.Kind != ImpactNone {
			t.Fatalf("test shot %d struck %+v", id, imp)
		}
	}
	t.Fatalf("test shot %d never arrived", id)
	return s, Claim{}
}

func TestHitCheckerAcceptsWhatTheShooterSawAndRefusesEachReason(t *testing.T) {
	type scene struct {
		f     *fight
		shot  Shot
		claim Claim
		at    float64 // claim arrival
	}
	setup := func(t *testing.T) *scene {
		f := newFight(t)
		s, c := f.shoot(t, 1, 5)
		if r := f.check.Fired(s, s.Time+0.1); r != Accepted {
			t.Fatalf("fire refused: %v", r)
		}
		return &scene{f: f, shot: s, claim: c, at: c.Time + 0.1}
	}
	for _, c := range []struct {
		name   string
		change func(s *scene)
		want   Reason
	}{
		{"honest hit", func(s *scene) {}, Accepted},
		{"unknown shot", func(s *scene) { s.claim.Shot, s.claim.Fired = 99, Shot{} }, RejectUnknownShot},
		{"shooter destroyed before firing", func(s *scene) {
			s.f.check.Destroyed(1, 4)
			s.claim.Shot, s.claim.Fired.ID = 2, 2
		}, RejectShooterDead},
		{"shooter respawned before firing", func(s *scene) {
			s.f.check.Despawned(1, 4.5)
			s.claim.Shot, s.claim.Fired.ID = 2, 2
		}, RejectShooterDead},
		{"reload too fast", func(s *scene) {
			second := s.shot
			second.ID, second.Time = 2, s.shot.Time+1
			s.f.check.Fired(second, second.Time+0.1)
			s.claim.Shot, s.claim.Fired = 2, second
		}, RejectReload},
		{"impact before firing", func(s *scene) { s.claim.Impact = s.shot.Time - 0.1 }, RejectImpossible},
		{"impact after the claim's frame", func(s *scene) { s.claim.Impact = s.claim.Time + 0.05 }, RejectImpossible},
		{"claim from the future", func(s *scene) { s.at = s.claim.Time - 0.2 }, RejectImpossible},
		{"shot from far off the shooter", func(s *scene) {
			far := s.shot
			far.ID, far.Origin = 2, far.Origin.Add(mgl64.Vec3{0, 0, 30})
			s.f.check.actors[1].shot = false // not a reload matter
			s.claim.Shot, s.claim.Fired = 2, far
		}, RejectImpossible},
		{"rewind beyond the cap", func(s *scene) { s.at = s.claim.Time + DefaultMaxRewind + 0.05 }, RejectRewind},
		{"path through the terrain", func(s *scene) {
			under := s.shot
			under.ID, under.Origin = 2, under.Origin.Sub(mgl64.Vec3{0, 4, 0})
			s.f.check.actors[1].shot = false // not a reload matter
			s.claim.Shot, s.claim.Fired = 2, under
		}, RejectTerrain},
		{"target already destroyed", func(s *scene) { s.f.check.Destroyed(2, s.claim.Time+0.05) }, RejectTargetDestroyed},
		{"target gone", func(s *scene) { s.f.check.Despawned(2, s.claim.Time+0.05) }, RejectTargetDestroyed},
		{"target broke continuity unseen", func(s *scene) {
			st := s.f.target
			st.Time = s.claim.Time
			s.f.check.Spawned(2, 2, st, s.claim.Time+0.02)
		}, RejectTargetBreak},
		{"point on the hull, shell elsewhere", func(s *scene) {
			s.claim.Local = mgl64.Vec3{tankspec.Default().HullMax()[0], 1, 0} // the front face; the shell struck the rear
		}, RejectOffHull},
		{"point off the hull", func(s *scene) { s.claim.Local[2] += 3 }, RejectOffHull},
		{"shell a hand's breadth beside the hull", func(s *scene) {
			s.claim.Impact -= 0.1 / MuzzleVelocity // the shell 10 cm short of the face
			s.claim.Local = s.claim.Local.Sub(mgl64.Vec3{0.1, 0, 0})
		}, RejectOffHull},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := setup(t)
			c.change(s)
			v := s.f.check.Check(s.claim, s.at, s.f.link)
			if v.Reason != c.want {
				t.Fatalf("verdict %v (miss %.3f m), want %v", v.Reason, v.Miss, c.want)
			}
			if n := s.f.check.Counts()[c.want]; n != 1 {
				t.Errorf("count of %v = %d, want 1", c.want, n)
			}
			if c.want == Accepted && v.Miss > 0.01 {
				t.Errorf("rebuilt hull %.3f m off the shooter's", v.Miss)
			}
			// A repeat of the claim is a duplicate, not counted again.
			if again := s.f.check.Check(s.claim, s.at+0.01, s.f.link); !again.Duplicate && c.want != RejectUnknownShot {
				t.Errorf("repeated claim: %+v, want a duplicate", again)
			}
			if n := s.f.check.Counts()[c.want]; n != 1 && c.want != RejectUnknownShot {
				t.Errorf("after a repeat, count of %v = %d, want 1", c.want, n)
			}
		})
	}
}

func TestClaimOvertakingItsFireEventRegistersTheShot(t *testing.T) {
	f := newFight(t)
	_, c := f.shoot(t, 1, 5)
	if v := f.check.Check(c, c.Time+0.1, f.link); v.Reason != Accepted {
		t.Fatalf("claim before its fire event: %v", v.Reason)
	}
	if r := f.check.Fired(c.Fired, c.Time+0.3); r != RejectUnknownShot {
		t.Errorf("the late fire event of a registered shot: %v, want %v", r, RejectUnknownShot)
	}
}

func TestReasonNames(t *testing.T) {
	seen := map[string]bool{}
	for r := Accepted; r < NumReasons; r++ {
		n := r.String()
		if n == "" || seen[n] {
			t.Errorf("reason %d: name %q empty or repeated", r, n)
		}
		seen[n] = true
	}
	if Reason(200).String() != "reason(200)" {
		t.Error(Reason(200).String())
	}
}

// BenchmarkHitCheck measures the host's judgement of one claim: the terrain sweep of
// the shell's path and the rebuild of the shooter's view.
func BenchmarkHitCheck(b *testing.B) {
	f := newFight(b)
	s, c := f.shoot(b, 1, 5)
	f.check.Fired(s, s.Time+0.1)
	b.ReportAllocs()
	for b.Loop() {
		if v := f.check.check(c, c.Time+0.1, f.link); v.Reason != Accepted {
			b.Fatal(v.Reason)
		}
	}
}

// BenchmarkSweep measures one frame of one shell against six hulls, the rocks and the
// terrain, as every peer runs it for every shell in flight.
func BenchmarkSweep(b *testing.B) {
	m := valley(b)
	floor, _ := m.Landmark("floor")
	s := Shot{Shooter: 1, Origin: mgl64.Vec3{floor.X, 10, floor.Z}, Direction: mgl64.Vec3{1, 0.05, 0}.Normalize()}
	hulls := make([]HullPose, 6)
	for i := range hulls {
		hulls[i] = HullPose{Actor: uint32(i + 2), Position: mgl64.Vec3{floor.X + 40*float64(i), 0, floor.Z + 30}, Orientation: mgl64.QuatIdent()}
	}
	b.ReportAllocs()
	for b.Loop() {
		if imp := Sweep(m, s, 0.2, 0.2+1.0/60, hulls); imp.Kind != ImpactNone {
			b.Fatal(imp)
		}
	}
}

func TestHitCheckerRebuildsWithTheShootersReckoning(t *testing.T) {
	for _, alg := range []deadreckon.Algorithm{deadreckon.Linear, deadreckon.CubicBezier, deadreckon.Static} {
		f := newFight(t)
		f.reckon.Algorithm = alg // the shooter switched algorithm; the host's default stays
		s, c := f.shoot(t, 1, 5)
		f.check.Fired(s, s.Time+0.1)
		if v := f.check.Check(c, c.Time+0.1, f.link); v.Reason != Accepted || v.Miss > 0.01 {
			t.Errorf("%v: %v, rebuilt %.3f m off", alg, v.Reason, v.Miss)
		}
	}
}
