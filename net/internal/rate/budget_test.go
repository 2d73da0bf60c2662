package rate

import (
	"math"
	"testing"
)

// TestBudgetSecond spends a budget as a backlogged sender does (a datagram's worth
// whenever the budget holds it, and now and then bytes that must go) and checks
// every second, from every 10 ms on: what was taken stays within the rate, and
// what went besides adds only itself.
func TestBudgetSecond(t *testing.T) {
	for _, tc := range []struct {
		name               string
		rate, burst, swing float64
		datagram           float64 // taken whenever Tokens holds it
		forced             float64 // spent every forceEvery steps
		forceEvery         int
	}{
		{"backlog", 32000, 3200, 1199, 1199, 0, 0},
		{"small datagrams", 32000, 3200, 1199, 40, 0, 0},
		{"forced", 32000, 3200, 1199, 600, 300, 37},
		{"no swing", 8000, 1199, 0, 1199, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const dt = 0.002
			b := NewBudget(tc.rate, tc.burst, tc.swing, 0)
			var sent, forced []float64 // per step
			for i := range 5000 {
				now := float64(i) * dt
				var s, f float64
				if tc.forceEvery > 0 && i%tc.forceEvery == 0 {
					b.Spend(tc.forced, now)
					f = tc.forced
				}
				for b.TakeN(tc.datagram, now) {
					s += tc.datagram
				}
				sent, forced = append(sent, s), append(forced, f)
			}
			per := int(math.Round(1 / dt))
			total, worst := 0.0, 0.0
			for i := range sent {
				total += sent[i]
			}
			for i := 0; i+per <= len(sent); i += 5 {
				var s, f float64
				for _, v := range sent[i : i+per] {
					s += v
				}
				for _, v := range forced[i : i+per] {
					f += v
				}
				// The window counts in 10 ms slots: a second that starts inside
				// one may hold that slot's bytes besides.
				if s+f > tc.rate+tc.datagram+f+1e-6 {
					t.Fatalf("the second from %.3f s took %.0f B and spent %.0f B, budget %.0f B/s", float64(i)*dt, s, f, tc.rate)
				}
				worst = math.Max(worst, s+f)
			}
			// The backlog gets what the bucket earns, what was forced included, less
			// a datagram a second at most (the window admits whole ones).
			secs := float64(len(sent)) * dt
			var f float64
			for _, v := range forced {
				f += v
			}
			if got, want := (total+f)/secs, tc.rate-math.Max(tc.swing, tc.datagram); got < want*0.95 {
				t.Errorf("%.0f B/s taken and forced, want at least %.0f", got, want*0.95)
			}
			t.Logf("%.0f B/s taken; worst second %.0f B", total/secs, worst)
		})
	}
}

func TestBudgetTokens(t *testing.T) {
	b := NewBudget(1000, 500, 100, 0)
	if got := b.Tokens(0); got != 500 {
		t.Fatalf("a new budget holds %v tokens, want its burst 500", got)
	}
	if !b.TakeN(500, 0) || b.TakeN(1, 0) {
		t.Fatal("a full budget did not give its burst, or gave more")
	}
	// The bucket earns 900 B/s (rate less swing): 450 by 0.5 s, 500 (full) by 1 s.
	if got := b.Tokens(0.5); math.Abs(got-450) > 1e-9 {
		t.Fatalf("at 0.5 s: %v tokens, want 450", got)
	}
	// At 0.9 s the bucket is full again, but the second holds 500 of 1000 taken.
	b.TakeN(450, 0.5)
	if got := b.Tokens(0.999); math.Abs(got-50) > 1e-9 {
		t.Fatalf("at 0.999 s: %v tokens, want what the second has left, 50", got)
	}
	// Once the first 500 leave the window, the bucket's 449.1 (0.499 s at 900 B/s) holds.
	if got := b.Tokens(1.0); math.Abs(got-450) > 1e-9 {
		t.Fatalf("at 1 s: %v tokens, want 450", got)
	}
	// What must go counts in the window, and takes the bucket into debt by one burst at most.
	b.Spend(5000, 1.0)
	if got := b.Second(1.0); got != 5450 {
		t.Fatalf("the second holds %v B, want 5450", got)
	}
	if got := b.Tokens(1.0); got != -4450 {
		t.Fatalf("after a storm: %v tokens, want -4450 (the window's)", got)
	}
	if got := b.Tokens(2.0); math.Abs(got-400) > 1e-9 {
		t.Fatalf("a second after the storm: %v tokens, want the bucket's 400 (-500 + 900)", got)
	}
	// Time running backwards moves nothing.
	if got := b.Tokens(1.5); got > 400 {
		t.Fatalf("earlier than before: %v tokens", got)
	}
	var z Budget
	if z.Rate() != 0 || z.TakeN(1, 0) {
		t.Fatal("the zero Budget admitted a byte")
	}
}
