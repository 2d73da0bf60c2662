package cputime

import (
	"os"
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

// TestOfThreadReadsAThread: a thread's clock read by its id moves with the work done
// on it, by as much as the thread's own clock says, and an id that is not one of the
// process's threads reads nothing. (The package's tests start no goroutine, so the
// thread reads its own clock by its id; the kernel reads it alike from any thread of
// the process.)
func TestOfThreadReadsAThread(t *testing.T) {
	if runtime.GOOS != "linux" {
		if _, ok := OfThread(1); ok {
			t.Fatal("OfThread read a clock off Linux")
		}
		t.Skip("threads' clocks are read on Linux only")
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	id, _ := ThreadID()
	own0, _ := Thread()
	by0, ok := OfThread(id)
	if !ok {
		t.Fatalf("OfThread(%d) of the calling thread read nothing", id)
	}
	sink := spin(100_000_000)
	by1, ok := OfThread(id)
	own1, _ := Thread()
	if !ok {
		t.Fatal("OfThread read nothing after the work")
	}
	own, seen := own1-own0, by1-by0
	// The id's readings lie within the thread's own: the work, and no more.
	if seen <= 0 || seen > own {
		t.Errorf("the thread used %v by its own clock, %v by its id's (sink %v)", own, seen, sink)
	}
	for _, id := range []int{0, -3, 1 << 30} {
		if _, ok := OfThread(id); ok {
			t.Errorf("OfThread(%d) read a clock", id)
		}
	}
	if os.Getpid() != 1 {
		if _, ok := OfThread(1); ok {
			t.Error("OfThread read the first process's thread, not one of this process's")
		}
	}
}
