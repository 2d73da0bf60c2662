package impair

import (
	"fmt"
	"math/rand/v2"
	"time"
)

// Delivery is what a Path does with one packet.
type Delivery struct {
	// Lost reports that the packet never arrives; the other fields are then zero.
	Lost bool
	// At is when the packet arrives, on the clock of the time it was sent.
	At time.Duration
	// Reordered reports that the packet was held back by the link's ReorderDelay, so
	// that packets sent after it may overtake it.
	Reordered bool
	// Duplicated reports that a second copy arrives at DuplicateAt.
	Duplicated  bool
	DuplicateAt time.Duration
}

// Path is the model of one impaired direction: given when a packet is sent, it
// decides whether and when it arrives, with the link's latency, jitter, loss (bursty
// or not), duplication and reordering. Time is the caller's: Conn runs one Path per
// direction on the wall clock, and simulations (an in-memory match, the lab) run it on
// their own. The same link, seed and send times give the same deliveries. Not safe for
// concurrent use.
type Path struct {
	link Link
	rng  *rand.Rand
	last time.Duration // latest in-order arrival, for FIFO under jitter
	bad  bool          // in a loss burst (Gilbert model)
}

// NewPath returns the model of link seeded with seed. It returns an error for
// probabilities outside [0, 1], negative durations or an impossible burst.
func NewPath(link Link, seed uint64) (*Path, error) {
	if err := link.validate(); err != nil {
		return nil, err
	}
	return &Path{link: link, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}, nil
}

// Link returns the link the path models.
func (p *Path) Link() Link { return p.link }

// Send decides the fate of a packet sent at time at. Send times should not decrease;
// jitter alone never reorders packets, since a packet arrives no earlier than the one
// sent before it.
func (p *Path) Send(at time.Duration) Delivery {
	l := &p.link
	if p.lose() {
		return Delivery{Lost: true}
	}
	delay := l.Latency
	if l.Jitter > 0 {
		delay += time.Duration((2*p.rng.Float64() - 1) * float64(l.Jitter))
		delay = max(delay, 0)
	}
	d := Delivery{At: at + delay}
	if l.Reorder > 0 && p.rng.Float64() < l.Reorder {
		d.At += orDefault(l.ReorderDelay, DefaultReorderDelay)
		d.Reordered = true
	} else {
		d.At = max(d.At, p.last)
		p.last = d.At
	}
	if l.Duplicate > 0 && p.rng.Float64() < l.Duplicate {
		d.Duplicated = true
		d.DuplicateAt = d.At + orDefault(l.DuplicateDelay, DefaultDuplicateDelay)
	}
	return d
}

// lose decides whether the next packet is lost.
func (p *Path) lose() bool {
	l := &p.link
	if l.Loss <= 0 {
		return false
	}
	if l.LossBurst <= 1 {
		return p.rng.Float64() < l.Loss
	}
	// Two states: bad drops every packet and lasts LossBurst packets on average;
	// good is left with the probability that makes the long-run loss Loss.
	if p.bad {
		if p.rng.Float64() < 1/l.LossBurst {
			p.bad = false
		}
	} else if p.rng.Float64() < l.Loss/(l.LossBurst*(1-l.Loss)) {
		p.bad = true
	}
	return p.bad
}

func orDefault(d, def time.Duration) time.Duration {
	if d == 0 {
		return def
	}
	return d
}

// String describes the link in the words of a command line: "100ms ± 20ms, 2% loss".
func (l Link) String() string {
	if !l.Active() {
		return "unimpaired"
	}
	s := fmt.Sprintf("%v ± %v, %.3g%% loss", l.Latency, l.Jitter, l.Loss*100)
	if l.LossBurst > 1 {
		s += fmt.Sprintf(" in bursts of %.3g", l.LossBurst)
	}
	if l.Duplicate > 0 {
		s += fmt.Sprintf(", %.3g%% duplicated", l.Duplicate*100)
	}
	if l.Reorder > 0 {
		s += fmt.Sprintf(", %.3g%% reordered", l.Reorder*100)
	}
	return s
}
