package game

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"
)

// quicTests is how many of the package's tests play over a real QUIC socket on
// loopback in real time (TestOverQUIC's subtests: RemoteStartsOverBadLink,
// KeyToShownMotionAt150ms, RemotePivotOverBadLink), nearly all of it asleep between
// frames. Every other test runs on a simulated clock as fast as the processors allow.
// TestOverQUIC runs them together in the package's sequential phase, before any
// parallel test starts; scripts/test runs it (its realtime list) with net's real-time
// tests, apart from the other packages' simulations too.
const quicTests = 3

// TestMain runs, unless -parallel is given, at least quicTests parallel tests at
// once: with the testing package's default (GOMAXPROCS, 2 on the build machine), one
// of TestOverQUIC's subtests would wait for the others, asleep, and the package would
// take as long as the sum of their waits.
func TestMain(m *testing.M) {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		if err := flag.Set("test.parallel", strconv.Itoa(max(runtime.GOMAXPROCS(0), quicTests))); err != nil {
			fmt.Fprintln(os.Stderr, "game tests: set -test.parallel:", err)
			os.Exit(2)
		}
	}
	os.Exit(m.Run())
}
