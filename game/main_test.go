package game

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
//
// TestOverQUIC leaves a processor idle for its 11–15 s, so the package's longest
// simulation, TestCrowdRestartNeverRefused (one goroutine's work, 17 s of a
// processor), starts its play in its own sequential part, before it calls t.Parallel,
// and waits for it in the parallel phase. go test runs the sequential parts in the
// order of the test files' names, so its file, start_crowd_test.go, sorts just before
// start_test.go's TestOverQUIC: the crowd then plays beside TestOverQUIC and the few
// sequential tests after it, and beside no test that counts allocations
// (testing.AllocsPerRun counts the whole process's). TestAllocsCountedBeforeTheCrowd
// holds those to files that sort before it.
const quicTests = 3

// crowdFile is the file of TestCrowdRestartNeverRefused, whose play starts in the
// package's sequential phase (see quicTests).
const crowdFile = "start_crowd_test.go"

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

// TestAllocsCountedBeforeTheCrowd: every test file that counts allocations sorts
// before crowdFile, so its sequential tests run before the crowd's play starts: a
// goroutine allocating beside testing.AllocsPerRun would count against it.
func TestAllocsCountedBeforeTheCrowd(t *testing.T) {
	files, err := filepath.Glob("*_test.go")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(files, crowdFile) {
		t.Fatalf("%s not among the package's test files %q", crowdFile, files)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if f >= crowdFile && bytes.Contains(src, []byte("AllocsPerRun(")) {
			t.Errorf("%s counts allocations and sorts after %s: its tests run beside the crowd's play", f, crowdFile)
		}
	}
}
