package net

import (
	"math"
	"testing"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/poll"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/tank"
)

// flatGround is level ground at y = 0 everywhere.
func flatGround(x, z float64) (float64, bool) { return 0, true }

// cliffHeight is the height of cliffGround's plateau, m.
const cliffHeight = 20.0

// cliffGround is a plateau cliffHeight high west of x = 0 and level ground at y = 0
// east of it.
func cliffGround(x, z float64) (float64, bool) {
	if x < 0 {
		return cliffHeight, true
	}
	return 0, true
}

// TestAttackMovement drives a tank the way the cheats of issue 20 did, from an attack
// client writing raw updates on the wire package, and checks that the host refuses
// them (counted by reason) and that an observer never sees what the tank could not
// have done. Each cheat sends one update every interval seconds for duration
// seconds; move gives the state the cheat claims at time t since its start.
func TestAttackMovement(t *testing.T) {
	checkNoLeaks(t)
	for _, tc := range []struct {
		name               string
		interval, duration float64
		ground             func(x, z float64) (float64, bool) // flatGround if nil
		honest             bool                               // no update may be refused
		move               func(t float64, s *deadreckon.State)
		reason             func(MoveRefusals) uint64
		// seen checks an update the observer received, t seconds into the cheat.
		seen func(t float64, s deadreckon.State) bool
	}{{
		name: "sustained 30 m/s", interval: 0.1, duration: 3,
		move: func(t float64, s *deadreckon.State) {
			s.Position[0], s.Velocity = 30*t, mgl64.Vec3{30, 0, 0}
		},
		reason: func(m MoveRefusals) uint64 { return m.Speed },
		// 22.5 m/s over the anchor period, with its 3 m slack, and one update's
		// shove at most.
		seen: func(t float64, s deadreckon.State) bool { return s.Position[0] <= 22.5*t+3+3 },
	}, {
		name: "velocity 0 while moving 30 m/s", interval: 0.1, duration: 3,
		move:   func(t float64, s *deadreckon.State) { s.Position[0] = 30 * t },
		reason: func(m MoveRefusals) uint64 { return m.Velocity },
		seen:   func(t float64, s deadreckon.State) bool { return s.Position[0] < 3 },
	}, {
		name: "velocity 0 while moving 15 m/s", interval: 0.25, duration: 3,
		move:   func(t float64, s *deadreckon.State) { s.Position[0] = 15 * t },
		reason: func(m MoveRefusals) uint64 { return m.Velocity },
		seen:   func(t float64, s deadreckon.State) bool { return s.Position[0] < 3.75 },
	}, {
		name: "turret snaps π per 100 ms, rate 0", interval: 0.1, duration: 2,
		move: func(t float64, s *deadreckon.State) {
			s.Articulations[0].Angle = math.Remainder(3*math.Round(t/0.1), 2*math.Pi) // 3 rad each time
		},
		reason: func(m MoveRefusals) uint64 { return m.Articulation },
		// Now and then a snap lands where the turret could have turned since the last
		// accepted angle: that one is accepted, honestly reachable. What the observer
		// sees never turns faster than the turret can.
		seen: func(t float64, s deadreckon.State) bool {
			return math.Abs(s.Articulations[0].Angle) <= tank.DefaultTurretRate*(t+arrivalJitter)+articulationSlack
		},
	}, {
		name: "turret rate 3 rad/s", interval: 0.1, duration: 1,
		move:   func(t float64, s *deadreckon.State) { s.Articulations[0].Rate = 3 },
		reason: func(m MoveRefusals) uint64 { return m.Articulation },
		seen:   func(t float64, s deadreckon.State) bool { return s.Articulations[0].Rate < 1 },
	}, {
		name: "rising to 40 m and hovering", interval: 0.1, duration: 10,
		move:   func(t float64, s *deadreckon.State) { s.Position[1] = math.Min(40, 10*t) },
		reason: func(m MoveRefusals) uint64 { return m.Height },
		seen:   func(t float64, s deadreckon.State) bool { return s.Position[1] < 0.4 },
	}, {
		name: "sinking 20 m under the ground", interval: 0.1, duration: 4,
		move:   func(t float64, s *deadreckon.State) { s.Position[1] = math.Max(-20, -10*t) },
		reason: func(m MoveRefusals) uint64 { return m.Height },
		seen:   func(t float64, s deadreckon.State) bool { return s.Position[1] > -0.1 },
	}, {
		name: "climbing at 30 m/s", interval: 0.1, duration: 4,
		move: func(t float64, s *deadreckon.State) {
			s.Position[1], s.Velocity = 30*t, mgl64.Vec3{0, 30, 0}
		},
		reason: func(m MoveRefusals) uint64 { return m.Height },
		seen:   func(t float64, s deadreckon.State) bool { return s.Position[1] < 0.4 },
	}, {
		name: "falling slower than gravity", interval: 0.1, duration: 3, ground: cliffGround,
		move: func(t float64, s *deadreckon.State) {
			// Off the cliff's edge at 10 m/s, then sinking at 1 m/s instead of
			// falling: 3 m above the ground below after 2 s, not on it.
			s.Position[0], s.Velocity = -1+10*t, mgl64.Vec3{10, 0, 0}
			s.Position[1] = cliffHeight
			if s.Position[0] > 0 {
				s.Position[1] = cliffHeight - s.Position[0]/10
			}
		},
		reason: func(m MoveRefusals) uint64 { return m.Height },
		seen: func(t float64, s deadreckon.State) bool {
			g, _ := cliffGround(s.Position[0], s.Position[2])
			fall := math.Max(0, t-0.1)
			return s.Position[1] <= math.Max(g+0.35, cliffHeight-0.5*deadreckon.Gravity*fall*fall+0.4)
		},
	}, {
		name: "honest fall off a cliff", interval: 0.1, duration: 3, ground: cliffGround, honest: true,
		move: func(t float64, s *deadreckon.State) {
			s.Position[0], s.Velocity = -5+10*t, mgl64.Vec3{10, 0, 0}
			s.Position[1] = cliffHeight
			if fall := t - 0.5; fall > 0 {
				s.Position[1] = math.Max(0, cliffHeight-0.5*deadreckon.Gravity*fall*fall)
				if s.Position[1] > 0 {
					s.Velocity[1] = -deadreckon.Gravity * fall
				}
			}
		},
		reason: func(m MoveRefusals) uint64 { return m.Height },
		seen:   func(t float64, s deadreckon.State) bool { return true },
	}} {
		t.Run(tc.name, func(t *testing.T) {
			clk := &manualClock{}
			ground := tc.ground
			if ground == nil {
				ground = flatGround
			}
			h := testHost(t, HostConfig{Clock: clk, Ground: ground})
			obs := pipeJoin(t, h, ClientConfig{Name: "observer", Clock: clk})
			cheat := pipeJoin(t, h, ClientConfig{Name: "cheat", Clock: clk})
			s0 := tankAt(0, 0)
			tc.move(0, &s0)
			tank, err := cheat.Spawn("cheat", 1, s0)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, obs, 3*time.Second, func(ev Event) bool { return ev.Kind == EventSpawn && ev.Actor == tank })
			start := cheat.HostNow()
			n := int(math.Round(tc.duration / tc.interval))
			for i := 1; i <= n; i++ {
				clk.Advance(time.Duration(tc.interval * float64(time.Second)))
				s := tankAt(0, 0)
				s.Time = cheat.HostNow()
				tc.move(s.Time-start, &s)
				st := h.Stats()
				if err := cheat.sendRaw(rawBatch(t, wire.Update{Actor: wire.ActorID(tank), Seq: uint16(i), State: s}), false); err != nil {
					t.Fatal(err)
				}
				poll.Until(t, 2*time.Second, "update judged", func() bool {
					now := h.Stats()
					return now.Accepted+now.Invalid > st.Accepted+st.Invalid
				})
			}
			st := h.Stats()
			t.Logf("%d updates: %d accepted, %d refused (movement %+v)", n, st.Accepted, st.Invalid, st.Moves)
			switch {
			case tc.honest && st.Invalid != 0:
				t.Errorf("%d of %d honest updates refused", st.Invalid, n)
			case !tc.honest && (tc.reason(st.Moves) == 0 || st.Accepted > uint64(n)/4):
				t.Errorf("%d of %d cheating updates accepted, %d refused for this cheat's reason", st.Accepted, n, tc.reason(st.Moves))
			}
			for _, ev := range obs.Poll(nil) {
				if ev.Kind == EventState && ev.Actor == tank && !tc.seen(ev.State.Time-start, ev.State) {
					t.Errorf("observer saw %.2f s in: position %.2f, velocity %.2f, articulations %+v", ev.State.Time-start,
						ev.State.Position, ev.State.Velocity, ev.State.Articulations[:2])
				}
			}
			if st.Players != 3 {
				t.Errorf("%d players after the cheat, want 3: a refused update never kicks", st.Players)
			}
		})
	}
}
