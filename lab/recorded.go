package lab

import (
	"sort"

	"github.com/treadline/treadline/deadreckon"
	"github.com/treadline/treadline/internal/units"
	"github.com/treadline/treadline/net/impair"
)

// RecordedLink is the link of a recorded match (drlab -replay over the recorded
// link): the updates of one tank that reached the recorder, each at its recorded
// arrival time, in place of an owner publishing the truth over a modelled link. Every
// algorithm of a run reckons the same recorded stream, which the game's publisher
// made. Times are path times: seconds from the path's first frame.
type RecordedLink struct {
	// Deliveries are the updates that arrived, in arrival order; the first of a tank's
	// life is its spawn (Break). State.Time is the owner's stamp on the host clock.
	Deliveries []Delivery
	// Sends are the times the owner published, in order, when the recording knows
	// them (the recorder's own tanks); nil counts each delivery as one send.
	Sends []float64
	// UpdateBytes is the size counted per update, bytes.
	UpdateBytes int
	// ClockOffset returns the host clock minus path time at path time t, s: what
	// latency compensation and the Delayed algorithm convert owner stamps with.
	ClockOffset func(t float64) float64
	// Reckon is the reckoning in force when the match was recorded: what the "game"
	// algorithm runs; the others take its settings with their own algorithm.
	Reckon deadreckon.Config
}

// network returns a lab link that hands out the recorded deliveries.
func (l *RecordedLink) network() *Network {
	n, _ := NewNetwork(impair.Link{}, 0) // an unimpaired link is always valid
	for _, d := range l.Deliveries {
		n.push(d.State, d.Break, units.Duration(d.Arrival))
	}
	n.sent = len(l.sends())
	n.lost = max(0, n.sent-len(l.Deliveries))
	return n
}

// sends returns the publish times counted.
func (l *RecordedLink) sends() []float64 {
	if l.Sends != nil {
		return l.Sends
	}
	out := make([]float64, len(l.Deliveries))
	for i, d := range l.Deliveries {
		out[i] = d.Arrival
	}
	sort.Float64s(out)
	return out
}

// reckon returns the remote's configuration for algorithm a over the recorded link:
// clamped to the ground as the game clamps when the path has ground, unclamped (as a
// trace) when not.
func (l *RecordedLink) reckon(a Algo, ground bool) deadreckon.Config {
	cfg := l.Reckon
	if !a.Game {
		cfg.Algorithm, cfg.CompensateLatency = a.Algorithm, a.CompensateLatency
	}
	if !ground {
		cfg.Clamp = deadreckon.Clamp{}
	}
	return cfg
}

// recordedFrame counts the owner's sends up to path time t and sets the remote's
// clock offset: the recorded link's side of a frame.
func (r *simRun) recordedFrame(t float64, measured bool) {
	l := r.s.Recorded
	for r.sendIdx < len(r.sendTimes) && r.sendTimes[r.sendIdx] <= t {
		r.sendIdx++
		r.sent++
		if measured {
			r.measuredSent++
			r.measuredBytes += l.UpdateBytes
		}
	}
	if l.ClockOffset != nil {
		r.actor.SetClockOffset(l.ClockOffset(t))
	}
}
