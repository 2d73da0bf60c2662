package poll

import (
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The tests run in synctest bubbles: Within's clock and sleeps are the bubble's, so a
// timeout passes at once and the checks' count is exact.

func TestWithin(t *testing.T) {
	for _, tc := range []struct {
		name    string
		trueAt  int // the call from which cond holds; 0: never
		timeout time.Duration
		want    bool
	}{
		{"true at once", 1, 0, true},
		{"true at the fifth check", 5, time.Minute, true},
		{"never true", 0, 30 * time.Millisecond, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				calls := 0
				start := time.Now()
				got := Within(tc.timeout, func() bool {
					calls++
					return tc.trueAt > 0 && calls >= tc.trueAt
				})
				if got != tc.want {
					t.Errorf("Within = %v after %d calls, want %v", got, calls, tc.want)
				}
				if tc.want && calls != tc.trueAt {
					t.Errorf("cond called %d times, want %d: polling goes on after it held", calls, tc.trueAt)
				}
				if took := time.Since(start); !tc.want && took < tc.timeout {
					t.Errorf("gave up after %v, before the timeout %v", took, tc.timeout)
				}
			})
		})
	}
}

// TestWithinSeesAnotherGoroutine: a condition another goroutine makes true is seen.
func TestWithinSeesAnotherGoroutine(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var done atomic.Bool
		go func() { done.Store(true) }()
		Until(t, time.Minute, "the goroutine's store", done.Load)
	})
}

// fatalRecorder records a Fatalf instead of ending the test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}

func (f *fatalRecorder) Fatalf(format string, args ...any) { f.msg = format }

func TestUntilFails(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		r := &fatalRecorder{TB: t}
		Until(r, 10*time.Millisecond, "never", func() bool { return false })
		if r.msg == "" {
			t.Error("Until returned without failing for a condition that never held")
		}
	})
}
