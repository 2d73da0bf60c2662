package net

import "sync"

// pauser stops a host's run loop the way a stopped process, a long garbage
// collection or a virtual machine's stolen time does (Host.Pause): nothing the
// in-process players send reaches the loop, and nothing reaches them from it, until
// the host runs again, when all of it arrives at once, stamped as received then.
type pauser struct {
	mu     sync.Mutex
	on     bool
	resume chan struct{} // closed to let the loop run again
	held   []input       // what the in-process players sent meanwhile, in order
	dgrams map[*pipe]int // datagrams held per pipe, bounded as a socket buffer is
	from   float64       // host time of the pause, s
}

// paused reports whether the loop is paused.
func (ps *pauser) paused() bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return ps.on
}

// hold keeps in while the loop is paused and reports whether it did. A datagram
// past what a socket buffer holds (maxPipeDatagrams for its pipe) is dropped, as a
// stopped host's socket drops it.
func (ps *pauser) hold(p *pipe, in input) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if !ps.on {
		return false
	}
	if in.kind == inDatagram {
		if ps.dgrams[p] >= maxPipeDatagrams {
			return true
		}
		ps.dgrams[p]++
	}
	in.pipe = p
	ps.held = append(ps.held, in)
	return true
}

// Pause stops the run loop until Resume, as a stopped process, a long garbage
// collection pause or a virtual machine's stolen time stops a host, for tests and
// simulations on a manual Clock: meanwhile the in-process players' clients run on,
// and what they send waits (datagrams up to a socket buffer's worth per player,
// the rest dropped); the host answers nothing, and Settle only delivers what the
// players' links had already carried. Pause returns once the loop has stopped. It
// does nothing when the host is paused or closed.
func (h *Host) Pause() {
	ps := &h.pause
	ps.mu.Lock()
	if ps.on {
		ps.mu.Unlock()
		return
	}
	ps.on, ps.resume, ps.dgrams, ps.from = true, make(chan struct{}), map[*pipe]int{}, h.now()
	resume, from := ps.resume, ps.from
	ps.mu.Unlock()
	// What reached the loop before is handled first: from here on, what the players
	// send is held, and Settle waits for nothing the stopped loop would handle.
	h.quiet()
	stopped := make(chan struct{})
	go h.call(func() {
		close(stopped)
		select {
		case <-resume:
			// The loop sees the stall as it would on the system clock, before
			// anything else it does.
			h.m.stalled(from, h.now())
		case <-h.ctx.Done(): // closed while paused
		}
	})
	select {
	case <-stopped:
	case <-h.loopDone:
	}
}

// Resume lets a paused run loop run again at the clock's time: what the in-process
// players sent while it was paused reaches it now, in the order they sent it, each
// received at the clock's time, as a host reads its socket's buffer when its process
// runs again. Resume returns once the loop has handled all of it.
func (h *Host) Resume() {
	ps := &h.pause
	ps.mu.Lock()
	if !ps.on {
		ps.mu.Unlock()
		return
	}
	close(ps.resume)
	held := ps.held
	ps.on, ps.held, ps.dgrams = false, nil, nil
	ps.mu.Unlock()
	now := h.now()
	for _, in := range held {
		in.at = now
		in.pipe.feed(in)
	}
	h.Settle()
}
