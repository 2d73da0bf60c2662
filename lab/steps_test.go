package lab

import (
	"math"
	"testing"
)

// TestRunWarmup checks the warm-up a run takes from Setup.Warmup: the default for
// zero, none for a negative or NaN one, the value otherwise.
func TestRunWarmup(t *testing.T) {
	for _, tc := range []struct{ in, want float64 }{
		{0, DefaultWarmup},
		{-1, 0},
		{math.NaN(), 0},
		{0.5, 0.5},
		{30, 30},
	} {
		if got := runWarmup(tc.in); got != tc.want {
			t.Errorf("runWarmup(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

// TestDefaultAlgos checks each mode's default algorithms, which must all parse.
func TestDefaultAlgos(t *testing.T) {
	for _, tc := range []struct {
		mode Mode
		want string
	}{
		{Compare, DefaultAlgos},
		{Table, "bezier,pvb"},
		{Budget, "pvb"},
	} {
		got := defaultAlgos(tc.mode)
		if got != tc.want {
			t.Errorf("defaultAlgos(%v) = %q, want %q", tc.mode, got, tc.want)
		}
		if _, err := ParseAlgos(got); err != nil {
			t.Errorf("defaultAlgos(%v) = %q does not parse: %v", tc.mode, got, err)
		}
	}
}
