package admission

import "testing"

// The host's defaults (net.DefaultFloodRate, net.DefaultFloodFor), which the cases
// below are about.
const (
	floodRate = 50.0
	floodFor  = 3
)

func TestFloodGuard(t *testing.T) {
	type burst struct {
		at, n float64
	}
	// every returns n items per tick of dt from t0 to t1.
	every := func(t0, t1, dt, n float64) []burst {
		var out []burst
		for at := t0; at < t1-1e-9; at += dt {
			out = append(out, burst{at, n})
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		bursts []burst
		tripAt float64 // -1: never
	}{
		{"honest: a few bad updates", every(0, 10, 0.5, 1), -1},
		{"just under the limit for long", every(0, 20, 0.1, 5), -1},
		{"one big burst", []burst{{0.5, 10000}}, -1},
		{"two seconds of flood, then calm", append(every(0, 2, 0.01, 10), every(2, 10, 0.5, 1)...), -1},
		{"flood with a quiet second between", append(every(0, 2, 0.01, 10), every(3, 5, 0.01, 10)...), -1},
		{"sustained flood", every(0, 10, 0.01, 10), 2},
		{"328 000 datagrams in 10 s", every(0, 10, 0.001, 33), 2},
	} {
		f := NewFloodGuard(floodRate, floodFor, 0)
		tripped := -1.0
		for _, b := range tc.bursts {
			if f.Add(b.n, b.at) {
				tripped = b.at
				break
			}
		}
		switch {
		case tc.tripAt < 0 && tripped >= 0:
			t.Errorf("%s: disconnected at %.3f s, want never", tc.name, tripped)
		case tc.tripAt >= 0 && (tripped < tc.tripAt || tripped >= tc.tripAt+1):
			t.Errorf("%s: disconnected at %.3f s, want within the second after %v s", tc.name, tripped, tc.tripAt)
		}
	}
	var zero FloodGuard
	if zero.Add(1e9, 5) {
		t.Error("the zero FloodGuard tripped")
	}
}
