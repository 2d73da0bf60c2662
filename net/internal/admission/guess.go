package admission

import (
	"container/list"
	"net/netip"

	"github.com/treadline/treadline/net/internal/rate"
)

// GuessLimiter slows passphrase guessing. It never looks at a right passphrase: it
// only decides whether a join attempt's proof is checked at all, and learns from the
// wrong ones.
//
//   - Per prefix: a token bucket of burst wrong guesses, refilled one per interval
//     seconds. A prefix whose bucket is empty is refused before its proof is checked
//     and told how long to wait.
//   - Globally, adaptively: a prefix that has failed before also needs a token from
//     a global bucket (globalRate per second), so that a guesser spread over many
//     prefixes is held to the global rate once each has failed once. A prefix that
//     never failed does not need one, so honest players elsewhere are never slowed
//     by someone else's guessing, however wide.
//   - Memory: at most capacity prefixes, the least recently seen forgotten first;
//     never wiped. A forgotten prefix starts afresh, so only an attacker holding
//     more prefixes than capacity gains anything: one fresh guess per prefix each
//     time it cycles through them all.
//
// Honest players behind a guesser's address share its prefix's budget: they are
// refused while the guesser holds it empty, each refusal naming the wait (at most
// interval seconds), and admitted at the first check the guesser leaves them, at
// the latest interval seconds after it stops. An address is all the host knows of a
// first-time joiner, so a guesser that keeps guessing can keep such a player out
// that long. (The host lets a player who joined in the last ten minutes, and presents
// the reconnect token it was given, skip the limiter.)
//
// Times are seconds on the caller's clock. Not safe for concurrent use.
type GuessLimiter struct {
	rate, burst float64 // per prefix
	global      rate.Bucket
	capacity    int
	entries     map[netip.Prefix]*list.Element
	lru         list.List // of *guessEntry, most recently seen first
}

type guessEntry struct {
	prefix netip.Prefix
	bucket rate.Bucket
}

// NewGuessLimiter returns a limiter with burst wrong guesses per prefix refilled one
// per interval seconds, a global budget of globalRate per second (globalBurst deep)
// for prefixes that failed before, remembering up to capacity prefixes.
func NewGuessLimiter(burst int, interval, globalRate float64, globalBurst, capacity int, now float64) *GuessLimiter {
	g := &GuessLimiter{rate: 1 / interval, burst: float64(burst), capacity: max(1, capacity),
		global:  rate.NewBucket(globalRate, float64(globalBurst), now),
		entries: map[netip.Prefix]*list.Element{}}
	g.lru.Init()
	return g
}

// Allow reports whether an attempt from prefix p may have its proof checked at now.
// When it may not, wait is how long in seconds until it may.
func (g *GuessLimiter) Allow(p netip.Prefix, now float64) (ok bool, wait float64) {
	el := g.entries[p]
	if el == nil {
		return true, 0 // never failed (or long forgotten)
	}
	g.lru.MoveToFront(el)
	if wait := el.Value.(*guessEntry).bucket.Wait(now); wait > 0 {
		return false, wait
	}
	if wait := g.global.Wait(now); wait > 0 {
		return false, wait
	}
	return true, 0
}

// Fail records a wrong passphrase from prefix p at now.
func (g *GuessLimiter) Fail(p netip.Prefix, now float64) {
	el := g.entries[p]
	if el == nil {
		if g.lru.Len() >= g.capacity {
			old := g.lru.Back()
			delete(g.entries, old.Value.(*guessEntry).prefix)
			g.lru.Remove(old)
		}
		el = g.lru.PushFront(&guessEntry{prefix: p, bucket: rate.NewBucket(g.rate, g.burst, now)})
		g.entries[p] = el
	} else {
		g.lru.MoveToFront(el)
	}
	el.Value.(*guessEntry).bucket.Take(now)
	g.global.Take(now)
}

// Tracked returns how many prefixes the limiter remembers.
func (g *GuessLimiter) Tracked() int { return g.lru.Len() }
