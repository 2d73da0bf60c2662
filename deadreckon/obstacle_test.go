package deadreckon

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// testHull is a 6.9 m × 3.6 m tank hull.
var testHull = Hull{HalfLength: 3.45, HalfWidth: 1.8}

// TestWallsPush: a hull overlapping a rock or the border is pushed out of it by its
// depth, away from it; one clear of them is not pushed.
func TestWallsPush(t *testing.T) {
	east := mgl64.Vec3{1, 0, 0}
	north := mgl64.Vec3{0, 0, -1}
	rock := &Walls{Rocks: []Rock{{X: 5, Z: 0, Radius: 1.5}}}
	border := &Walls{Min: mgl64.Vec2{-10, -10}, Max: mgl64.Vec2{10, 10}}
	for _, c := range []struct {
		name     string
		w        *Walls
		pos, fwd mgl64.Vec3
		want     mgl64.Vec3
	}{
		{"clear ahead", rock, mgl64.Vec3{0, 0, 0}, east, mgl64.Vec3{}},
		{"touching", rock, mgl64.Vec3{0.05, 0, 0}, east, mgl64.Vec3{}},
		{"nose 0.2 m in", rock, mgl64.Vec3{0.25, 0, 0}, east, mgl64.Vec3{-0.2, 0, 0}},
		{"side 0.3 m in", rock, mgl64.Vec3{5, 0, 3}, east, mgl64.Vec3{0, 0, 0.3}},
		{"turned, side in", rock, mgl64.Vec3{2, 0, 0}, north, mgl64.Vec3{-0.3, 0, 0}},
		{"centre inside, nose side", rock, mgl64.Vec3{3, 0, 0}, east, mgl64.Vec3{-2.95, 0, 0}},
		{"inside the border", border, mgl64.Vec3{0, 0, 0}, east, mgl64.Vec3{}},
		{"nose over the east wall", border, mgl64.Vec3{7, 0, 0}, east, mgl64.Vec3{-0.45, 0, 0}},
		{"side over the south wall", border, mgl64.Vec3{0, 0, 9}, east, mgl64.Vec3{0, 0, -0.8}},
		{"empty", &Walls{}, mgl64.Vec3{}, east, mgl64.Vec3{}},
	} {
		if got := c.w.Push(c.pos, c.fwd, testHull); !vecNear(got, c.want, 1e-9) {
			t.Errorf("%s: hull at %v facing %v pushed %v, want %v", c.name, c.pos, c.fwd, got, c.want)
		}
	}
}

// stopDead drives east at 15 m/s from x = −30 and stops dead against a rock at
// x = 0, the hull's nose touching it at x = −1.5, the hull's centre then at
// x = −4.95.
func stopDead(t float64) State {
	const v, hit = 15.0, 2.0
	s := State{Time: t, Orientation: geom.YawQuat(0)}
	if t < hit {
		s.Position = mgl64.Vec3{-4.95 - v*(hit-t), 0, 0}
		s.Velocity = mgl64.Vec3{v, 0, 0}
	} else {
		s.Position = mgl64.Vec3{-4.95, 0, 0}
	}
	return s
}

// TestCollideStopsAtTheObstacle: a tank that stops dead against a rock the receiver
// knows is shown stopping at it, however late the stop arrives; without the rock it
// drives on by the speed times the delay.
func TestCollideStopsAtTheObstacle(t *testing.T) {
	rock := Collide{Obstacles: &Walls{Rocks: []Rock{{X: 0, Z: 0, Radius: 1.5}}}, Hull: testHull}
	for _, c := range []struct {
		collide  Collide
		latency  float64
		overMin  float64 // overshoot at least, m
		overMax  float64 // and at most
		lost     float64 // updates sent from the stop on are lost for this long, s
		describe string
	}{
		{rock, 0.15, 0, 0.001, 0, "rock known, 150 ms"},
		{rock, 0.45, 0, 0.001, 0, "rock known, 450 ms"},
		// The projection runs on 37 m past the rock, and the display is held.
		{rock, 0.15, 0, 0.001, 2.5, "rock known, the stop lost for 2.5 s"},
		{Collide{}, 0.15, 1, math.Inf(1), 0, "no rock, 150 ms"},
	} {
		t.Run(c.describe, func(t *testing.T) {
			a := NewActor(Config{UpdateInterval: 0.2, CompensateLatency: true, Collide: c.collide})
			a.SetClockOffset(0)
			over, maxStep := math.Inf(-1), 0.0
			var prev mgl64.Vec3
			for i := 0; i <= 5*60; i++ {
				now := float64(i) * frame
				// Updates every 0.2 s, each arriving latency late.
				k := math.Floor((now - c.latency) / 0.2)
				if sent := 0.2 * k; sent >= 2 && sent < 2+c.lost {
					k = -1
				}
				if k >= 0 && math.Abs(now-c.latency-0.2*k) < frame/2 {
					if err := a.Receive(stopDead(0.2*k), now); err != nil {
						t.Fatal(err)
					}
				}
				a.Advance(now)
				if !a.HasState() {
					continue
				}
				p := a.Reckoned().Position
				over = math.Max(over, p[0]+4.95)
				if i > 0 && prev != (mgl64.Vec3{}) {
					maxStep = math.Max(maxStep, p.Sub(prev).Len())
				}
				prev = p
			}
			if over < c.overMin || over > c.overMax {
				t.Errorf("overshoot %.4f m, want %g…%g", over, c.overMin, c.overMax)
			}
			if maxStep > 15*frame*1.5 {
				t.Errorf("largest step %.3f m a frame, want a drive's, not a pop", maxStep)
			}
		})
	}
}

// TestCollideTurnsAndSlides: a tank turning in place with its nose against a rock is
// not pushed off it, and one driving at a rock at an angle slides along it instead of
// stopping.
func TestCollideTurnsAndSlides(t *testing.T) {
	rock := Collide{Obstacles: &Walls{Rocks: []Rock{{X: 0, Z: 0, Radius: 1.5}}}, Hull: testHull}
	a := NewActor(Config{Collide: rock})
	at := mgl64.Vec3{-4.95, 0, 0}
	if err := a.Break(State{Position: at, Orientation: geom.YawQuat(0), AngularVelocity: mgl64.Vec3{0, 1, 0}}, 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= 60; i++ {
		a.Advance(float64(i) * frame)
		if p := a.Reckoned().Position; !vecNear(p, at, 1e-9) {
			t.Fatalf("turning in place at the rock, frame %d: shown at %v, want %v", i, p, at)
		}
	}
	// Driving at 45° into a wall on the east: it slides north along it.
	wall := Collide{Obstacles: &Walls{Min: mgl64.Vec2{-100, -100}, Max: mgl64.Vec2{0, 100}}, Hull: Hull{}}
	b := NewActor(Config{Collide: wall})
	v := mgl64.Vec3{5, 0, -5}
	if err := b.Break(State{Position: mgl64.Vec3{-1, 0, 0}, Velocity: v, Orientation: geom.YawQuat(math.Pi / 4)}, 0); err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= 60; i++ {
		b.Advance(float64(i) * frame)
	}
	if p := b.Reckoned().Position; p[0] > blockSlop || p[2] > -4 {
		t.Errorf("after 1 s at 45° into the wall: shown at %v, want against it (x ≤ 0) and slid north (z < −4)", p)
	}
}

// TestCollideIgnoresFrameSteps: the shown pose of a hull kept out of obstacles
// depends on the updates and the time, not on how frames stepped there: an actor
// advanced every frame and one advanced only now and then (and in the frame before
// each update, whose blend starts there with the velocity shown over it) show the
// same place whenever both are advanced.
func TestCollideIgnoresFrameSteps(t *testing.T) {
	rock := Collide{Obstacles: &Walls{Rocks: []Rock{{X: 0, Z: 0, Radius: 1.5}}}, Hull: testHull}
	wall := Collide{Obstacles: &Walls{Min: mgl64.Vec2{-100, -100}, Max: mgl64.Vec2{20, 100}}, Hull: testHull}
	// At 45° into the east wall from x = 10 m, the updates telling of a drive
	// through it: the hull slides north along it.
	slide := func(t float64) State {
		v := mgl64.Vec3{5, 0, -5}
		return State{Time: t, Position: mgl64.Vec3{10, 0, 0}.Add(v.Mul(t)), Velocity: v, Orientation: geom.YawQuat(math.Pi / 4)}
	}
	for _, c := range []struct {
		name    string
		collide Collide
		drive   func(t float64) State
		latency float64
		end     func(p mgl64.Vec3) bool
	}{
		{"stop at the rock, 150 ms", rock, stopDead, 0.15, func(p mgl64.Vec3) bool { return math.Abs(p[0]+4.95) < 0.01 }},
		{"stop at the rock, 300 ms", rock, stopDead, 0.3, func(p mgl64.Vec3) bool { return math.Abs(p[0]+4.95) < 0.01 }},
		{"slide along the wall, 150 ms", wall, slide, 0.15, func(p mgl64.Vec3) bool { return p[0] < 20 && p[2] < -20 }},
		{"slide along the wall, 300 ms", wall, slide, 0.3, func(p mgl64.Vec3) bool { return p[0] < 20 && p[2] < -20 }},
	} {
		every := NewActor(Config{UpdateInterval: 0.2, Collide: c.collide})
		sparse := NewActor(Config{UpdateInterval: 0.2, Collide: c.collide})
		arrives := func(i int) (float64, bool) {
			now := float64(i) * frame
			k := math.Floor((now - c.latency) / 0.2)
			return 0.2 * k, k >= 0 && math.Abs(now-c.latency-0.2*k) < frame/2
		}
		worst, compared := 0.0, 0
		for i := 0; i <= 6*60; i++ {
			now := float64(i) * frame
			sent, ok := arrives(i)
			_, next := arrives(i + 1)
			for _, a := range []*Actor{every, sparse} {
				if a == sparse && !ok && !next && i%7 != 0 {
					continue
				}
				if ok {
					if err := a.Receive(c.drive(sent), now); err != nil {
						t.Fatal(err)
					}
				}
				a.Advance(now)
			}
			if ok || next || i%7 == 0 {
				compared++
				worst = math.Max(worst, every.Reckoned().Position.Sub(sparse.Reckoned().Position).Len())
			}
		}
		if worst > 1e-9 || compared < 60 {
			t.Errorf("%s: every frame and some frames differ by up to %.3g m over %d frames, want the same", c.name, worst, compared)
		}
		if p := every.Reckoned().Position; !c.end(p) {
			t.Errorf("%s: ended at %v", c.name, p)
		}
	}
}

// ExampleWalls: a hull whose nose is 0.2 m into a rock is pushed 0.2 m back.
func ExampleWalls() {
	w := &Walls{Rocks: []Rock{{X: 5, Z: 0, Radius: 1.5}}}
	push := w.Push(mgl64.Vec3{0.25, 0, 0}, mgl64.Vec3{1, 0, 0}, Hull{HalfLength: 3.45, HalfWidth: 1.8})
	fmt.Printf("%.2f %.2f\n", push[0], push[2])
	// Output: -0.20 0.00
}

// TestHeldDisplayRejoinsItsPath: a tank told it drives at 8 m/s while turning
// toward a rock's edge is held at the rock while its projection turns on past it
// (the stop it made there lost), and rejoins the projection once the way is clear as
// a catch-up: in no frame more than its path's own motion plus the catch-up over a
// grid step. The whole gap (here 3.9 m) used to be closed in one frame.
func TestHeldDisplayRejoinsItsPath(t *testing.T) {
	rock := Collide{Obstacles: &Walls{Rocks: []Rock{{X: 0, Z: 0, Radius: 1.5}}}, Hull: testHull}
	cfg := Config{UpdateInterval: 0.2, Collide: rock, CatchUpSpeed: 7.5}
	a := NewActor(cfg)
	s := State{Position: mgl64.Vec3{-12, 0, 0}, Velocity: mgl64.Vec3{8, 0, 0}, Acceleration: mgl64.Vec3{0, 0, 2},
		Orientation: geom.YawQuat(0)}
	if err := a.Receive(s, 0); err != nil {
		t.Fatal(err)
	}
	// The next update, on the same course: its blend starts from the display.
	s.Time, s.Position, s.Velocity = 0.1, mgl64.Vec3{-11.2, 0, 0.01}, mgl64.Vec3{8, 0, 0.2}
	var prev mgl64.Vec3
	worst, held := 0.0, 0.0
	for i := 0; i <= 4*60; i++ {
		now := float64(i) * frame
		if i == 6 {
			if err := a.Receive(s, now); err != nil {
				t.Fatal(err)
			}
		}
		a.Advance(now)
		p := a.Reckoned().Position
		if i > 0 {
			worst = math.Max(worst, p.Sub(prev).Len())
		}
		held = math.Max(held, a.LastKnownProjected().Position.Sub(p).Len())
		prev = p
	}
	// The path moves at most 8.1 m/s; a grid step is 1/30 s.
	if limit := (8.1 + cfg.CatchUpSpeed) / 30; worst > limit || held < 5 {
		t.Errorf("largest step between frames %.3f m (want ≤ %.3f), held up to %.3f m behind the path (want over 5)", worst, limit, held)
	}
	if gap := a.LastKnownProjected().Position.Sub(prev).Len(); gap > 0.01 {
		t.Errorf("after 4 s the display is %.3f m from its path, want it rejoined", gap)
	}
}

// TestModeLowSkipsObstacles: a tank driving east into a rock stops at it in
// ModeHigh; in ModeLow the sweep is skipped and it is shown on its reckoned path.
func TestModeLowSkipsObstacles(t *testing.T) {
	rock := Collide{Obstacles: &Walls{Rocks: []Rock{{X: 0, Z: 0, Radius: 1.5}}}, Hull: testHull}
	for _, tc := range []struct {
		mode  Mode
		sweep bool
	}{{ModeHigh, true}, {ModeLow, true}, {ModeHigh, false}, {ModeLow, false}} {
		a := NewActor(Config{Collide: rock})
		a.SetMode(tc.mode)
		a.SetSweep(tc.sweep)
		if want := tc.mode == ModeHigh && tc.sweep; a.Sweeps() != want {
			t.Errorf("%v mode, sweep %v: Sweeps() %v, want %v", tc.mode, tc.sweep, a.Sweeps(), want)
		}
		if err := a.Break(State{Position: mgl64.Vec3{-8, 0, 0}, Orientation: geom.YawQuat(0), Velocity: mgl64.Vec3{4, 0, 0}}, 0); err != nil {
			t.Fatal(err)
		}
		for i := 0; i <= 120; i++ {
			a.Advance(float64(i) * frame)
		}
		x := a.Reckoned().Position[0] // the path reaches x = 0 at 2 s
		switch {
		case a.Sweeps() && x > -1.5:
			t.Errorf("%v mode, sweep %v: shown at x %.2f, inside the rock", tc.mode, tc.sweep, x)
		case !a.Sweeps() && math.Abs(x) > 1e-6:
			t.Errorf("%v mode, sweep %v: shown at x %.2f, want its path's 0", tc.mode, tc.sweep, x)
		}
	}
	if NewActor(Config{}).Sweeps() {
		t.Error("an actor without obstacles sweeps")
	}
}

// TestSweepResumes: an actor whose sweep is turned off and on again, as a receiver
// does by distance, shows to the bit what one swept all along shows once the sweep
// is back on, the samples it missed swept on its return (no update between: a new
// blend starts where the display stands).
func TestSweepResumes(t *testing.T) {
	rock := Collide{Obstacles: &Walls{Rocks: []Rock{{X: 0, Z: 0.5, Radius: 1.5}}}, Hull: testHull}
	s := State{Position: mgl64.Vec3{-8, 0, 0}, Orientation: geom.YawQuat(0), Velocity: mgl64.Vec3{4, 0, 0}}
	all, off := NewActor(Config{Collide: rock}), NewActor(Config{Collide: rock})
	for _, a := range []*Actor{all, off} {
		if err := a.Break(s, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i <= 180; i++ {
		off.SetSweep(i < 20 || i > 100) // off while the path runs into the rock
		all.Advance(float64(i) * frame)
		off.Advance(float64(i) * frame)
		if i > 100 && off.Reckoned().Position != all.Reckoned().Position {
			t.Fatalf("frame %d: shown at %v with the sweep resumed, %v swept all along", i,
				off.Reckoned().Position, all.Reckoned().Position)
		}
	}
	if x := all.Reckoned().Position[0]; x > -1.5 {
		t.Errorf("swept all along: shown at x %.2f, inside the rock", x)
	}
}

// pushOnly is Obstacles that are only a Push: an actor keeping out of them has no
// room to skip the steps of a sweep in (see room).
type pushOnly struct{ w *Walls }

func (p pushOnly) Push(pos, fwd mgl64.Vec3, h Hull) mgl64.Vec3 { return p.w.Push(pos, fwd, h) }

// TestWallsRoomShowsTheSame: an actor kept out of Walls shows, to the bit, what one
// kept out of the same rocks and border through a plain Obstacles shows (which sweeps
// every move step by step), for tanks wandering among rocks, into them and along the
// border, at 60 and at 2 frames a second, and after the Walls change under it; and
// the rooms do skip most sweeps' steps.
func TestWallsRoomShowsTheSame(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 1))
	var rocks []Rock
	for range 40 {
		rocks = append(rocks, Rock{X: rng.Float64()*160 - 80, Z: rng.Float64()*160 - 80, Radius: 0.5 + 3*rng.Float64()})
	}
	for _, fps := range []float64{60, 2} {
		walls := &Walls{Rocks: rocks, Min: mgl64.Vec2{-90, -90}, Max: mgl64.Vec2{90, 90}}
		const n = 12
		var fast, slow [n]*Actor
		type drive struct{ pos, vel mgl64.Vec3 }
		var drives [n]drive
		for i := range n {
			fast[i] = NewActor(Config{UpdateInterval: 0.2, Collide: Collide{Obstacles: walls, Hull: testHull}})
			slow[i] = NewActor(Config{UpdateInterval: 0.2, Collide: Collide{Obstacles: pushOnly{walls}, Hull: testHull}})
			drives[i] = drive{pos: mgl64.Vec3{rng.Float64()*160 - 80, 0, rng.Float64()*160 - 80}}
		}
		held, frames := 0, 0
		dt := 1 / fps
		for f := 0; float64(f)*dt < 40; f++ {
			now := float64(f) * dt
			if f == int(20*fps) {
				// The Walls change in use: a rock more, on the first tank's way.
				p := drives[0].pos
				walls.Rocks = append(walls.Rocks, Rock{X: p[0] + 3, Z: p[2], Radius: 2})
			}
			for i := range n {
				d := &drives[i]
				// An update every 0.2 s on average, a new heading and speed now and then
				// (stops, reversals, 20 m/s dashes), the owner driving through rocks:
				// the receiver's sweeps meet them.
				if rng.Float64() < dt/0.2 {
					if rng.Float64() < 0.3 {
						yaw := rng.Float64() * 2 * math.Pi
						speed := []float64{0, 4, 10, 20}[rng.IntN(4)]
						d.vel = mgl64.Vec3{math.Cos(yaw) * speed, 0, -math.Sin(yaw) * speed}
					}
					if l := d.pos.Len(); l > 100 {
						d.vel = d.pos.Mul(-10 / l)
					}
					yaw := math.Atan2(-d.vel[2], d.vel[0])
					s := State{Time: now, Position: d.pos, Velocity: d.vel, Orientation: geom.YawQuat(yaw)}
					for _, a := range []*Actor{fast[i], slow[i]} {
						if err := a.Receive(s, now); err != nil {
							t.Fatal(err)
						}
					}
				}
				d.pos = d.pos.Add(d.vel.Mul(dt))
				fast[i].Advance(now)
				slow[i].Advance(now)
				frames++
				if g, w := fast[i].Reckoned(), slow[i].Reckoned(); g != w {
					t.Fatalf("%g fps, tank %d at %.3f s: shown %v through Walls, %v through a plain Push", fps, i, now, g.Position, w.Position)
				}
				if fast[i].c.room.inside(fast[i].rk.pos) {
					held++
				}
			}
		}
		if held < frames/2 {
			t.Errorf("%g fps: a room held the shown tank in %d of %d frames, want most (tanks in the open)", fps, held, frames)
		}
	}
}

// BenchmarkSweepSamples measures a frame of an actor in ModeHigh among rocks that it
// passes clear of, at 9 frames a second (a software renderer's rate in a battle of
// hundreds): its blend's path is swept at the grid samples, 30 a second, over three
// a frame, each in the room the actor keeps (see collideShown).
func BenchmarkSweepSamples(b *testing.B) {
	var rocks []Rock
	for i := range 40 {
		rocks = append(rocks, Rock{X: float64(i%8)*100 - 400, Z: float64(i/8)*100 - 200, Radius: 3})
	}
	walls := Collide{Obstacles: &Walls{Rocks: rocks, Min: mgl64.Vec2{-400, -400}, Max: mgl64.Vec2{400, 400}}, Hull: testHull}
	a := NewActor(Config{UpdateInterval: 0.2, Collide: walls})
	a.SetClockOffset(0)
	// Driving round a circle of 27 m at 8 m/s, centred between four rocks 71 m
	// away.
	const speed, rate, frame = 8.0, 0.3, 1.0 / 9
	truth := func(t float64) State {
		yaw := rate * t
		s := NewState(mgl64.Vec3{50 + speed/rate*math.Sin(yaw), 0, 50 - speed/rate*math.Cos(yaw)})
		s.Time = t
		s.Velocity = mgl64.Vec3{speed * math.Cos(yaw), 0, speed * math.Sin(yaw)}
		s.Orientation = geom.YawQuat(-yaw)
		s.AngularVelocity = mgl64.Vec3{0, -rate, 0}
		return s
	}
	now, sent := 0.0, -1.0
	step := func() {
		now += frame
		for sent+0.2 <= now {
			sent += 0.2
			if err := a.Receive(truth(sent), now); err != nil {
				b.Fatal(err)
			}
		}
		a.Advance(now)
	}
	for range 30 {
		step()
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		step()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/(frame/sweepStep), "ns/sample")
}

// TestSweepMovesMatchesStepCount checks moves, sweep's test of whether there is a
// move, against the step count it stands for, math.Ceil(move.Len()/blockStep) at
// least 1 and finite, over random moves of every scale (denormal to overflowing,
// zero, infinite and NaN parts), and that the step count taken from the same square
// is move.Len()'s to the bit.
func TestSweepMovesMatchesStepCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 512))
	odd := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, -math.SmallestNonzeroFloat64,
		1e-162, 1e-160, 1e-154, 1e154, 1.3e154, 1.4e154, 1e200, math.MaxFloat64, -math.MaxFloat64,
		math.Inf(1), math.Inf(-1), math.NaN(), blockStep, math.Nextafter(blockStep, 0), 1}
	part := func() float64 {
		switch rng.IntN(3) {
		case 0:
			return odd[rng.IntN(len(odd))]
		case 1:
			return (rng.Float64()*2 - 1) * math.Pow(10, float64(rng.IntN(660)-330))
		}
		return (rng.Float64()*2 - 1) * 200
	}
	walked := 0
	const n = 200000
	for range n {
		move := mgl64.Vec3{part(), 0, part()}
		if rng.IntN(4) == 0 {
			move[1] = part()
		}
		steps := math.Ceil(move.Len() / blockStep)
		want := !(!(steps >= 1) || math.IsInf(steps, 1))
		m2 := move.LenSqr()
		if got := moves(m2); got != want {
			t.Fatalf("move %v: moves says %v, the step count %v says %v", move, got, steps, want)
		}
		if want {
			walked++
			if got := math.Ceil(math.Sqrt(m2) / blockStep); math.Float64bits(got) != math.Float64bits(steps) {
				t.Fatalf("move %v: %v steps from the square, %v from Len", move, got, steps)
			}
		}
	}
	if walked < n/4 || walked > n*3/4 {
		t.Errorf("%d of %d moves walked: want both kinds well represented", walked, n)
	}
}

// TestWithinLenMatchesRoot checks withinLen, rejoin's test without a square root,
// against the test it stands for, math.Sqrt(l2) > limit false, over random lengths
// and limits of every scale and near each other (a part in 10^9 to 10^16 apart, where
// rounding decides), with zero, negative, infinite and NaN ones: it never says
// within where the root is over the limit, and says so for most clear cases.
func TestWithinLenMatchesRoot(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 513))
	odd := []float64{0, math.Copysign(0, -1), math.SmallestNonzeroFloat64, 1e-160, 1e-154, 1.5e-154,
		1e154, 1.3e154, 1.4e154, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN(), -1, 1}
	clear, said := 0, 0
	for range 400000 {
		var l, limit float64
		switch rng.IntN(5) {
		case 0:
			l, limit = odd[rng.IntN(len(odd))], odd[rng.IntN(len(odd))]
		case 4: // limit² subnormal, the length within a few grid steps of it
			limit = rng.Float64() * math.Pow(10, -float64(155+rng.IntN(6)))
			l = math.Sqrt(math.Max(0, limit*limit+float64(rng.IntN(9)-4)*math.SmallestNonzeroFloat64))
		case 1:
			l = rng.Float64() * math.Pow(10, float64(rng.IntN(620)-310))
			limit = rng.Float64() * math.Pow(10, float64(rng.IntN(620)-310))
		default:
			limit = (rng.Float64()*2 - 0.2) * 30
			l = limit * (1 + (rng.Float64()*2-1)*math.Pow(10, -float64(9+rng.IntN(8))))
		}
		v := mgl64.Vec3{l * 0.6, 0, l * 0.8}
		l2 := v.LenSqr()
		over := v.Len() > limit
		got := withinLen(l2, limit)
		if got && over {
			t.Fatalf("length² %v (root %v), limit %v: within, yet the root is over", l2, v.Len(), limit)
		}
		if !over && v.Len() < limit*(1-1e-11) {
			clear++
			if got {
				said++
			}
		}
	}
	if said < clear*9/10 {
		t.Errorf("within said for %d of %d lengths clearly under their limit: want nearly all", said, clear)
	}
}

// refSweep and refRejoin are sweep and rejoin as they were before their shortcuts
// (moves and withinLen), kept verbatim as the reference the shortcuts must match to
// the bit.
func refSweep(a *Actor, from, to mgl64.Vec3, rot mgl64.Quat) mgl64.Vec3 {
	c := &a.c.cfg.Collide
	fwd := geom.Rotate(rot, mgl64.Vec3{1, 0, 0})
	fwd[1] = 0
	// The heading's length is only needed past the room's test below: whether it
	// is over 1e-9 is read off its square where that is plain (1e-17 is well over
	// 1e-18, rounding and all), and the square root taken only where it is not.
	l2 := fwd[0]*fwd[0] + fwd[1]*fwd[1] + fwd[2]*fwd[2] // fwd.Len()'s sum
	if !(l2 > 1e-17) && !(math.Sqrt(l2) > 1e-9) {
		// Pointing straight up or down: no heading to place the hull by.
		return mgl64.Vec3{to[0], from[1], to[2]}
	}
	to = mgl64.Vec3{to[0], from[1], to[2]}
	move := to.Sub(from)
	n := math.Ceil(move.Len() / blockStep)
	if !(n >= 1) || math.IsInf(n, 1) {
		return from // no move, or a non-finite one
	}
	if w, ok := c.Obstacles.(*Walls); ok && a.c.room.holds(w, c.Hull, from, to) {
		// Nothing within the hull's reach of the move: every step below would be
		// at depth zero and the last would end where this does, at from + move.
		return from.Add(move)
	}
	fwd = fwd.Mul(1 / math.Sqrt(l2))
	depth := func(p mgl64.Vec3) float64 { return c.Obstacles.Push(p, fwd, c.Hull).Len() }
	limit := math.Max(depth(from), blockSlop)
	// A display held at an obstacle while its projection runs on (the stop lost)
	// is a long way from where that projection has got to: it is still held (it
	// slides along the obstacle at most blockStep in a sweep).
	n = math.Min(n, blockMaxStep)
	at := from
	for i := 1.0; i <= n; i++ {
		next := from.Add(move.Mul(i / n))
		if depth(next) <= limit {
			at = next
			continue
		}
		lo, hi := at, next
		for k := 0; k < blockBisect; k++ {
			if mid := lo.Add(hi).Mul(0.5); depth(mid) <= limit {
				lo = mid
			} else {
				hi = mid
			}
		}
		at = lo
		// Slide: what is left of the move, less its part into the obstacle.
		if nrm := c.Obstacles.Push(hi, fwd, c.Hull); nrm.Len() > 0 {
			nrm = nrm.Normalize()
			rest := to.Sub(at)
			if into := rest.Dot(nrm); into < 0 {
				rest = rest.Sub(nrm.Mul(into))
			}
			// At most blockStep of it: a display held at an obstacle while its
			// projection runs on far past it (the stop lost) creeps along it no
			// further than that in a sweep.
			if l := rest.Len(); l > blockStep {
				rest = rest.Mul(blockStep / l)
			}
			// Back out along the push by what the slide went deeper than the
			// limit (on a rock's curve, or by rounding): the slid pose then
			// depends smoothly on the move, instead of on which side of the
			// limit rounding left it.
			slid := at.Add(rest)
			if push := c.Obstacles.Push(slid, fwd, c.Hull); push.Len() > limit {
				slid = slid.Add(push.Mul(1 - limit/push.Len()))
			}
			if depth(slid) <= limit+slideSlop {
				at = slid
			}
		}
		break
	}
	return at
}

func refRejoin(a *Actor, from, to, path, pathTo mgl64.Vec3) mgl64.Vec3 {
	d := mgl64.Vec3{to[0] - from[0], 0, to[2] - from[2]}
	step := mgl64.Vec3{pathTo[0] - path[0], 0, pathTo[2] - path[2]}
	limit := step.Len() + a.c.cfg.CatchUpSpeed*sweepStep
	if l := d.Len(); l > limit {
		k := limit / l
		return mgl64.Vec3{from[0] + d[0]*k, to[1], from[2] + d[2]*k}
	}
	return to
}

// TestSweepShortcutsMatchReference checks sweep and rejoin against refSweep and
// refRejoin, to the bit, over random crowds of rocks in a border and random hull
// poses and moves among them: short and long, none, near and into rocks, pointing
// up, with the catch-up at its default, +Inf and zero.
func TestSweepShortcutsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 514))
	bits := func(v mgl64.Vec3) [3]uint64 {
		return [3]uint64{math.Float64bits(v[0]), math.Float64bits(v[1]), math.Float64bits(v[2])}
	}
	moved, blocked := 0, 0
	for crowd := range 60 {
		var rocks []Rock
		for range 1 + rng.IntN(60) {
			rocks = append(rocks, Rock{X: rng.Float64()*160 - 80, Z: rng.Float64()*160 - 80, Radius: 0.5 + rng.Float64()*4})
		}
		w := &Walls{Rocks: rocks, Min: mgl64.Vec2{-90, -90}, Max: mgl64.Vec2{90, 90}}
		cfg := Config{UpdateInterval: 0.2, Collide: Collide{Obstacles: w, Hull: testHull}}
		cfg.CatchUpSpeed = []float64{0, math.Inf(1), 1e-9}[crowd%3]
		a, ref := NewActor(cfg), NewActor(cfg)
		at := mgl64.Vec3{rng.Float64()*160 - 80, 0, rng.Float64()*160 - 80}
		path := at
		for range 400 {
			var to mgl64.Vec3
			switch rng.IntN(6) {
			case 0:
				to = at // no move
			case 1:
				to = at.Add(mgl64.Vec3{(rng.Float64()*2 - 1) * 40, rng.Float64(), (rng.Float64()*2 - 1) * 40})
			case 2:
				r := rocks[rng.IntN(len(rocks))] // at a rock
				to = mgl64.Vec3{r.X + rng.Float64()*8 - 4, 0, r.Z + rng.Float64()*8 - 4}
			default:
				to = at.Add(mgl64.Vec3{(rng.Float64()*2 - 1) * 1.2, 0, (rng.Float64()*2 - 1) * 1.2})
			}
			rot := geom.YawQuat(rng.Float64() * 2 * math.Pi)
			if rng.IntN(50) == 0 {
				rot = mgl64.QuatRotate(math.Pi/2, mgl64.Vec3{0, 0, 1}) // nose straight up
			}
			got, want := a.sweep(at, to, rot), refSweep(ref, at, to, rot)
			if bits(got) != bits(want) {
				t.Fatalf("crowd %d: sweep %v → %v at %v: %v, reference %v", crowd, at, to, rot, got, want)
			}
			if got != at {
				moved++
			}
			if got != to {
				blocked++
			}
			pathTo := to
			if rng.IntN(3) == 0 {
				pathTo = path.Add(mgl64.Vec3{(rng.Float64()*2 - 1) * 2, 0, (rng.Float64()*2 - 1) * 2})
			}
			got, want = a.rejoin(at, got, path, pathTo), refRejoin(ref, at, want, path, pathTo)
			if bits(got) != bits(want) {
				t.Fatalf("crowd %d: rejoin %v → %v, path %v → %v: %v, reference %v", crowd, at, to, path, pathTo, got, want)
			}
			at, path = got, pathTo
		}
	}
	if moved < 5000 || blocked < 2000 {
		t.Errorf("%d moves moved, %d stopped short: want many of both", moved, blocked)
	}
}
