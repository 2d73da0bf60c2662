package referee

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net"
	"github.com/treadline/treadline/physics"
	"github.com/treadline/treadline/tank"
)

// A hull tumbles beyond its rest no faster than a publisher reports a tilt.
func TestTumbleRate(t *testing.T) {
	if tumbleRate != physics.MaxTiltRate {
		t.Errorf("the movement checks let a hull tumble at %g rad/s; physics publishes tilts at up to %g rad/s", tumbleRate, physics.MaxTiltRate)
	}
}

// pitched returns the orientation of a hull heading yaw, pitched nose up by pitch
// about its own right axis (past π/2 it goes over on its back), rad.
func pitched(yaw, pitch float64) mgl64.Quat {
	return geom.YawQuat(yaw).Mul(mgl64.QuatRotate(pitch, mgl64.Vec3{0, 0, 1}))
}

// rolled returns the orientation of a hull heading yaw, rolled by roll about its
// own forward axis, rad.
func rolled(yaw, roll float64) mgl64.Quat {
	return geom.YawQuat(yaw).Mul(mgl64.QuatRotate(roll, mgl64.Vec3{1, 0, 0}))
}

// TestHullTurn measures the heading's and the tilt's turn between two hulls where
// the forward axis's projection reads the heading and where it does not.
func TestHullTurn(t *testing.T) {
	for _, c := range []struct {
		name          string
		a, b          mgl64.Quat
		heading, tilt float64
	}{
		{"turn on level ground", geom.YawQuat(0.3), geom.YawQuat(-0.4), 0.7, 0},
		{"turn across the wrap", geom.YawQuat(3), geom.YawQuat(-3), 2*math.Pi - 6, 0},
		{"over a crest", pitched(0, 0.4), pitched(0, -0.3), 0, 0.7},
		{"pitch through vertical", pitched(1, 1.5), pitched(1, 1.65), 0, 0.15},
		// Tipped, a turn is about the hull's own up axis; a turn about the vertical
		// is then mostly a roll, which moves the up axis: a tilt.
		{"turn while tipped", pitched(0, 1.4), pitched(0, 1.4).Mul(mgl64.QuatRotate(0.2, mgl64.Vec3{0, 1, 0})), 0.2, 0},
		{"about-face while tipped", pitched(0, 1.4), geom.YawQuat(math.Pi).Mul(pitched(0, 1.4)), math.Pi, 2 * 1.4},
		{"about-face upside down", rolled(0, math.Pi), rolled(math.Pi, math.Pi), math.Pi, 0},
		{"turned over at once", geom.YawQuat(0), rolled(0, math.Pi), math.Pi, math.Pi},
	} {
		h, tilt, _, _ := hullTurn(c.a, c.b)
		if math.Abs(h-c.heading) > 1e-9 || math.Abs(tilt-c.tilt) > 1e-9 {
			t.Errorf("%s: heading %.4f, tilt %.4f rad, want %.4f, %.4f", c.name, h, tilt, c.heading, c.tilt)
		}
	}
}

// TestCheckMoveTilt holds a hull's rotation since its anchor to what a tank can do:
// within its rest (restTilt) the ground tilts it at once, beyond it it tumbles at
// tumbleRate, and its heading turns at its own rate whether it is upright or tipped.
// A cheat cannot turn about at once by claiming a tumble.
func TestCheckMoveTilt(t *testing.T) {
	l := defaultLimits()
	mo := newMotion(tank.Spec{}, flatGround)
	for _, c := range []struct {
		name   string
		dt     float64 // since the anchor, s
		from   mgl64.Quat
		to     mgl64.Quat
		refuse string // "" accepted, else the refusal's verb
	}{
		{"crest", 0.034, pitched(0, 0.6), pitched(0, -0.6), ""},
		{"side to side over a ridge", 0.034, rolled(0, 0.78), rolled(0, -0.78), ""},
		{"nose up past the rest", 0.1, pitched(0, 0.7), pitched(0, 1.2), ""},
		{"pitching through vertical", 0.1, pitched(2, 1.45), pitched(2, 1.7), ""},
		{"on its back", 0.1, pitched(0, 3), pitched(0, 3.3), ""},
		{"turning on its back", 0.1, rolled(0, math.Pi), rolled(0.3, math.Pi), ""},
		{"tipped over at once", 0.05, pitched(0, 0), pitched(0, 1.5), "tilted"},
		{"turned over at once", 0.1, rolled(0, 0), rolled(0, math.Pi), "turned"},
		{"about-face", 0.1, geom.YawQuat(0), geom.YawQuat(math.Pi), "turned"},
		{"about-face tipped", 0.1, pitched(0, 0.5), pitched(math.Pi, 0.5), "turned"},
		{"about-face tipped 69°", 0.1, pitched(0, 1.2), pitched(0, 1.2).Mul(mgl64.QuatRotate(math.Pi, mgl64.Vec3{0, 1, 0})), "turned"},
		{"about the vertical tipped 69°", 0.1, pitched(0, 1.2), geom.YawQuat(math.Pi).Mul(pitched(0, 1.2)), "turned"},
		{"about-face upside down", 0.1, rolled(0, math.Pi), rolled(math.Pi, math.Pi), "turned"},
		// Pitched back over the top, the forward axis points the other way: a tumble
		// of 2.8 rad, not a turn.
		{"claimed tumble to face about", 0.1, geom.YawQuat(0), pitched(0, math.Pi-0.3), "tilted"},
		{"claimed tumble to face about, later", 0.4, geom.YawQuat(0), pitched(0, math.Pi-0.3), "tilted"},
		{"claimed tumble to turn on its back", 0.4, geom.YawQuat(0), rolled(math.Pi, math.Pi), "turned"},
	} {
		s := tankAt(0, 0)
		s.Time, s.Orientation = 10, c.from
		var tr moveTrack
		tr.start(&s, &s, 10)
		pin := net.Anchor{Pos: s.Position, Orient: s.Orientation, At: 10, Stamp: 10}
		next := s
		next.Time, next.Orientation = 10+c.dt, c.to
		err := checkMove(&tr, &pin, &next, 10+c.dt, &mo, &l)
		var me *net.MoveError
		switch {
		case c.refuse == "" && err != nil:
			t.Errorf("%s: %v, want accepted", c.name, err)
		case c.refuse != "" && (!errors.As(err, &me) || me.Reason != net.MoveTurn || !strings.HasPrefix(me.Msg, c.refuse)):
			t.Errorf("%s: %v, want refused as %s", c.name, err, c.refuse)
		}
	}
}

// TestTumblesThroughVertical: honest hulls turning over in small steps (10 updates a
// second, the anchor moving once a second) are never refused, though their forward
// axes' projections flip by π as they pass vertical; a cheat that turns about by
// tumbling over and righting itself faster than a tumble goes is.
func TestTumblesThroughVertical(t *testing.T) {
	for _, c := range []struct {
		name   string
		orient func(t float64) mgl64.Quat // at t s after the first update
		end    float64                    // s
		flips  bool                       // the forward axis's projection flips by π
		honest bool
	}{
		{"pitching over at 2.5 rad/s", func(t float64) mgl64.Quat { return pitched(0.5, 2.5*t) }, 2, true, true},
		{"pitching over at 1 rad/s", func(t float64) mgl64.Quat { return pitched(-2, t) }, 4, true, true},
		{"rolling over at 2.8 rad/s", func(t float64) mgl64.Quat { return rolled(-1, 2.8*t) }, 2, false, true},
		{"pitching over while turning", func(t float64) mgl64.Quat { return geom.YawQuat(0.6 * t).Mul(pitched(0, 2*t)) }, 2, true, true},
		// Over its back (π of pitch) and righted by a roll (π) in 0.4 s: facing about.
		{"cheat tumbling about", func(t float64) mgl64.Quat {
			if t <= 0.2 {
				return pitched(0, 5*math.Pi*t)
			}
			return pitched(0, math.Pi).Mul(mgl64.QuatRotate(5*math.Pi*(t-0.2), mgl64.Vec3{1, 0, 0}))
		}, 0.4, true, false},
	} {
		var states []deadreckon.State
		flips := 0
		for i := 0; float64(i)*0.1 <= c.end+1e-9; i++ {
			s := deadreckon.NewState(mgl64.Vec3{})
			s.Time, s.Orientation = 10+0.1*float64(i), c.orient(0.1*float64(i))
			if n := len(states); n > 0 && math.Abs(geom.WrapAngle(geom.Yaw(s.Orientation)-geom.Yaw(states[n-1].Orientation))) > 3 {
				flips++
			}
			states = append(states, s)
		}
		errs := replayStates(states, flatGround, nil)
		if c.honest {
			if c.flips != (flips > 0) {
				t.Errorf("%s: the forward axis's heading flipped %d times, want flips %v", c.name, flips, c.flips)
			}
			if len(errs) != 0 {
				t.Errorf("%s: %d of %d refused, first %v", c.name, len(errs), len(states)-1, errs[0])
			}
			continue
		}
		if len(errs) == 0 {
			t.Errorf("%s: accepted, want refused", c.name)
		}
	}
}

// TestYieldTipped: a refused update of a tipped hull turns its anchor towards it the
// shortest way, by what a tumble at its rate gives over the time since the anchor
// (with arrivalJitter), and no further: the next update is measured from where the
// hull can have got, and a cheat gains nothing over an update at the bound.
func TestYieldTipped(t *testing.T) {
	l := defaultLimits()
	mo := newMotion(tank.Spec{}, flatGround)
	s := tankAt(0, 0)
	s.Time, s.Orientation = 10, pitched(0, 1.2)
	var tr moveTrack
	tr.start(&s, &s, 10)
	pin := net.Anchor{Pos: s.Position, Orient: s.Orientation, At: 10, Stamp: 10}
	next := s
	next.Time, next.Orientation = 10.1, pitched(0, 2.9)
	err := checkMove(&tr, &pin, &next, 10.1, &mo, &l)
	var me *net.MoveError
	if !errors.As(err, &me) || me.Reason != net.MoveTurn {
		t.Fatalf("a 1.7 rad tumble in 0.1 s: %v, want refused", err)
	}
	tr.refused(&pin, &next, 10.1, err, &mo, &l)
	want := tumbleRate * (0.1 + arrivalJitter)
	if moved, left := geom.QuatAngle(s.Orientation, pin.Orient), geom.QuatAngle(pin.Orient, next.Orientation); math.Abs(moved-want) > 1e-9 || math.Abs(moved+left-1.7) > 1e-9 {
		t.Errorf("the anchor turned %.4f rad towards the update, %.4f rad short of it; want %.4f rad on the way", moved, left, want)
	}
	if pin.At != 10.1 {
		t.Errorf("the anchor is at %.3f s, want 10.1 s", pin.At)
	}
}

// TestHullTurnInRange: for any two orientations, near-opposite up axes and
// unnormalized quaternions included, both turns are angles in [0, π], the same
// either way round, and the tilt's is the angle between the up axes.
func TestHullTurnInRange(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	randQuat := func() mgl64.Quat {
		return mgl64.Quat{W: rng.NormFloat64(), V: mgl64.Vec3{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()}}.Scale(1 + 3*rng.Float64())
	}
	for i := range 100000 {
		a := randQuat()
		b := randQuat()
		if i%4 == 0 { // up axes opposite, or all but
			b = a.Mul(mgl64.QuatRotate(math.Pi-1e-7*rng.Float64(), mgl64.Vec3{rng.NormFloat64(), 0, rng.NormFloat64()}.Normalize()))
		}
		h, tilt, ta, tb := hullTurn(a, b)
		h2, tilt2, _, _ := hullTurn(b, a)
		for _, x := range []float64{h, tilt, ta, tb} {
			if !(x >= 0 && x <= math.Pi) {
				t.Fatalf("hullTurn(%v, %v) = %v, %v, %v, %v: want angles in [0, π]", a, b, h, tilt, ta, tb)
			}
		}
		if math.Abs(tilt-tilt2) > 1e-9 || (math.Abs(h-h2) > 1e-6 && math.Pi-math.Max(h, h2) > 1e-3) {
			t.Fatalf("hullTurn(%v, %v) = %v, %v; the other way round %v, %v", a, b, h, tilt, h2, tilt2)
		}
	}
}
