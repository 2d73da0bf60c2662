package net

import (
	"container/list"
	"net/netip"
	"time"
)

// Defaults of the passphrase guess limiter.
const (
	// DefaultGuessBurst is how many wrong passphrases one address prefix may send in
	// a row before it is slowed.
	DefaultGuessBurst = 5
	// DefaultGuessInterval is how often a slowed prefix earns one more check.
	DefaultGuessInterval = 5 * time.Second
	// DefaultGlobalGuessRate is how many wrong passphrases per second the host
	// checks, summed over every prefix that has already failed one.
	DefaultGlobalGuessRate = 1.0
	// DefaultGlobalGuessBurst is the depth of that global budget.
	DefaultGlobalGuessBurst = 30
	// DefaultGuessPrefixes is how many prefixes the limiter remembers; past that the
	// least recently seen one is forgotten (about 100 bytes each).
	DefaultGuessPrefixes = 4096
)

// guessLimiter slows passphrase guessing. It never looks at a right passphrase: it
// only decides whether a join attempt's proof is checked at all, and learns from the
// wrong ones.
//
//   - Per prefix (/24 or /64): a token bucket of burst wrong guesses, refilled one
//     per interval seconds. A prefix whose bucket is empty is refused before its
//     proof is checked and told how long to wait.
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
// that long. A player who joined in the last ten minutes presents the reconnect
// token it was given and skips the limiter (Host.mayGuess).
//
// Times are seconds on the caller's clock. Not safe for concurrent use.
type guessLimiter struct {
	rate, burst float64 // per prefix
	global      tokenBucket
	capacity    int
	entries     map[netip.Prefix]*list.Element
	lru         list.List // of *guessEntry, most recently seen first
}

type guessEntry struct {
	prefix netip.Prefix
	bucket tokenBucket
}

// newGuessLimiter returns a limiter with burst wrong guesses per prefix refilled one
// per interval seconds, a global budget of globalRate per second (globalBurst deep)
// for prefixes that failed before, remembering up to capacity prefixes.
func newGuessLimiter(burst int, interval, globalRate float64, globalBurst, capacity int, now float64) *guessLimiter {
	g := &guessLimiter{rate: 1 / interval, burst: float64(burst), capacity: max(1, capacity),
		global:  newTokenBucket(globalRate, float64(globalBurst), now),
		entries: map[netip.Prefix]*list.Element{}}
	g.lru.Init()
	return g
}

// allow reports whether an attempt from prefix p may have its proof checked at now.
// When it may not, wait is how long in seconds until it may.
func (g *guessLimiter) allow(p netip.Prefix, now float64) (ok bool, wait float64) {
	el := g.entries[p]
	if el == nil {
		return true, 0 // never failed (or long forgotten)
	}
	g.lru.MoveToFront(el)
	b := &el.Value.(*guessEntry).bucket
	b.refill(now)
	if b.tokens < 1 {
		return false, (1 - b.tokens) / b.rate
	}
	g.global.refill(now)
	if g.global.tokens < 1 {
		return false, (1 - g.global.tokens) / g.global.rate
	}
	return true, 0
}

// fail records a wrong passphrase from prefix p at now.
func (g *guessLimiter) fail(p netip.Prefix, now float64) {
	el := g.entries[p]
	if el == nil {
		if g.lru.Len() >= g.capacity {
			old := g.lru.Back()
			delete(g.entries, old.Value.(*guessEntry).prefix)
			g.lru.Remove(old)
		}
		el = g.lru.PushFront(&guessEntry{prefix: p, bucket: newTokenBucket(g.rate, g.burst, now)})
		g.entries[p] = el
	} else {
		g.lru.MoveToFront(el)
	}
	el.Value.(*guessEntry).bucket.take(now)
	g.global.take(now)
}

// tracked returns how many prefixes the limiter remembers.
func (g *guessLimiter) tracked() int { return g.lru.Len() }
