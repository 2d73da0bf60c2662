package impair

import (
	"math/rand/v2"
	"time"
)

// Model is the fate of the packets of one impaired direction, on any clock: which are
// lost (independently or in bursts), when each is delivered (latency and jitter,
// never reordered by jitter alone), which are held back to be reordered and which
// are duplicated. Conn runs it in real time; the dead-reckoning lab (package lab)
// runs it in simulated time, so both impair a link the same way. Random draws come
// from the generator passed in, in the order Lose then Schedule. The zero Model of a
// Link is ready: NewModel only validates. Not safe for concurrent use.
type Model struct {
	link Link
	bad  bool          // in a loss burst (Gilbert model)
	last time.Duration // latest in-order delivery time, for FIFO under jitter
}

// NewModel returns the model of link l, or an error for probabilities outside [0, 1]
// or negative durations.
func NewModel(l Link) (*Model, error) {
	if err := l.validate(); err != nil {
		return nil, err
	}
	return &Model{link: l}, nil
}

// Link returns the impairment the model applies.
func (m *Model) Link() Link { return m.link }

// Lose decides whether the next packet is lost.
func (m *Model) Lose(rng *rand.Rand) bool {
	l := &m.link
	if l.Loss <= 0 {
		return false
	}
	if l.LossBurst <= 1 {
		return rng.Float64() < l.Loss
	}
	// Two states: bad drops every packet and lasts LossBurst packets on average;
	// good is left with the probability that makes the long-run loss Loss.
	if m.bad {
		if rng.Float64() < 1/l.LossBurst {
			m.bad = false
		}
	} else if rng.Float64() < l.Loss/(l.LossBurst*(1-l.Loss)) {
		m.bad = true
	}
	return m.bad
}

// Fate is when a packet that was not lost arrives.
type Fate struct {
	// At is its delivery time on the clock Schedule was given.
	At time.Duration
	// Reordered reports that it was held back by ReorderDelay.
	Reordered bool
	// Duplicate reports that a copy follows at DuplicateAt.
	Duplicate   bool
	DuplicateAt time.Duration
}

// Schedule decides when a packet sent at now (any clock, as a duration since its
// epoch) is delivered.
func (m *Model) Schedule(rng *rand.Rand, now time.Duration) Fate {
	l := &m.link
	delay := l.Latency
	if l.Jitter > 0 {
		delay += time.Duration((2*rng.Float64() - 1) * float64(l.Jitter))
		if delay < 0 {
			delay = 0
		}
	}
	f := Fate{At: now + delay}
	if l.Reorder > 0 && rng.Float64() < l.Reorder {
		rd := l.ReorderDelay
		if rd == 0 {
			rd = DefaultReorderDelay
		}
		f.At += rd
		f.Reordered = true
	} else {
		if f.At < m.last {
			f.At = m.last
		}
		m.last = f.At
	}
	if l.Duplicate > 0 && rng.Float64() < l.Duplicate {
		dd := l.DuplicateDelay
		if dd == 0 {
			dd = DefaultDuplicateDelay
		}
		f.Duplicate, f.DuplicateAt = true, f.At+dd
	}
	return f
}
