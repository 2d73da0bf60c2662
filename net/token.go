package net

import (
	"crypto/rand"
	"crypto/subtle"

	"github.com/treadline/treadline/net/wire"
)

// ReconnectToken is what a JoinAccepted hands a player: 16 random bytes known only
// to the host and that player. Presented in a later JoinRequest for the same name
// (ClientConfig.ReconnectToken), it lets a client whose connection died take its
// name back at once instead of waiting for the host to time the old connection out;
// without it, a name held by a player in the match is never handed to anyone else.
// The zero token is no token.
type ReconnectToken [wire.TokenSize]byte

// newReconnectToken returns a fresh random token, never the zero one.
func newReconnectToken() ReconnectToken {
	var t ReconnectToken
	for t == (ReconnectToken{}) {
		rand.Read(t[:]) // crypto/rand.Read never fails
	}
	return t
}

// matches reports, in constant time, whether presented is t. The zero token matches
// nothing, itself included.
func (t ReconnectToken) matches(presented ReconnectToken) bool {
	var zero ReconnectToken
	eq := subtle.ConstantTimeCompare(t[:], presented[:])
	notZero := 1 - subtle.ConstantTimeCompare(t[:], zero[:])
	return eq&notZero == 1
}

// tokenMemory remembers, by player name, the reconnect token the host last gave, for
// ttl seconds after it was given, at most capacity names. A join that presents the
// remembered token of its name has proved the passphrase before, so the guess limiter
// lets it through: a player who joined recently is not slowed by a guesser behind the
// same address. Times are seconds on the caller's clock. Not safe for concurrent use.
type tokenMemory struct {
	ttl      float64
	capacity int
	byName   map[string]rememberedToken
}

type rememberedToken struct {
	token ReconnectToken
	given float64
}

func newTokenMemory(ttl float64, capacity int) tokenMemory {
	return tokenMemory{ttl: ttl, capacity: max(1, capacity), byName: map[string]rememberedToken{}}
}

// remember records that name was given t at now, replacing its earlier token.
func (m *tokenMemory) remember(name string, t ReconnectToken, now float64) {
	if _, ok := m.byName[name]; !ok && len(m.byName) >= m.capacity {
		oldest, at := "", now
		for n, r := range m.byName {
			if now-r.given > m.ttl {
				delete(m.byName, n)
			} else if r.given <= at {
				oldest, at = n, r.given
			}
		}
		if len(m.byName) >= m.capacity {
			delete(m.byName, oldest)
		}
	}
	m.byName[name] = rememberedToken{token: t, given: now}
}

// knows reports whether t is the token name was given within ttl of now.
func (m *tokenMemory) knows(name string, t ReconnectToken, now float64) bool {
	r, ok := m.byName[name]
	return ok && now-r.given <= m.ttl && r.token.matches(t)
}
