package lab

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/treadline/treadline/deadreckon"
)

// NetworkConfig models the one-way link from the owner to the remote peer. The zero
// value is a perfect link: no delay, no jitter, no loss.
type NetworkConfig struct {
	// Latency is the mean one-way delay, s.
	Latency float64
	// Jitter spreads each message's delay uniformly over Latency ± Jitter (never below
	// zero), s. Jitter can reorder messages.
	Jitter float64
	// Loss is the probability, 0..1, that a message is dropped.
	Loss float64
}

// validate reports a configuration that cannot describe a link.
func (c NetworkConfig) validate() error {
	switch {
	case !(c.Latency >= 0) || math.IsInf(c.Latency, 0):
		return fmt.Errorf("network: latency %v s is not a non-negative duration", c.Latency)
	case !(c.Jitter >= 0) || math.IsInf(c.Jitter, 0):
		return fmt.Errorf("network: jitter %v s is not a non-negative duration", c.Jitter)
	case !(c.Loss >= 0 && c.Loss <= 1):
		return fmt.Errorf("network: loss %v is not a fraction in 0..1", c.Loss)
	}
	return nil
}

// arrivalEpsilon absorbs rounding in arrival times, s: a message due within it of a
// frame counts as arriving exactly then, and so waits for the next frame.
const arrivalEpsilon = 1e-9

// message is one state update in flight.
type message struct {
	arrive float64 // local time of arrival, s
	seq    uint64  // send order, breaks ties so delivery is deterministic
	state  deadreckon.State
}

// queue is a binary min-heap of messages by arrival time, then send order. It is
// written out rather than built on container/heap so that a send does not allocate.
type queue []message

func (q queue) less(i, j int) bool {
	if q[i].arrive != q[j].arrive {
		return q[i].arrive < q[j].arrive
	}
	return q[i].seq < q[j].seq
}

func (q *queue) push(m message) {
	*q = append(*q, m)
	h := *q
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

func (q *queue) pop() message {
	h := *q
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h = h[:last]
	for i := 0; ; {
		l, r, small := 2*i+1, 2*i+2, i
		if l < len(h) && h.less(l, small) {
			small = l
		}
		if r < len(h) && h.less(r, small) {
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

// Network carries state updates from the owner to the remote peer in simulated time:
// a seeded, deterministic event queue with no sockets. It is not safe for concurrent
// use.
type Network struct {
	cfg       NetworkConfig
	rng       *rand.Rand
	q         queue
	seq       uint64
	sent      int
	lost      int
	delivered int
}

// NewNetwork returns a link with the given impairments whose random draws come from
// seed: the same seed and the same sends give the same deliveries.
func NewNetwork(cfg NetworkConfig, seed uint64) (*Network, error) {
	if err := cfg.validate(); err != nil {
		return nil, err
	}
	return &Network{cfg: cfg, rng: rand.New(rand.NewPCG(seed, 0x7eadc0de))}, nil
}

// Send puts s on the link at local time now (s). It may be lost.
func (n *Network) Send(s deadreckon.State, now float64) {
	n.sent++
	// Draw both numbers for every message so that changing the loss rate does not
	// shift the delays of the messages that get through.
	lossDraw, jitterDraw := n.rng.Float64(), n.rng.Float64()
	if lossDraw < n.cfg.Loss {
		n.lost++
		return
	}
	delay := math.Max(0, n.cfg.Latency+n.cfg.Jitter*(2*jitterDraw-1))
	n.seq++
	n.q.push(message{arrive: now + delay, seq: n.seq, state: s})
}

// Delivery is a message handed out by Deliver.
type Delivery struct {
	// State is the update carried.
	State deadreckon.State
	// Arrival is the local time it arrived, s.
	Arrival float64
}

// Deliver appends to buf, in arrival order, every message that arrived before local
// time now (s), removes them from the link and returns the extended buffer. A message
// arriving exactly at now waits for the next call: a frame's updates are sent after it
// is rendered, so a remote frame at the same instant cannot have read them.
func (n *Network) Deliver(buf []Delivery, now float64) []Delivery {
	for len(n.q) > 0 && n.q[0].arrive < now-arrivalEpsilon {
		m := n.q.pop()
		buf = append(buf, Delivery{State: m.state, Arrival: m.arrive})
		n.delivered++
	}
	return buf
}

// Sent returns how many messages were put on the link.
func (n *Network) Sent() int { return n.sent }

// Lost returns how many messages the link dropped.
func (n *Network) Lost() int { return n.lost }

// Delivered returns how many messages Deliver has handed out.
func (n *Network) Delivered() int { return n.delivered }
