package game

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// wallClockTests is how many of the package's tests play over a real QUIC socket
// on loopback in real time (TestRemoteStartsOverBadLink, TestKeyToShownMotionAt150ms,
// TestRemotePivotOverBadLink): 13–23 s each, nearly all of it asleep between
// frames. The others run on a simulated clock as fast as the processors allow.
// scripts/test runs these three (its realtime list) on their own, with net's
// real-time tests, where no simulation takes the processors from them.
const wallClockTests = 3

// TestMain runs, unless -parallel is given, as many parallel tests at once as there
// are processors plus the wall-clock tests. With the testing package's default
// (GOMAXPROCS), the wall-clock tests would hold the slots the simulated tests need
// for their processors while they sleep, and the package would take as long as the
// sum of their waits.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(runtime.GOMAXPROCS(0)+wallClockTests)); err != nil {
			fmt.Fprintln(os.Stderr, "game tests: set -test.parallel:", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}
