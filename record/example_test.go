package record_test

import (
	"bytes"
	"fmt"
	"time"

	"github.com/go-gl/mathgl/mgl64"
	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/net/wire"
	"github.com/treadline/treadline/record"
)

// A client records a tick: the frame, an update that arrived 10 ms before it (80 ms
// after its owner stamped it), and its own tank's true pose; then reads it back.
func Example() {
	var file bytes.Buffer
	w, err := record.NewWriter(&file, record.Meta{Perspective: record.Client, Map: "valley", Recorder: "ann"}, record.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	s := deadreckon.NewState(mgl64.Vec3{10, 2, -4})
	s.Time = 41.91
	w.Frame(42, 0)
	_ = w.Update(42, 41.99, &wire.Update{Actor: 7, Seq: 3, State: s})
	w.Truth(record.Pose{Actor: 2, Time: 42, Position: mgl64.Vec3{1, 2, 3}, Orientation: mgl64.QuatIdent()})
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}

	r, err := record.NewReader(&file)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Meta().Recorder, "on", r.Meta().Map)
	var rec record.Record
	for r.Next(&rec) {
		switch rec.Kind {
		case record.KindState:
			fmt.Printf("%v at %.3f s: actor %d at %v, arrived %.3f s\n", rec.Kind, rec.Time, rec.Update.Actor,
				rec.Update.State.Position, rec.Arrival)
		case record.KindTruthKey:
			fmt.Printf("%v at %.3f s: actor %d truly at %v\n", rec.Kind, rec.Time, rec.Truth.Actor, rec.Truth.Position)
		default:
			fmt.Printf("%v at %.3f s\n", rec.Kind, rec.Time)
		}
	}
	fmt.Println("stopped early:", r.Err() != nil)
	// Output:
	// ann on valley
	// frame at 42.000 s
	// state at 42.000 s: actor 7 at [10 2 -4], arrived 41.990 s
	// truth-key at 42.000 s: actor 2 truly at [1 2 3]
	// stopped early: false
}

// A match keeps its last two seconds in memory: after ten seconds of ticks, the ring
// reads back from a block before eight seconds on, opened by the spawn of the tank that came before.
func ExampleRing() {
	ring, err := record.NewRing(record.Meta{Perspective: record.Client}, 2*time.Second, record.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer ring.Close()
	w := ring.Writer()
	_ = w.Message(0, &wire.Spawn{Actor: 7, Owner: 1, Name: "ann", State: deadreckon.NewState(mgl64.Vec3{})})
	for tick := 1; tick <= 600; tick++ {
		w.Frame(float64(tick)/60, 0)
		if tick%60 == 0 {
			_ = w.Sync() // a second a second: the ring's writer keeps up
		}
	}
	r, err := ring.Reader()
	if err != nil {
		fmt.Println(err)
		return
	}
	var rec record.Record
	frames, first := 0, -1.0
	for r.Next(&rec) {
		switch {
		case rec.Kind == record.KindMessage:
			fmt.Printf("%v at %.2f s: %v\n", rec.Kind, rec.Time, rec.Message.Type())
		case rec.Kind == record.KindFrame && frames == 0:
			first = rec.Time
			fallthrough
		default:
			frames++
		}
	}
	fmt.Printf("%d frames from %.2f s to %.2f s\n", frames, first, rec.Time)
	// Output:
	// message at 7.77 s: spawn
	// 135 frames from 7.77 s to 10.00 s
}
