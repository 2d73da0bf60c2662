package deadreckon

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// disTol is the tolerance on DIS projections, m.
const disTol = 1e-9

// circleState is an actor at the origin facing +X at speed v, turning at rate om
// (rad/s) about +Y, with its centripetal acceleration.
func circleState(v, om float64) State {
	s := NewState(mgl64.Vec3{})
	s.Velocity = mgl64.Vec3{v, 0, 0}
	s.AngularVelocity = mgl64.Vec3{0, om, 0}
	s.Acceleration = mgl64.Vec3{0, 0, -v * om}
	return s
}

// circleAt returns where circleState(v, om) is t seconds on: yaw om·t turns its
// forward to (cos, 0, −sin).
func circleAt(v, om, t float64) mgl64.Vec3 {
	return mgl64.Vec3{v / om * math.Sin(om*t), 0, v / om * (math.Cos(om*t) - 1)}
}

func TestDISBodyModelsFollowACircle(t *testing.T) {
	const v, om = 8.0, 0.7
	s := circleState(v, om)
	for _, alg := range []Algorithm{DISFPB, DISRPB, DISRVB, DISFVB} {
		for _, tt := range []float64{0, 1e-6, 0.3, 2, 9} {
			got := ProjectDIS(alg, s, tt).Position
			want := circleAt(v, om, tt)
			if d := got.Sub(want).Len(); d > disTol*(1+tt*v) {
				t.Errorf("%v: P(%g) = %v, want %v (off %g m)", alg, tt, got, want, d)
			}
		}
	}
	p := ProjectDIS(DISRPB, s, 1)
	if d := geom.QuatAngle(p.Orientation, geom.YawQuat(om)); d > 1e-9 {
		t.Errorf("dis-rpb turned to yaw %g, want %g", geom.Yaw(p.Orientation), om)
	}
	if d := geom.QuatAngle(ProjectDIS(DISFPB, s, 1).Orientation, s.Orientation); d != 0 {
		t.Errorf("dis-fpb turned by %g rad, want 0", d)
	}
}

func TestDISWorldModels(t *testing.T) {
	s := circleState(8, 0.7)
	s.Position = mgl64.Vec3{1, 2, 3}
	const tt = 1.5
	lin := s.Position.Add(s.Velocity.Mul(tt))
	quad := lin.Add(s.Acceleration.Mul(0.5 * tt * tt))
	for _, c := range []struct {
		alg    Algorithm
		want   mgl64.Vec3
		rotate bool
	}{
		{DISStatic, s.Position, false},
		{DISFPW, lin, false},
		{DISRPW, lin, true},
		{DISRVW, quad, true},
		{DISFVW, quad, false},
	} {
		p := ProjectDIS(c.alg, s, tt)
		if d := p.Position.Sub(c.want).Len(); d > disTol {
			t.Errorf("%v: P = %v, want %v", c.alg, p.Position, c.want)
		}
		turned := geom.QuatAngle(p.Orientation, s.Orientation) > 1e-6
		if turned != c.rotate {
			t.Errorf("%v: orientation turned %v, want %v", c.alg, turned, c.rotate)
		}
	}
}

func TestDISRotationIntegrals(t *testing.T) {
	// R1 and R2 against a midpoint sum of exp(ω·s)·v, near and past the series.
	v := mgl64.Vec3{1, -2, 0.5}
	for _, w := range []mgl64.Vec3{{}, {0, 1e-6, 0}, {0.3, 1, -0.2}, {0, 5, 0}} {
		const tt, n = 1.3, 20000
		var s1, s2 mgl64.Vec3
		for i := 0; i < n; i++ {
			s := (float64(i) + 0.5) * tt / n
			e := geom.RotationQuat(w, s).Rotate(v).Mul(tt / n)
			s1 = s1.Add(e)
			s2 = s2.Add(e.Mul(s))
		}
		d := newDISTurn(w, tt)
		if e := d.r1(v).Sub(s1).Len(); e > 1e-6 {
			t.Errorf("ω %v: R1·v = %v, want %v", w, d.r1(v), s1)
		}
		if e := d.r2(v).Sub(s2).Len(); e > 1e-6 {
			t.Errorf("ω %v: R2·v = %v, want %v", w, d.r2(v), s2)
		}
	}
}

func TestDISModelNumbers(t *testing.T) {
	for m := uint8(0); m < 12; m++ {
		a, ok := DISAlgorithm(m)
		if ok != (m >= 1 && m <= 9) {
			t.Fatalf("DISAlgorithm(%d) ok = %v", m, ok)
		}
		if ok && a.DISModel() != m {
			t.Errorf("DISAlgorithm(%d).DISModel() = %d", m, a.DISModel())
		}
		if ok {
			b, err := ParseAlgorithm(a.String())
			if err != nil || b != a {
				t.Errorf("ParseAlgorithm(%q) = %v, %v", a.String(), b, err)
			}
		}
	}
	if ProjectiveVelocityBlend.DISModel() != 0 || Quadratic.IsDIS() {
		t.Error("a Treadline algorithm reads as a DIS model")
	}
}

func TestDISActorSnapsAndProjects(t *testing.T) {
	s := circleState(8, 0.7)
	for _, alg := range []Algorithm{DISStatic, DISRVW, DISRPB} {
		a := NewActor(Config{Algorithm: alg})
		if err := a.Receive(s, 10); err != nil {
			t.Fatal(err)
		}
		a.Advance(11)
		want := ProjectDIS(alg, s, 1)
		if d := a.Reckoned().Position.Sub(want.Position).Len(); d > disTol {
			t.Errorf("%v: shown %v, want %v", alg, a.Reckoned().Position, want.Position)
		}
		// A second update is shown at once: DIS snaps.
		s2 := s
		s2.Time, s2.Position = 1, mgl64.Vec3{3, 0, 0}
		if err := a.Receive(s2, 11); err != nil {
			t.Fatal(err)
		}
		a.Advance(11)
		if d := a.Reckoned().Position.Sub(s2.Position).Len(); d > disTol {
			t.Errorf("%v: after a snap shown %v, want %v", alg, a.Reckoned().Position, s2.Position)
		}
	}
}

func TestProjectDISDoesNotAllocate(t *testing.T) {
	s := circleState(8, 0.7)
	n := testing.AllocsPerRun(100, func() { _ = ProjectDIS(DISRVB, s, 0.5) })
	if n != 0 {
		t.Errorf("ProjectDIS allocates %g times", n)
	}
}
