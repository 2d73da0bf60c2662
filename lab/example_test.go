package lab_test

import (
	"context"
	"fmt"
	"log"
	"math"
	"strings"
	"time"

	"github.com/treadline/treadline/internal/geom"
	"github.com/treadline/treadline/net/impair"

	"github.com/treadline/treadline/lab"
)

// Projective velocity blending against snapping linear extrapolation on the figure
// eight, at 3 updates per second over a 100 ms link: as accurate, and its largest
// per-frame jump is a sixth of the snapping one's.
func ExampleSimulate() {
	path, err := lab.BuildScenario("eight", 60, 30)
	if err != nil {
		log.Fatal(err)
	}
	for _, name := range []string{"linear", "pvb"} {
		algo, err := lab.ParseAlgo(name)
		if err != nil {
			log.Fatal(err)
		}
		r, err := lab.Simulate(lab.Setup{
			Path:    path,
			Algo:    algo,
			Publish: lab.PublishConfig{Rate: 3},
			Network: impair.Link{Latency: 100 * time.Millisecond},
			Seed:    1,
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%-6s mean error %.1f m, largest jump %.2f m, %.0f updates/s\n", r.Algo, r.MeanErrM, r.MaxJumpM, r.UpdatesPerS)
	}
	// Output:
	// linear mean error 1.0 m, largest jump 0.24 m, 3 updates/s
	// pvb    mean error 1.0 m, largest jump 0.04 m, 3 updates/s
}

// A recorded trajectory: rows of t,x,y,z (an optional header, any sample spacing).
func ExampleReadTrace() {
	tr, err := lab.ReadTrace(strings.NewReader("t,x,y,z\n0,0,0,0\n0.5,5,0,0\n2,20,0,0\n"))
	if err != nil {
		log.Fatal(err)
	}
	path, err := tr.Path("drive", 10, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d samples, %d frames at 10 fps, heading %.0f°\n", len(tr.Samples), len(path.Poses), geom.Yaw(path.Poses[0].Orientation)*180/math.Pi)
	_, err = lab.ReadTrace(strings.NewReader("0,0,0,0\n1,2,three,4\n"))
	fmt.Println(err)
	// Output:
	// 3 samples, 21 frames at 10 fps, heading 0°
	// bad trace: line 2: field 3 "three" is not a number
}

// Murphy's Table 1.1: projective velocity blending against the cubic Bézier on a
// circle, with and without published acceleration.
func ExampleReproduceTable() {
	rows, err := lab.ReproduceTable(context.Background(), lab.Options{})
	if err != nil {
		log.Fatal(err)
	}
	for _, r := range rows {
		fmt.Printf("%g/s acceleration %-5v PVB ahead: %v\n", r.RateHz, r.Acceleration, r.PVB.MeanErrM < r.Bezier.MeanErrM)
	}
	// Output:
	// 1/s acceleration true  PVB ahead: true
	// 3/s acceleration true  PVB ahead: true
	// 5/s acceleration true  PVB ahead: true
	// 1/s acceleration false PVB ahead: true
	// 3/s acceleration false PVB ahead: true
	// 5/s acceleration false PVB ahead: true
}
