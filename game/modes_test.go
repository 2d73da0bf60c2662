package game

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// TestPriorityModesHysteresis: a remote tank goes to low mode only beyond
// LowModeDistance (ViewLowDistance in view, UnseenLowDistance well out of view) and
// back to high only inside HighModeDistance (ViewHighDistance, UnseenHighDistance),
// so one on a boundary keeps its mode.
func TestPriorityModesHysteresis(t *testing.T) {
	m := &Match{}
	eye := mgl64.Vec3{}
	m.SetCameraView(eye, mgl64.Vec3{1, 0, 0}, math.Pi/4) // looking along +X
	tk := &tank{actor: deadreckon.NewActor(deadreckon.Config{})}
	ahead := func(d float64) mgl64.Vec3 { return mgl64.Vec3{d, 0, 0} }   // in view
	behind := func(d float64) mgl64.Vec3 { return mgl64.Vec3{-d, 0, 0} } // well out of view
	// Just off the picture's edge (45°), within ViewMargin of it.
	edge := func(d float64) mgl64.Vec3 {
		a := math.Pi/4 + ViewMargin/2
		return mgl64.Vec3{d * math.Cos(a), 0, d * math.Sin(a)}
	}
	for i, step := range []struct {
		at   mgl64.Vec3
		want deadreckon.Mode
	}{
		{behind(30), deadreckon.ModeHigh},
		{behind(45), deadreckon.ModeHigh}, // between the two distances: kept
		{behind(55), deadreckon.ModeLow},
		{behind(45), deadreckon.ModeLow}, // kept
		{behind(35), deadreckon.ModeHigh},
		{edge(100), deadreckon.ModeHigh},
		{edge(230), deadreckon.ModeHigh}, // between the two distances: kept
		{edge(250), deadreckon.ModeLow},
		{edge(220), deadreckon.ModeLow}, // kept
		{edge(190), deadreckon.ModeHigh},
		{behind(100), deadreckon.ModeLow}, // turned away from
		{edge(190), deadreckon.ModeHigh},
		{ahead(450), deadreckon.ModeHigh}, // in view: kept farther
		{ahead(500), deadreckon.ModeLow},
		{ahead(420), deadreckon.ModeLow}, // kept
		{ahead(390), deadreckon.ModeHigh},
		{behind(390), deadreckon.ModeLow}, // turned away from
		{ahead(390), deadreckon.ModeHigh}, // in view again
	} {
		m.chooseMode(tk, step.at, eye)
		if got := tk.actor.Mode(); got != step.want {
			t.Errorf("step %d at %v: %v mode, want %v", i, step.at, got, step.want)
		}
	}
	// Without a view every tank counts as out of view, but near it: high within
	// HighModeDistance.
	m2 := &Match{}
	tk2 := &tank{actor: deadreckon.NewActor(deadreckon.Config{})}
	m2.chooseMode(tk2, ahead(300), eye)
	if tk2.actor.Mode() != deadreckon.ModeLow {
		t.Errorf("no view, 300 m: %v mode, want low", tk2.actor.Mode())
	}
	m2.chooseMode(tk2, behind(150), eye)
	if tk2.actor.Mode() != deadreckon.ModeHigh {
		t.Errorf("no view, 150 m: %v mode, want high", tk2.actor.Mode())
	}
	// A bad view is ignored.
	m2.SetCameraView(eye, mgl64.Vec3{}, 1)
	m2.SetCameraView(eye, mgl64.Vec3{1, 0, 0}, math.NaN())
	if m2.view.ok {
		t.Errorf("a zero axis or a NaN angle set the view")
	}
}

// TestSweepDistance: once the client has given its view, a high-mode tank is swept
// against the rocks only near the camera, with hysteresis; a match without a view
// (a replay, the lab) sweeps every high-mode tank.
func TestSweepDistance(t *testing.T) {
	rocks := deadreckon.Config{Collide: deadreckon.Collide{Obstacles: &deadreckon.Walls{}}}
	eye := mgl64.Vec3{}
	ahead := func(d float64) mgl64.Vec3 { return mgl64.Vec3{d, 0, 0} }
	m := &Match{}
	m.SetCameraView(eye, mgl64.Vec3{1, 0, 0}, math.Pi/4)
	tk := &tank{actor: deadreckon.NewActor(rocks)}
	for i, step := range []struct {
		d    float64
		want bool
	}{
		{100, true},
		{NoSweepDistance - 5, true}, // between the two distances: kept
		{NoSweepDistance + 5, false},
		{SweepDistance + 5, false}, // kept
		{SweepDistance - 5, true},
		{300, false},
		{600, false}, // low mode
		{100, true},
	} {
		m.chooseMode(tk, ahead(step.d), eye)
		if got := tk.actor.Sweeps(); got != step.want {
			t.Errorf("step %d at %.0f m (%v mode): sweeps %v, want %v", i, step.d, tk.actor.Mode(), got, step.want)
		}
	}
	noView := &Match{}
	tk2 := &tank{actor: deadreckon.NewActor(rocks)}
	noView.chooseMode(tk2, ahead(NoSweepDistance+10), eye)
	if tk2.actor.Mode() != deadreckon.ModeHigh || !tk2.actor.Sweeps() {
		t.Errorf("no view, %.0f m: %v mode, sweeps %v, want high and swept", NoSweepDistance+10, tk2.actor.Mode(), tk2.actor.Sweeps())
	}
}
