package lab

import (
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/game"
)

// TestRemoteAcceptsWireRoundedBound: the lab's remote takes what the game's remote
// takes. A tank turning at the game's bound (3 rad/s) about a slanted axis comes off
// the wire a hair faster, each component rounded to 1/64 rad/s; the game's remote
// widens its bounds by that rounding (wire.WidenLimits) and accepts it, so the lab's
// must too, or it counts the update refused and reckons on from an older one (wander2
// at 30% loss in bursts of 4 had 7 refused on seed 1). A turn past the rounding's reach
// is still refused, and a run sending states exact keeps the bounds as they are.
func TestRemoteAcceptsWireRoundedBound(t *testing.T) {
	p, err := BuildScenario("zigzag", DefaultFPS, 2)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ParseAlgo("game")
	if err != nil {
		t.Fatal(err)
	}
	bound := game.DeadReckoning().Reckon.Limits.MaxAngularSpeed
	if bound <= 0 {
		t.Fatalf("the game's angular speed bound is %v rad/s, want one set", bound)
	}
	axis := mgl64.Vec3{1, 1, 1}.Normalize()
	for _, c := range []struct {
		name   string
		speed  float64 // rad/s, before the wire's rounding
		exact  bool    // sent unquantized
		accept bool
	}{
		{"at the bound", bound, false, true},
		{"past the rounding", bound + 0.05, false, false},
		{"at the bound, exact", bound - 1e-9, true, true},
		{"past the bound, exact", bound + 0.002, true, false},
	} {
		r, err := newSimRun(Setup{Path: p, Algo: a, Seed: 1, Exact: c.exact})
		if err != nil {
			t.Fatal(err)
		}
		st := deadreckon.State{Time: 1, Position: mgl64.Vec3{0, 0, 0}, Orientation: mgl64.QuatIdent(),
			AngularVelocity: axis.Mul(c.speed)}
		if !c.exact {
			var w wireCodec
			if st, _, err = w.roundTrip(st); err != nil {
				t.Fatal(err)
			}
			if c.accept && st.AngularVelocity.Len() <= bound {
				t.Fatalf("%s: the wire rounds %v rad/s to %v rad/s, not past the bound: the case tests nothing",
					c.name, c.speed, st.AngularVelocity.Len())
			}
		}
		err = r.actor.Receive(st, 1)
		if (err == nil) != c.accept {
			t.Errorf("%s: |ω| %.4f rad/s (bound %v): remote's error %v, want accepted %v",
				c.name, st.AngularVelocity.Len(), bound, err, c.accept)
		}
	}
}
