package lab

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/internal/groundtest"
)

const (
	fps       = 60.0
	dt        = 1 / fps
	speed     = 6.0 // m/s: 0.1 m per frame
	tolMeters = 1e-9
)

// straight returns n frames of a drive along +X at speed, facing +X.
func straight(n int) []Pose {
	out := make([]Pose, n)
	for i := range out {
		t := float64(i) * dt
		out[i] = Pose{Time: t, Position: mgl64.Vec3{speed * t, 0, 0}, Orientation: mgl64.QuatIdent()}
	}
	return out
}

// measure feeds truth and shown (same length) to a fresh accumulator.
func measure(truth []Pose, shown []mgl64.Vec3, ground deadreckon.Ground) summary {
	m := newMetrics(dt, ground)
	for i, p := range truth {
		m.Add(p, deadreckon.State{Position: shown[i], Orientation: p.Orientation}, p.Position)
	}
	return m.summary()
}

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestMetricsKnownAnswers(t *testing.T) {
	const n = 120
	truth := straight(n)
	offset := mgl64.Vec3{0, 0, 0.5}
	for _, c := range []struct {
		name                 string
		shown                func(i int) mgl64.Vec3
		mean, p95, max, jump float64
	}{
		{
			// A constant offset: every error is the offset; the path moves exactly as
			// the truth does, so there is no jump.
			name:  "constant offset",
			shown: func(i int) mgl64.Vec3 { return truth[i].Position.Add(offset) },
			mean:  0.5, p95: 0.5, max: 0.5, jump: 0,
		},
		{
			// A stall from frame 60 on: the display stands while the truth moves
			// 0.1 m per frame, so the jump is one true step and the error grows by
			// 0.1 m a frame to 5.9 m. Nearest-rank p95 of 120 frames is the 114th
			// smallest: 61 zeros, then 0.1 … 5.3.
			name: "stall",
			shown: func(i int) mgl64.Vec3 {
				return truth[min(i, 60)].Position
			},
			mean: 0.1 * (59 * 60 / 2) / n, p95: 5.3, max: 5.9, jump: 0.1,
		},
		{
			// A snap: 1 m behind until frame 60, then on the truth. The jump is the
			// snap distance.
			name: "snap",
			shown: func(i int) mgl64.Vec3 {
				if i < 60 {
					return truth[i].Position.Sub(mgl64.Vec3{1, 0, 0})
				}
				return truth[i].Position
			},
			mean: 0.5, p95: 1, max: 1, jump: 1,
		},
	} {
		shown := make([]mgl64.Vec3, n)
		for i := range shown {
			shown[i] = c.shown(i)
		}
		s := measure(truth, shown, nil)
		for _, f := range []struct {
			what      string
			got, want float64
		}{{"mean", s.MeanErr, c.mean}, {"p95", s.P95Err, c.p95}, {"max", s.MaxErr, c.max}, {"jump", s.MaxJump, c.jump}} {
			if !near(f.got, f.want, 1e-6) {
				t.Errorf("%s: %s error = %.9f m, want %.9f m", c.name, f.what, f.got, f.want)
			}
		}
		if s.Frames != n {
			t.Errorf("%s: %d frames measured, want %d", c.name, s.Frames, n)
		}
	}
}

func TestMetricsJerkOfCubic(t *testing.T) {
	// x = c·t³ has jerk 6c everywhere; the third difference of a cubic is exact.
	const c = 0.75
	truth := straight(90)
	shown := make([]mgl64.Vec3, len(truth))
	for i, p := range truth {
		tt := p.Time
		shown[i] = p.Position.Add(mgl64.Vec3{c * tt * tt * tt, 0, 0})
	}
	s := measure(truth, shown, nil)
	// The truth itself (linear) has zero jerk, so the shown path's jerk is 6c.
	if !near(s.RMSJerk, 6*c, 1e-5) {
		t.Errorf("RMS jerk of x = %g·t³ = %g m/s³, want %g", c, s.RMSJerk, 6*c)
	}
	lin := measure(truth, func() []mgl64.Vec3 {
		v := make([]mgl64.Vec3, len(truth))
		for i := range v {
			v[i] = truth[i].Position
		}
		return v
	}(), nil)
	if lin.RMSJerk > 1e-6 {
		t.Errorf("RMS jerk of a straight line = %g m/s³, want 0", lin.RMSJerk)
	}
}

func TestMetricsPercentileNearestRank(t *testing.T) {
	v := make([]float64, 100)
	for i := range v {
		v[i] = float64(100 - i) // 100 … 1
	}
	if got := percentile(v, 0.95); got != 95 {
		t.Errorf("p95 of 1…100 = %v, want 95", got)
	}
	if got := percentile([]float64{7}, 0.95); got != 7 {
		t.Errorf("p95 of {7} = %v, want 7", got)
	}
}

func TestMetricsHeading(t *testing.T) {
	truth := straight(10)
	m := newMetrics(dt, nil)
	turned := geom.YawQuat(mgl64.DegToRad(-10))
	for _, p := range truth {
		m.Add(p, deadreckon.State{Position: p.Position, Orientation: turned}, p.Position)
	}
	if got := m.summary().MeanHeadingErr; !near(got, 10, 1e-9) {
		t.Errorf("mean heading error = %v°, want 10°", got)
	}
	// Headings wrap: 179° against −179° is 2° apart.
	if d := math.Abs(headingDiff(mgl64.DegToRad(179), mgl64.DegToRad(-179))); !near(d, mgl64.DegToRad(2), 1e-12) {
		t.Errorf("|179° − (−179°)| = %v rad, want 2°", d)
	}
}

func TestMetricsDepthBelowGround(t *testing.T) {
	truth := straight(100)
	shown := make([]mgl64.Vec3, len(truth))
	for i, p := range truth {
		shown[i] = p.Position
		if i%4 == 0 {
			shown[i][1] = -0.3 // a quarter of the frames 30 cm deep
		} else if i%4 == 1 {
			shown[i][1] = -belowGroundTolerance / 2 // within tolerance: not counted
		}
	}
	s := measure(truth, shown, groundtest.Plane{})
	if !near(s.MaxDepth, 0.3, tolMeters) {
		t.Errorf("max depth = %v m, want 0.3 m", s.MaxDepth)
	}
	if !near(s.BelowShare, 0.25, 1e-12) {
		t.Errorf("share below ground = %v, want 0.25", s.BelowShare)
	}
	if s2 := measure(truth, shown, nil); s2.MaxDepth != 0 || s2.BelowShare != 0 {
		t.Errorf("without a ground, depth = %v m and share = %v, want zeros", s2.MaxDepth, s2.BelowShare)
	}
}

func TestMetricsPastError(t *testing.T) {
	// A view 0.5 s behind the truth: 3 m off the present, on the truth of 0.5 s ago.
	truth := straight(120)
	m := newMetrics(dt, nil)
	for i := 30; i < len(truth); i++ {
		past := truth[i-30].Position
		m.Add(truth[i], deadreckon.State{Position: past}, past)
	}
	s := m.summary()
	if !near(s.MeanErr, 3, 1e-9) || !near(s.MeanPastErr, 0, 1e-12) || !near(s.P95PastErr, 0, 1e-12) {
		t.Errorf("delayed view: present error %v m, past error %v/%v m; want 3, 0, 0", s.MeanErr, s.MeanPastErr, s.P95PastErr)
	}
}

func TestMetricsResetKeepsNothing(t *testing.T) {
	truth := straight(10)
	m := newMetrics(dt, nil)
	for _, p := range truth {
		m.Add(p, deadreckon.State{Position: p.Position.Add(mgl64.Vec3{1, 0, 0})}, p.Position)
	}
	m.Reset(dt, nil)
	if s := m.summary(); s.Frames != 0 || s.MeanErr != 0 {
		t.Errorf("after Reset: %+v, want zero summary", s)
	}
}

// stateAt returns a displayed state on the pose.
func stateAt(p Pose) deadreckon.State {
	return deadreckon.State{Position: p.Position, Orientation: p.Orientation}
}
