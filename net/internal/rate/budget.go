package rate

import "math"

// Budget is a downlink budget of bytes: a token bucket that spreads what goes over
// the second, and a window that holds what goes in any second to the rate. A bucket
// alone lets a second take the rate and what the bucket held at its start: up to a
// burst more, and at a budget that is always spent (a backlog waiting), the seconds
// that start with the bucket fuller than they end go over the rate about as often as
// not. The window counts what went in the last second, in windowSlots slots, and
// admits a send only while the second holds it; what must go whatever the budget
// (Spend) counts too.
//
// The zero Budget admits nothing.
type Budget struct {
	bucket Bucket
	rate   float64
	slots  [windowSlots]float64
	cur    int64   // the slot now: floor(time / windowSlot)
	sum    float64 // what the slots hold
}

// The window's slots.
const (
	windowSlots = 100
	windowSlot  = 1.0 / windowSlots // s
)

// NewBudget returns a budget of rate bytes a second whose bucket earns swing less
// and holds burst, full at now. swing is how much fuller than it ends a second the
// bucket may start it while a backlog waits (the bytes its owner waits for before it
// spends them at once): at the full rate, such seconds would go over it.
func NewBudget(rate, burst, swing, now float64) Budget {
	return Budget{bucket: NewBucket(math.Max(0, rate-swing), burst, now), rate: rate, cur: slotOf(now)}
}

func slotOf(now float64) int64 { return int64(math.Floor(now / windowSlot)) }

// advance moves the window to now: the slots that fell out of the last second are
// emptied. Time running backwards moves nothing.
func (b *Budget) advance(now float64) {
	s := slotOf(now)
	if s <= b.cur {
		return
	}
	if s-b.cur >= windowSlots {
		b.slots, b.sum = [windowSlots]float64{}, 0
	} else {
		for i := b.cur + 1; i <= s; i++ {
			k := i % windowSlots
			b.sum -= b.slots[k]
			b.slots[k] = 0
		}
		b.sum = math.Max(0, b.sum)
	}
	b.cur = s
}

// add counts n bytes in the slot now.
func (b *Budget) add(n float64) {
	b.slots[b.cur%windowSlots] += n
	b.sum += n
}

// Tokens returns how many bytes may go at now: what the bucket holds, at most what
// the last second has left of the rate. Negative: in debt.
func (b *Budget) Tokens(now float64) float64 {
	b.advance(now)
	return math.Min(b.bucket.Tokens(now), b.rate-b.sum)
}

// TakeN spends n bytes at now if Tokens holds them, and reports whether it did.
func (b *Budget) TakeN(n, now float64) bool {
	if b.Tokens(now) < n {
		return false
	}
	b.bucket.Spend(n, now)
	b.add(n)
	return true
}

// Spend counts n bytes at now that go whatever the budget: the window counts them
// all, and the bucket goes into debt by one burst at most, so that a storm of them
// (a player joining a full match hears of every tank) holds the rest back for
// about a second, not for as long as the storm's bytes would take at the rate.
func (b *Budget) Spend(n, now float64) {
	b.advance(now)
	b.bucket.Spend(math.Min(n, math.Max(0, b.bucket.Tokens(now)+b.bucket.Burst())), now)
	b.add(n)
}

// Rate returns the budget's bytes a second.
func (b *Budget) Rate() float64 { return b.rate }

// Burst returns how many bytes the bucket holds at most.
func (b *Budget) Burst() float64 { return b.bucket.Burst() }

// Second returns the bytes counted in the last second at now.
func (b *Budget) Second(now float64) float64 {
	b.advance(now)
	return b.sum
}
