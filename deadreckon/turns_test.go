package deadreckon

import (
	"math"
	"testing"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/internal/geom"
)

// Turn in place of the turn tests: 0.6 rad/s (a tank's 35°/s) from 0 s, slowing
// evenly at 2.4 rad/s² from turnSlow until it rests at turnRestYaw.
const (
	turnRate    = 0.6
	turnSlow    = 1.0
	turnDecel   = 2.4
	turnRestYaw = turnRate*turnSlow + turnRate*turnRate/(2*turnDecel)
)

// turnYaw returns the turn's yaw at time t, rad.
func turnYaw(t float64) float64 {
	switch {
	case t < 0:
		return 0
	case t < turnSlow:
		return turnRate * t
	}
	u := math.Min(t-turnSlow, turnRate/turnDecel)
	return turnRate*turnSlow + turnRate*u - turnDecel*u*u/2
}

// TestPublisherTurnEnd: with TurnEnd, the end of a turn goes out within a few frames
// of the turn starting to slow, within MinInterval of the last update, with no
// angular velocity and the heading the turn comes to rest at, and is copied;
// without it, nothing goes out until the orientation threshold trips.
func TestPublisherTurnEnd(t *testing.T) {
	for _, on := range []bool{true, false} {
		cfg := PublisherConfig{MinInterval: 0.2, StartSpeed: 0.1}
		if on {
			cfg.TurnEnd = 0.1
		}
		p := NewPublisher(cfg, 1)
		var ends []State
		var endAt []float64
		for i := 0; i <= 150; i++ {
			now := float64(i) * frame
			d, st := p.Update(Sample{Time: now, Orientation: geom.YawQuat(turnYaw(now))})
			if d != NoUpdate && now > turnSlow && now < turnSlow+0.15 {
				ends, endAt = append(ends, st), append(endAt, now)
			}
		}
		if !on {
			if len(ends) != 0 {
				t.Errorf("TurnEnd off: %d updates within 0.15 s of the turn slowing, want none", len(ends))
			}
			continue
		}
		if len(ends) < 1+stopFollowUps {
			t.Fatalf("%d updates within 0.15 s of the turn slowing, want the end and %d copies", len(ends), stopFollowUps)
		}
		if endAt[0] > turnSlow+4*frame {
			t.Errorf("turn end published %.3f s after the turn slowed, want within 4 frames", endAt[0]-turnSlow)
		}
		for i, st := range ends[:1+stopFollowUps] {
			if st.AngularVelocity != (mgl64.Vec3{}) {
				t.Errorf("update %d of the turn's end: angular velocity %v, want none", i, st.AngularVelocity)
			}
			if e := math.Abs(geom.Yaw(st.Orientation) - turnRestYaw); e > 0.5*math.Pi/180 {
				t.Errorf("update %d of the turn's end: heading %.4f rad, %.2f° from where the turn rests (%.4f)",
					i, geom.Yaw(st.Orientation), e*180/math.Pi, turnRestYaw)
			}
		}
	}
}

// TestActorLagTurnsNoOvershoot: a remote of a turn that stops dead, told of it a
// latency late, turns past the rest and back when it shows the rotation as of now;
// with LagTurns it comes to rest on it, and on the rest of a turn that slows (ahead
// of what it shows as the end arrives), shedding its turn evenly.
func TestActorLagTurnsNoOvershoot(t *testing.T) {
	const lat = 0.15
	for _, c := range []struct {
		lag  bool
		rest float64 // rad
	}{{false, turnRate * turnSlow}, {true, turnRate * turnSlow}, {true, turnRestYaw}} {
		lag := c.lag
		a := NewActor(Config{CompensateLatency: true, LagTurns: lag, UpdateInterval: 0.1})
		a.SetClockOffset(0)
		// The owner tells every 0.1 s while it turns steadily, then the turn's end
		// (the heading it rests at, no rotation) as it starts slowing.
		sends := []State{}
		for ts := 0.0; ts < turnSlow-1e-9; ts += 0.1 {
			s := NewState(mgl64.Vec3{})
			s.Time, s.Orientation, s.AngularVelocity = ts, geom.YawQuat(turnYaw(ts)), mgl64.Vec3{0, turnRate, 0}
			sends = append(sends, s)
		}
		end := NewState(mgl64.Vec3{})
		end.Time, end.Orientation = turnSlow+frame, geom.YawQuat(c.rest)
		sends = append(sends, end)
		over, prevRate, drop := 0.0, math.NaN(), 0.0
		prevYaw := 0.0
		next := 0
		for i := 0; i <= 180; i++ {
			now := float64(i) * frame
			for next < len(sends) && sends[next].Time+lat <= now+1e-9 {
				if err := a.Receive(sends[next], now); err != nil {
					t.Fatal(err)
				}
				next++
			}
			a.Advance(now)
			if !a.HasState() {
				continue
			}
			yaw := geom.Yaw(a.Reckoned().Orientation)
			over = math.Max(over, yaw-c.rest)
			if rate := (yaw - prevYaw) / frame; now > turnSlow+frame+lat && i > 0 {
				// The largest change of the shown turn's rate from frame to
				// frame once the end arrived.
				if !math.IsNaN(prevRate) {
					drop = math.Max(drop, math.Abs(rate-prevRate))
				}
				prevRate = rate
			}
			prevYaw = yaw
		}
		switch {
		case !lag && over < 3*math.Pi/180:
			t.Errorf("without LagTurns: %.2f° past the rest, want the latency's worth (≥ 3°): the test shows nothing", over*180/math.Pi)
		case lag && over > 0.1*math.Pi/180:
			t.Errorf("with LagTurns, rest at %.3f rad: %.2f° past the rest, want none", c.rest, over*180/math.Pi)
		case lag && c.rest == turnRestYaw && drop > 0.1:
			// Shed evenly over 2·4.3°/(0.6 rad/s) = 0.25 s: 0.04 rad/s a frame.
			t.Errorf("with LagTurns, rest at %.3f rad: the shown turn's rate changed by %.3f rad/s in a frame, want an even fall (≤ 0.1)", c.rest, drop)
		}
	}
}

// TestActorMaxTurnLead: a remote of a turn that stops dead, told every 0.16 s over a
// jittered link, goes past where the turn rests by at most MaxTurnLead, whether it is
// told of the end a latency late or the end is lost and the next word is a heartbeat
// a second later; without the cap it goes the latency's worth past (and on to the
// heartbeat when the end is lost).
func TestActorMaxTurnLead(t *testing.T) {
	const lead = 1 * math.Pi / 180
	rest := turnRate * turnSlow
	for _, c := range []struct {
		lead    float64
		lost    bool
		minOver float64 // rad: what the uncapped remote must show, so the test shows something
	}{
		{lead, false, 0}, {lead, true, 0},
		{0, false, 3 * math.Pi / 180}, {0, true, 20 * math.Pi / 180},
	} {
		a := NewActor(Config{CompensateLatency: true, UpdateInterval: 0.1, MaxTurnLead: c.lead, TurnBlendTime: 0.25})
		a.SetClockOffset(0)
		var sends []State
		for ts := 0.0; ts < turnSlow-1e-9; ts += 0.16 {
			s := NewState(mgl64.Vec3{})
			s.Time, s.Orientation, s.AngularVelocity = ts, geom.YawQuat(turnRate*ts), mgl64.Vec3{0, turnRate, 0}
			sends = append(sends, s)
		}
		for _, ts := range []float64{turnSlow + frame, turnSlow + 1} {
			s := NewState(mgl64.Vec3{})
			s.Time, s.Orientation = ts, geom.YawQuat(rest)
			sends = append(sends, s)
		}
		if c.lost {
			sends = append(sends[:len(sends)-2], sends[len(sends)-1])
		}
		over, next := -math.MaxFloat64, 0
		for i := 0; i <= 180; i++ {
			now := float64(i) * frame
			// 150 ± 30 ms: each update's latency from a fixed pattern.
			for next < len(sends) && sends[next].Time+0.12+0.06*float64(next%4)/3 <= now+1e-9 {
				if err := a.Receive(sends[next], now); err != nil {
					t.Fatal(err)
				}
				next++
			}
			a.Advance(now)
			if a.HasState() {
				over = math.Max(over, geom.Yaw(a.Reckoned().Orientation)-rest)
			}
		}
		if c.lead > 0 && over > c.lead+1e-9 || c.lead == 0 && over < c.minOver {
			t.Errorf("cap %.2f°, end lost %v: %.2f° past the rest, want ≤ the cap (or, uncapped, ≥ %.0f°)",
				c.lead*180/math.Pi, c.lost, over*180/math.Pi, c.minOver*180/math.Pi)
		}
		if e := math.Abs(geom.Yaw(a.Reckoned().Orientation) - rest); e > 0.01*math.Pi/180 {
			t.Errorf("cap %.2f°, end lost %v: shown %.3f° from the rest at the end, want on it", c.lead*180/math.Pi, c.lost, e*180/math.Pi)
		}
	}
}

// TestTurnBlendTime: with MaxTurnLead, the heading of an update that turns blends
// over TurnBlendTime whatever its latency; at rest, or without it, over ΔT plus the
// latency.
func TestTurnBlendTime(t *testing.T) {
	for _, c := range []struct {
		blend, rate, lat, want float64
	}{
		{0.25, turnRate, 0.1, 0.25}, {0.25, turnRate, 0.3, 0.25},
		{0, turnRate, 0.3, 0.4}, {0.25, 0, 0.3, 0.4},
	} {
		a := NewActor(Config{CompensateLatency: true, UpdateInterval: 0.1, MaxTurnLead: 0.02, TurnBlendTime: c.blend})
		a.SetClockOffset(0)
		for i, ts := range []float64{0, 0.2} {
			s := NewState(mgl64.Vec3{})
			s.Time, s.Orientation, s.AngularVelocity = ts, geom.YawQuat(c.rate*ts+0.05*float64(i)), mgl64.Vec3{0, c.rate, 0}
			a.Advance(ts + c.lat - frame)
			if err := a.Receive(s, ts+c.lat); err != nil {
				t.Fatal(err)
			}
		}
		if math.Abs(a.dtRot-c.want) > 1e-9 {
			t.Errorf("TurnBlendTime %v, turn %v rad/s, latency %v s: the heading blends over %.3f s, want %.3f",
				c.blend, c.rate, c.lat, a.dtRot, c.want)
		}
	}
}

// TestTurnEndLeavesTheBrakeItsCopies: a tank driving at 10 m/s whose turn ends (the
// end and its copies published at once, within MinInterval) and which brakes hard
// 0.2 s later publishes the braking onset with both its copies a frame apart. The
// turn end's updates drew on the allowance of early updates, and the onset's copies
// found none: a peer that lost the onset showed the tank driving on past its stop
// (2.9 m at 150 ms on one drive).
func TestTurnEndLeavesTheBrakeItsCopies(t *testing.T) {
	const (
		speed = 10.0           // m/s
		brake = 6.0            // m/s²
		tb    = turnSlow + 0.2 // the brake's start, s
	)
	dist := func(t float64) float64 {
		if t < tb {
			return speed * t
		}
		u := math.Min(t-tb, speed/brake)
		return speed*tb + speed*u - brake*u*u/2
	}
	cfg := PublisherConfig{PositionThreshold: 0.03, ToleranceLinear: Off, Heartbeat: 1000, HeartbeatJitter: Off,
		MinInterval: 0.16, VelocityFrames: 2, UrgentChange: 3, BrakeOnset: 2, TurnEnd: 0.1,
		Reckon: Config{MaxExtrapolation: 4.5}}
	p := NewPublisher(cfg, 1)
	var ends, brakes []float64 // times of the updates that end the turn, and that brake the tank
	for f := 0; f <= 120; f++ {
		now := float64(f) * frame
		d, st := p.Update(Sample{Time: now, Position: mgl64.Vec3{dist(now), 0, 0}, Orientation: geom.YawQuat(turnYaw(now))})
		switch {
		case d == NoUpdate:
		case now > tb && st.Acceleration.Dot(st.Velocity.Normalize()) < -cfg.BrakeOnset:
			brakes = append(brakes, now)
		case now > turnSlow && now < tb && st.AngularVelocity == (mgl64.Vec3{}):
			ends = append(ends, now)
		}
	}
	if len(ends) != 1+turnEndFollowUps {
		t.Fatalf("updates ending the turn at %v s, want the end and %d copies", ends, turnEndFollowUps)
	}
	if len(brakes) < 1+stopFollowUps || brakes[stopFollowUps]-brakes[0] > float64(stopFollowUps)*frame+1e-9 {
		t.Errorf("braking updates at %v s, want the onset and %d copies a frame apart", brakes, stopFollowUps)
	}
}

// TestLostTurnEnd: a pivot at 2.1 rad/s (120°/s) that slows at 2.6 rad/s², a tank's
// own, published over a 150 ms link that loses the first update after the turn
// starts slowing, or every update for 0.9 s after. With TurnEnd, a copy of the lost
// end arrives a frame later and the shown heading stays within 1.5° of the rest;
// with MaxTurnExtrapolation 0.3 s, a turn whose every later update is lost stops
// within 0.3 s of the last word, short of the rest. Without either, the shown
// heading runs on past the rest until the next update arrives.
func TestLostTurnEnd(t *testing.T) {
	const (
		rate, slowAt, decel = 2.1, 0.5, 2.6 // rad/s, s, rad/s²
		lat                 = 0.15          // s
		rest                = rate*slowAt + rate*rate/(2*decel)
	)
	yaw := func(t float64) float64 {
		if t < slowAt {
			return rate * math.Max(0, t)
		}
		u := math.Min(t-slowAt, rate/decel)
		return rate*slowAt + rate*u - decel*u*u/2
	}
	for _, c := range []struct {
		name       string
		turnEnd, h float64
		lostFor    float64 // s after the first update of the slowing that are lost; 0: that update alone
		min, max   float64 // degrees past the rest wanted
	}{
		{"TurnEnd, its first update lost", 0.1, 0, 0, 0, 1.5},
		{"no TurnEnd, the first update of the slowing lost", Off, 0, 0, 3, 180},
		{"MaxTurnExtrapolation, every update for 0.9 s lost", Off, 0.3, 0.9, 0, 1.5},
		{"no cap, every update for 0.9 s lost", Off, 0, 0.9, 20, 180},
	} {
		reckon := Config{CompensateLatency: true, UpdateInterval: 0.1, MaxTurnExtrapolation: c.h}
		p := NewPublisher(PublisherConfig{Reckon: reckon, MinInterval: 0.16, OrientationThreshold: 4 * math.Pi / 180,
			Heartbeat: 1, HeartbeatJitter: Off, TurnEnd: c.turnEnd}, 1)
		a := NewActor(reckon)
		a.SetClockOffset(0)
		var link []State
		lostFrom := math.Inf(1)
		over := -math.MaxFloat64
		for i := 0; i <= 150; i++ {
			now := float64(i) * frame
			if d, st := p.Update(Sample{Time: now, Orientation: geom.YawQuat(yaw(now))}); d != NoUpdate {
				if now > slowAt && math.IsInf(lostFrom, 1) {
					lostFrom = now
				}
				if !(now >= lostFrom && now <= lostFrom+c.lostFor) {
					link = append(link, st)
				}
			}
			for len(link) > 0 && link[0].Time+lat <= now+1e-9 {
				if err := a.Receive(link[0], now); err != nil {
					t.Fatal(err)
				}
				link = link[1:]
			}
			a.Advance(now)
			if a.HasState() {
				over = math.Max(over, geom.Yaw(a.Reckoned().Orientation)-rest)
			}
		}
		t.Logf("%s: %.2f° past the rest", c.name, over*180/math.Pi)
		if d := over * 180 / math.Pi; d < c.min || d > c.max {
			t.Errorf("%s: the shown heading went %.2f° past the rest, want %v° to %v°", c.name, d, c.min, c.max)
		}
	}
}

// TestMaxTurnLeadSpeed: with MaxTurnLeadSpeed, MaxTurnLead caps the turn of a state
// slower than it (a turn in place) and leaves a faster one's turn as it is.
func TestMaxTurnLeadSpeed(t *testing.T) {
	const (
		lead = 1 * math.Pi / 180
		rate = 1.0 // rad/s
		age  = 0.3 // s
	)
	for _, c := range []struct {
		speed, capSpeed float64
		capped          bool
	}{
		{0.5, 1, true}, {5, 1, false}, {5, 0, true}, {5, Off, true},
	} {
		a := NewActor(Config{UpdateInterval: 0.1, MaxTurnLead: lead, MaxTurnLeadSpeed: c.capSpeed})
		s := NewState(mgl64.Vec3{})
		s.Velocity = mgl64.Vec3{c.speed, 0, 0}
		s.AngularVelocity = mgl64.Vec3{0, rate, 0}
		if err := a.Receive(s, 0); err != nil {
			t.Fatal(err)
		}
		a.Advance(age)
		yaw := geom.Yaw(a.Reckoned().Orientation)
		if c.capped && math.Abs(yaw-lead) > 1e-6 || !c.capped && math.Abs(yaw-rate*age) > 0.01 {
			t.Errorf("speed %v m/s, MaxTurnLeadSpeed %v: turned %.2f° in %v s, want %v (capped %v)",
				c.speed, c.capSpeed, yaw*180/math.Pi, age, map[bool]float64{true: lead * 180 / math.Pi, false: rate * age * 180 / math.Pi}[c.capped], c.capped)
		}
	}
}

// TestLagTurnsLead: with LagTurns, the rotation is held back by the update's latency
// and a frame, less LagTurnsLead, and never by less than nothing.
func TestLagTurnsLead(t *testing.T) {
	for _, c := range []struct{ lead, lat, want float64 }{
		{0, 0.15, 0.15 + turnEndLate}, {0.1, 0.15, 0.05 + turnEndLate}, {0.1, 0.3, 0.2 + turnEndLate}, {0.5, 0.15, 0},
		// A lead that is no duration is no lead: the whole latency holds the turn back.
		{math.NaN(), 0.15, 0.15 + turnEndLate}, {-1, 0.15, 0.15 + turnEndLate}, {math.Inf(1), 0.15, 0.15 + turnEndLate},
	} {
		a := NewActor(Config{CompensateLatency: true, UpdateInterval: 0.1, LagTurns: true, LagTurnsLead: c.lead})
		a.lagTurns(c.lat)
		if math.Abs(a.rDelay-c.want) > 1e-9 {
			t.Errorf("LagTurnsLead %v s, latency %v s: rotation held back %.4f s, want %.4f", c.lead, c.lat, a.rDelay, c.want)
		}
	}
}

// TestLostOrientationThreshold: a tank turning in place at 1 rad/s eases to
// 0.3 rad/s; the publisher's own reckoning of the update that says so is exact, but a
// peer that lost it turns on at 1 rad/s. With LostOrientationThreshold the publisher
// reckons that peer too and publishes again once it is 4° off; without, not before
// the heartbeat.
func TestLostOrientationThreshold(t *testing.T) {
	const ease = 1.0 // s
	yaw := func(t float64) float64 {
		if t < ease {
			return t
		}
		return ease + 0.3*(t-ease)
	}
	for _, c := range []struct {
		lost float64
		want int // updates after the one that eases the turn
	}{{0, 0}, {4 * math.Pi / 180, 1}} {
		cfg := PublisherConfig{Heartbeat: 1000, HeartbeatJitter: Off, RepeatChange: Off, MinInterval: 0.2,
			StartSpeed: Off, OrientationThreshold: 4 * math.Pi / 180, LostOrientationThreshold: c.lost}
		p := NewPublisher(cfg, 1)
		var after []float64
		eased := false
		for f := 0; float64(f)*frame <= 3; f++ {
			t := float64(f) * frame
			d, st := p.Update(Sample{Time: t, Orientation: geom.YawQuat(yaw(t))})
			if d == NoUpdate {
				continue
			}
			switch {
			case !eased && t > ease && st.AngularVelocity.Len() < 0.5:
				eased = true
			case eased:
				after = append(after, t)
			}
		}
		if !eased || len(after) != c.want {
			t.Errorf("LostOrientationThreshold %.3f rad: eased %v, updates after the easing at %v, want %d", c.lost, eased, after, c.want)
		}
	}
}

// TestTurnEndNotRepairedForOrientation: a turn in place at 1 rad/s that ends (its end
// and copies published with TurnEnd) is not published again for a peer that lost
// them all: the copies stand in for the end, and a repair a MinInterval later took
// the place of a braking onset's last copy. A turn eased off without an end is
// repaired (TestLostOrientationThreshold).
func TestTurnEndNotRepairedForOrientation(t *testing.T) {
	const stop = 1.0 // s: the turn slows from here to rest within 0.25 s
	yaw := func(t float64) float64 {
		if t < stop {
			return t
		}
		u := math.Min(t-stop, 0.25)
		return stop + u - 2*u*u
	}
	cfg := PublisherConfig{Heartbeat: 1000, HeartbeatJitter: Off, RepeatChange: Off, MinInterval: 0.2,
		OrientationThreshold: 4 * math.Pi / 180, LostOrientationThreshold: 4 * math.Pi / 180, TurnEnd: 0.1}
	p := NewPublisher(cfg, 1)
	var ends, after []float64
	for f := 0; float64(f)*frame <= 3; f++ {
		t := float64(f) * frame
		d, st := p.Update(Sample{Time: t, Orientation: geom.YawQuat(yaw(t))})
		if d == NoUpdate || t <= stop {
			continue
		}
		if st.AngularVelocity.Len() == 0 && len(after) == 0 && (len(ends) == 0 || t-ends[len(ends)-1] < 1.5*frame) {
			ends = append(ends, t)
			continue
		}
		after = append(after, t)
	}
	if len(ends) == 0 {
		t.Fatal("the turn's end was not published")
	}
	// The rest it published is where the turn rests: nothing follows until the
	// heartbeat (without the exception, a repair 0.2 s after the last copy).
	if len(after) != 0 {
		t.Errorf("turn end at %v and copies: updates after them at %v, want none", ends, after)
	}
}

// TestPublisherSlowTurnEnd: a slow turn (0.2 rad/s, a tank slowing for a waypoint)
// that eases off at 0.15 rad/s² until it rests falls short of TurnEnd alone (0.1 rad/s
// of drop, 0.3 rad/s² of slowing): nothing publishes its end, and the last update
// turns on past the rest. With TurnEndShare 0.3 its end goes out, within half a
// second of the slowing, with no angular velocity and within 1° of where the turn
// comes to rest.
func TestPublisherSlowTurnEnd(t *testing.T) {
	const rate, slowAt, decel = 0.2, 1.0, 0.15
	rest := rate*slowAt + rate*rate/(2*decel)
	yaw := func(t float64) float64 {
		if t < slowAt {
			return rate * t
		}
		u := math.Min(t-slowAt, rate/decel)
		return rate*slowAt + rate*u - decel*u*u/2
	}
	for _, c := range []struct {
		name  string
		share float64
		want  bool
	}{
		{"TurnEnd alone", 0, false},
		{"TurnEndShare 0.3", 0.3, true},
		{"TurnEndShare Off", Off, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := NewPublisher(PublisherConfig{MinInterval: 0.16, OrientationThreshold: 4 * math.Pi / 180,
				TurnEnd: 0.1, TurnEndShare: c.share}, 1)
			endAt, endYaw := math.NaN(), math.NaN()
			for i := 0; i <= 180; i++ {
				now := float64(i) * frame
				d, st := p.Update(Sample{Time: now, Orientation: geom.YawQuat(yaw(now))})
				if d != NoUpdate && now > slowAt && st.AngularVelocity == (mgl64.Vec3{}) && math.IsNaN(endAt) {
					endAt, endYaw = now, geom.Yaw(st.Orientation)
				}
			}
			if !c.want {
				if !math.IsNaN(endAt) && endAt < slowAt+rate/decel {
					t.Errorf("an update with no rotation at %.3f s, before the turn rested at %.3f s: want none", endAt, slowAt+rate/decel)
				}
				return
			}
			if math.IsNaN(endAt) || endAt > slowAt+0.5 {
				t.Fatalf("the turn's end published at %.3f s, want within 0.5 s of the slowing at %.1f s", endAt, slowAt)
			}
			if e := math.Abs(endYaw-rest) * 180 / math.Pi; e > 1 {
				t.Errorf("the turn's end put the rest at %.4f rad, %.2f° from where it rests (%.4f)", endYaw, e, rest)
			}
		})
	}
}
