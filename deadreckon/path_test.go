package deadreckon

import (
	"errors"
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// square is a closed 10 m square polyline route, counter-clockwise seen from above
// as the world's yaw turns: along +X, then −Z, −X and +Z.
func square(t *testing.T, spline bool) *Route {
	t.Helper()
	r, err := NewRoute([]mgl64.Vec3{{0, 0, 0}, {10, 0, 0}, {10, 0, -10}, {0, 0, -10}}, true, spline)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRouteGeometry(t *testing.T) {
	r := square(t, false)
	if r.Length() != 40 {
		t.Fatalf("length %v, want 40", r.Length())
	}
	for _, tc := range []struct {
		s        float64
		pos, dir mgl64.Vec3
	}{
		{5, mgl64.Vec3{5, 0, 0}, mgl64.Vec3{1, 0, 0}},
		{15, mgl64.Vec3{10, 0, -5}, mgl64.Vec3{0, 0, -1}},
		{45, mgl64.Vec3{5, 0, 0}, mgl64.Vec3{1, 0, 0}},     // wraps
		{-5, mgl64.Vec3{0, 0, -5}, mgl64.Vec3{0, 0, 1}},    // wraps backwards
		{35, mgl64.Vec3{0, 0, -5}, mgl64.Vec3{0, 0, 1}},    // the last leg, back to the start
		{20, mgl64.Vec3{10, 0, -10}, mgl64.Vec3{0, 0, -1}}, // a corner reads the leg into it
	} {
		pos, dir := r.At(tc.s)
		if pos.Sub(tc.pos).Len() > 1e-9 || dir.Sub(tc.dir).Len() > 1e-9 {
			t.Errorf("At(%v) = %v, %v; want %v, %v", tc.s, pos, dir, tc.pos, tc.dir)
		}
	}
	if d := r.Diff(39, 1); math.Abs(d-2) > 1e-9 {
		t.Errorf("Diff(39, 1) = %v, want 2 (the short way round)", d)
	}
	if s := r.WaypointS(2); s != 20 {
		t.Errorf("WaypointS(2) = %v, want 20", s)
	}
	_, q := r.Pose(15)
	if y := geom.Yaw(q); math.Abs(y-math.Pi/2) > 1e-9 {
		t.Errorf("yaw along −Z = %v, want π/2", y)
	}
	open, err := NewRoute([]mgl64.Vec3{{0, 0, 0}, {3, 0, 4}}, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if p, _ := open.At(7); p != (mgl64.Vec3{3, 0, 4}) || open.Wrap(-1) != 0 {
		t.Errorf("an open route does not clamp: At(7) = %v, Wrap(−1) = %v", p, open.Wrap(-1))
	}
}

// TestSplineRoute checks that a spline route passes through its waypoints with a
// heading that turns smoothly: no step over 3° between samples 5 cm apart.
func TestSplineRoute(t *testing.T) {
	r := square(t, true)
	for i, w := range r.Waypoints() {
		if p, _ := r.At(r.WaypointS(i)); p.Sub(w).Len() > 1e-9 {
			t.Errorf("waypoint %d at %v, the route passes %v", i, w, p)
		}
	}
	_, d0 := r.At(0)
	prev := geom.Heading(d0)
	for s := 0.05; s < r.Length(); s += 0.05 {
		_, d := r.At(s)
		h := geom.Heading(d)
		if step := math.Abs(geom.WrapAngle(h - prev)); step > 3*math.Pi/180 {
			t.Fatalf("heading steps %.2f° at s = %.2f m", step*180/math.Pi, s)
		}
		prev = h
	}
}

func TestNewRouteRefuses(t *testing.T) {
	many := make([]mgl64.Vec3, MaxRouteWaypoints+1)
	for i := range many {
		many[i] = mgl64.Vec3{float64(i), 0, 0}
	}
	for _, tc := range []struct {
		name   string
		ways   []mgl64.Vec3
		closed bool
	}{
		{"one", []mgl64.Vec3{{0, 0, 0}}, false},
		{"closed two", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}}, true},
		{"NaN", []mgl64.Vec3{{0, 0, 0}, {math.NaN(), 0, 0}}, false},
		{"Inf", []mgl64.Vec3{{0, 0, 0}, {0, math.Inf(1), 1}}, false},
		{"far", []mgl64.Vec3{{0, 0, 0}, {2e6, 0, 0}}, false},
		{"repeated", []mgl64.Vec3{{0, 0, 0}, {0, 5, 0}}, false},
		{"closing on itself", []mgl64.Vec3{{0, 0, 0}, {1, 0, 0}, {0, 0, 0}}, true},
		{"too many", many, false},
		{"too long", []mgl64.Vec3{{-9e5, 0, 0}, {9e5, 0, 0}}, false},
	} {
		if r, err := NewRoute(tc.ways, tc.closed, false); !errors.Is(err, ErrInvalidRoute) || r != nil {
			t.Errorf("%s: NewRoute = %v, %v; want ErrInvalidRoute", tc.name, r, err)
		}
	}
}

// pathActor returns an actor with the algorithm Path on route r, numbered 1.
func pathActor(r *Route) *Actor {
	a := NewActor(Config{Algorithm: Path})
	a.SetRoute(1, r)
	return a
}

// TestPathFollowsRoute: progress at a steady rate round a spline route is shown on
// the route, facing along it, however long it goes unrenewed.
func TestPathFollowsRoute(t *testing.T) {
	r := square(t, true)
	a := pathActor(r)
	if err := a.ReceiveProgress(Progress{Route: 1, S: 2, Rate: 5}, 0); err != nil {
		t.Fatal(err)
	}
	for f := 1; f <= 600; f++ {
		now := float64(f) / 60
		a.Advance(now)
		want, dir := r.At(2 + 5*now)
		got := a.Reckoned()
		if d := got.Position.Sub(want).Len(); d > 1e-9 {
			t.Fatalf("t = %.2f s: %.3g m off the route's point", now, d)
		}
		if h := math.Abs(geom.WrapAngle(geom.Yaw(got.Orientation) - geom.Heading(dir))); h > 1e-9 {
			t.Fatalf("t = %.2f s: heading %.3g rad off the route's", now, h)
		}
	}
	if !a.OnRoute() {
		t.Error("not on the route")
	}
}

// TestPathBlendsCorrections: a progress that moves the actor 1 m along the route is
// blended in over ΔT without a jump, and the display then follows the new projection.
func TestPathBlendsCorrections(t *testing.T) {
	r := square(t, false)
	a := pathActor(r)
	_ = a.ReceiveProgress(Progress{Route: 1, S: 1, Rate: 4}, 0)
	a.Advance(1)
	prev := a.Reckoned().Position
	if err := a.ReceiveProgress(Progress{Route: 1, Time: 1, S: 6, Rate: 4}, 1); err != nil {
		t.Fatal(err)
	}
	step := 4.0 / 60
	for f := 61; f <= 120; f++ {
		a.Advance(float64(f) / 60)
		p := a.Reckoned().Position
		if d := p.Sub(prev).Len(); d > step+1.5*(1.0/DefaultUpdateInterval)/60 {
			t.Fatalf("frame %d steps %.3f m (steady motion %.3f m)", f, d, step)
		}
		prev = p
	}
	if s, rate := a.RouteProgress(); math.Abs(s-10) > 1e-9 || math.Abs(rate-4) > 1e-9 {
		t.Errorf("after the blend: s = %v, rate %v; want 10, 4", s, rate)
	}
}

// TestPathStops: a braking progress comes to rest where its braking ends and stays.
func TestPathStops(t *testing.T) {
	a := pathActor(square(t, false))
	_ = a.ReceiveProgress(Progress{Route: 1, S: 0, Rate: 6, Accel: -3}, 0)
	for f := 1; f <= 300; f++ {
		a.Advance(float64(f) / 60)
	}
	if s, rate := a.RouteProgress(); math.Abs(s-6) > 1e-9 || rate != 0 {
		t.Errorf("s = %v m, rate %v; want at rest at 6 m", s, rate)
	}
}

// TestPathLeavesRoute: a State ends path reckoning; the display blends from where it
// is toward the State's projection, as projective velocity blending does.
func TestPathLeavesRoute(t *testing.T) {
	a := pathActor(square(t, false))
	_ = a.ReceiveProgress(Progress{Route: 1, S: 1, Rate: 5}, 0)
	a.Advance(1)
	before := a.Reckoned().Position
	off := NewState(mgl64.Vec3{6, 0, 2})
	off.Time, off.Velocity = 1, mgl64.Vec3{0, 0, 5}
	if err := a.Receive(off, 1); err != nil {
		t.Fatal(err)
	}
	if a.OnRoute() {
		t.Fatal("still on the route after a State")
	}
	a.Advance(1 + 1.0/60)
	if d := a.Reckoned().Position.Sub(before).Len(); d > 0.2 {
		t.Errorf("leaving the route jumps %.3f m", d)
	}
	for f := 62; f <= 180; f++ {
		a.Advance(float64(f) / 60)
	}
	want := mgl64.Vec3{6, 0, 2 + 5*2}
	if d := a.Reckoned().Position.Sub(want).Len(); d > 1e-6 {
		t.Errorf("off the route at %v, want %v", a.Reckoned().Position, want)
	}
}

// TestProgressBeforeRoute: progress that arrives before its route is held and
// applied when the route comes, as it would have been on arrival.
func TestProgressBeforeRoute(t *testing.T) {
	r := square(t, false)
	a := NewActor(Config{Algorithm: Path})
	if err := a.ReceiveProgress(Progress{Route: 3, S: 1, Rate: 2}, 0); err != nil {
		t.Fatal(err)
	}
	if a.HasState() {
		t.Fatal("shown before its route came")
	}
	a.SetRoute(3, r)
	a.Advance(1)
	if s, _ := a.RouteProgress(); !a.OnRoute() || math.Abs(s-3) > 1e-9 {
		t.Errorf("on route %v at s = %v, want 3 (progress arrived at 0, route at 1)", a.OnRoute(), s)
	}
}

func TestProgressRefused(t *testing.T) {
	r := square(t, false)
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		p    Progress
		now  float64
		want error
	}{
		{"NaN s", Progress{Route: 1, Time: 2, S: nan}, 2, ErrInvalidState},
		{"Inf rate", Progress{Route: 1, Time: 2, Rate: math.Inf(1)}, 2, ErrInvalidState},
		{"NaN accel", Progress{Route: 1, Time: 2, Accel: nan}, 2, ErrInvalidState},
		{"NaN arrival", Progress{Route: 1, Time: 2}, nan, ErrInvalidState},
		{"too fast", Progress{Route: 1, Time: 2, Rate: 2 * DefaultMaxSpeed}, 2, ErrInvalidState},
		{"joints", Progress{Route: 1, Time: 2, NumArticulations: MaxArticulations + 1}, 2, ErrInvalidState},
		{"NaN joint", Progress{Route: 1, Time: 2, NumArticulations: 1, Articulations: [MaxArticulations]Articulation{{Angle: nan}}}, 2, ErrInvalidState},
		{"older", Progress{Route: 1, Time: 0.5, S: 9}, 2, ErrOutOfOrder},
	} {
		a := pathActor(r)
		_ = a.ReceiveProgress(Progress{Route: 1, Time: 1, S: 1, Rate: 3}, 1)
		a.Advance(1.5)
		before := a.Reckoned()
		if err := a.ReceiveProgress(tc.p, tc.now); !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, err, tc.want)
		}
		a.Advance(1.5)
		if after := a.Reckoned(); after != before {
			t.Errorf("%s: refused progress changed the actor: %+v → %+v", tc.name, before, after)
		}
	}
	plain := NewActor(Config{})
	plain.SetRoute(1, r)
	if err := plain.ReceiveProgress(Progress{Route: 1}, 0); !errors.Is(err, ErrNoRoute) || plain.HasState() {
		t.Errorf("a pvb actor took progress: %v", err)
	}
}

// drive feeds pp a route drive of n frames at 60 fps from t0 whose arc length is
// s(t), and returns the frames at which it sent progress.
func drive(pp *PathPublisher, r *Route, t0 float64, n int, s func(t float64) float64) []int {
	var sent []int
	for f := 0; f < n; f++ {
		t := t0 + float64(f)/60
		pos, q := r.Pose(s(t))
		u := pp.Update(PathSample{Sample: Sample{Time: t, Position: pos, Orientation: q}, OnRoute: true, S: s(t)})
		if u.HasProgress {
			sent = append(sent, f)
		}
	}
	return sent
}

// TestPathPublisherSteady: a steady patrol sends its first progress and heartbeats
// only; a start from rest goes out at once with its copies.
func TestPathPublisherSteady(t *testing.T) {
	r := square(t, true)
	pp := NewPathPublisher(PathPublisherConfig{}, 1)
	pp.SetRoute(r)
	// 20 s at 6 m/s round the square: the first update, once the rate is
	// measured, its repeat MinInterval later, and a heartbeat every 5 s.
	if sent := drive(pp, r, 0, 1200, func(t float64) float64 { return 6 * t }); len(sent) != 5 {
		t.Errorf("a steady patrol sent progress at frames %v in 20 s, want 5 updates", sent)
	}
	rest := NewPathPublisher(PathPublisherConfig{}, 1)
	rest.SetRoute(r)
	if sent := drive(rest, r, 0, 120, func(float64) float64 { return 3 }); len(sent) != 2 {
		t.Errorf("standing 2 s sent progress at frames %v, want once and its repeat", sent)
	}
	start := func(t float64) float64 { return 3 + (t-2)*(t-2) } // 2 m/s² from t = 2 s
	sent := drive(rest, r, 2, 30, start)
	if len(sent) < 1+pathStartCopies || sent[0] > 4 || sent[pathStartCopies] != sent[0]+pathStartCopies {
		t.Errorf("a start sent progress at frames %v, want it within 4 frames and %d copies a frame apart", sent, pathStartCopies)
	}
}

// TestPathPublisherMatchesReceiver: a receiver fed every progress the publisher sends
// (no latency, no loss) shows the drive within the threshold through speed changes
// and stops.
func TestPathPublisherMatchesReceiver(t *testing.T) {
	r := square(t, true)
	pp := NewPathPublisher(PathPublisherConfig{}, 1)
	a := pathActor(r)
	a.SetRoute(pp.SetRoute(r), r)
	speed := func(t float64) float64 { // 0–4 s accelerate at 2 m/s², 4–7 s cruise, brake at 4 m/s², stand
		switch {
		case t < 4:
			return 2 * t
		case t < 7:
			return 8
		case t < 9:
			return 8 - 4*(t-7)
		}
		return 0
	}
	s, worst, sent := 0.0, 0.0, 0
	for f := 0; f < 600; f++ {
		now := float64(f) / 60
		if f > 0 {
			s += 0.5 * (speed(now-1.0/60) + speed(now)) / 60
		}
		pos, q := r.Pose(s)
		u := pp.Update(PathSample{Sample: Sample{Time: now, Position: pos, Orientation: q}, OnRoute: true, S: s})
		if u.HasProgress {
			sent++
			if err := a.ReceiveProgress(u.Progress, now); err != nil {
				t.Fatal(err)
			}
		}
		a.Advance(now)
		got, _ := a.RouteProgress()
		worst = math.Max(worst, math.Abs(r.Diff(s, got)))
	}
	if worst > DefaultPathThreshold || sent > 30 {
		t.Errorf("worst error along the route %.3f m (threshold %g), %d updates", worst, DefaultPathThreshold, sent)
	}
}

// TestRouteNearest: the nearest point of a route, over the whole of it and in a
// window round a hint, also one that wraps past the start of a closed route.
func TestRouteNearest(t *testing.T) {
	r := square(t, false)
	for _, tc := range []struct {
		pos            mgl64.Vec3
		near, within   float64
		wantS, wantDst float64
	}{
		{mgl64.Vec3{4, 7, 1}, 0, 0, 4, 1},
		{mgl64.Vec3{11, 0, -3}, 0, 0, 13, 1},
		{mgl64.Vec3{0.5, 0, -1}, 39, 3, 39, 0.5}, // window wraps: 36 to 42
		{mgl64.Vec3{1, 0, 0.5}, 39, 3, 1, 0.5},
		{mgl64.Vec3{4, 0, -9}, 5, 2, 4, 9},                // the far side, 1 m away, is outside the window
		{mgl64.Vec3{9, 0, -1}, 5, 2, 7, math.Hypot(2, 1)}, // held to the window
	} {
		s, d := r.Nearest(tc.pos, tc.near, tc.within)
		if math.Abs(s-tc.wantS) > 1e-9 || math.Abs(d-tc.wantDst) > 1e-9 {
			t.Errorf("Nearest(%v, %v, %v) = %v, %v; want %v, %v", tc.pos, tc.near, tc.within, s, d, tc.wantS, tc.wantDst)
		}
	}
}

// TestPathPublisherJoints: a Progress carries the sample's joints, and a joint that
// turns past the articulation threshold sends one though the hull keeps its pace.
func TestPathPublisherJoints(t *testing.T) {
	r := square(t, true)
	p := NewPathPublisher(PathPublisherConfig{}, 1)
	id := p.SetRoute(r)
	remote := NewActor(Config{Algorithm: Path})
	remote.SetRoute(id, r)
	var sent, turretSent int
	turret, maxErr := 0.0, 0.0
	for f := 0; f <= 300; f++ { // 5 s at 60 frames per second
		now := float64(f) / 60
		if now >= 2 && now < 3 {
			turret += 0.5 / 60 // half a radian over a second
		}
		pos, rot := r.Pose(2 * now)
		smp := Sample{Time: now, Position: pos, Orientation: rot, NumArticulations: 2}
		smp.Articulations[0], smp.Articulations[1] = turret, 0.1
		u := p.Update(PathSample{Sample: smp, OnRoute: true, S: 2 * now})
		if sent > 0 {
			remote.Advance(now)
			maxErr = math.Max(maxErr, math.Abs(geom.WrapAngle(remote.Reckoned().Articulations[0].Angle-turret)))
		}
		if !u.HasProgress {
			continue
		}
		sent++
		if now >= 2 && now < 3.2 {
			turretSent++
		}
		if u.Progress.NumArticulations != 2 || u.Progress.Articulations[0].Angle != geom.WrapAngle(turret) ||
			u.Progress.Articulations[1].Angle != 0.1 {
			t.Fatalf("t=%.2f: progress joints %d %v, want turret %v gun 0.1", now, u.Progress.NumArticulations,
				u.Progress.Articulations, turret)
		}
		if err := remote.ReceiveProgress(u.Progress, now); err != nil {
			t.Fatal(err)
		}
	}
	remote.Advance(5)
	if got := remote.Reckoned().Articulations[0].Angle; math.Abs(got-turret) > DefaultArticulationThreshold {
		t.Errorf("shown turret %.3f rad, truth %.3f", got, turret)
	}
	// The turn's start and its end, each a joint drifting past the threshold: the
	// rate carried between them turns the shown turret with the truth.
	if turretSent < 2 || turretSent > 6 {
		t.Errorf("%d progress updates while the turret turned, want 2 to 6 (%d in all)", turretSent, sent)
	}
	if maxErr > 2*DefaultArticulationThreshold {
		t.Errorf("shown turret up to %.2f° from the truth while it turned", maxErr*180/math.Pi)
	}
}
