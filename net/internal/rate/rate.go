// Package rate limits and measures rates of events on a clock the caller passes in,
// in seconds: the host's per-client token buckets and the relay and traffic rates
// its stats report. Time is an argument, so that tests move it by hand. Values are
// not safe for concurrent use; their owner (a run loop, or a lock) serializes.
package rate

import "math"

// Bucket is a token bucket: it holds up to burst tokens and earns rate tokens per
// second. The zero Bucket holds none and earns none: it admits nothing.
type Bucket struct {
	rate, burst float64
	tokens      float64
	last        float64 // time of the last refill, s
}

// NewBucket returns a full bucket of burst tokens earning rate per second from now.
func NewBucket(rate, burst, now float64) Bucket {
	return Bucket{rate: rate, burst: burst, tokens: burst, last: now}
}

// refill adds the tokens earned since the last call. Time running backwards earns
// nothing.
func (b *Bucket) refill(now float64) {
	if now > b.last {
		b.tokens = math.Min(b.burst, b.tokens+(now-b.last)*b.rate)
		b.last = now
	}
}

// Take removes one token at now if there is one, and reports whether it did.
func (b *Bucket) Take(now float64) bool {
	b.refill(now)
	if b.tokens >= 1 {
		b.tokens--
		return true
	}
	return false
}

// TakeN removes n tokens at now if the bucket holds that many, and reports whether
// it did: a bucket of bytes pays for a message of n bytes.
func (b *Bucket) TakeN(n, now float64) bool {
	b.refill(now)
	if b.tokens >= n {
		b.tokens -= n
		return true
	}
	return false
}

// Spend removes n tokens at now whether or not the bucket holds them: what must go
// out goes, and the debt delays what may wait.
func (b *Bucket) Spend(n, now float64) {
	b.refill(now)
	b.tokens -= n
}

// Burst returns how many tokens the bucket holds at most.
func (b *Bucket) Burst() float64 { return b.burst }

// Tokens returns the tokens the bucket holds at now (negative: in debt).
func (b *Bucket) Tokens(now float64) float64 {
	b.refill(now)
	return b.tokens
}

// Wait returns how long, in seconds from now, until the bucket holds a token: 0 when
// it holds one now, +Inf when it earns none.
func (b *Bucket) Wait(now float64) float64 {
	b.refill(now)
	if b.tokens >= 1 {
		return 0
	}
	if b.rate <= 0 {
		return math.Inf(1)
	}
	return (1 - b.tokens) / b.rate
}

// Full reports whether the bucket is full at now: as good as a new one.
func (b *Bucket) Full(now float64) bool {
	b.refill(now)
	return b.tokens >= b.burst
}

// meterBucket is the width, in seconds, of the windows a Meter folds into its average.
const meterBucket = 0.1

// Meter measures a per-second rate, smoothed exponentially with a one-second time
// constant. The zero Meter is ready: it starts at the first Add or Value.
type Meter struct {
	rate  float64
	accum float64 // events in the current window
	last  float64 // start of the current window, s
}

// Add counts n events at now.
func (r *Meter) Add(n, now float64) {
	r.roll(now)
	r.accum += n
}

// roll folds whole windows that ended before now into the average.
func (r *Meter) roll(now float64) {
	if r.last == 0 {
		r.last = now
	}
	for steps := 0; now-r.last >= meterBucket; steps++ {
		if steps > 50 { // long idle: everything decayed
			r.rate, r.accum, r.last = 0, 0, now
			return
		}
		alpha := 1 - math.Exp(-meterBucket)
		r.rate += alpha * (r.accum/meterBucket - r.rate)
		r.accum = 0
		r.last += meterBucket
	}
}

// Value returns the smoothed rate at now, per second.
func (r *Meter) Value(now float64) float64 {
	r.roll(now)
	return r.rate
}
