package game

import (
	"runtime"
	"sync"
	"time"

	"github.com/treadline/treadline/internal/cputime"
)

// workerThreads notes the OS threads of the reckoning's worker goroutines, so that
// their CPU time can be read (Match.WorkerCPU): the work a large match moves off the
// caller's thread is still the client's work, and a frame report that counts only the
// main thread would take moved work for saved work.
type workerThreads struct {
	mu  sync.Mutex
	ids []int // the threads' ids, as cputime.ThreadID gives them
}

// started locks the calling worker goroutine to its thread for the rest of its life
// and notes the thread (deadreckon.ReckonerConfig.WorkerStart). A locked goroutine
// that waits for work parks its thread, which then uses no CPU.
func (w *workerThreads) started() {
	runtime.LockOSThread()
	id, ok := cputime.ThreadID()
	if !ok {
		return
	}
	w.mu.Lock()
	w.ids = append(w.ids, id)
	w.mu.Unlock()
}

// cpu returns the CPU time the worker threads have used so far, and whether any was
// read.
func (w *workerThreads) cpu() (time.Duration, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var sum time.Duration
	read := false
	for _, id := range w.ids {
		if c, ok := cputime.OfThread(id); ok {
			sum += c
			read = true
		}
	}
	return sum, read
}

// WorkerCPU returns the CPU time the reckoning's worker goroutines have used so far,
// and true, once a large match (more than 256 remote tanks) has started them and
// their threads' clocks can be read (Linux); 0 and false otherwise. The caller's own
// share of the reckoning is on its own thread's clock, not in this figure. It may be
// called from any goroutine.
func (m *Match) WorkerCPU() (time.Duration, bool) { return m.workers.cpu() }
