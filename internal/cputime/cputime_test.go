package cputime

import (
	"runtime"
	"testing"
)

// spin burns CPU on the calling thread until the thread's (or, without one, the
// process's) clock has moved, or a bound on the work is reached.
func spin(n int) float64 {
	x := 0.0
	for i := range n {
		x += float64(i%7) * 1e-9
	}
	return x
}

// TestClocksAdvanceWithWork: work done on the thread moves both clocks forward, and
// neither runs backward.
func TestClocksAdvanceWithWork(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0 := Process()
	t0, ok := Thread()
	sink := spin(200_000_000)
	p1 := Process()
	t1, ok1 := Thread()
	if runtime.GOOS == "linux" {
		if !ok || !ok1 {
			t.Fatal("the thread's CPU time could not be read on Linux")
		}
		if t1 <= t0 {
			t.Errorf("thread CPU %v → %v after %v of work (sink %v), want it to grow", t0, t1, p1-p0, sink)
		}
		if d := ThreadRunDelay(); d < 0 {
			t.Errorf("run delay %v, want ≥ 0", d)
		}
	}
	if p1 <= p0 {
		t.Errorf("process CPU %v → %v after the work, want it to grow", p0, p1)
	}
}
