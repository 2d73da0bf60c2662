package deadreckon_test

import (
	"fmt"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
)

// A bot patrols a closed spline route round four waypoints at 5 m/s. Its owner
// publishes the route once, then progress along it: while the bot keeps its pace
// that is the first one, its repeat (in case it was lost) and a heartbeat every
// 5 s. The receiver shows it on the route, facing along
// it, between updates.
func ExamplePathPublisher() {
	ways := []mgl64.Vec3{{0, 0, 0}, {40, 0, 0}, {40, 0, -30}, {0, 0, -30}}
	route, err := deadreckon.NewRoute(ways, true, true)
	if err != nil {
		fmt.Println(err)
		return
	}
	owner := deadreckon.NewPathPublisher(deadreckon.PathPublisherConfig{}, 1)
	id := owner.SetRoute(route) // send the route (reliably): id and waypoints

	remote := deadreckon.NewActor(deadreckon.Config{Algorithm: deadreckon.Path})
	remote.SetRoute(id, route) // when the route arrives

	sent := 0
	for f := 0; f <= 600; f++ { // 10 s at 60 frames per second
		now := float64(f) / 60
		s := 5 * now
		pos, rot := route.Pose(s)
		u := owner.Update(deadreckon.PathSample{
			Sample: deadreckon.Sample{Time: now, Position: pos, Orientation: rot}, OnRoute: true, S: s})
		if u.HasProgress { // send u.Progress (a datagram)
			sent++
			if err := remote.ReceiveProgress(u.Progress, now); err != nil {
				fmt.Println(err)
			}
		}
		remote.Advance(now)
	}
	shown := remote.Reckoned().Position
	truth, _ := route.At(50)
	fmt.Printf("route %.1f m long; %d progress updates in 10 s\n", route.Length(), sent)
	fmt.Printf("shown %.1f m from the truth, on the route: %v\n", shown.Sub(truth).Len(), remote.OnRoute())
	// Output:
	// route 147.0 m long; 3 progress updates in 10 s
	// shown 0.0 m from the truth, on the route: true
}
