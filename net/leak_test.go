package net

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/treadline/treadline/internal/poll"
)

// leakGrace is how long goroutines may take to end after what started them closed.
const leakGrace = 3 * time.Second

// TestMain runs the tests, then checks that every goroutine they started has ended:
// the leak check of the tests that run in parallel, which cannot tell their own
// goroutines from each other's (the tests that run alone check theirs with
// checkNoLeaks).
func TestMain(m *testing.M) {
	before := goroutineIDs()
	code := m.Run()
	if code == 0 {
		if extra := leakedSince(before); len(extra) > 0 {
			fmt.Fprintf(os.Stderr, "%d goroutines leaked by the tests; first:\n%s\n", len(extra), extra[0])
			code = 1
		}
	}
	os.Exit(code)
}

// checkNoLeaks records the goroutines running now and, at cleanup, fails the test if
// goroutines started since then are still running after a grace period. Call it first
// in a test so that its cleanup runs last. A test that runs in parallel cannot use it:
// the other tests' goroutines would count as its own.
func checkNoLeaks(t *testing.T) {
	t.Helper()
	before := goroutineIDs()
	t.Cleanup(func() {
		if extra := leakedSince(before); len(extra) > 0 {
			t.Errorf("%d goroutines leaked; first:\n%s", len(extra), extra[0])
		}
	})
}

// leakedSince returns the stacks of the goroutines, not in before, still running
// after up to leakGrace.
func leakedSince(before map[string]struct{}) []string {
	var extra []string
	poll.Within(leakGrace, func() bool {
		extra = extra[:0]
		for id, stack := range goroutineStacks() {
			if _, ok := before[id]; !ok && !benign(stack) {
				extra = append(extra, stack)
			}
		}
		return len(extra) == 0
	})
	return extra
}

func benign(stack string) bool {
	return strings.Contains(stack, "testing.(*T).Run") || strings.Contains(stack, "testing.tRunner") && strings.Contains(stack, "testing.runTests") ||
		strings.Contains(stack, "testing.(*M).Run") || strings.Contains(stack, "net.TestMain") ||
		// The runtime's signal loop, started once per process by signal.Notify (the fuzz
		// engine's interrupt handler among others), lives until the process ends.
		strings.Contains(stack, "os/signal.loop")
}

func goroutineIDs() map[string]struct{} {
	ids := map[string]struct{}{}
	for id := range goroutineStacks() {
		ids[id] = struct{}{}
	}
	return ids
}

// goroutineStacks returns every goroutine's stack keyed by its "goroutine N" header.
func goroutineStacks() map[string]string {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	out := map[string]string{}
	for _, g := range strings.Split(string(buf), "\n\n") {
		head, _, _ := strings.Cut(g, " [")
		out[head] = g
	}
	return out
}
