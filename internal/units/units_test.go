package units

import (
	"math"
	"testing"
	"time"
)

// TestDuration checks rounding to the nearest nanosecond (0.3 s is 0.29999… in
// float64 and must not truncate to 299.999999 ms), both signs, and the range ends.
func TestDuration(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want time.Duration
	}{
		{0, 0},
		{1, time.Second},
		{0.3, 300 * time.Millisecond},
		{-0.3, -300 * time.Millisecond},
		{1.5e-9, 2},
		{0.4e-9, 0},
		{1.0 / 60, 16666667},
		{9.3e9, math.MaxInt64},
		{-9.3e9, math.MinInt64},
		{math.Inf(1), math.MaxInt64},
		{math.Inf(-1), math.MinInt64},
		{math.NaN(), 0},
	} {
		if got := Duration(c.s); got != c.want {
			t.Errorf("Duration(%v) = %v, want %v", c.s, got, c.want)
		}
	}
}

// TestRoundTrip checks that seconds of a Duration convert back to the same Duration.
func TestRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{0, 1, -1, time.Millisecond, 16666667, 150 * time.Millisecond, time.Hour, -90 * time.Second} {
		if got := Duration(Seconds(d)); got != d {
			t.Errorf("Duration(Seconds(%v)) = %v, want it back", d, got)
		}
		if got, want := Seconds(d), float64(d)/1e9; math.Abs(got-want) > 1e-15*math.Abs(want) {
			t.Errorf("Seconds(%v) = %v, want %v", d, got, want)
		}
	}
}
