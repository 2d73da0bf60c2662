package combat

import (
	"math"
	"testing"

	"github.com/treadline/treadline/tank"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/testmaps"
)

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
	m := testmaps.Valley(t)
	floor, _ := m.Landmark("floor")
	h, _ := m.HeightAt(floor.X, floor.Z)
	hull := HullPose{Actor: 7, Position: mgl64.Vec3{floor.X + 50, h, floor.Z}, Orientation: mgl64.QuatIdent()}
	// Level shot at the hull's middle height from 50 m behind it.
	s := Shot{ID: 1, Shooter: 1, Origin: mgl64.Vec3{floor.X, h + 1.2, floor.Z}, Direction: mgl64.Vec3{1, 0, 0}}
	imp := SweepPath(m, s, 0, 1, []HullPose{hull})
	if imp.Kind != ImpactTank || imp.Target != 7 {
		t.Fatalf("level shot at a hull 50 m off: %+v, want a tank hit", imp)
	}
	if math.Abs(imp.Local[0]-tank.Default().HullMin()[0]) > 1e-6 || imp.Normal != (mgl64.Vec3{-1, 0, 0}) {
		t.Errorf("hit at local %v normal %v, want the rear face (x = %v, normal −X)", imp.Local, imp.Normal, tank.Default().HullMin()[0])
	}
	wantT := (50 + tank.Default().HullMin()[0]) / MuzzleVelocity
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

// BenchmarkSweep measures one frame of one shell against six hulls, the rocks and the
// terrain, as every peer runs it for every shell in flight.
func BenchmarkSweep(b *testing.B) {
	m := testmaps.Valley(b)
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

// TestSweepPassesNonFiniteHulls: a hull whose pose holds NaN or an infinity is
// struck by no shell, and the real hull behind it still is.
func TestSweepPassesNonFiniteHulls(t *testing.T) {
	m := testmaps.Valley(t)
	floor, _ := m.Landmark("floor")
	h, _ := m.HeightAt(floor.X, floor.Z)
	s := Shot{ID: 1, Shooter: 1, Origin: mgl64.Vec3{floor.X, h + 1.2, floor.Z}, Direction: mgl64.Vec3{1, 0, 0}}
	real := HullPose{Actor: 7, Position: mgl64.Vec3{floor.X + 50, h, floor.Z}, Orientation: mgl64.QuatIdent()}
	nan, inf := math.NaN(), math.Inf(1)
	for _, c := range []struct {
		name string
		bad  HullPose
	}{
		{"NaN x", HullPose{Actor: 9, Position: mgl64.Vec3{nan, h, floor.Z}, Orientation: mgl64.QuatIdent()}},
		{"NaN everywhere", HullPose{Actor: 9, Position: mgl64.Vec3{nan, nan, nan}, Orientation: mgl64.QuatIdent()}},
		{"NaN orientation", HullPose{Actor: 9, Position: mgl64.Vec3{floor.X + 20, h, floor.Z}, Orientation: mgl64.Quat{W: nan}}},
		{"infinite y", HullPose{Actor: 9, Position: mgl64.Vec3{floor.X + 20, inf, floor.Z}, Orientation: mgl64.QuatIdent()}},
	} {
		imp := SweepPath(m, s, 0, 1, []HullPose{c.bad, real})
		if imp.Kind != ImpactTank || imp.Target != 7 {
			t.Errorf("%s: %+v, want the real hull (actor 7) struck", c.name, imp)
		}
	}
}
