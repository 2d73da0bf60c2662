package net

import "math"

// relayAgeBounds backs RelayAgeBounds; never written.
var relayAgeBounds = [...]float64{0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1}

// RelayAgeBounds returns the upper bounds, in seconds, of HostStats.RelayAge's
// buckets: from half a millisecond (loopback) to a second (a sender far behind).
func RelayAgeBounds() [len(relayAgeBounds)]float64 { return relayAgeBounds }

// Histogram counts observations into the buckets of RelayAgeBounds, plus one bucket
// for everything above the last bound; negative values are counted apart. It is a
// plain value: copying it copies the counts. The zero value is empty and ready to use.
type Histogram struct {
	// Counts[i] counts observations v with b[i-1] < v ≤ b[i], b = RelayAgeBounds()
	// (the first bucket takes 0 ≤ v ≤ b[0]); the last counts those above every bound.
	// Not cumulative.
	Counts [len(relayAgeBounds) + 1]uint64
	// Sum is the sum of the observed values, in seconds, negative ones not included.
	Sum float64
	// Count is the number of observations, negative ones not included.
	Count uint64
	// Negative counts observations below zero: no bucket holds them and they add
	// nothing to Sum or Count. For a relay age that is an owner's stamp ahead of the
	// host clock, a clock-sync error rather than a delay, which would pull the mean
	// down if it were summed.
	Negative uint64
}

// observe adds the value v in seconds n times (once per copy of what it measures).
// NaN is ignored.
func (h *Histogram) observe(v float64, n uint64) {
	switch {
	case math.IsNaN(v) || n == 0:
		return
	case v < 0:
		h.Negative += n
		return
	}
	i := 0
	for i < len(relayAgeBounds) && v > relayAgeBounds[i] {
		i++
	}
	h.Counts[i] += n
	h.Sum += v * float64(n)
	h.Count += n
}

// Cumulative returns the count of observations at or below each of RelayAgeBounds,
// the form Prometheus histograms take.
func (h *Histogram) Cumulative() [len(relayAgeBounds)]uint64 {
	var out [len(relayAgeBounds)]uint64
	var run uint64
	for i := range out {
		run += h.Counts[i]
		out[i] = run
	}
	return out
}
