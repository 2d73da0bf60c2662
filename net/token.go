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
