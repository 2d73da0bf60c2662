package net

import "math"

// RelayAgeBounds are the upper bounds, in seconds, of HostStats.RelayAge's buckets:
// from half a millisecond (loopback) to a second (a sender far behind).
var RelayAgeBounds = [...]float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1}

// Histogram counts observations into the buckets of RelayAgeBounds, plus one bucket
// for everything above the last bound. It is a plain value: copying it copies the
// counts. The zero value is empty and ready to use.
type Histogram struct {
	// Counts[i] counts observations v with RelayAgeBounds[i-1] < v ≤ RelayAgeBounds[i]
	// (the first bucket takes everything ≤ RelayAgeBounds[0], negative values
	// included); the last counts those above every bound. Not cumulative.
	Counts [len(RelayAgeBounds) + 1]uint64
	// Sum is the sum of the observed values, in seconds.
	Sum float64
	// Count is the number of observations.
	Count uint64
}

// observe adds one value in seconds. NaN is ignored.
func (h *Histogram) observe(v float64) {
	if math.IsNaN(v) {
		return
	}
	i := 0
	for i < len(RelayAgeBounds) && v > RelayAgeBounds[i] {
		i++
	}
	h.Counts[i]++
	h.Sum += v
	h.Count++
}

// Cumulative returns the count of observations at or below each of RelayAgeBounds,
// the form Prometheus histograms take.
func (h *Histogram) Cumulative() [len(RelayAgeBounds)]uint64 {
	var out [len(RelayAgeBounds)]uint64
	var run uint64
	for i := range out {
		run += h.Counts[i]
		out[i] = run
	}
	return out
}
