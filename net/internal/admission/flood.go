package admission

import "math"

// FloodGuard decides when a client's bad traffic is a flood to disconnect: more than
// limit bad items in each of hold consecutive one-second windows. A single burst, or
// bad traffic that stays under the limit, never trips it; a client that floods is
// cut off within hold seconds. Times are seconds on the caller's clock. The zero
// value never trips. Not safe for concurrent use.
type FloodGuard struct {
	limit  float64
	hold   int
	start  float64 // start of the current window
	count  float64 // bad items in the current window
	streak int     // consecutive windows over the limit before the current one
}

// NewFloodGuard returns a guard that trips after more than limit bad items a second
// for hold seconds in a row, counting from now.
func NewFloodGuard(limit float64, hold int, now float64) FloodGuard {
	return FloodGuard{limit: limit, hold: hold, start: now}
}

// Add counts n bad items at now and reports whether the client is now flooding.
func (f *FloodGuard) Add(n, now float64) bool {
	if f.hold <= 0 {
		return false
	}
	if el := now - f.start; el >= 1 {
		switch {
		case el >= 2: // a whole quiet window in between
			f.streak = 0
		case f.count > f.limit:
			f.streak++
		default:
			f.streak = 0
		}
		f.start += math.Floor(el)
		f.count = 0
	}
	f.count += n
	return f.count > f.limit && f.streak+1 >= f.hold
}
