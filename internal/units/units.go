// Package units converts between the two ways Treadline writes time: float64
// seconds, the unit of simulation, match time and the wire, and time.Duration, the
// unit of APIs, flags and clocks. It is the one place the conversion is written.
package units

import (
	"math"
	"time"
)

// Seconds returns d in seconds.
func Seconds(d time.Duration) float64 { return d.Seconds() }

// Duration returns s seconds as a Duration, rounded to the nearest nanosecond. NaN
// gives 0; values beyond the Duration range (about ±292 years, infinities
// included) give the nearest end of it.
func Duration(s float64) time.Duration {
	ns := math.Round(s * 1e9)
	switch {
	case ns != ns:
		return 0
	case ns >= math.MaxInt64:
		return math.MaxInt64
	case ns <= math.MinInt64:
		return math.MinInt64
	}
	return time.Duration(ns)
}
