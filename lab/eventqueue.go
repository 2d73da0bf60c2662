package lab

// event is what an eventQueue holds: something that arrives at a time, ordered
// before another by arrival, then by send order, so that delivery is deterministic.
type event[E any] interface {
	before(E) bool
}

// eventQueue is a binary min-heap of events, earliest first: the link model's and
// the crowd's queues. It is written out rather than built on container/heap so
// that a push does not allocate.
type eventQueue[E event[E]] []E

func (q *eventQueue[E]) push(m E) {
	*q = append(*q, m)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h[i].before(h[parent]) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (q *eventQueue[E]) pop() E {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(h) && h[l].before(h[small]) {
			small = l
		}
		if r < len(h) && h[r].before(h[small]) {
			small = r
		}
		if small == i {
			break
		}
		h[i], h[small] = h[small], h[i]
		i = small
	}
	*q = h
	return top
}
