package deadreckon

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// sampleOf returns the rendered sample of a truth state.
func sampleOf(s State) Sample {
	return Sample{Time: s.Time, Position: s.Position, Orientation: s.Orientation}
}

// TestPublisherThresholds checks that each threshold triggers an update and that
// nothing is sent while the self-reckoning stays within them.
func TestPublisherThresholds(t *testing.T) {
	cfg := PublisherConfig{Heartbeat: 1000, ToleranceLinear: Off, StartSpeed: Off}
	for _, tc := range []struct {
		name string
		// drift returns the sample at time t after a steady straight drive.
		drift func(t float64) Sample
		want  float64 // time of the first threshold update (±1 frame), or 0 for none
	}{
		{"steady", func(t float64) Sample {
			return Sample{Time: t, Position: mgl64.Vec3{5 * t, 0, 0}, Orientation: mgl64.QuatIdent()}
		}, 0},
		{"silence", func(t float64) Sample {
			// Steady, but the self-reckoning of an update unrefreshed for
			// MaxExtrapolation slows down, as remotes do: one update per
			// MaxExtrapolation plus the time to fall 0.25 m behind: about
			// √(2·0.25·0.5/5) = 0.22 s at 5 m/s with a 0.5 s decay (0.4 + 1.5 + 0.22 s).
			return Sample{Time: t, Position: mgl64.Vec3{5 * t, 0, 0}, Orientation: mgl64.QuatIdent()}
		}, 2.14},
		{"position", func(t float64) Sample {
			// From t = 1 the tank drifts sideways at 0.5 m/s: 0.25 m after 0.5 s.
			return Sample{Time: t, Position: mgl64.Vec3{5 * t, 0, 0.5 * math.Max(0, t-1)}, Orientation: mgl64.QuatIdent()}
		}, 1.5},
		{"orientation", func(t float64) Sample {
			// From t = 1 the hull turns at 10°/s in place: 2° after 0.2 s.
			return Sample{Time: t, Position: mgl64.Vec3{5 * t, 0, 0}, Orientation: geom.YawQuat(10 * deg * math.Max(0, t-1))}
		}, 1.2},
		{"articulation", func(t float64) Sample {
			// From t = 1 the turret turns at 5°/s: 1° after 0.2 s.
			return Sample{Time: t, Position: mgl64.Vec3{5 * t, 0, 0}, Orientation: mgl64.QuatIdent(),
				NumArticulations: 1, Articulations: [MaxArticulations]float64{5 * deg * math.Max(0, t-1)}}
		}, 1.2},
	} {
		c := cfg
		if tc.name != "silence" {
			c.Reckon.MaxExtrapolation = math.Inf(1)
		} else {
			c.Reckon.MaxExtrapolation = 1.5 // (the default is longer than the 3 s run)
		}
		p := NewPublisher(c, 1)
		first := 0.0
		for f := 0; f <= 180; f++ {
			d, _ := p.Update(tc.drift(float64(f) * frame))
			if f == 0 {
				if d != FullUpdate {
					t.Fatalf("%s: first sample %v, want full", tc.name, d)
				}
				continue
			}
			if d != NoUpdate && first == 0 && f > 30 {
				first = float64(f) * frame
			}
		}
		if tc.want == 0 && first != 0 {
			t.Errorf("%s: update at %.3f s, want none", tc.name, first)
		}
		if tc.want != 0 && math.Abs(first-tc.want) > 1.5*frame {
			t.Errorf("%s: first update at %.3f s, want %.3f s", tc.name, first, tc.want)
		}
	}
}

// TestPublisherNoWrapAlarm checks that a hull turning slowly through ±180° causes no
// false orientation alarm: the error is the quaternion angle, not a yaw difference.
func TestPublisherNoWrapAlarm(t *testing.T) {
	p := NewPublisher(PublisherConfig{Heartbeat: 1000}, 1)
	var updates []float64
	for f := 0; f <= 120; f++ {
		tm := float64(f) * frame
		yaw := 170*deg + 10*deg*tm // passes 180° at t = 1
		d, _ := p.Update(Sample{Time: tm, Orientation: geom.YawQuat(yaw)})
		if d != NoUpdate {
			updates = append(updates, tm)
		}
		if _, rot, _ := p.Errors(); rot > DefaultOrientationThreshold+0.2*deg {
			t.Fatalf("orientation error %v° at yaw %v°", rot/deg, yaw/deg)
		}
	}
	// The first update cannot know the turn rate; the second (2° later) does, and
	// then the self-reckoning follows the hull through 180° without another.
	if len(updates) != 2 || updates[1] > 0.25 {
		t.Errorf("updates at %v, want at 0 and about 0.2 s only", updates)
	}
}

// TestPublisherMinInterval checks that updates never come faster than MinInterval,
// except for continuity breaks (and starts, off here: see TestStartFollowUps).
func TestPublisherMinInterval(t *testing.T) {
	p := NewPublisher(PublisherConfig{MinInterval: 0.25, StartSpeed: Off}, 3)
	last := math.Inf(-1)
	for f := 0; f <= 300; f++ {
		tm := float64(f) * frame
		// A wild zigzag that would want an update every frame.
		s := Sample{Time: tm, Position: mgl64.Vec3{5 * tm, 0, 3 * math.Sin(20*tm)}, Orientation: geom.YawQuat(math.Sin(15 * tm))}
		s.Break = f == 200
		d, _ := p.Update(s)
		if d == NoUpdate {
			continue
		}
		if gap := tm - last; gap < 0.25-1e-9 && !s.Break {
			t.Fatalf("update %.3f s after the last at %.3f s", gap, tm)
		}
		if s.Break && d != FullUpdate {
			t.Errorf("break: %v, want full", d)
		}
		last = tm
	}
	if _, ok := p.LastPublished(); !ok {
		t.Fatal("nothing published")
	}
}

// TestPublisherHeartbeat checks the heartbeat: full updates of a resting actor every
// Heartbeat ± jitter, staggered differently by different seeds.
func TestPublisherHeartbeat(t *testing.T) {
	firsts := map[float64]bool{}
	for seed := uint64(1); seed <= 5; seed++ {
		p := NewPublisher(PublisherConfig{Heartbeat: 5}, seed)
		var fulls []float64
		for f := 0; f <= 60*40; f++ {
			tm := float64(f) * frame
			d, _ := p.Update(Sample{Time: tm, Position: mgl64.Vec3{1, 2, 3}})
			switch d {
			case FullUpdate:
				fulls = append(fulls, tm)
			case PartialUpdate:
				t.Fatalf("seed %d: partial update of a resting actor at %v", seed, tm)
			}
		}
		if len(fulls) < 7 {
			t.Fatalf("seed %d: %d full updates in 40 s", seed, len(fulls))
		}
		if first := fulls[1]; first < 2.5-frame || first > 5+frame {
			t.Errorf("seed %d: first heartbeat at %v, want in [2.5, 5]", seed, first)
		}
		firsts[math.Round(fulls[1]*60)] = true
		for i := 2; i < len(fulls); i++ {
			if gap := fulls[i] - fulls[i-1]; gap < 4.5-frame || gap > 5.5+frame {
				t.Errorf("seed %d: heartbeat gap %v, want 5 s ± 10%%", seed, gap)
			}
		}
	}
	if len(firsts) < 3 {
		t.Errorf("5 seeds gave only %d distinct first heartbeats: not staggered", len(firsts))
	}
}

// TestHeartbeatCopy runs a parked actor over a link that loses every heartbeat but
// none of its copies: with HeartbeatCopy, each heartbeat goes again, as it was, that
// long after, and no more; what a peer holds is never older than a heartbeat period
// and the copy's delay; an update that goes between a heartbeat and its copy takes
// the copy's place. Off, nothing arrives: a peer's state of a parked actor ages by a
// whole period with each heartbeat lost.
func TestHeartbeatCopy(t *testing.T) {
	const (
		heartbeat = 1.0
		run       = 30.0
	)
	for _, tc := range []struct {
		name    string
		copy    float64
		nudgeAt float64 // an update asked for between the heartbeat and its copy (Sample.Full), s; 0: none
	}{
		{name: "copy a frame later", copy: frame},
		{name: "copy later", copy: 0.2},
		{name: "copy overtaken", copy: 0.5, nudgeAt: 0.3}, // past MinInterval, 0.2 s
		{name: "off", copy: Off},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := NewPublisher(PublisherConfig{Heartbeat: heartbeat, HeartbeatJitter: Off, HeartbeatCopy: tc.copy}, 1)
			var last, beatAt, newest, worst float64
			sent, beats, copies := 0, 0, 0
			for f := 0; f <= int(run/frame); f++ {
				tm := float64(f) * frame
				s := Sample{Time: tm, Position: mgl64.Vec3{1, 2, 3}}
				if tc.nudgeAt > 0 && beats > 0 && math.Abs(tm-beatAt-tc.nudgeAt) < frame/2 {
					s.Full = true
				}
				d, st := p.Update(s)
				if d != NoUpdate {
					sent++
					switch gap := tm - last; {
					case f == 0:
						newest = st.Time
					case gap > heartbeat/2:
						beats++ // a heartbeat: lost
						beatAt = tm
					case tc.nudgeAt > 0:
						copies++ // the update asked for: arrives
						newest = st.Time
					default:
						copies++ // the copy: arrives
						newest = st.Time
						if math.Abs(gap-tc.copy) > frame/2 || st.Time != beatAt {
							t.Errorf("at %.3f s, %.3f s after the heartbeat, a copy of the state at %.3f s; want %.3f s after it, of its state at %.3f s",
								tm, gap, st.Time, tc.copy, beatAt)
						}
					}
					last = tm
				}
				worst = math.Max(worst, tm-newest)
			}
			t.Logf("%d updates: %d heartbeats, %d copies; oldest state held %.2f s", sent, beats, copies, worst)
			if tc.copy == Off {
				if copies != 0 || worst < run-heartbeat {
					t.Errorf("off: %d copies, oldest state held %.2f s, want none and the whole run", copies, worst)
				}
				return
			}
			// The next heartbeat is due a period after the last full update: the
			// heartbeat, or the update asked for after it.
			after, period := tc.copy, heartbeat
			if tc.nudgeAt > 0 {
				after, period = tc.nudgeAt, heartbeat+tc.nudgeAt
			}
			// (The last heartbeat's copy may fall past the run's end.)
			if beats < int(run/period)-1 || copies != beats && copies != beats-1 || sent != 1+beats+copies {
				t.Errorf("%d updates, %d heartbeats and %d copies in %.0f s, want about %.0f heartbeats and one more update each",
					sent, beats, copies, run, run/period)
			}
			if limit := heartbeat + after + 2*frame; worst > limit {
				t.Errorf("oldest state held %.3f s, want at most %.3f", worst, limit)
			}
		})
	}
}

// TestHeartbeatCopyChangesNothingElse drives an actor straight at a steady speed,
// when its heartbeats are all it sends, and then weaving: with HeartbeatCopy, every
// update but the copies is the one it sends without, at the same time.
func TestHeartbeatCopyChangesNothingElse(t *testing.T) {
	path := func(tm float64) mgl64.Vec3 {
		if tm < 10 {
			return mgl64.Vec3{5 * tm, 0, 0}
		}
		return mgl64.Vec3{5 * tm, 0, 3 * math.Sin(tm-10)}
	}
	updates := func(copy float64) (out []State, copies int) {
		p := NewPublisher(PublisherConfig{Heartbeat: 1, HeartbeatCopy: copy, Budget: Off}, 7)
		for f := 0; f <= 20*60; f++ {
			tm := float64(f) * frame
			if d, st := p.Update(Sample{Time: tm, Position: path(tm)}); d != NoUpdate {
				if st.Time < tm {
					copies++
					continue
				}
				out = append(out, st)
			}
		}
		return out, copies
	}
	want, none := updates(Off)
	got, copies := updates(0.1)
	if none != 0 || copies < 8 {
		t.Errorf("%d copies off, %d on over 20 s, want none and one a heartbeat", none, copies)
	}
	if !slices.Equal(got, want) {
		t.Errorf("with copies, %d other updates; without, %d, or they differ", len(got), len(want))
	}
}

// TestPublisherKinematics checks the published velocity (instantaneous and averaged)
// and acceleration (vertical part zeroed; with DampAcceleration, zero at first and
// undamped once it agrees with the last published direction).
func TestPublisherKinematics(t *testing.T) {
	// Constant acceleration (1, 2, 0.5) m/s² from rest: v(t) = a·t.
	acc := mgl64.Vec3{1, 2, 0.5}
	pos := func(tm float64) mgl64.Vec3 { return acc.Mul(0.5 * tm * tm) }
	for _, frames := range []int{1, 2, 3} {
		p := NewPublisher(PublisherConfig{VelocityFrames: frames, Heartbeat: 1000, PositionThreshold: 1e3, ToleranceLinear: Off,
			DampAcceleration: true, StartSpeed: Off}, 1)
		var st State
		var d Decision
		for f := 0; f <= 60; f++ {
			tm := float64(f) * frame
			s := Sample{Time: tm, Position: pos(tm), Full: f == 60}
			d, st = p.Update(s)
			if d != NoUpdate && f != 0 && f != 60 {
				t.Fatalf("unforced update at frame %d", f)
			}
		}
		if d != FullUpdate {
			t.Fatalf("forced full update: %v", d)
		}
		// The average velocity over the last k frames is the true velocity k/2 frames ago.
		want := acc.Mul(1 - float64(frames)*frame/2)
		if !vecNear(st.Velocity, want, 1e-9) {
			t.Errorf("%d-frame velocity %v, want %v", frames, st.Velocity, want)
		}
		wantAcc := mgl64.Vec3{acc[0], 0, acc[2]}
		if !vecNear(p.Acceleration(), wantAcc, 1e-6) {
			t.Errorf("acceleration %v, want %v (vertical zeroed)", p.Acceleration(), wantAcc)
		}
		// The first publish had zero acceleration, so this one is damped to zero:
		// its direction agrees with nothing published before.
		if st.Acceleration != (mgl64.Vec3{}) {
			t.Errorf("first published acceleration %v, want zero (damped)", st.Acceleration)
		}
		// The next one agrees with it (dot 1): published undamped.
		for f := 61; f <= 90; f++ {
			tm := float64(f) * frame
			d, st = p.Update(Sample{Time: tm, Position: pos(tm), Full: f == 90})
		}
		if d != FullUpdate || !vecNear(st.Acceleration, wantAcc, 1e-6) {
			t.Errorf("second published acceleration %v (%v), want %v", st.Acceleration, d, wantAcc)
		}
	}
}

// TestPublisherDamping checks DampAcceleration: the published acceleration is scaled
// by max(0, â·â_last), with â the unit horizontal acceleration and â_last the one of
// the last publish.
func TestPublisherDamping(t *testing.T) {
	c60, s60 := math.Cos(60*deg), math.Sin(60*deg)
	segments := []struct {
		acc, want mgl64.Vec3
	}{
		{mgl64.Vec3{2, 0, 0}, mgl64.Vec3{}},                                    // nothing published before: 0
		{mgl64.Vec3{2, 3, 0}, mgl64.Vec3{2, 0, 0}},                             // same direction: kept, vertical zeroed
		{mgl64.Vec3{2 * c60, 0, 2 * s60}, mgl64.Vec3{c60, 0, s60}},             // 60° apart: halved
		{mgl64.Vec3{-2 * c60, 0, -2 * s60}, mgl64.Vec3{}},                      // reversed: 0
		{mgl64.Vec3{-2 * c60, 0, -2 * s60}, mgl64.Vec3{-2 * c60, 0, -2 * s60}}, // same again: kept
	}
	p := NewPublisher(PublisherConfig{PositionThreshold: 1e6, OrientationThreshold: 3, ToleranceLinear: Off, Heartbeat: 1000,
		DampAcceleration: true, StartSpeed: Off}, 1)
	var x, v mgl64.Vec3
	f := 0
	for k, seg := range segments {
		for i := 0; i < 30; i++ {
			f++
			v = v.Add(seg.acc.Mul(frame))
			x = x.Add(v.Mul(frame))
			d, st := p.Update(Sample{Time: float64(f) * frame, Position: x, Full: i == 29})
			if i < 29 {
				continue
			}
			if d != FullUpdate {
				t.Fatalf("segment %d: %v, want the forced full update", k, d)
			}
			if !vecNear(st.Acceleration, seg.want, 1e-6) {
				t.Errorf("segment %d: published acceleration %v, want %v", k, st.Acceleration, seg.want)
			}
		}
	}
}

// TestPublisherTinyValues checks that a creeping actor's tiny velocity and angular
// velocity are published as zero.
func TestPublisherTinyValues(t *testing.T) {
	p := NewPublisher(PublisherConfig{}, 1)
	var st State
	for f := 0; f <= 20; f++ {
		tm := float64(f) * frame
		_, st = p.Update(Sample{Time: tm, Position: mgl64.Vec3{0.001 * tm, 0, 0}, Orientation: geom.YawQuat(0.0001 * tm), Full: f == 20})
	}
	if st.Velocity != (mgl64.Vec3{}) || st.AngularVelocity != (mgl64.Vec3{}) {
		t.Errorf("creeping actor published velocity %v, angular velocity %v, want zero", st.Velocity, st.AngularVelocity)
	}
}

// TestPublisherTolerance checks the distance-grown position threshold.
func TestPublisherTolerance(t *testing.T) {
	p := NewPublisher(PublisherConfig{PositionThreshold: 0.2, ToleranceLinear: 0.01, ToleranceQuadratic: 0.0001, MaxTolerance: 1.5}, 1)
	for _, tc := range []struct{ d, want float64 }{
		{0, 0.2}, {10, 0.2 + 0.1 + 0.01}, {50, 0.2 + 0.5 + 0.25}, {200, 1.5}, {math.NaN(), 0.2}, {-5, 0.2},
	} {
		if got := p.Tolerance(tc.d); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("Tolerance(%v) = %v, want %v", tc.d, got, tc.want)
		}
	}
}

// TestPublisherMatchesRemote checks that the publisher's self-reckoning is what a
// remote actor with no latency shows, taking each update before it reckons the frame
// (the order of a game tick and of a lab frame).
func TestPublisherMatchesRemote(t *testing.T) {
	m := circleMotion(8, 0.5)
	p := NewPublisher(PublisherConfig{MinInterval: 1e-3}, 7)
	remote := NewActor(Config{})
	for f := 0; f <= 600; f++ {
		tm := float64(f) * frame
		d, st := p.Update(sampleOf(m(tm)))
		switch d {
		case FullUpdate, PartialUpdate:
			if f == 0 {
				_ = remote.Break(st, tm)
			} else if err := remote.Receive(st, tm); err != nil {
				t.Fatal(err)
			}
		}
		remote.Advance(tm)
		if f > 0 {
			if got, want := remote.Reckoned().Position, p.Reckoned().Position; !vecNear(got, want, 1e-9) {
				t.Fatalf("frame %d: remote %v, self-reckoned %v", f, got, want)
			}
			if pe, _, _ := p.Errors(); d == NoUpdate && pe > p.Tolerance(0)+1e-9 {
				t.Fatalf("frame %d: error %v above the threshold without an update", f, pe)
			}
		}
	}
}

// TestPublisherRejects checks that non-finite samples are ignored and counted.
func TestPublisherRejects(t *testing.T) {
	p := NewPublisher(PublisherConfig{}, 1)
	p.Update(Sample{Time: 0})
	for _, s := range []Sample{
		{Time: math.NaN()},
		{Time: 1, Position: mgl64.Vec3{math.Inf(1), 0, 0}},
		{Time: 1, Orientation: mgl64.Quat{W: math.NaN()}},
		{Time: -1},
		{Time: 1, NumArticulations: 7},
	} {
		if d, _ := p.Update(s); d != NoUpdate {
			t.Errorf("bad sample %+v: %v", s, d)
		}
	}
	if p.Rejected() != 5 {
		t.Errorf("rejected %d, want 5", p.Rejected())
	}
	if d, st := p.Update(Sample{Time: 6, Position: mgl64.Vec3{1, 0, 0}}); d != FullUpdate || !geom.FiniteVec(st.Velocity) {
		t.Errorf("after bad samples: %v %v", d, st)
	}
}

// BenchmarkPublisherUpdate measures one frame of a publishing tank on a circle.
func BenchmarkPublisherUpdate(b *testing.B) {
	benchmarkPublisher(b, PublisherConfig{})
}

// BenchmarkPublisherUpdateLossRepair is BenchmarkPublisherUpdate with loss repair and
// urgent updates on, as the game publishes: a second reckoning per frame, and a copy
// of the actor per update.
func BenchmarkPublisherUpdateLossRepair(b *testing.B) {
	benchmarkPublisher(b, PublisherConfig{LostThreshold: 0.25, UrgentChange: 3, VelocityFrames: 2})
}

func benchmarkPublisher(b *testing.B, cfg PublisherConfig) {
	m := circleMotion(8, 0.5)
	samples := make([]Sample, 600)
	for i := range samples {
		samples[i] = sampleOf(m(float64(i) * frame))
	}
	p := NewPublisher(cfg, 1)
	updates := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s := samples[i%len(samples)]
		s.Time = float64(i) * frame
		if d, _ := p.Update(s); d != NoUpdate {
			updates++
		}
	}
	b.ReportMetric(float64(updates)/(float64(b.N)*frame), "updates/s")
}

// publishTimes drives a publisher with cfg along path, frame by frame for secs
// seconds, and returns the times it published.
func publishTimes(cfg PublisherConfig, secs float64, path func(t float64) mgl64.Vec3) []float64 {
	p := NewPublisher(cfg, 1)
	var out []float64
	for f := 0; float64(f)*frame <= secs+1e-9; f++ {
		t := float64(f) * frame
		if d, _ := p.Update(Sample{Time: t, Position: path(t), Orientation: mgl64.QuatIdent()}); d != NoUpdate {
			out = append(out, t)
		}
	}
	return out
}

// TestLostThreshold: a tank that sets off publishes its new velocity once; its own
// reckoning of that update is then exact, but a peer that lost it still shows the
// tank parked. With LostThreshold, the publisher reckons that peer too and
// publishes again one MinInterval later; without, not before the heartbeat.
func TestLostThreshold(t *testing.T) {
	setOff := func(t float64) mgl64.Vec3 { return mgl64.Vec3{5 * math.Max(0, t-1), 0, 0} }
	base := PublisherConfig{Heartbeat: 1000, HeartbeatJitter: Off, RepeatChange: Off, MinInterval: 0.2, StartSpeed: Off}
	for _, tc := range []struct {
		lost float64
		want int // updates from t = 1 on
	}{{0, 1}, {0.25, 2}} {
		c := base
		c.LostThreshold = tc.lost
		times := publishTimes(c, 3, setOff)
		var after []float64
		for _, at := range times {
			if at > 1 {
				after = append(after, at)
			}
		}
		// The set-off shows in one update; the repair comes MinInterval after it.
		if len(after) != tc.want {
			t.Errorf("LostThreshold %v: updates after setting off at %v, want %d", tc.lost, after, tc.want)
			continue
		}
		if tc.lost > 0 {
			if gap := after[len(after)-1] - after[len(after)-2]; math.Abs(gap-c.MinInterval) > 1.5*frame {
				t.Errorf("LostThreshold %v: repair %.3f s after the update it repeats, want MinInterval %v s", tc.lost, gap, c.MinInterval)
			}
		}
	}
}

// TestUrgentChange: a tank at 15 m/s stops dead 50 ms after an update. Without
// UrgentChange the stop waits for MinInterval; with it, it goes out in the frame
// the stop is seen.
func TestUrgentChange(t *testing.T) {
	const stop = 2.05
	crash := func(t float64) mgl64.Vec3 {
		return mgl64.Vec3{15 * math.Min(t, stop), 0, 0}
	}
	for _, tc := range []struct {
		urgent float64
		want   float64 // time of the first update after the stop
	}{{0, 2.2}, {Off, 2.2}, {3, stop + frame}} {
		c := PublisherConfig{Heartbeat: 1000, HeartbeatJitter: Off, MinInterval: 0.2, UrgentChange: tc.urgent}
		p := NewPublisher(c, 1)
		last, got := 0.0, math.NaN()
		for f := 0; f <= 150; f++ {
			t := float64(f) * frame
			if t > stop-0.05-frame/2 && t < stop-0.05+frame/2 {
				// Force an update 50 ms before the stop: it carries 15 m/s.
				if d, _ := p.Update(Sample{Time: t, Position: crash(t), Orientation: mgl64.QuatIdent(), Full: t-last >= c.MinInterval}); d != NoUpdate {
					last = t
				}
				continue
			}
			d, _ := p.Update(Sample{Time: t, Position: crash(t), Orientation: mgl64.QuatIdent()})
			if d == NoUpdate {
				continue
			}
			if t > stop && math.IsNaN(got) {
				got = t
			}
			last = t
		}
		if math.Abs(got-tc.want) > 1.5*frame {
			t.Errorf("UrgentChange %v: stop published at %.3f s, want %.3f s", tc.urgent, got, tc.want)
		}
	}
}

// TestBrakeOnset: a tank cruising at 2.4 m/s brakes at 6 m/s² to rest, 0.2 s after
// its last update. Without BrakeOnset the braking is published when its error passes
// the threshold; with it, as soon as the measured braking (a two-frame velocity)
// settles, four frames in, although MinInterval has not passed. A braking gentler than
// BrakeOnset, and a steady turn whose sideways acceleration turns with it, publish
// nothing early.
func TestBrakeOnset(t *testing.T) {
	const (
		brakeAt = 1.2  // s
		v0      = 2.4  // m/s
		turn    = 0.25 // rad/s in the turning case
	)
	for _, tc := range []struct {
		name    string
		onset   float64
		brake   float64 // m/s²
		turning bool
		within  float64 // the first update after brakeAt comes within this, s; NaN: none before brakeAt+0.08
	}{
		{"off", Off, 6, false, math.NaN()},
		{"zero is off", 0, 6, false, math.NaN()},
		{"hard brake", 3, 6, false, 4 * frame},
		{"gentle brake", 3, 2, false, math.NaN()},
		{"turn", 3, 0, true, math.NaN()},
	} {
		// Distance along the path at time t: cruise, then brake to rest.
		dist := func(t float64) float64 {
			if t <= brakeAt || tc.brake == 0 {
				return v0 * t
			}
			u := math.Min(t-brakeAt, v0/tc.brake)
			return v0*brakeAt + v0*u - 0.5*tc.brake*u*u
		}
		at := func(t float64) mgl64.Vec3 {
			d := dist(t)
			if !tc.turning {
				return mgl64.Vec3{d, 0, 0}
			}
			r := v0 / turn
			return mgl64.Vec3{r * math.Sin(d/r), 0, r * (1 - math.Cos(d/r))}
		}
		c := PublisherConfig{PositionThreshold: 0.03, ToleranceLinear: Off, Heartbeat: 1000, HeartbeatJitter: Off,
			MinInterval: 0.16, VelocityFrames: 2, Budget: Off, BrakeOnset: tc.onset}
		p := NewPublisher(c, 1)
		got := math.NaN()
		for f := 0; f <= 120; f++ {
			tm := float64(f) * frame
			// An update 0.2 s before the braking, so the onset is not held by
			// MinInterval but the threshold has not yet tripped.
			full := math.Abs(tm-(brakeAt-0.2)) < frame/2
			d, _ := p.Update(Sample{Time: tm, Position: at(tm), Orientation: mgl64.QuatIdent(), Full: full})
			if d != NoUpdate && tm > brakeAt+frame/2 && math.IsNaN(got) {
				got = tm - brakeAt
			}
		}
		switch {
		case math.IsNaN(tc.within) && got < 0.08:
			t.Errorf("%s: first update %.3f s after the braking began, want none before 0.08 s", tc.name, got)
		case !math.IsNaN(tc.within) && !(got <= tc.within+frame/2):
			t.Errorf("%s: first update %.3f s after the braking began, want within %.3f s", tc.name, got, tc.within)
		}
	}
}

// TestUrgentChangeBounded: velocity noise far beyond UrgentChange (±5 m/s from frame
// to frame around a steady 10 m/s) sends at most twice the MinInterval rate, never more
// than three updates within one MinInterval.
func TestUrgentChangeBounded(t *testing.T) {
	const minInterval = 0.2
	c := PublisherConfig{Heartbeat: 1000, HeartbeatJitter: Off, MinInterval: minInterval, UrgentChange: 3}
	times := publishTimes(c, 10, func(t float64) mgl64.Vec3 {
		x := 10 * t
		if int(math.Round(t/frame))%2 == 1 {
			x += 5 * frame // one frame ahead, the next back: ±5 m/s
		}
		return mgl64.Vec3{x, 0, 0}
	})
	urgent := 0
	for i := 3; i < len(times); i++ {
		if times[i]-times[i-1] < minInterval-1e-9 {
			urgent++
		}
		if times[i]-times[i-3] < minInterval-1e-9 {
			t.Fatalf("four updates within %v s: at %v", minInterval, times[i-3:i+1])
		}
	}
	if limit := 2*10/minInterval + urgentBurst + 1; float64(len(times)) > limit {
		t.Errorf("%d updates in 10 s, want at most %v", len(times), limit)
	}
	if urgent == 0 {
		t.Errorf("no update went out early (%d updates): the noise should hurry some", len(times))
	}
}

// TestUrgentStopIsRepeated: a stop dead seen through a two-frame velocity goes out as
// two urgent updates (half speed, then rest); the second is the one repeated one
// MinInterval later, for a peer that lost it. The clock starts far below zero, which
// must not starve the urgent budget.
func TestUrgentStopIsRepeated(t *testing.T) {
	const t0, stop, minInterval = -1000.0, -998.0, 0.2
	c := PublisherConfig{Heartbeat: 1000, HeartbeatJitter: Off, MinInterval: minInterval, UrgentChange: 3, VelocityFrames: 2,
		StartSpeed: Off}
	p := NewPublisher(c, 1)
	var after []float64
	for f := 0; f <= 240; f++ {
		now := t0 + float64(f)*frame
		x := 15 * (math.Min(now, stop) - t0)
		d, st := p.Update(Sample{Time: now, Position: mgl64.Vec3{x, 0, 0}, Orientation: mgl64.QuatIdent()})
		if d != NoUpdate && now > stop {
			after = append(after, now-stop)
			if len(after) == 2 && st.Velocity.Len() != 0 {
				t.Errorf("second update after the stop carries %v m/s, want rest", st.Velocity.Len())
			}
		}
	}
	want := []float64{frame, 2 * frame, 2*frame + minInterval}
	if len(after) < len(want) {
		t.Fatalf("updates %v s after the stop, want %v", after, want)
	}
	for i, w := range want {
		if math.Abs(after[i]-w) > frame/2+1e-6 {
			t.Errorf("updates %v s after the stop, want %v", after, want)
			break
		}
	}
}

// TestPublisherConfigValidate checks that zero, Off where allowed, and values in
// range pass, and that every other value is an error naming its field.
func TestPublisherConfigValidate(t *testing.T) {
	for _, c := range []struct {
		name string
		cfg  PublisherConfig
		bad  string // the field the error names; empty when valid
	}{
		{"zero", PublisherConfig{}, ""},
		{"all off", PublisherConfig{ToleranceLinear: Off, ToleranceQuadratic: Off, HeartbeatJitter: Off, HeartbeatCopy: Off,
			AccelerationCap: Off, RepeatChange: Off, UrgentChange: Off, LostThreshold: Off, LostOrientationThreshold: Off, StartSpeed: Off, BrakeOnset: Off,
			GentleStartCopy: Off, SeenSpeed: Off, StartDebt: Off, Budget: Off}, ""},
		{"in range", PublisherConfig{PositionThreshold: 1e12, HeartbeatJitter: MaxHeartbeatJitter,
			VelocityFrames: MaxVelocityFrames, UrgentChange: 3, LostThreshold: 0.25, HeartbeatCopy: 0.1, GentleStartCopy: 0.1, SeenSpeed: 0.2, StartDebt: 5, TinySpeed: 1e-9}, ""},
		{"negative threshold", PublisherConfig{PositionThreshold: -0.5}, "position threshold"},
		{"off threshold", PublisherConfig{OrientationThreshold: Off}, "orientation threshold"},
		{"NaN interval", PublisherConfig{MinInterval: math.NaN()}, "minimum interval"},
		{"infinite heartbeat", PublisherConfig{Heartbeat: math.Inf(1)}, "heartbeat"},
		{"jitter too wide", PublisherConfig{HeartbeatJitter: 0.95}, "heartbeat jitter"},
		{"negative copy", PublisherConfig{HeartbeatCopy: -0.1}, "heartbeat copy"},
		{"negative tolerance", PublisherConfig{ToleranceLinear: -0.5}, "linear tolerance"},
		{"infinite cap", PublisherConfig{AccelerationCap: math.Inf(1)}, "acceleration cap"},
		{"negative urgency", PublisherConfig{UrgentChange: -2}, "urgent change"},
		{"negative start", PublisherConfig{StartSpeed: -0.5}, "start speed"},
		{"infinite brake", PublisherConfig{BrakeOnset: math.Inf(1)}, "brake onset"},
		{"negative late copy", PublisherConfig{GentleStartCopy: -0.1}, "gentle start copy"},
		{"negative seen speed", PublisherConfig{SeenSpeed: -0.2}, "seen speed"},
		{"infinite start debt", PublisherConfig{StartDebt: math.Inf(1)}, "start debt"},
		{"NaN budget", PublisherConfig{Budget: math.NaN()}, "budget"},
		{"too many frames", PublisherConfig{VelocityFrames: 4}, "velocity frames"},
		{"negative frames", PublisherConfig{VelocityFrames: -1}, "velocity frames"},
	} {
		err := c.cfg.Validate()
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("%s: Validate() = %v, want nil", c.name, err)
		case c.bad != "" && (!errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("%s: Validate() = %v, want ErrInvalidConfig naming %q", c.name, err, c.bad)
		}
	}
}

// TestPublisherConfigDefaults checks that Config fills in every default, reads off
// features as Off, and goes back into NewPublisher unchanged; and that a zero field
// publishes exactly as its default given explicitly.
func TestPublisherConfigDefaults(t *testing.T) {
	got := NewPublisher(PublisherConfig{}, 1).Config()
	want := PublisherConfig{
		Reckon:            Config{}.withDefaults(),
		PositionThreshold: DefaultPositionThreshold, ToleranceLinear: DefaultToleranceLinear, ToleranceQuadratic: Off,
		MaxTolerance: DefaultMaxTolerance, OrientationThreshold: DefaultOrientationThreshold,
		ArticulationThreshold: DefaultArticulationThreshold, MinInterval: DefaultMinInterval,
		Heartbeat: DefaultPublishHeartbeat, HeartbeatJitter: DefaultHeartbeatJitter, HeartbeatCopy: Off, VelocityFrames: 1,
		AccelerationCap: DefaultAccelerationCap, RepeatChange: DefaultRepeatChange, UrgentChange: Off, LostThreshold: Off, LostOrientationThreshold: Off,
		StartSpeed: DefaultStartSpeed, BrakeOnset: Off, TurnEnd: Off, TurnEndShare: Off, GentleStartCopy: Off, SeenSpeed: Off, StartDebt: Off, Budget: 2 / DefaultMinInterval,
		TinySpeed: DefaultTinySpeed, TinyAcceleration: DefaultTinyAcceleration, TinyAngularSpeed: DefaultTinyAngularSpeed,
	}
	if got != want {
		t.Errorf("Config() of the zero config = %+v\nwant %+v", got, want)
	}
	if again := NewPublisher(got, 1).Config(); again != got {
		t.Errorf("Config() does not round-trip: %+v\nthen %+v", got, again)
	}
	path := func(t float64) mgl64.Vec3 { return mgl64.Vec3{5 * t, 0, 2 * math.Sin(t)} }
	zero, explicit := publishTimes(PublisherConfig{}, 20, path), publishTimes(got, 20, path)
	if len(zero) < 10 || !slices.Equal(zero, explicit) {
		t.Errorf("zero config publishes at %v,\nits defaults given explicitly at %v", zero, explicit)
	}
}

// TestNewPublisherPanicsOnInvalid checks that an invalid configuration is a
// programming error reported with the package's prefix, not silently replaced.
func TestNewPublisherPanicsOnInvalid(t *testing.T) {
	defer func() {
		r := recover()
		if s, ok := r.(string); !ok || !strings.HasPrefix(s, "deadreckon: NewPublisher: ") || !strings.Contains(s, "heartbeat jitter") {
			t.Errorf("NewPublisher with heartbeat jitter 2 panicked with %v, want a deadreckon: message naming the field", r)
		}
	}()
	NewPublisher(PublisherConfig{HeartbeatJitter: 2}, 1)
	t.Error("NewPublisher with heartbeat jitter 2 returned")
}

// TestSetHeartbeatCopy turns HeartbeatCopy on and off under a parked actor: the
// heartbeats after each change are copied (or not) as a publisher made with that
// setting copies them; a setting Validate refuses is refused and changes nothing.
func TestSetHeartbeatCopy(t *testing.T) {
	p := NewPublisher(PublisherConfig{Heartbeat: 1, HeartbeatJitter: Off}, 1)
	count := func(from, to float64) (beats, copies int) {
		last := math.Inf(-1)
		for f := int(math.Round(from / frame)); f < int(math.Round(to/frame)); f++ {
			tm := float64(f) * frame
			if d, _ := p.Update(Sample{Time: tm, Position: mgl64.Vec3{1, 2, 3}}); d != NoUpdate {
				if tm-last > 0.5 {
					beats++
				} else {
					copies++
				}
				last = tm
			}
		}
		return beats, copies
	}
	if b, c := count(0, 5.5); b < 5 || c != 0 {
		t.Errorf("off: %d heartbeats, %d copies; want 5 or more and none", b, c)
	}
	if err := p.SetHeartbeatCopy(0.1); err != nil {
		t.Fatal(err)
	}
	if got := p.Config().HeartbeatCopy; got != 0.1 {
		t.Errorf("Config().HeartbeatCopy %v after setting 0.1", got)
	}
	if b, c := count(5.5, 10.5); b < 4 || c != b {
		t.Errorf("on: %d heartbeats, %d copies; want 4 or more, each copied", b, c)
	}
	for _, bad := range []float64{-0.5, math.NaN(), math.Inf(1)} {
		if err := p.SetHeartbeatCopy(bad); err == nil {
			t.Errorf("SetHeartbeatCopy(%v) accepted", bad)
		}
	}
	if got := p.Config().HeartbeatCopy; got != 0.1 {
		t.Errorf("Config().HeartbeatCopy %v after refused settings, want 0.1", got)
	}
	if err := p.SetHeartbeatCopy(0); err != nil {
		t.Fatal(err)
	}
	if got := p.Config().HeartbeatCopy; got != Off {
		t.Errorf("Config().HeartbeatCopy %v after setting 0, want Off", got)
	}
	if b, c := count(10.5, 15.5); b < 4 || c != 0 {
		t.Errorf("off again: %d heartbeats, %d copies; want 4 or more and none", b, c)
	}
}
