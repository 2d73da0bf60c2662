package deadreckon_test

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// A remote tank drives along +X at 5 m/s; an update says it turned toward −Z. The
// display blends from where it was to the new path over ΔT = 1/3 s, then follows it.
func ExampleActor() {
	a := deadreckon.NewActor(deadreckon.Config{}) // projective velocity blending
	start := deadreckon.NewState(mgl64.Vec3{0, 0, 0})
	start.Velocity = mgl64.Vec3{5, 0, 0}
	if err := a.Receive(start, 0); err != nil {
		fmt.Println(err)
	}
	for f := 1; f <= 60; f++ { // one second at 60 frames per second
		a.Advance(float64(f) / 60)
	}
	fmt.Printf("t=1.00 x=%.2f z=%.2f\n", a.Reckoned().Position[0], a.Reckoned().Position[2])

	turn := deadreckon.NewState(mgl64.Vec3{5, 0, -0.5})
	turn.Time = 1
	turn.Velocity = mgl64.Vec3{4, 0, -3}
	turn.Orientation = mgl64.QuatRotate(math.Atan2(3, 4), mgl64.Vec3{0, 1, 0}) // heading along the velocity
	if err := a.Receive(turn, 1); err != nil {
		fmt.Println(err)
	}
	for f := 61; f <= 120; f++ {
		a.Advance(float64(f) / 60)
		if f == 65 || f == 70 || f == 80 || f == 120 {
			p := a.Reckoned().Position
			fmt.Printf("t=%.2f x=%.2f z=%.2f blend %.2f\n", float64(f)/60, p[0], p[2], a.BlendProgress())
		}
	}
	fmt.Printf("ghost x=%.2f z=%.2f\n", a.LastKnownProjected().Position[0], a.LastKnownProjected().Position[2])
	// Output:
	// t=1.00 x=5.00 z=0.00
	// t=1.08 x=5.39 z=-0.17 blend 0.25
	// t=1.17 x=5.71 z=-0.63 blend 0.50
	// t=1.33 x=6.33 z=-1.50 blend 1.00
	// t=2.00 x=9.00 z=-3.50 blend 1.00
	// ghost x=9.00 z=-3.50
}

// slope is the ground of the example: the plane y = 10 + 0.1·x, m, rising 0.1 m per
// meter along +X.
type slope struct{}

func (slope) HeightAt(x, z float64) (float64, bool) { return 10 + 0.1*x, true }

func (slope) NormalAt(x, z float64) (mgl64.Vec3, bool) {
	return mgl64.Vec3{-0.1, 1, 0}.Normalize(), true
}

func (s slope) RayDown(x, y, z float64) (float64, bool) {
	h, _ := s.HeightAt(x, z)
	return h, y >= h
}

// A receiving peer reckons and ground-clamps all remote tanks once per frame.
func ExampleReckoner() {
	r := deadreckon.NewReckoner(deadreckon.ReckonerConfig{})
	defer r.Close()
	cfg := deadreckon.Config{Clamp: deadreckon.Clamp{Mode: deadreckon.ClampAlways, Offset: 1.2,
		// The hull's front middle and rear corners, m, around its origin.
		Footprint: [3]mgl64.Vec3{{2.4, 0, 0}, {-1.2, 0, -1.8}, {-1.2, 0, 1.8}}}}
	var tanks []deadreckon.Handle
	for i := 0; i < 3; i++ {
		tanks = append(tanks, r.Add(cfg))
	}
	var ground slope
	camera := mgl64.Vec3{0, 20, 0}
	for f := 0; f <= 60; f++ {
		now := float64(f) / 60
		if f == 0 { // updates arrive: deliver them before advancing
			for i, h := range tanks {
				s := deadreckon.NewState(mgl64.Vec3{0, 0, float64(10 * i)})
				s.Velocity = mgl64.Vec3{float64(2 * i), 0, 0}
				if err := r.Actor(h).Receive(s, now); err != nil {
					fmt.Println("dropped:", err)
				}
			}
		}
		r.Advance(now, ground, camera)
	}
	for _, h := range tanks {
		s := r.Actor(h).Reckoned()
		fmt.Printf("tank %d at x=%.1f y=%.2f z=%.1f\n", h, s.Position[0], s.Position[1], s.Position[2])
	}
	// Output:
	// tank 0 at x=0.0 y=11.20 z=0.0
	// tank 1 at x=2.0 y=11.40 z=10.0
	// tank 2 at x=4.0 y=11.60 z=20.0
}

// The owner of a tank asks the publisher each frame whether to send an update.
func ExamplePublisher() {
	p := deadreckon.NewPublisher(deadreckon.PublisherConfig{}, 1)
	counts := map[deadreckon.Decision]int{}
	for f := 0; f <= 600; f++ { // ten seconds at 60 frames per second
		t := float64(f) / 60
		// Straight at 5 m/s for 4 s, then a steady left turn at 0.5 rad/s.
		s := deadreckon.Sample{Time: t, Orientation: mgl64.QuatIdent()}
		if t < 4 {
			s.Position = mgl64.Vec3{5 * t, 0, 0}
		} else {
			yaw := 0.5 * (t - 4)
			s.Position = mgl64.Vec3{20 + 10*math.Sin(yaw), 0, 10 * (math.Cos(yaw) - 1)}
			s.Orientation = mgl64.QuatRotate(yaw, mgl64.Vec3{0, 1, 0})
		}
		d, state := p.Update(s)
		counts[d]++
		if d != deadreckon.NoUpdate && f < 300 {
			fmt.Printf("t=%.2f %v update, velocity (%.1f, %.1f, %.1f)\n", t, d, state.Velocity[0], state.Velocity[1], state.Velocity[2])
		}
	}
	fmt.Println("partial", counts[deadreckon.PartialUpdate], "full", counts[deadreckon.FullUpdate], "of 601 frames")
	// Output:
	// t=0.00 full update, velocity (0.0, 0.0, 0.0)
	// t=0.20 partial update, velocity (5.0, 0.0, 0.0)
	// t=0.40 partial update, velocity (5.0, 0.0, 0.0)
	// t=3.15 partial update, velocity (5.0, 0.0, 0.0)
	// t=4.08 partial update, velocity (5.0, 0.0, -0.2)
	// t=4.93 full update, velocity (4.5, 0.0, -2.2)
	// partial 9 full 2 of 601 frames
}

// A parked tank heartbeats every second; with HeartbeatCopy each heartbeat goes again
// a tenth of a second later, its state as it was, so that one lost datagram does not
// leave its peers a second behind.
func ExamplePublisherConfig_heartbeatCopy() {
	p := deadreckon.NewPublisher(deadreckon.PublisherConfig{Heartbeat: 1, HeartbeatJitter: deadreckon.Off, HeartbeatCopy: 0.1}, 1)
	for f := 0; f <= 150; f++ { // 2.5 s at 60 frames per second
		now := float64(f) / 60
		if d, st := p.Update(deadreckon.Sample{Time: now, Position: mgl64.Vec3{10, 0, 5}}); d != deadreckon.NoUpdate {
			fmt.Printf("%.2f s: %s update of the state at %.2f s\n", now, d, st.Time)
		}
	}
	// Output:
	// 0.00 s: full update of the state at 0.00 s
	// 1.00 s: full update of the state at 1.00 s
	// 1.10 s: full update of the state at 1.00 s
	// 2.00 s: full update of the state at 2.00 s
	// 2.10 s: full update of the state at 2.00 s
}

// A receiving peer that holds many remote tanks applies the updates that arrived for
// each tank and reads what it shows inside the reckoner's pass, so that in a large
// crowd the workers take their share of that work too and each actor's memory is
// walked once a frame.
func ExampleReckoner_AdvanceWith() {
	r := deadreckon.NewReckoner(deadreckon.ReckonerConfig{})
	defer r.Close()
	cfg := deadreckon.Config{Clamp: deadreckon.Clamp{Mode: deadreckon.ClampAlways, Offset: 1.2,
		Footprint: [3]mgl64.Vec3{{2.4, 0, 0}, {-1.2, 0, -1.8}, {-1.2, 0, 1.8}}}}
	// What the game keeps for each tank, by handle: a hook touches only its own
	// tank's entry, since hooks of different tanks may run at the same time.
	type tank struct {
		pending []deadreckon.State // updates arrived this frame, in order
		shown   mgl64.Vec3         // where the tank is drawn
	}
	tanks := make([]tank, 3)
	for i := range tanks {
		if h := r.Add(cfg); int(h) != i {
			panic("handles are handed out from 0")
		}
	}
	var ground slope
	camera := mgl64.Vec3{0, 20, 0}
	var now float64
	hooks := deadreckon.Hooks{ // made once, not every frame
		Before: func(h deadreckon.Handle, a *deadreckon.Actor) {
			t := &tanks[h]
			for _, s := range t.pending {
				if err := a.Receive(s, now); err != nil {
					fmt.Println("dropped:", err)
				}
			}
			t.pending = t.pending[:0]
		},
		After: func(h deadreckon.Handle, a *deadreckon.Actor) {
			tanks[h].shown = a.Reckoned().Position
		},
	}
	for f := 0; f <= 60; f++ {
		now = float64(f) / 60
		if f == 0 { // updates arrive: queue them for their tanks
			for i := range tanks {
				s := deadreckon.NewState(mgl64.Vec3{0, 0, float64(10 * i)})
				s.Velocity = mgl64.Vec3{float64(2 * i), 0, 0}
				tanks[i].pending = append(tanks[i].pending, s)
			}
		}
		r.AdvanceWith(now, ground, camera, hooks)
	}
	for i, t := range tanks {
		fmt.Printf("tank %d at x=%.1f y=%.2f z=%.1f\n", i, t.shown[0], t.shown[1], t.shown[2])
	}
	// Output:
	// tank 0 at x=0.0 y=11.20 z=0.0
	// tank 1 at x=2.0 y=11.40 z=10.0
	// tank 2 at x=4.0 y=11.60 z=20.0
}
