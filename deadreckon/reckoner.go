package deadreckon

import (
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/go-gl/mathgl/mgl64"
)

// DefaultMinParallel is the number of actors below which a Reckoner advances them all
// on the caller's goroutine: handing out work costs more than it saves.
const DefaultMinParallel = 1024

// pageSize is how many actors one storage page holds. Pages never move, so *Actor
// pointers stay valid while other actors are added and removed.
const pageSize = 256

// ReckonerConfig sets up a Reckoner. The zero value is ready.
type ReckonerConfig struct {
	// Workers is how many goroutines share the work of Advance, the caller's included;
	// if zero, runtime.GOMAXPROCS(0). One means everything runs on the caller's
	// goroutine and no goroutine is started.
	Workers int
	// MinParallel is the actor count below which Advance runs serially; if zero,
	// DefaultMinParallel.
	MinParallel int
}

// Handle names one actor in a Reckoner. Handles of removed actors are reused.
type Handle int32

type page struct {
	actors [pageSize]Actor
	live   [pageSize]bool
}

// chunkSize is how many actors one unit of parallel work holds: small enough that
// idle workers take over from a descheduled one, large enough to amortize the atomic.
const chunkSize = 512

// Reckoner advances and ground-clamps many remote actors per frame, splitting the work
// over worker goroutines. After warm-up, Advance does not allocate. Its methods are
// not safe for concurrent use: the game loop receives updates into actors (through
// Actor) and then calls Advance, from one goroutine. Call Close to stop the workers.
type Reckoner struct {
	cfg   ReckonerConfig
	pages []*page
	free  []Handle
	count int
	next  int // handles below next have been handed out at least once

	// Frame parameters, written before work is handed out.
	now      float64
	ground   Ground
	observer mgl64.Vec3

	work   chan struct{} // one token per helping worker per frame
	chunks int32         // number of chunks this frame
	next32 atomic.Int32  // next chunk to take
	wg     sync.WaitGroup
	closed bool
}

// NewReckoner returns an empty reckoner and starts its worker goroutines.
func NewReckoner(cfg ReckonerConfig) *Reckoner {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.MinParallel <= 0 {
		cfg.MinParallel = DefaultMinParallel
	}
	r := &Reckoner{cfg: cfg}
	if cfg.Workers > 1 {
		r.work = make(chan struct{}, cfg.Workers)
		for i := 1; i < cfg.Workers; i++ {
			go r.worker()
		}
	}
	return r
}

func (r *Reckoner) worker() {
	for range r.work {
		r.takeChunks()
		r.wg.Done()
	}
}

// takeChunks advances chunks of actors until none are left this frame.
func (r *Reckoner) takeChunks() {
	n := r.next
	for {
		c := int(r.next32.Add(1)) - 1
		if c >= int(r.chunks) {
			return
		}
		r.advanceRange(c*chunkSize, min(n, (c+1)*chunkSize))
	}
}

// Close stops the worker goroutines. The reckoner stays usable and then advances on
// the caller's goroutine. Close is idempotent.
func (r *Reckoner) Close() {
	if r.work != nil && !r.closed {
		close(r.work)
	}
	r.closed = true
}

// Add creates an actor reckoned as cfg says and returns its handle. The actor staggers
// its intermittent far clamping by its handle.
func (r *Reckoner) Add(cfg Config) Handle {
	var h Handle
	if n := len(r.free); n > 0 {
		h = r.free[n-1]
		r.free = r.free[:n-1]
	} else {
		h = Handle(r.next)
		r.next++
		if int(h)/pageSize >= len(r.pages) {
			r.pages = append(r.pages, new(page))
		}
	}
	p := r.pages[int(h)/pageSize]
	i := int(h) % pageSize
	p.actors[i].init(cfg)
	p.actors[i].SetClampPhase(int(h))
	p.live[i] = true
	r.count++
	return h
}

// Remove deletes the actor with handle h; its handle may be reused by a later Add.
// Removing an unknown handle does nothing.
func (r *Reckoner) Remove(h Handle) {
	if r.Actor(h) == nil {
		return
	}
	p := r.pages[int(h)/pageSize]
	i := int(h) % pageSize
	p.live[i] = false
	p.actors[i] = Actor{}
	r.free = append(r.free, h)
	r.count--
}

// Actor returns the actor with handle h, or nil when there is none. The pointer stays
// valid until the actor is removed; use it to Receive updates and read the result.
func (r *Reckoner) Actor(h Handle) *Actor {
	if h < 0 || int(h) >= r.next {
		return nil
	}
	p := r.pages[int(h)/pageSize]
	i := int(h) % pageSize
	if !p.live[i] {
		return nil
	}
	return &p.actors[i]
}

// Len returns how many actors the reckoner holds.
func (r *Reckoner) Len() int { return r.count }

// Advance reckons every actor to local time now, in seconds, and then, when g is not
// nil, clamps each to g by its Clamp config with observer as the viewpoint for the
// near and far clamping distances. g must be safe for concurrent reads.
func (r *Reckoner) Advance(now float64, g Ground, observer mgl64.Vec3) {
	r.now, r.ground, r.observer = now, g, observer
	n := r.next
	w := r.cfg.Workers
	if r.closed || w <= 1 || r.count < r.cfg.MinParallel {
		r.advanceRange(0, n)
		return
	}
	// Workers and the caller take chunks until none are left, so a worker that the
	// OS deschedules does not hold up the frame.
	r.chunks = int32((n + chunkSize - 1) / chunkSize)
	r.next32.Store(0)
	helpers := min(w-1, int(r.chunks)-1)
	r.wg.Add(helpers)
	for i := 0; i < helpers; i++ {
		r.work <- struct{}{}
	}
	r.takeChunks()
	r.wg.Wait()
}

// advanceRange advances and clamps actors with handles in [lo, hi).
func (r *Reckoner) advanceRange(lo, hi int) {
	now, g, obs := r.now, r.ground, r.observer
	for h := lo; h < hi; {
		p := r.pages[h/pageSize]
		end := min(hi, (h/pageSize+1)*pageSize)
		for i := h % pageSize; h < end; i, h = i+1, h+1 {
			if !p.live[i] {
				continue
			}
			a := &p.actors[i]
			a.Advance(now)
			if g != nil && a.clampCfg.Mode != ClampNone {
				a.ClampTo(g, obs)
			}
		}
	}
}
