// Package poll waits, in tests, for a condition that another goroutine or process
// makes true: the one way the tree's tests wait, instead of sleeping for a guessed
// time. The timeout only bounds a failure; a test that passes never waits for it.
//
//	poll.Until(t, 3*time.Second, "the tank despawned", func() bool { return gone(id) })
package poll

import (
	"testing"
	"time"
)

// Intervals between two checks of a condition: the first check is at once, the
// wait between checks doubles from minInterval up to maxInterval, so that a quick
// condition is seen within a millisecond and a slow one costs few checks.
const (
	minInterval = time.Millisecond
	maxInterval = 20 * time.Millisecond
)

// Within calls cond until it reports true, and reports whether it did before timeout
// passed. cond runs on the caller's goroutine.
func Within(timeout time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(timeout)
	wait := minInterval
	for !cond() {
		if !time.Now().Before(deadline) {
			return false
		}
		time.Sleep(wait)
		wait = min(2*wait, maxInterval)
	}
	return true
}

// Until calls cond until it reports true, and fails the test with what when timeout
// passes first.
func Until(t testing.TB, timeout time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Within(timeout, cond) {
		t.Fatalf("%s: not within %v", what, timeout)
	}
}
