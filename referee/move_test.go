package referee

import (
	"errors"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/tank"
)

// The movement checks read a tank's turret and gun where package physics puts them.
func TestArticulationIndices(t *testing.T) {
	if turretArticulation != physics.ArticulationTurret || gunArticulation != physics.ArticulationGun {
		t.Errorf("turret, gun at %d, %d; physics publishes them at %d, %d",
			turretArticulation, gunArticulation, physics.ArticulationTurret, physics.ArticulationGun)
	}
}

// A shoved tank travels at most at a proxy's contact speed, which physics bounds.
func TestProxyCatchUp(t *testing.T) {
	if proxyCatchUp != physics.DefaultProxyCatchUp {
		t.Errorf("the movement checks allow a proxy's catch-up of %g m/s; physics moves it at up to %g m/s", proxyCatchUp, physics.DefaultProxyCatchUp)
	}
}

// TestCheckMove holds one update after a tank driving east at 15 m/s on level ground
// to what the default tank can do.
func TestCheckMove(t *testing.T) {
	l := defaultLimits()
	mo := newMotion(tank.Spec{}, flatGround)
	prev := tankAt(0, 0)
	prev.Time, prev.Velocity = 10, mgl64.Vec3{15, 0, 0}
	prev.Articulations[1].Angle = tank.DefaultGunMax - 0.05
	const dt = 0.25 // between the two updates, s
	for _, c := range []struct {
		name   string
		change func(s *deadreckon.State)
		want   net.MoveReason
		ok     bool
	}{
		{"driving on", func(s *deadreckon.State) {}, 0, true},
		{"stopped dead by a wall", func(s *deadreckon.State) { s.Position[0], s.Velocity = 1, mgl64.Vec3{} }, 0, true},
		{"shoved sideways", func(s *deadreckon.State) { s.Position[2], s.Velocity[2] = 2, 12 }, 0, true},
		{"on a bump", func(s *deadreckon.State) { s.Position[1] = 0.3 }, 0, true},
		{"turret at its rate", func(s *deadreckon.State) { s.Articulations[0] = deadreckon.Articulation{Angle: 0.17, Rate: 0.69} }, 0, true},
		{"gun at its limit", func(s *deadreckon.State) { s.Articulations[1].Angle = tank.DefaultGunMax }, 0, true},
		{"30 m/s", func(s *deadreckon.State) { s.Position[0], s.Velocity[0] = 7.5, 30.1 }, net.MoveSpeed, false},
		{"17 m/s²", func(s *deadreckon.State) { s.Acceleration[0] = 17 }, net.MoveAcceleration, false},
		{"velocity 0, moving 15 m/s", func(s *deadreckon.State) { s.Position[0] += 15 * dt; s.Velocity = mgl64.Vec3{} }, net.MoveVelocity, false},
		{"velocity 15 m/s, standing", func(s *deadreckon.State) { s.Position[0] = 0 }, net.MoveVelocity, false},
		{"half a metre up", func(s *deadreckon.State) { s.Position[1] = 0.5 }, net.MoveHeight, false},
		{"in the ground", func(s *deadreckon.State) { s.Position[1] = -0.1 }, net.MoveHeight, false},
		{"turret snap", func(s *deadreckon.State) { s.Articulations[0].Angle = 0.3 }, net.MoveArticulation, false},
		{"turret rate", func(s *deadreckon.State) { s.Articulations[0].Rate = 0.8 }, net.MoveArticulation, false},
		{"gun past its limit", func(s *deadreckon.State) { s.Articulations[1].Angle = tank.DefaultGunMax + 0.05 }, net.MoveArticulation, false},
	} {
		tr := moveTrack{}
		tr.start(&prev, &prev, 50)
		pin := net.Anchor{Pos: prev.Position, Orient: prev.Orientation, At: 50, Stamp: prev.Time, Speed: 15}
		next := prev
		next.Time += dt
		next.Position[0] += 15 * dt
		c.change(&next)
		err := checkMove(&tr, &pin, &next, 50+dt, &mo, &l)
		var me *net.MoveError
		switch {
		case c.ok && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case !c.ok && (!errors.As(err, &me) || me.Reason != c.want):
			t.Errorf("%s: %v, want a refusal for reason %d", c.name, err, c.want)
		case !c.ok && !errors.Is(err, deadreckon.ErrInvalidState):
			t.Errorf("%s: %v does not wrap deadreckon.ErrInvalidState", c.name, err)
		case !c.ok && tr.last != prev:
			t.Errorf("%s: a refused update moved the track to %+v", c.name, tr.last)
		}
	}
}

// TestCheckMoveFall: off a 20 m cliff a tank falls under gravity; one that sinks
// slower is refused, and landing ends the fall.
func TestCheckMoveFall(t *testing.T) {
	l := defaultLimits()
	mo := newMotion(tank.Spec{}, cliffGround)
	s := tankAt(-1, 0)
	s.Position[1], s.Time, s.Velocity = cliffHeight, 0, mgl64.Vec3{10, 0, 0}
	tr := moveTrack{}
	tr.start(&s, &s, 0)
	pin := net.Anchor{Pos: s.Position, Orient: s.Orientation, Speed: 10}
	step := func(t0, y float64) error {
		n := s
		n.Time, n.Position[0], n.Position[1] = t0, -1+10*t0, y
		return checkMove(&tr, &pin, &n, t0, &mo, &l)
	}
	for _, c := range []struct {
		t, y float64
		ok   bool
	}{
		{0.2, cliffHeight, true}, // over the edge, still at its height
		{0.6, cliffHeight - 0.5*deadreckon.Gravity*0.4*0.4, true},
		{1.0, cliffHeight - 1, false}, // 1 m in 0.8 s: slower than gravity
		{1.0, cliffHeight - 0.5*deadreckon.Gravity*0.8*0.8, true},
		{2.2, 0, true}, // landed
		{2.4, 1, false},
	} {
		if err := step(c.t, c.y); (err == nil) != c.ok {
			t.Errorf("%.1f s at %.2f m: %v, want ok %v", c.t, c.y, err, c.ok)
		}
	}
}

// flatGround is level ground at y = 0 everywhere.
func flatGround(x, z float64) (float64, bool) { return 0, true }

// cliffHeight is the height of cliffGround's plateau, m.
const cliffHeight = 20.0

// cliffGround is a plateau cliffHeight high west of x = 0 and level ground at y = 0
// east of it.
func cliffGround(x, z float64) (float64, bool) {
	if x < 0 {
		return cliffHeight, true
	}
	return 0, true
}

// defaultLimits returns the host's default limits the movement checks read.
func defaultLimits() net.Limits {
	return net.Limits{MaxSpeed: net.DefaultMaxSpeed, MaxAcceleration: net.DefaultMaxAcceleration,
		PositionSlack: net.DefaultPositionSlack, TurnSlack: net.DefaultTurnSlack}
}

// tankAt returns a tank's state at rest at (x, 0, z), turret and gun at 0.
func tankAt(x, z float64) deadreckon.State {
	s := deadreckon.NewState(mgl64.Vec3{x, 0, z})
	s.NumArticulations = 2
	return s
}
