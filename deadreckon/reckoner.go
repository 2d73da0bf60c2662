package deadreckon

import (
	"runtime"
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
	// WorkerStart, if not nil, is called once on each worker goroutine the
	// reckoner starts, on that goroutine, before it takes any work: a caller that
	// measures the workers' CPU time locks the goroutine to its OS thread here
	// (runtime.LockOSThread) and notes which thread it is.
	WorkerStart func()
}

// Hooks are a caller's own work on each actor, done inside AdvanceWith's pass over
// the actors, on the goroutine that advances the actor: applying the updates that
// arrived for it just before it advances, reading what it shows just after, while
// its memory is at hand and, in a large crowd, shared out over the workers with the
// reckoning itself. For one actor Before, Advance, ClampTo and After run in that
// order on one goroutine; hooks of different actors may run at the same time on
// different goroutines, so a hook touches only its own actor and what belongs to it,
// and only reads what is shared. The actors are taken in handle order on each
// goroutine. A nil hook is skipped.
type Hooks struct {
	// Before is called with each live actor and its handle before the actor is
	// advanced.
	Before func(h Handle, a *Actor)
	// After is called with each live actor and its handle after the actor is
	// advanced and clamped.
	After func(h Handle, a *Actor)
}

// Handle names one actor in a Reckoner. Handles of removed actors are reused.
type Handle int32

type page struct {
	actors [pageSize]Actor
	live   [pageSize]bool
}

// chunkSize is how many actors one unit of parallel work holds: one storage page, a
// contiguous run of memory whose cache lines no other chunk touches. It is small
// enough that the other workers take over from a descheduled one, large enough that
// claiming it (one compare-and-swap) costs nothing.
const chunkSize = pageSize

// The claim word of a parallel frame packs the frame number (bits 40 to 63), the
// number of chunks (bits 20 to 39) and the next chunk to claim (bits 0 to 19).
const (
	chunkBits  = 20
	chunkMask  = 1<<chunkBits - 1
	frameShift = 2 * chunkBits
)

// Reckoner advances and ground-clamps many remote actors per frame, splitting the work
// over worker goroutines. After warm-up, Advance does not allocate. Its methods are
// not safe for concurrent use: the game loop receives updates into actors (through
// Actor) and then calls Advance, from one goroutine, or hands AdvanceWith hooks that
// apply each actor's updates and read it inside the shared pass. Call Close to stop
// the workers.
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
	hooks    Hooks

	work    chan struct{} // wake-up tokens for the workers, at most one per worker
	done    chan struct{} // a worker that finishes a frame's last chunk says so here
	frame   uint64        // parallel frames so far
	closed  bool
	started bool // the workers run (from the first parallel Advance)

	// Written by every worker: on a cache line of their own.
	_        [64]byte
	claim    atomic.Uint64 // frame, chunk count and next chunk (see chunkBits)
	finished atomic.Uint32 // chunks finished this frame
	_        [64 - 12]byte
}

// NewReckoner returns an empty reckoner. Its worker goroutines start with the first
// Advance that shares out work (MinParallel actors or more), so a reckoner that never
// holds that many starts none.
func NewReckoner(cfg ReckonerConfig) *Reckoner {
	if cfg.Workers <= 0 {
		cfg.Workers = runtime.GOMAXPROCS(0)
	}
	if cfg.MinParallel <= 0 {
		cfg.MinParallel = DefaultMinParallel
	}
	return &Reckoner{cfg: cfg}
}

// start starts the worker goroutines.
func (r *Reckoner) start() {
	r.started = true
	r.work = make(chan struct{}, r.cfg.Workers-1)
	r.done = make(chan struct{}, 1)
	for i := 1; i < r.cfg.Workers; i++ {
		go r.worker(r.cfg.WorkerStart)
	}
}

// worker helps with the current frame each time it is woken. A worker that wakes late,
// after the frame it was woken for is over, finds nothing to claim and sleeps again:
// the caller never waits for a worker that has not started.
func (r *Reckoner) worker(start func()) {
	if start != nil {
		start()
	}
	for range r.work {
		if r.takeChunks() {
			r.done <- struct{}{}
		}
	}
}

// takeChunks claims and advances chunks of the current frame until none are left. It
// reports whether it finished the frame's last chunk. The frame parameters and the
// actors are read only after a successful claim, which the caller's publication of
// the claim word happens before; the frame does not end until every claimed chunk is
// finished, so they do not change under a worker.
func (r *Reckoner) takeChunks() (last bool) {
	for {
		s := r.claim.Load()
		c, total := s&chunkMask, s>>chunkBits&chunkMask
		if c >= total {
			return last
		}
		if !r.claim.CompareAndSwap(s, s+1) {
			continue
		}
		lo := int(c) * chunkSize
		r.advanceRange(lo, min(r.next, lo+chunkSize))
		if r.finished.Add(1) == uint32(total) {
			last = true
		}
	}
}

// Close stops the worker goroutines. The reckoner stays usable and then advances on
// the caller's goroutine. Close is idempotent.
func (r *Reckoner) Close() {
	if r.started && !r.closed {
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
// near and far clamping distances (Actor.ClampTo; with ClampNone, LastClamp says
// unclamped). g, and the actors' Collide obstacles, must be safe for concurrent
// reads.
func (r *Reckoner) Advance(now float64, g Ground, observer mgl64.Vec3) {
	r.AdvanceWith(now, g, observer, Hooks{})
}

// AdvanceWith is Advance with the caller's hooks run on each actor, before and after
// it is advanced and clamped (see Hooks). It returns once every actor has been
// advanced and every hook has returned, and what the hooks wrote is then visible to
// the caller.
func (r *Reckoner) AdvanceWith(now float64, g Ground, observer mgl64.Vec3, hooks Hooks) {
	r.now, r.ground, r.observer, r.hooks = now, g, observer, hooks
	defer func() { r.hooks = Hooks{} }() // the hooks' closures are not kept between frames
	n := r.next
	w := r.cfg.Workers
	chunks := (n + chunkSize - 1) / chunkSize
	if r.closed || w <= 1 || r.count < r.cfg.MinParallel || chunks < 2 || chunks > chunkMask {
		r.advanceRange(0, n)
		return
	}
	if !r.started {
		r.start()
	}
	// Workers and the caller claim chunks (whole pages) until none are left, so a
	// worker that the OS deschedules does not hold up the frame: the caller does its
	// share. The only synchronization is the claim word and, when a worker finishes
	// the last chunk, one receive.
	r.finished.Store(0)
	r.frame++
	r.claim.Store(r.frame<<frameShift | uint64(chunks)<<chunkBits)
	for i := min(w-1, chunks-1); i > 0; i-- {
		select {
		case r.work <- struct{}{}:
		default: // every worker already has a token
		}
	}
	if !r.takeChunks() {
		<-r.done
	}
}

// advanceRange advances and clamps actors with handles in [lo, hi), with the frame's
// hooks around each.
func (r *Reckoner) advanceRange(lo, hi int) {
	now, g, obs := r.now, r.ground, r.observer
	before, after := r.hooks.Before, r.hooks.After
	for h := lo; h < hi; {
		p := r.pages[h/pageSize]
		end := min(hi, (h/pageSize+1)*pageSize)
		for i := h % pageSize; h < end; i, h = i+1, h+1 {
			if !p.live[i] {
				continue
			}
			a := &p.actors[i]
			if before != nil {
				before(Handle(h), a)
			}
			a.Advance(now)
			if g != nil {
				a.ClampTo(g, obs)
			}
			if after != nil {
				after(Handle(h), a)
			}
		}
	}
}
