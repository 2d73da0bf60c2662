package deadreckon

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
)

func TestLimitsValidate(t *testing.T) {
	base := NewState(mgl64.Vec3{1, 2, 3})
	base.NumArticulations = 2
	base.Articulations[0] = Articulation{Angle: 3 * math.Pi, Rate: 1}
	base.Articulations[2] = Articulation{Angle: 5} // beyond the count: cleared
	tank := Limits{MaxSpeed: 30, MaxAcceleration: 40, MaxAngularSpeed: 3, MaxArticulationRate: 8}
	for _, tc := range []struct {
		name string
		lim  Limits
		mod  func(*State)
		ok   bool
	}{
		{"defaults", Limits{}, func(*State) {}, true},
		{"zero orientation is the identity", Limits{}, func(s *State) { s.Orientation = mgl64.Quat{} }, true},
		{"orientation off unit, normalized", Limits{}, func(s *State) { s.Orientation.W = 1.5 }, true},
		{"orientation far off unit", Limits{}, func(s *State) { s.Orientation.W = 3 }, false},
		{"NaN position", Limits{}, func(s *State) { s.Position[2] = math.NaN() }, false},
		{"beyond MaxPosition", Limits{}, func(s *State) { s.Position[0] = 2e6 }, false},
		{"MaxPosition disabled", Limits{MaxPosition: -1}, func(s *State) { s.Position[0] = 2e6 }, true},
		{"tank speed", tank, func(s *State) { s.Velocity = mgl64.Vec3{20, 0, 20} }, true},
		{"too fast for a tank", tank, func(s *State) { s.Velocity = mgl64.Vec3{25, 0, 25} }, false},
		{"turning too fast", tank, func(s *State) { s.AngularVelocity[1] = 3.1 }, false},
		{"turret too fast", tank, func(s *State) { s.Articulations[1].Rate = -9 }, false},
		{"five articulations", Limits{}, func(s *State) { s.NumArticulations = 5 }, false},
		{"Inf time", Limits{}, func(s *State) { s.Time = math.Inf(1) }, false},
	} {
		s := base
		tc.mod(&s)
		got, err := tc.lim.Validate(s)
		if (err == nil) != tc.ok {
			t.Errorf("%s: Validate = %v, want ok=%v", tc.name, err, tc.ok)
			continue
		}
		if err != nil {
			if !errors.Is(err, ErrInvalidState) || got != (State{}) {
				t.Errorf("%s: %v with %+v, want ErrInvalidState and the zero State", tc.name, err, got)
			}
			continue
		}
		if n := got.Orientation.Len(); math.Abs(n-1) > 1e-12 {
			t.Errorf("%s: orientation norm %v", tc.name, n)
		}
		if a := got.Articulations[0].Angle; math.Abs(a-math.Pi) > 1e-9 || got.Articulations[2] != (Articulation{}) {
			t.Errorf("%s: articulations %+v, want the first wrapped to π and the unused cleared", tc.name, got.Articulations)
		}
	}
}
