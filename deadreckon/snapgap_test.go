package deadreckon

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/groundtest"
)

// TestSnapGapIgnoresHeightWhenClamped: an actor always clamped to the ground never
// shows its height, so the snap distance counts only the gap across the ground. A
// collision's lurch (15 m/s down) reckoned on through a loss burst leaves the
// unclamped place tens of meters under the ground; the update that follows, a meter
// away across it, must blend, not snap (the shown tank jumped 24 m sideways on wander2
// at 30% loss in bursts of 4). A gap across the ground past the snap distance still
// snaps, and an actor not clamped (one that flies) still counts its height.
func TestSnapGapIgnoresHeightWhenClamped(t *testing.T) {
	clamped := Clamp{Footprint: tankFootprint(), Mode: ClampAlways}
	for _, tc := range []struct {
		name    string
		clamp   Clamp
		x, y    float64 // the update's place relative to the shown one, m
		snapped bool
	}{
		{"clamped, 70 m under, 1 m across", clamped, 1, -70, false},
		{"clamped, 50 m under, 40 m across", clamped, 40, -50, false},
		{"clamped, 70 m across", clamped, 70, 0, true},
		{"clamped, 70 m across, 30 m under", clamped, 70, -30, true},
		{"not clamped, 70 m under, 1 m across", Clamp{}, 1, -70, true},
	} {
		a := NewActor(Config{Clamp: tc.clamp})
		if err := a.Receive(NewState(mgl64.Vec3{}), 0); err != nil {
			t.Fatal(err)
		}
		a.Advance(0.1)
		a.ClampTo(groundtest.Plane{}, mgl64.Vec3{})
		s := NewState(mgl64.Vec3{tc.x, tc.y, 0})
		s.Time = 0.1
		if err := a.Receive(s, 0.1); err != nil {
			t.Fatal(err)
		}
		a.Advance(0.1 + frame)
		a.ClampTo(groundtest.Plane{}, mgl64.Vec3{})
		got := a.Reckoned().Position[0]
		if snapped := math.Abs(got-tc.x) < 1e-9; snapped != tc.snapped {
			t.Errorf("%s: x = %v after one frame, snapped %v, want %v", tc.name, got, snapped, tc.snapped)
		}
	}
}
